//! Text processing shared by training and encoding: normalization, pre-tokenization
//! (cutting text into words) and the GPT-2 byte-to-character map.

use std::borrow::Cow;

use unicode_general_category::{get_general_category, GeneralCategory};
use unicode_normalization::UnicodeNormalization;

use crate::gpt2::{split_gpt2, split_gpt2_lines};
use crate::gpt4::{split_gpt4, Gpt4Pattern};

pub const EOW: &str = "</w>";
pub const BOW: &str = "\u{2581}";

pub use crate::options::{Boundary, Normalization, PreTokenizer};

/// How text becomes words: the options that must be identical at training and encoding.
#[derive(Debug, Clone, Copy)]
pub struct TextRules {
    pub normalization: Normalization,
    pub lowercase: bool,
    pub pretokenizer: PreTokenizer,
    pub boundary: Boundary,
}

impl TextRules {
    /// Normalize (then lowercase) a piece of text; borrows when nothing changes.
    pub fn normalize<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let normalized: Cow<'a, str> = match self.normalization {
            Normalization::None => Cow::Borrowed(text),
            // Cheap check first: most text is already NFC.
            Normalization::Nfc => {
                if unicode_normalization::is_nfc_quick(text.chars())
                    == unicode_normalization::IsNormalized::Yes
                {
                    Cow::Borrowed(text)
                } else {
                    Cow::Owned(text.nfc().collect())
                }
            }
            Normalization::Nfkc => {
                if unicode_normalization::is_nfkc_quick(text.chars())
                    == unicode_normalization::IsNormalized::Yes
                {
                    Cow::Borrowed(text)
                } else {
                    Cow::Owned(text.nfkc().collect())
                }
            }
        };
        if self.lowercase && normalized.chars().any(|c| c.is_uppercase() || !c.is_ascii()) {
            Cow::Owned(normalized.to_lowercase())
        } else {
            normalized
        }
    }

    /// Cut normalized text into words for training. For the GPT patterns each line is split
    /// on its own, keeping its newline, as HF tokenizers trains; elsewhere lines do not matter.
    pub fn split_words<'a>(&self, text: &'a str, emit: &mut impl FnMut(&'a str)) {
        self.split(text, true, emit)
    }

    /// Cut text into words for encoding: the GPT patterns run over the whole text, as HF
    /// tokenizers and tiktoken encode (spaces before a newline then stay apart from it).
    pub fn split_for_encoding<'a>(&self, text: &'a str, emit: &mut impl FnMut(&'a str)) {
        self.split(text, false, emit)
    }

    fn split<'a>(&self, text: &'a str, per_line: bool, emit: &mut impl FnMut(&'a str)) {
        match self.pretokenizer {
            PreTokenizer::Whitespace => {
                text.split(char::is_whitespace).filter(|w| !w.is_empty()).for_each(&mut *emit)
            }
            PreTokenizer::Space => {
                text.split(is_space_separator).filter(|w| !w.is_empty()).for_each(&mut *emit)
            }
            PreTokenizer::SentencePiece => text
                .split([' ', '\n', '\r'])
                .filter(|w| !w.is_empty())
                .for_each(&mut *emit),
            PreTokenizer::Letters => split_letters(text, emit),
            PreTokenizer::Gpt2 if per_line => split_gpt2_lines(text, &mut *emit),
            PreTokenizer::Gpt2 => split_gpt2(text, &mut *emit),
            PreTokenizer::Gpt4 => split_gpt4(Gpt4Pattern::Cl100k, text, per_line, emit),
            PreTokenizer::Llama3 => split_gpt4(Gpt4Pattern::Llama3, text, per_line, emit),
            PreTokenizer::Gpt4o => split_gpt4(Gpt4Pattern::O200k, text, per_line, emit),
        }
    }
}

/// subword-nmt splits lines with `str.splitlines` and words at U+0020 only.
fn is_space_separator(c: char) -> bool {
    matches!(
        c,
        ' ' | '\n' | '\r' | '\x0b' | '\x0c' | '\x1c' | '\x1d' | '\x1e' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// Letters with their combining marks; seed 002's `[a-zA-Z]+` generalized to Unicode.
pub fn is_word_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    c.is_alphabetic()
        || matches!(
            get_general_category(c),
            GeneralCategory::NonspacingMark | GeneralCategory::SpacingMark | GeneralCategory::EnclosingMark
        )
}

/// Runs of letters are words; every other non-space character is a word of its own.
fn split_letters<'a>(text: &'a str, emit: &mut impl FnMut(&'a str)) {
    let mut run_start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if is_word_char(c) {
            run_start.get_or_insert(i);
            continue;
        }
        if let Some(s) = run_start.take() {
            emit(&text[s..i]);
        }
        if !c.is_whitespace() {
            emit(&text[i..i + c.len_utf8()]);
        }
    }
    if let Some(s) = run_start {
        emit(&text[s..]);
    }
}

/// GPT-2's reversible map from bytes to printable characters (space -> 'Ġ').
pub fn byte_to_char_table() -> [char; 256] {
    let mut table = ['\0'; 256];
    let mut extra = 0u32;
    for b in 0..256u32 {
        let printable = (0x21..=0x7e).contains(&b) || (0xa1..=0xac).contains(&b) || (0xae..=0xff).contains(&b);
        table[b as usize] = if printable {
            char::from_u32(b).unwrap()
        } else {
            let c = char::from_u32(256 + extra).unwrap();
            extra += 1;
            c
        };
    }
    table
}

/// A word's bytes written with the GPT-2 characters.
pub fn to_byte_chars(word: &str, table: &[char; 256]) -> String {
    word.bytes().map(|b| table[b as usize]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(rules: TextRules, text: &str) -> Vec<String> {
        let mut out = vec![];
        rules.split_words(text, &mut |w| out.push(w.to_string()));
        out
    }

    fn rules(p: PreTokenizer) -> TextRules {
        TextRules { normalization: Normalization::None, lowercase: false, pretokenizer: p, boundary: Boundary::None }
    }

    #[test]
    fn whitespace_splits_on_unicode_whitespace() {
        assert_eq!(words(rules(PreTokenizer::Whitespace), " a\tb\u{a0}c\n\nd "), ["a", "b", "c", "d"]);
    }

    #[test]
    fn space_keeps_tabs_inside_words() {
        assert_eq!(words(rules(PreTokenizer::Space), "a\tb  c\nd\u{2028}e"), ["a\tb", "c", "d", "e"]);
    }

    #[test]
    fn letters_makes_punctuation_single_words() {
        assert_eq!(words(rules(PreTokenizer::Letters), "Hi, you2!  e\u{301}te"), ["Hi", ",", "you", "2", "!", "e\u{301}te"]);
    }

    #[test]
    fn byte_table_is_gpt2s() {
        let t = byte_to_char_table();
        assert_eq!(t[b' ' as usize], 'Ġ');
        assert_eq!(t[b'\n' as usize], 'Ċ');
        assert_eq!(t[b'a' as usize], 'a');
        let mut all: Vec<char> = t.to_vec();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 256);
    }

    #[test]
    fn lowercase_and_nfc() {
        let r = TextRules { normalization: Normalization::Nfc, lowercase: true, ..rules(PreTokenizer::Whitespace) };
        assert_eq!(r.normalize("E\u{301}TÉ"), "\u{e9}t\u{e9}");
        assert!(matches!(r.normalize("plain"), Cow::Borrowed(_)));
    }
}

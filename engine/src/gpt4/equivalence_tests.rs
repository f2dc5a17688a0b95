//! The lexer against the reference, `fancy-regex` running the patterns: classes over every
//! code point, then pre-tokens on random texts, on every short text over a small alphabet
//! and on the shipped data files.

use std::sync::OnceLock;

use fancy_regex::{Regex, RegexBuilder};
use proptest::prelude::*;

use super::classes::{ascii_flags, class_ranges, contraction_letter, table, CLASSES, CRLF, L, N, S};
use super::*;

const PATTERNS: [Gpt4Pattern; 3] = [Gpt4Pattern::Cl100k, Gpt4Pattern::Llama3, Gpt4Pattern::O200k];

fn reference_regex(pattern: Gpt4Pattern) -> &'static Regex {
    static CELLS: [OnceLock<Regex>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    CELLS[pattern as usize].get_or_init(|| {
        RegexBuilder::new(pattern.source()).backtrack_limit(usize::MAX).build().expect("the patterns compile")
    })
}

/// `regex.findall`'s pre-tokens, any gap between matches kept (there is none).
fn reference(pattern: Gpt4Pattern, text: &str, per_line: bool) -> Vec<&str> {
    let re = reference_regex(pattern);
    let mut out = vec![];
    let lines: Vec<&str> = if per_line { text.split_inclusive('\n').collect() } else { vec![text] };
    for line in lines {
        let mut at = 0;
        while at < line.len() {
            let m = re.find_from_pos(line, at).expect("the regex runs");
            let (start, end) = m.map_or((line.len(), line.len()), |m| (m.start(), m.end()));
            if start > at {
                out.push(&line[at..start]);
            }
            if end > start {
                out.push(&line[start..end]);
            }
            at = end.max(start);
        }
    }
    out
}

fn lexed(pattern: Gpt4Pattern, text: &str, per_line: bool) -> Vec<&str> {
    let mut out = vec![];
    split_gpt4(pattern, text, per_line, &mut |t| out.push(t));
    out
}

fn assert_same(text: &str) {
    for pattern in PATTERNS {
        for per_line in [false, true] {
            let (got, want) = (lexed(pattern, text, per_line), reference(pattern, text, per_line));
            if got != want {
                // The first difference, with a few pre-tokens before it (texts may be long).
                let at = got.iter().zip(&want).position(|(g, w)| g != w).unwrap_or(got.len().min(want.len()));
                let from = at.saturating_sub(3);
                panic!(
                    "{pattern:?} per_line={per_line} on {:?}: lexer {:?}, regex {:?}",
                    text.get(..200).unwrap_or(text),
                    &got[from..got.len().min(at + 3)],
                    &want[from..want.len().min(at + 3)],
                );
            }
        }
    }
}

/// Calls `check` with each char and its UTF-8 text.
fn every_char(mut check: impl FnMut(char, &str)) {
    let mut buf = [0u8; 4];
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        check(c, c.encode_utf8(&mut buf));
    }
}

fn whole_match(class: &str) -> Regex {
    Regex::new(&format!(r"\A(?:{class})\z")).expect("the class compiles")
}

#[test]
fn classes_equal_the_regex_classes_on_every_code_point() {
    let table = table();
    let mut classes: Vec<(u8, &str)> = CLASSES.to_vec();
    classes.push((CRLF, r"[\r\n]"));
    for (flag, class) in classes {
        let re = whole_match(class);
        every_char(|c, s| {
            assert_eq!(table[c as usize] & flag != 0, re.is_match(s).unwrap(), "{class} on U+{:04X}", c as u32);
        });
    }
    for b in 0..128u8 {
        assert_eq!(ascii_flags(b), table[b as usize], "byte {b:#04x}");
    }
    // The classes the patterns combine, as the lexer combines the flags.
    let prefix = whole_match(r"[^\r\n\p{L}\p{N}]");
    let other = whole_match(r"[^\s\p{L}\p{N}]");
    every_char(|c, s| {
        let f = table[c as usize];
        assert_eq!(f & (L | N | CRLF) == 0, prefix.is_match(s).unwrap(), "prefix on U+{:04X}", c as u32);
        assert_eq!(f & (L | N | S) == 0, other.is_match(s).unwrap(), "other on U+{:04X}", c as u32);
    });
    assert!(class_ranges(r"\p{M}").len() > 100);
}

#[test]
fn contraction_letters_fold_as_the_regex_does() {
    for letter in "sdmtlver".chars() {
        let re = whole_match(&format!("(?i:{letter})"));
        every_char(|c, s| {
            let folded = contraction_letter(s.as_bytes(), 0) == Some((letter as u8, s.len()));
            assert_eq!(folded, re.is_match(s).unwrap(), "(?i:{letter}) on U+{:04X}", c as u32);
        });
    }
}

/// Pieces of the random texts: each class of each pattern, case variants of contractions,
/// every kind of whitespace and line break, marks, title case, scripts without case, and
/// ASCII letter runs longer than the lexer's 16-byte steps.
const PIECES: &[&str] = &[
    "a", "z", "s", "t", "e", "l", "A", "Z", "S", "T", "L", "hello", "World", "IT", "0", "7", "42",
    "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "'", "'s", "'S", "'t", "'T", "'ll", "'LL", "'lL", "'ve", "'VE", "'re", "'Re", "'m", "'M",
    "'d", "'D", "'ſ", "ſ", "'k", "'K", "\u{212A}", " ", "  ", "\t", "\r", "\n", "\r\n", "\u{b}",
    "\u{c}", "\u{85}", "\u{a0}", "\u{3000}", "\u{2028}", "\u{2029}", "\u{1c}", "\u{0}",
    "\u{301}", "\u{300}", "\u{903}", "\u{20DD}", "Ǆ", "ǅ", "ǆ", "ᾈ", "ʰ", "ª", "ー", "ß", "Σ",
    "σ", "ς", "é", "日", "本", "が", "ア", "한", "ก", "क", "\u{93F}", "ا", "٣", "Ⅻ", "½", "²",
    "१", "𝐀", "𝐚", "𠀀", "😀", "👍", "🏽", "\u{200D}", "\u{FE0F}", "\u{FEFF}", "/", "//", "!",
    ".", ",", "-", "(", "\"", "$", "#", "...", "\u{E000}", "\u{378}",
];

fn text_strategy() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..40).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(30_000))]

    #[test]
    fn lexer_splits_random_texts_as_the_regex(text in text_strategy()) {
        assert_same(&text);
    }

    /// Any chars, mixed with the pieces above.
    #[test]
    fn lexer_splits_texts_of_any_chars_as_the_regex(
        chars in prop::collection::vec(any::<char>(), 0..24),
        pieces in text_strategy(),
    ) {
        let text: String = chars.iter().zip(pieces.chars().chain(std::iter::repeat(' '))).flat_map(|(&a, b)| [a, b]).collect();
        assert_same(&text);
    }
}

#[test]
fn lexer_splits_every_short_text_as_the_regex() {
    let alphabet = [
        "a", "B", "ǅ", "ſ", "日", "'", "s", "L", "1", "٣", " ", "\t", "\n", "\r", "\u{a0}", "\u{301}",
        "!", "/", "😀",
    ];
    let mut text = String::new();
    for a in alphabet {
        for b in alphabet {
            for c in alphabet {
                for d in alphabet {
                    text.clear();
                    text.extend([a, b, c, d]);
                    assert_same(&text);
                }
            }
        }
    }
}

#[test]
fn lexer_splits_the_data_files_as_the_regex() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data");
    let mut dirs = vec![root];
    let mut files = 0;
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("tests/data is there") {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                assert_same(&text);
                files += 1;
            }
        }
    }
    assert!(files >= 10, "{files} text files");
}

/// `BPE_GPT4_CHECK_FILE=path cargo test --release -- --ignored`: the same on a file of one's
/// own, such as a large corpus.
#[test]
#[ignore]
fn lexer_splits_a_given_file_as_the_regex() {
    let path = std::env::var("BPE_GPT4_CHECK_FILE").expect("BPE_GPT4_CHECK_FILE names a file");
    assert_same(&std::fs::read_to_string(path).expect("a UTF-8 file"));
}

//! Hand-written lexer equivalent to the GPT-2 pre-tokenization regex
//! (HF `tokenizers` ByteLevel, tiktoken `gpt2`):
//!
//! ```text
//! 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//! ```
//!
//! Semantics reproduced (leftmost alternative wins, as in a backtracking engine):
//!
//! * Contractions are case-sensitive ASCII (`'S` is not one) and only U+0027 is an apostrophe.
//!   A contraction is matched even when more letters follow (`'then` -> `'t`, `hen`).
//! * The optional prefix ` ?` is U+0020 SPACE only; a tab or NBSP never prefixes a word.
//! * `\p{L}` = general categories Lu Ll Lt Lm Lo; `\p{N}` = Nd Nl No (from the
//!   `unicode_general_category` crate, Unicode 16.0). Combining marks (Mn/Mc/Me) are
//!   therefore "other": `cafe\u{301}` -> `cafe`, `\u{301}`. Unassigned code points are "other".
//!   Python's `regex` 2026.5.9 uses Unicode 17.0: the 4,656 code points that Unicode 17.0
//!   newly assigned as letters or numbers (all within U+088F, U+0C5C, U+0CDC, U+A7CE..U+A7F1,
//!   U+10940..U+10959, U+10EC5..U+10EC7, U+11DB0..U+11DE9, U+16EA0..U+16ED3,
//!   U+16FF2..U+16FF6, U+187F8..U+187FF, U+18D09..U+18DF2, U+1E6C0..U+1E6FF,
//!   U+2B73A..U+2B73F, U+2CEA2..U+2CEAD, U+323B0..U+33479) are "other" here and L/N there.
//!   On every other code point the classes agree with `regex` (checked exhaustively).
//! * `\s` = Unicode `White_Space` (exactly `char::is_whitespace`). This equals the Python
//!   `regex` module's `\s` on every code point (checked over all of U+0000..U+10FFFF); note
//!   that Python's `str.isspace()` / the `re` module additionally treat U+001C..U+001F as
//!   whitespace, `regex` and this lexer do not.
//! * A whitespace run that is followed by a non-whitespace char gives up its last char, which
//!   then either prefixes the next word (if it is U+0020) or is a token by itself
//!   (`\s+(?!\S)` backtracks one char; `\s+` catches a lone whitespace char). A whitespace run
//!   at the end of the text is one token.
//!
//! Every byte of the input is scanned a bounded number of times (at most twice, for the last
//! char of a whitespace run), so the lexer is linear even on pathological input, and it does
//! not allocate.

use unicode_general_category::{get_general_category, GeneralCategory};

/// Character classes of the pattern. `NA` marks a non-ASCII lead byte in [`BYTE_CLASS`].
const L: u8 = 0; // \p{L}
const N: u8 = 1; // \p{N}
const S: u8 = 2; // \s
const O: u8 = 3; // [^\s\p{L}\p{N}]
const NA: u8 = 4; // non-ASCII: decode and look up

/// Class of every byte: ASCII bytes are classified directly, bytes >= 0x80 are `NA`.
/// (Continuation bytes are never looked up: the scanner only stands on char boundaries.)
static BYTE_CLASS: [u8; 256] = {
    let mut t = [NA; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        t[b] = if c.is_ascii_alphabetic() {
            L
        } else if c.is_ascii_digit() {
            N
        } else if matches!(c, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ') {
            // White_Space in ASCII: U+0009..U+000D and U+0020 (not U+001C..U+001F).
            S
        } else {
            O
        };
        b += 1;
    }
    t
};

/// Class of a non-ASCII char.
#[inline]
fn class_of_non_ascii(c: char) -> u8 {
    use GeneralCategory::*;
    match get_general_category(c) {
        UppercaseLetter | LowercaseLetter | TitlecaseLetter | ModifierLetter | OtherLetter => L,
        DecimalNumber | LetterNumber | OtherNumber => N,
        _ => {
            if c.is_whitespace() {
                S
            } else {
                O
            }
        }
    }
}

/// Class of any char (used by tests and by callers that already hold a `char`).
#[allow(dead_code)]
pub(crate) fn class_of(c: char) -> u8 {
    if c.is_ascii() {
        BYTE_CLASS[c as usize]
    } else {
        class_of_non_ascii(c)
    }
}

/// Decodes the multi-byte char whose lead byte is at `b[i]` (`b` is valid UTF-8 and `i` a
/// char boundary). Returns the char and its length in bytes.
#[inline]
fn decode_multibyte(b: &[u8], i: usize) -> (char, usize) {
    let b0 = b[i] as u32;
    let (cp, w) = if b0 < 0xE0 {
        (((b0 & 0x1F) << 6) | (b[i + 1] as u32 & 0x3F), 2)
    } else if b0 < 0xF0 {
        (
            ((b0 & 0x0F) << 12) | ((b[i + 1] as u32 & 0x3F) << 6) | (b[i + 2] as u32 & 0x3F),
            3,
        )
    } else {
        (
            ((b0 & 0x07) << 18)
                | ((b[i + 1] as u32 & 0x3F) << 12)
                | ((b[i + 2] as u32 & 0x3F) << 6)
                | (b[i + 3] as u32 & 0x3F),
            4,
        )
    };
    // Always `Some` for valid UTF-8; the fallback is never taken.
    (char::from_u32(cp).unwrap_or('\u{FFFD}'), w)
}

/// Class and byte length of the char starting at `b[i]` (`i < b.len()`, a char boundary).
#[inline]
fn class_at(b: &[u8], i: usize) -> (u8, usize) {
    let k = BYTE_CLASS[b[i] as usize];
    if k != NA {
        (k, 1)
    } else {
        let (c, w) = decode_multibyte(b, i);
        (class_of_non_ascii(c), w)
    }
}

/// End of the maximal run of chars of class `cls` starting at `j`.
#[inline(always)]
fn run_end(b: &[u8], mut j: usize, cls: u8) -> usize {
    while j < b.len() {
        let k = BYTE_CLASS[b[j] as usize];
        if k == cls {
            j += 1;
        } else if k == NA {
            let (c, w) = decode_multibyte(b, j);
            if class_of_non_ascii(c) != cls {
                break;
            }
            j += w;
        } else {
            break;
        }
    }
    j
}

/// Bit `k` set if byte `j + k` is an ASCII letter, for the 16 bytes from `j`
/// (`j + 16 <= b.len()`). SSE2 is part of x86-64.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn ascii_letters16(b: &[u8], j: usize) -> u32 {
    use std::arch::x86_64::*;
    let chunk = &b[j..j + 16];
    // SAFETY: the load reads exactly the 16 bytes of `chunk`.
    unsafe {
        let v = _mm_loadu_si128(chunk.as_ptr().cast());
        // Setting bit 5 maps 'A'..='Z' onto 'a'..='z' and nothing else there; then an
        // unsigned `x - 'a' <= 25`.
        let folded = _mm_sub_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)), _mm_set1_epi8(b'a' as i8));
        let letters = _mm_cmpeq_epi8(_mm_min_epu8(folded, _mm_set1_epi8(25)), folded);
        _mm_movemask_epi8(letters) as u32
    }
}

/// End of the run of letters (`\p{L}`) starting at `j`: ASCII letters 16 at a time,
/// other chars decoded only where the ASCII letters stop.
#[inline(always)]
fn letters_end(b: &[u8], mut j: usize) -> usize {
    loop {
        #[cfg(target_arch = "x86_64")]
        while j + 16 <= b.len() {
            let not_letters = !ascii_letters16(b, j) & 0xffff;
            if not_letters != 0 {
                j += not_letters.trailing_zeros() as usize;
                break;
            }
            j += 16;
        }
        while j < b.len() && b[j].is_ascii_alphabetic() {
            j += 1;
        }
        if j < b.len() && b[j] >= 0x80 {
            let (c, w) = decode_multibyte(b, j);
            if class_of_non_ascii(c) == L {
                j += w;
                continue;
            }
        }
        return j;
    }
}

/// End of the run of class `k` (any class but whitespace) starting at `j`.
#[inline(always)]
fn class_run_end(b: &[u8], j: usize, k: u8) -> usize {
    if k == L {
        letters_end(b, j)
    } else {
        run_end(b, j, k)
    }
}

/// End of the token for a whitespace run starting at `i` (`b[i..]` starts with whitespace):
/// `\s+(?!\S)|\s+`. With `per_line`, a `\n` ends the text the pattern sees (see
/// [`split_gpt2_lines`]).
#[inline(always)]
fn whitespace_end(b: &[u8], i: usize, per_line: bool) -> usize {
    let mut j = i;
    let mut last = i; // start of the last whitespace char seen
    while j < b.len() {
        let byte = b[j];
        let w = match BYTE_CLASS[byte as usize] {
            S => 1,
            NA => {
                let (c, w) = decode_multibyte(b, j);
                if class_of_non_ascii(c) != S {
                    break;
                }
                w
            }
            _ => break,
        };
        if per_line && byte == b'\n' {
            // The line's end, which `(?!\S)` accepts: the whole run is the token.
            return j + 1;
        }
        last = j;
        j += w;
    }
    if j < b.len() {
        // Followed by non-whitespace: `\s+(?!\S)` backtracks off the last char if the run
        // has at least two chars; otherwise `\s+` takes the single char.
        if last > i {
            last
        } else {
            j
        }
    } else {
        // Whitespace up to the end of the text: `(?!\S)` holds at the end.
        j
    }
}

/// End of the pre-token starting at `i` (`i < text.len()`).
#[inline(always)]
fn token_end(b: &[u8], i: usize, per_line: bool) -> usize {
    let b0 = b[i];
    match BYTE_CLASS[b0 as usize] {
        L => letters_end(b, i + 1),
        N => run_end(b, i + 1, N),
        O if b0 == b'\'' => {
            // 's|'t|'re|'ve|'m|'ll|'d  (case-sensitive), else ' is an "other" char.
            match (b.get(i + 1), b.get(i + 2)) {
                (Some(b's' | b't' | b'm' | b'd'), _) => i + 2,
                (Some(b'r' | b'v'), Some(b'e')) | (Some(b'l'), Some(b'l')) => i + 3,
                _ => run_end(b, i + 1, O),
            }
        }
        O => run_end(b, i + 1, O),
        S if b0 == b' ' => {
            // ` ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+` with the space, if a non-space follows.
            if i + 1 < b.len() {
                let (k, w) = class_at(b, i + 1);
                if k != S {
                    return class_run_end(b, i + 1 + w, k);
                }
            }
            whitespace_end(b, i, per_line)
        }
        S => whitespace_end(b, i, per_line),
        _ => {
            let (c, w) = decode_multibyte(b, i);
            match class_of_non_ascii(c) {
                S => whitespace_end(b, i, per_line),
                k => class_run_end(b, i + w, k),
            }
        }
    }
}

#[inline(always)]
fn split<'a>(text: &'a str, per_line: bool, emit: &mut impl FnMut(&'a str)) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let end = token_end(b, i, per_line);
        debug_assert!(end > i && text.is_char_boundary(end));
        // SAFETY: every token ends where a char ends (a run of whole chars, or the text's
        // end), so both bounds are char boundaries.
        emit(unsafe { text.get_unchecked(i..end) });
        i = end;
    }
}

/// Calls `emit` with each pre-token of `text`, in order; the pre-tokens concatenate to `text`.
///
/// Equivalent to `regex.findall(PAT, text)` with the GPT-2 pattern
/// `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`.
/// Linear time, no allocation.
pub fn split_gpt2<'a>(text: &'a str, mut emit: impl FnMut(&'a str)) {
    split(text, false, &mut emit)
}

/// [`split_gpt2`] of each `\n`-terminated line of `text` on its own, as HF tokenizers
/// trains: the same tokens as on the whole text except that a whitespace run ends after
/// its first `\n`, whole (the line's end satisfies `(?!\S)`). One pass, no line search.
pub fn split_gpt2_lines<'a>(text: &'a str, mut emit: impl FnMut(&'a str)) {
    split(text, true, &mut emit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn split(text: &str) -> Vec<&str> {
        let mut v = Vec::new();
        split_gpt2(text, |t| v.push(t));
        v
    }

    // ---------------------------------------------------------------------------------------
    // Reference: a literal backtracking interpretation of the pattern over chars, used as an
    // oracle in the randomized test below. Quadratic at worst; only for short strings.
    // ---------------------------------------------------------------------------------------
    fn is_l(c: char) -> bool {
        use GeneralCategory::*;
        matches!(
            get_general_category(c),
            UppercaseLetter | LowercaseLetter | TitlecaseLetter | ModifierLetter | OtherLetter
        )
    }
    fn is_n(c: char) -> bool {
        use GeneralCategory::*;
        matches!(
            get_general_category(c),
            DecimalNumber | LetterNumber | OtherNumber
        )
    }
    fn is_s(c: char) -> bool {
        c.is_whitespace()
    }
    fn is_o(c: char) -> bool {
        !is_s(c) && !is_l(c) && !is_n(c)
    }

    /// Length (in chars) of the match at `p`, trying the alternatives in order.
    fn reference_match(cs: &[char], p: usize) -> usize {
        let at = |q: usize| cs.get(q).copied();
        // 's|'t|'re|'ve|'m|'ll|'d
        for lit in ["s", "t", "re", "ve", "m", "ll", "d"] {
            let lit: Vec<char> = std::iter::once('\'').chain(lit.chars()).collect();
            if cs.len() >= p + lit.len() && cs[p..p + lit.len()] == lit[..] {
                return lit.len();
            }
        }
        // ` ?X+` for X in L, N, other: greedy `+` never needs to backtrack here because
        // nothing follows it in the alternative.
        for pred in [is_l as fn(char) -> bool, is_n, is_o] {
            for space in [true, false] {
                let mut q = p;
                if space {
                    if at(q) != Some(' ') {
                        continue;
                    }
                    q += 1;
                }
                let s = q;
                while at(q).is_some_and(pred) {
                    q += 1;
                }
                if q > s {
                    return q - p;
                }
            }
        }
        // \s+(?!\S): greedy, then backtrack.
        let mut e = p;
        while at(e).is_some_and(is_s) {
            e += 1;
        }
        let mut q = e;
        while q > p {
            // (?!\S): at the end of the text or before whitespace.
            if at(q).is_none_or(is_s) {
                return q - p;
            }
            q -= 1;
        }
        // \s+
        if e > p {
            return e - p;
        }
        unreachable!("every char matches one alternative")
    }

    fn reference(text: &str) -> Vec<String> {
        let cs: Vec<char> = text.chars().collect();
        let mut out = Vec::new();
        let mut p = 0;
        while p < cs.len() {
            let n = reference_match(&cs, p);
            out.push(cs[p..p + n].iter().collect());
            p += n;
        }
        out
    }

    /// Expectations below were produced by Python's `regex.findall(PAT, s)` (regex 2026.5.9)
    /// and pasted verbatim; none is hand-written.
    #[rustfmt::skip]
    const CASES: &[(&str, &[&str])] = &[
        // @@CASES@@ (generated by tools/gen_cases.py)
        ("Hello world", &["Hello", " world"]),
        ("Hello, world!", &["Hello", ",", " world", "!"]),
        ("  foo", &[" ", " foo"]),
        ("   foo", &["  ", " foo"]),
        ("foo  ", &["foo", "  "]),
        ("foo ", &["foo", " "]),
        (" ", &[" "]),
        ("  ", &["  "]),
        ("\n", &["\n"]),
        ("a", &["a"]),
        ("\n\nfoo", &["\n", "\n", "foo"]),
        ("\n \nfoo", &["\n ", "\n", "foo"]),
        ("foo\n\n", &["foo", "\n\n"]),
        ("foo\n", &["foo", "\n"]),
        ("a\tb", &["a", "\t", "b"]),
        ("a \tb", &["a", " ", "\t", "b"]),
        ("a\t b", &["a", "\t", " b"]),
        ("a\t\tb", &["a", "\t", "\t", "b"]),
        ("\t\tfoo", &["\t", "\t", "foo"]),
        ("\r\n", &["\r\n"]),
        ("line1\r\nline2", &["line", "1", "\r", "\n", "line", "2"]),
        ("a\r\n\r\nb", &["a", "\r\n\r", "\n", "b"]),
        ("x \n y", &["x", " \n", " y"]),
        (" \n ", &[" \n "]),
        ("a  \n  b", &["a", "  \n ", " b"]),
        ("it's", &["it", "'s"]),
        ("don't", &["don", "'t"]),
        ("we're", &["we", "'re"]),
        ("they've", &["they", "'ve"]),
        ("I'm", &["I", "'m"]),
        ("you'll", &["you", "'ll"]),
        ("he'd", &["he", "'d"]),
        ("'s", &["'s"]),
        ("'t", &["'t"]),
        ("'re", &["'re"]),
        ("'ve", &["'ve"]),
        ("'m", &["'m"]),
        ("'ll", &["'ll"]),
        ("'d", &["'d"]),
        ("'then", &["'t", "hen"]),
        ("'re'", &["'re", "'"]),
        ("'r", &["'", "r"]),
        ("'l", &["'", "l"]),
        ("'x", &["'", "x"]),
        ("'", &["'"]),
        ("''", &["''"]),
        ("'''s", &["'''", "s"]),
        ("''s", &["''", "s"]),
        ("x''s", &["x", "''", "s"]),
        ("'S", &["'", "S"]),
        ("IT'S", &["IT", "'", "S"]),
        ("DON'T", &["DON", "'", "T"]),
        ("'Re", &["'", "Re"]),
        ("'LL", &["'", "LL"]),
        ("'lL", &["'", "lL"]),
        (" 's", &[" '", "s"]),
        ("  's", &[" ", " '", "s"]),
        ("a 's b", &["a", " '", "s", " b"]),
        ("\t's", &["\t", "'s"]),
        ("can't've", &["can", "'t", "'ve"]),
        ("'sss", &["'s", "ss"]),
        ("'s's", &["'s", "'s"]),
        ("?'s", &["?'", "s"]),
        ("y'all", &["y", "'", "all"]),
        ("o'clock", &["o", "'", "clock"]),
        ("rock'n'roll", &["rock", "'", "n", "'", "roll"]),
        ("'99", &["'", "99"]),
        ("'9s", &["'", "9", "s"]),
        ("’s", &["’", "s"]),
        ("it’s", &["it", "’", "s"]),
        ("`s", &["`", "s"]),
        ("abc123def", &["abc", "123", "def"]),
        ("123abc", &["123", "abc"]),
        ("3.14159", &["3", ".", "14159"]),
        ("1,000,000", &["1", ",", "000", ",", "000"]),
        (" 42", &[" 42"]),
        ("  42", &[" ", " 42"]),
        ("x2", &["x", "2"]),
        ("a1b2c3", &["a", "1", "b", "2", "c", "3"]),
        ("½ cup", &["½", " cup"]),
        ("Ⅻ chapter", &["Ⅻ", " chapter"]),
        ("٣٤٥", &["٣٤٥"]),
        ("x²", &["x", "²"]),
        ("10%", &["10", "%"]),
        ("$100", &["$", "100"]),
        (" $100", &[" $", "100"]),
        ("!!!", &["!!!"]),
        (" !!!", &[" !!!"]),
        ("...?!", &["...?!"]),
        ("a--b", &["a", "--", "b"]),
        (" -- ", &[" --", " "]),
        ("(hello)", &["(", "hello", ")"]),
        ("\"quoted\"", &["\"", "quoted", "\""]),
        ("<|endoftext|>", &["<|", "endoftext", "|>"]),
        ("foo.bar", &["foo", ".", "bar"]),
        ("#include <stdio.h>", &["#", "include", " <", "stdio", ".", "h", ">"]),
        ("a_b", &["a", "_", "b"]),
        ("__init__", &["__", "init", "__"]),
        ("@user", &["@", "user"]),
        ("e-mail", &["e", "-", "mail"]),
        (" «»", &[" «»"]),
        ("a\u{A0}b", &["a", "\u{A0}", "b"]),
        ("a \u{A0}b", &["a", " ", "\u{A0}", "b"]),
        ("a\u{A0} b", &["a", "\u{A0}", " b"]),
        ("\u{A0}\u{A0}a", &["\u{A0}", "\u{A0}", "a"]),
        ("a\u{2028}b", &["a", "\u{2028}", "b"]),
        ("a\u{3000}b", &["a", "\u{3000}", "b"]),
        ("\u{3000}\u{3000}x", &["\u{3000}", "\u{3000}", "x"]),
        ("a\u{85}b", &["a", "\u{85}", "b"]),
        ("a\u{1680}b", &["a", "\u{1680}", "b"]),
        ("a\u{2009}b", &["a", "\u{2009}", "b"]),
        ("a\u{202F}b", &["a", "\u{202F}", "b"]),
        ("a\u{205F}b", &["a", "\u{205F}", "b"]),
        ("a\u{2029}b", &["a", "\u{2029}", "b"]),
        ("x\u{B}x", &["x", "\u{B}", "x"]),
        ("x\u{C}x", &["x", "\u{C}", "x"]),
        ("a\u{1C}b", &["a", "\u{1C}", "b"]),
        ("a\u{1F}b", &["a", "\u{1F}", "b"]),
        (" \u{1C}", &[" \u{1C}"]),
        ("a\u{200B}b", &["a", "\u{200B}", "b"]),
        ("a\u{180E}b", &["a", "\u{180E}", "b"]),
        ("a\u{FEFF}b", &["a", "\u{FEFF}", "b"]),
        ("\u{FEFF}Hello", &["\u{FEFF}", "Hello"]),
        ("café", &["café"]),
        ("cafe\u{301}", &["cafe", "\u{301}"]),
        ("cafe\u{301} ok", &["cafe", "\u{301}", " ok"]),
        (" \u{301}", &[" \u{301}"]),
        ("naïve résumé", &["naïve", " résumé"]),
        ("Привет мир", &["Привет", " мир"]),
        ("नमस\u{94D}त\u{947} द\u{941}न\u{93F}य\u{93E}", &["नमस", "\u{94D}", "त", "\u{947}", " द", "\u{941}", "न", "\u{93F}", "य", "\u{93E}"]),
        ("日本語のテキスト", &["日本語のテキスト"]),
        ("日本 語", &["日本", " 語"]),
        ("これは、テスト。", &["これは", "、", "テスト", "。"]),
        ("中文123", &["中文", "123"]),
        ("ǅungla", &["ǅungla"]),
        ("\u{2B0}h", &["\u{2B0}h"]),
        ("Straße", &["Straße"]),
        ("Αθήνα", &["Αθήνα"]),
        ("שלום", &["שלום"]),
        ("مرحبا", &["مرحبا"]),
        ("한국어", &["한국어"]),
        ("\u{1F600}", &["\u{1F600}"]),
        ("hi \u{1F600}", &["hi", " \u{1F600}"]),
        ("hi\u{1F600}there", &["hi", "\u{1F600}", "there"]),
        ("\u{1F44D}\u{1F3FD}", &["\u{1F44D}\u{1F3FD}"]),
        (" \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}", &[" \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}"]),
        ("a\u{200D}b", &["a", "\u{200D}", "b"]),
        ("€5", &["€", "5"]),
        ("5€", &["5", "€"]),
        ("☃ snow", &["☃", " snow"]),
        ("𝐀𝐁", &["𝐀𝐁"]),
        ("\u{20000}x", &["\u{20000}x"]),
        ("a\u{0}b", &["a", "\u{0}", "b"]),
        ("\u{0}", &["\u{0}"]),
        ("a\u{7F}b", &["a", "\u{7F}", "b"]),
        ("\u{E000}", &["\u{E000}"]),
        ("a\u{10FFFF}b", &["a", "\u{10FFFF}", "b"]),
        ("\u{378}", &["\u{378}"]),
        ("a    b", &["a", "   ", " b"]),
        ("a \t \n b", &["a", " \t \n", " b"]),
        ("end   ", &["end", "   "]),
        ("end\t\t", &["end", "\t\t"]),
        ("   ", &["   "]),
        (" \t", &[" \t"]),
        ("\t ", &["\t "]),
        ("x \u{A0}", &["x", " \u{A0}"]),
        ("x \u{A0}y", &["x", " ", "\u{A0}", "y"]),
        ("x\u{A0} y", &["x", "\u{A0}", " y"]),
        ("The quick brown fox jumps over the lazy dog.", &["The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", "."]),
        ("First Citizen:\nBefore we proceed any further, hear me speak.\n\nAll:\nSpeak, speak.\n", &["First", " Citizen", ":", "\n", "Before", " we", " proceed", " any", " further", ",", " hear", " me", " speak", ".", "\n", "\n", "All", ":", "\n", "Speak", ",", " speak", ".", "\n"]),
    ];

    #[test]
    fn matches_python_regex_expectations() {
        for (input, expected) in CASES {
            assert_eq!(split(input), *expected, "input {input:?}");
            assert_eq!(reference(input), *expected, "reference, input {input:?}");
        }
    }

    #[test]
    fn empty_input_emits_nothing() {
        assert!(split("").is_empty());
    }

    #[test]
    fn whitespace_class_is_white_space_property() {
        for cp in 0..=0x10FFFFu32 {
            if let Some(c) = char::from_u32(cp) {
                assert_eq!(class_of(c) == S, c.is_whitespace(), "U+{cp:04X}");
            }
        }
        // Python's str.isspace() counts these; the `regex` module's \s does not.
        for c in ['\u{1C}', '\u{1D}', '\u{1E}', '\u{1F}'] {
            assert_eq!(class_of(c), O);
        }
    }

    #[test]
    fn ascii_table_matches_unicode_classification() {
        for b in 0u8..128 {
            let c = b as char;
            let expect = if is_l(c) {
                L
            } else if is_n(c) {
                N
            } else if is_s(c) {
                S
            } else {
                O
            };
            assert_eq!(BYTE_CLASS[b as usize], expect, "byte {b:#04x}");
            assert_eq!(class_of_non_ascii(c), expect, "byte {b:#04x} (slow path)");
        }
    }

    #[test]
    fn decode_agrees_with_std() {
        let s: String = (0..=0x10FFFFu32).filter_map(char::from_u32).collect();
        let b = s.as_bytes();
        for (i, c) in s.char_indices() {
            if !c.is_ascii() {
                assert_eq!(decode_multibyte(b, i), (c, c.len_utf8()));
            }
        }
    }

    /// Tiny deterministic PRNG (xorshift64*), to avoid a dev-dependency.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    #[rustfmt::skip]
    const ALPHABET: &[char] = &[
        'a', 'b', 'z', 'A', 'S', 's', 't', 'r', 'e', 'v', 'l', 'm', 'd', '0', '7', '\'', '\'',
        '\'', '.', ',', '!', '-', '_', '"', '`', ' ', ' ', ' ', ' ', '\t', '\n', '\r', '\u{0B}',
        '\u{0C}', '\u{1C}', '\u{1F}', '\u{85}', '\u{A0}', '\u{1680}', '\u{2000}', '\u{2028}',
        '\u{2029}', '\u{202F}', '\u{3000}', '\u{180E}', '\u{200B}', '\u{FEFF}', 'é', '\u{301}',
        'ß', 'Ж', 'я', 'न', 'ि', '\u{94D}', '日', '本', 'ア', 'ー', '\u{3007}', '١', '²', '½',
        'Ⅻ', '😀', '\u{200D}', '👍', '\u{1F3FD}', '\u{2019}', '\u{2018}', '€', 'ǅ', 'ʰ',
        '\u{10FFFF}', '\u{E000}', '\u{378}', '\u{0}', '\u{7F}',
    ];

    #[test]
    fn randomized_against_reference() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for _ in 0..30_000 {
            let len = rng.below(24);
            let s: String = (0..len)
                .map(|_| ALPHABET[rng.below(ALPHABET.len())])
                .collect();
            let got = split(&s);
            assert_eq!(got.concat(), s);
            assert!(got.iter().all(|t| !t.is_empty()));
            assert_eq!(got, reference(&s), "input {s:?}");
            assert_eq!(split_lines(&s), reference_lines(&s), "lines of {s:?}");
        }
    }

    fn split_lines(text: &str) -> Vec<&str> {
        let mut v = Vec::new();
        split_gpt2_lines(text, |t| v.push(t));
        v
    }

    /// The pattern applied to each `\n`-terminated line on its own.
    fn reference_lines(text: &str) -> Vec<String> {
        text.split_inclusive('\n').flat_map(reference).collect()
    }

    #[test]
    fn per_line_splitting_restarts_after_each_newline() {
        // Expectations from Python's `regex.findall` (of each line, then of the whole text).
        assert_eq!(split_lines("a \n\n  b\n"), ["a", " \n", "\n", " ", " b", "\n"]);
        assert_eq!(split_gpt2_whole("a \n\n  b\n"), ["a", " \n\n ", " b", "\n"]);
        assert_eq!(split_lines("x\t\u{a0}\ny \u{3000}\n"), ["x", "\t\u{a0}\n", "y", " \u{3000}\n"]);
    }

    fn split_gpt2_whole(text: &str) -> Vec<&str> {
        split(text)
    }

    /// Text made of pieces where the lexer's fast paths meet its slow ones: single chars
    /// of every class, and long runs of ASCII letters (the 16-byte scan) mixed with
    /// non-ASCII letters, marks and spaces.
    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => prop::sample::select(ALPHABET).prop_map(String::from),
            1 => any::<char>().prop_map(String::from),
            2 => "[a-zA-Z]{1,40}",
            1 => "[a-zé日ſ\u{301}]{1,40}",
            1 => "[ \n\t\u{a0}\u{3000}]{1,4}",
            1 => "[0-9٣]{1,20}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn proptest_against_reference(pieces in prop::collection::vec(piece(), 0..24)) {
            let text = pieces.concat();
            prop_assert_eq!(split(&text), reference(&text));
            prop_assert_eq!(split_lines(&text), reference_lines(&text));
        }
    }

    fn count_and_check(text: &str) -> (usize, usize) {
        let mut n = 0;
        let mut total = 0;
        let mut max = 0;
        split_gpt2(text, |t| {
            n += 1;
            total += t.len();
            max = max.max(t.len());
        });
        assert_eq!(total, text.len());
        (n, max)
    }

    #[test]
    fn pathological_inputs_are_linear() {
        // These finish in milliseconds; a quadratic scanner would take minutes on 1 MB.
        let mb = 1 << 20;
        let t = std::time::Instant::now();
        assert_eq!(count_and_check(&" ".repeat(mb)), (1, mb));
        assert_eq!(
            count_and_check(&format!("{}a", " ".repeat(mb))),
            (2, mb - 1)
        );
        assert_eq!(
            count_and_check(&format!("{}a", "\n".repeat(mb))),
            (3, mb - 1)
        );
        assert_eq!(count_and_check(&"a".repeat(mb)), (1, mb));
        assert_eq!(count_and_check(&"1".repeat(mb)), (1, mb));
        assert_eq!(count_and_check(&"!".repeat(mb)), (1, mb));
        assert_eq!(count_and_check(&" a".repeat(mb / 2)), (mb / 2, 2));
        assert_eq!(count_and_check(&"'".repeat(mb)), (1, mb));
        assert_eq!(count_and_check(&"'s".repeat(mb / 2)), (mb / 2, 2));
        assert_eq!(count_and_check(&"\u{3000}".repeat(mb / 3)), (1, mb / 3 * 3));
        assert_eq!(count_and_check(&" \t".repeat(mb / 2)), (1, mb));
        assert_eq!(count_and_check(&"  a".repeat(mb / 3)), (2 * (mb / 3), 2));
        assert!(t.elapsed().as_secs() < 30, "took {:?}", t.elapsed());
    }
}

//! The character classes of the GPT-4, Llama 3 and GPT-4o patterns, as flags per code
//! point, taken from `regex-syntax` (the parser `fancy-regex` compiles the patterns with),
//! so that each class equals the regex's on every code point by construction.
//!
//! ASCII is classified by a constant table; other chars by a table of all code points,
//! built on first use from the class ranges `regex-syntax` gives for `\p{L}` etc.

use std::sync::OnceLock;

use regex_syntax::hir::{Class, HirKind};

/// `\p{L}`.
pub(crate) const L: u8 = 1;
/// `\p{N}`.
pub(crate) const N: u8 = 2;
/// `\s` (Unicode `White_Space`).
pub(crate) const S: u8 = 4;
/// o200k's `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`: chars that may begin a word's capitals.
pub(crate) const UP: u8 = 8;
/// o200k's `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`: chars of a word's lower-case part.
pub(crate) const LO: u8 = 16;
/// `\r` or `\n`.
pub(crate) const CRLF: u8 = 32;
/// In [`ASCII`] only: a byte >= 0x80, the lead of a char to decode and look up.
const NON_ASCII: u8 = 128;

/// Each class with the regex class it equals (`CRLF` is two literal chars, set by hand).
pub(crate) const CLASSES: [(u8, &str); 5] = [
    (L, r"\p{L}"),
    (N, r"\p{N}"),
    (S, r"\s"),
    (UP, r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]"),
    (LO, r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]"),
];

/// Flags of every byte: ASCII chars classified (checked against the full table by the
/// tests), bytes >= 0x80 marked [`NON_ASCII`].
static ASCII: [u8; 256] = {
    let mut t = [NON_ASCII; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        t[b] = if c.is_ascii_uppercase() {
            L | UP
        } else if c.is_ascii_lowercase() {
            L | LO
        } else if c.is_ascii_digit() {
            N
        } else if c == b'\r' || c == b'\n' {
            S | CRLF
        } else if matches!(c, b'\t' | 0x0B | 0x0C | b' ') {
            // White_Space in ASCII: U+0009..U+000D and U+0020 (not U+001C..U+001F).
            S
        } else {
            0
        };
        b += 1;
    }
    t
};

static ALL: OnceLock<Box<[u8]>> = OnceLock::new();

/// Flags of every code point, U+0000..U+10FFFF (surrogates have none and never occur).
pub(crate) fn table() -> &'static [u8] {
    ALL.get_or_init(|| {
        let mut t = vec![0u8; 0x11_0000];
        for (flag, pattern) in CLASSES {
            for (start, end) in class_ranges(pattern) {
                for f in &mut t[start as usize..=end as usize] {
                    *f |= flag;
                }
            }
        }
        t[b'\r' as usize] |= CRLF;
        t[b'\n' as usize] |= CRLF;
        t.into_boxed_slice()
    })
}

/// The code point ranges of a regex class, as `regex-syntax` parses it.
pub(crate) fn class_ranges(pattern: &str) -> Vec<(char, char)> {
    let hir = regex_syntax::Parser::new().parse(pattern).expect("the classes parse");
    match hir.kind() {
        HirKind::Class(Class::Unicode(class)) => class.ranges().iter().map(|r| (r.start(), r.end())).collect(),
        other => panic!("{pattern} is no Unicode class: {other:?}"),
    }
}

/// Flags and byte length of the char at `b[i]` (`i < b.len()` a char boundary of valid
/// UTF-8), given [`table`].
#[inline(always)]
pub(crate) fn class_at(table: &[u8], b: &[u8], i: usize) -> (u8, usize) {
    let k = ASCII[b[i] as usize];
    if k != NON_ASCII {
        (k, 1)
    } else {
        let (c, w) = crate::gpt2::decode_multibyte(b, i);
        (table[c as usize], w)
    }
}

/// Flags of an ASCII byte by the constant table; no flag but [`NON_ASCII`] for the others.
#[inline(always)]
pub(crate) fn ascii_flags(byte: u8) -> u8 {
    ASCII[byte as usize]
}

/// The letter a char matches case-insensitively in a contraction (`'s`, `'ll`, ...), by
/// `regex-syntax`'s simple case folding: ASCII letters fold to lower case and U+017F LONG S
/// to `s`; no other char folds onto `s d m t l v e r` (checked over every code point).
#[inline]
pub(crate) fn contraction_letter(b: &[u8], i: usize) -> Option<(u8, usize)> {
    match b.get(i..)? {
        [c, ..] if c.is_ascii_alphabetic() => Some((c.to_ascii_lowercase(), 1)),
        [0xC5, 0xBF, ..] => Some((b's', 2)),
        _ => None,
    }
}

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
//! not allocate (its table of classes is built once per process, on first use).

use std::sync::OnceLock;

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

/// Class of any char (builds the table of [`class_multibyte`]; used by tests).
pub(crate) fn class_of(c: char) -> u8 {
    if c.is_ascii() {
        BYTE_CLASS[c as usize]
    } else {
        class_of_non_ascii(c)
    }
}

/// Decodes the multi-byte char whose lead byte is at `b[i]` (`b` is valid UTF-8 and `i` a
/// char boundary). Returns the char and its length in bytes.
#[inline(always)]
pub(crate) fn decode_multibyte(b: &[u8], i: usize) -> (char, usize) {
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

/// The class of every code point below U+10000, the chars of two or three bytes in UTF-8:
/// one load, where the general category takes two and a match, and whitespace a third
/// lookup. A script with marks between its letters, like Devanagari, is cut at about every
/// other char, and each char at a cut is classified twice (to end a run, then to start the
/// next). Built on first use, from [`class_of`] (~65,000 lookups, well under a millisecond).
static BMP_CLASSES: OnceLock<Box<[u8; 0x10000]>> = OnceLock::new();

fn bmp_classes() -> &'static [u8; 0x10000] {
    BMP_CLASSES.get_or_init(|| {
        // Surrogates are no chars and never occur in a `str`.
        let all: Vec<u8> = (0u32..0x10000).map(|u| char::from_u32(u).map_or(O, class_of)).collect();
        all.into_boxed_slice().try_into().expect("65,536 classes")
    })
}

/// Class and byte length of the multi-byte char whose lead byte is at `b[i]` (`b` valid
/// UTF-8, `i` a char boundary).
#[inline(always)]
fn class_multibyte(b: &[u8], i: usize) -> (u8, usize) {
    let b0 = b[i] as usize;
    if b0 >= 0xF0 {
        let (c, w) = decode_multibyte(b, i);
        return (class_of_non_ascii(c), w);
    }
    // `decode_multibyte`'s first two cases, as an index (kept apart: sharing them measured
    // 1-3% slower on Devanagari text).
    let (cp, w) = if b0 < 0xE0 {
        (((b0 & 0x1F) << 6) | (b[i + 1] as usize & 0x3F), 2)
    } else {
        (((b0 & 0x0F) << 12) | ((b[i + 1] as usize & 0x3F) << 6) | (b[i + 2] as usize & 0x3F), 3)
    };
    (bmp_classes()[cp], w)
}

/// Class and byte length of the char starting at `b[i]` (`i < b.len()`, a char boundary).
#[inline]
fn class_at(b: &[u8], i: usize) -> (u8, usize) {
    let k = BYTE_CLASS[b[i] as usize];
    if k != NA {
        (k, 1)
    } else {
        class_multibyte(b, i)
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
            let (c, w) = class_multibyte(b, j);
            if c != cls {
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
/// (`j + 16 <= b.len()`): [`ascii_range16`] with upper case folded onto lower case.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn ascii_letters16(b: &[u8], j: usize) -> u32 {
    // Setting bit 5 maps 'A'..='Z' onto 'a'..='z' and nothing else there.
    ascii_range16(b, j, 0x20, b'a')
}

/// Bit `k` set if byte `j + k`, with the bits of `or` set, is one of the 26 bytes from
/// `first`, for the 16 bytes from `j` (`j + 16 <= b.len()`). SSE2 is part of x86-64.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn ascii_range16(b: &[u8], j: usize, or: u8, first: u8) -> u32 {
    use std::arch::x86_64::*;
    let chunk = &b[j..j + 16];
    // SAFETY: the load reads exactly the 16 bytes of `chunk`.
    unsafe {
        let v = _mm_loadu_si128(chunk.as_ptr().cast());
        // An unsigned `(x | or) - first <= 25`.
        let offset = _mm_sub_epi8(_mm_or_si128(v, _mm_set1_epi8(or as i8)), _mm_set1_epi8(first as i8));
        let inside = _mm_cmpeq_epi8(_mm_min_epu8(offset, _mm_set1_epi8(25)), offset);
        _mm_movemask_epi8(inside) as u32
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
        // Other letters, until an ASCII byte: a script's run without a vector test per char.
        let other_from = j;
        while j < b.len() && b[j] >= 0x80 {
            let (k, w) = class_multibyte(b, j);
            if k != L {
                return j;
            }
            j += w;
        }
        if j == other_from {
            return j;
        }
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
                let (c, w) = class_multibyte(b, j);
                if c != S {
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
            let (c, w) = class_multibyte(b, i);
            match c {
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
mod tests;

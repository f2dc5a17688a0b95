//! Hand-written lexer giving exactly the pre-tokens of the three patterns of
//! [`super`] (`CL100K_PATTERN`, `LLAMA3_PATTERN`, `O200K_PATTERN`) as a backtracking
//! engine finds them (`fancy-regex`, Python's `regex`): at each position the leftmost
//! alternative that matches wins, each quantifier takes the longest run that lets the
//! rest match, and the next match starts where this one ended.
//!
//! Letters `L`, numbers `N`, whitespace `S` are `\p{L}`, `\p{N}`, `\s`; "other" is none of
//! them (`[^\s\p{L}\p{N}]`, which holds the marks `\p{M}`); see [`super::classes`].
//!
//! cl100k and Llama 3 (the same rules but one):
//! * `'` and a contraction, case-insensitive by simple case folding (`'S`, `'LL`, `'ſ`
//!   with U+017F LONG S folding to `s`), even when letters follow (`'then` -> `'t`, `hen`).
//! * A letter run, with one char before it that is neither `\r`, `\n`, a letter nor a
//!   number (a space, a tab, NBSP, punctuation, a mark) if there is one. Possessive `?+`
//!   gives the same words as a plain `?` here: without the prefix char the letters would
//!   have to start at it, and it is no letter.
//! * One to three numbers.
//! * An optional U+0020 then a run of other chars, then any `\r` / `\n` after it.
//! * A whitespace run: up to its end if that is the end of the text (cl100k's `\s++$`,
//!   first among the whitespace alternatives), else up to its last `\r` / `\n`
//!   (`\s*[\r\n]`), else all but its last char if it has two or more (`\s+(?!\S)` gives
//!   one char back, which then prefixes a word or stands alone), else the single char.
//!   Llama 3 has no `\s++$`: a run to the end of the text is cut after its last line
//!   break too, then whole.
//!
//! o200k, word alternatives `P? UP* LO+ C?` then `P? UP+ LO* C?` with `P` the prefix
//! char above, `UP` = `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`, `LO` = `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`,
//! `C` a contraction:
//! * `UP* LO+` ends the capitals at the last position where a `LO` char can start the
//!   lower-case part: the char right after the run of `UP` chars if it is `LO` (then the
//!   lower-case part runs on over `LO` chars), else the run's last char that is in both
//!   classes (`Lm`, `Lo`, a mark). `HelloWorld` -> `Hello`, `World`; `日本語` is one word.
//! * A mark is a prefix char and a word char: with the prefix the rest must still make a
//!   word, and if it does not, the mark starts the word itself (`UP* LO+` then always
//!   matches, on the mark at least).
//! * Numbers as above; an optional U+0020, a run of other chars and any `\r`, `\n`, `/`
//!   after it; whitespace as Llama 3's.
//!
//! Each alternative is one forward scan from the token's start, and an alternative that
//! fails scans only a run the next one then takes, so each char is read a bounded number
//! of times: the lexer is linear in the text and needs no stack, however long a run.

#[cfg(target_arch = "x86_64")]
use crate::gpt2::ascii_range16;

use super::classes::{ascii_flags, class_at, contraction_letter, table, CRLF, L, LO, N, S, UP};

/// The text being split, with the table of classes.
struct Lexer<'a> {
    b: &'a [u8],
    table: &'static [u8],
}

impl Lexer<'_> {
    /// Flags and byte length of the char at `i` (`i < b.len()`).
    #[inline(always)]
    fn class(&self, i: usize) -> (u8, usize) {
        class_at(self.table, self.b, i)
    }

    /// Flags of the char at `j`, if the text goes on to there.
    #[inline(always)]
    fn flags(&self, j: usize) -> Option<u8> {
        (j < self.b.len()).then(|| self.class(j).0)
    }

    /// End of the run of chars from `j` that have `flag` (`L`, `UP` or `LO`): ASCII
    /// letters 16 at a time, then byte by byte, other chars decoded only where the ASCII
    /// letters stop.
    #[inline(always)]
    fn run_end(&self, mut j: usize, flag: u8) -> usize {
        let b = self.b;
        loop {
            #[cfg(target_arch = "x86_64")]
            while j + 16 <= b.len() {
                // The ASCII chars of each flag: all letters, upper case, lower case.
                let inside = match flag {
                    L => ascii_range16(b, j, 0x20, b'a'),
                    UP => ascii_range16(b, j, 0, b'A'),
                    _ => ascii_range16(b, j, 0, b'a'),
                };
                let outside = !inside & 0xffff;
                if outside != 0 {
                    j += outside.trailing_zeros() as usize;
                    break;
                }
                j += 16;
            }
            while j < b.len() && ascii_flags(b[j]) & flag != 0 {
                j += 1;
            }
            if j == b.len() || b[j] < 0x80 {
                return j;
            }
            let (f, w) = self.class(j);
            if f & flag == 0 {
                return j;
            }
            j += w;
        }
    }

    /// End of `\p{N}{1,3}` at `i` (a number).
    fn numbers_end(&self, i: usize) -> usize {
        let mut j = i;
        for _ in 0..3 {
            if j == self.b.len() {
                break;
            }
            let (f, w) = self.class(j);
            if f & N == 0 {
                break;
            }
            j += w;
        }
        j
    }

    /// End of the run of other chars from `j`, then of the bytes in `tail` after it
    /// (`[\r\n]*` or `[\r\n/]*`).
    fn others_end(&self, j: usize, tail: &[u8]) -> usize {
        let mut j = j;
        while j < self.b.len() {
            let (f, w) = self.class(j);
            if f & (L | N | S) != 0 {
                break;
            }
            j += w;
        }
        while j < self.b.len() && tail.contains(&self.b[j]) {
            j += 1;
        }
        j
    }

    /// End of the contraction at `i`, if `'s|'t|'re|'ve|'m|'ll|'d` (case-insensitive)
    /// starts there.
    #[inline]
    fn contraction_end(&self, i: usize) -> Option<usize> {
        if self.b.get(i) != Some(&b'\'') {
            return None;
        }
        let (first, w) = contraction_letter(self.b, i + 1)?;
        let second = match first {
            b's' | b'd' | b'm' | b't' => return Some(i + 1 + w),
            b'l' => b'l',
            b'v' | b'r' => b'e',
            _ => return None,
        };
        match contraction_letter(self.b, i + 1 + w)? {
            (c, w2) if c == second => Some(i + 1 + w + w2),
            _ => None,
        }
    }

    /// End of the pre-token at `i` for a whitespace char there, by the whitespace
    /// alternatives; `run_to_end_whole` for cl100k's `\s++$`.
    fn whitespace_end(&self, i: usize, run_to_end_whole: bool) -> usize {
        let mut j = i;
        let mut last = i; // start of the run's last char
        let mut after_break = None; // end of the run's last `\r` / `\n`
        while j < self.b.len() {
            let (f, w) = self.class(j);
            if f & S == 0 {
                break;
            }
            if f & CRLF != 0 {
                after_break = Some(j + 1);
            }
            last = j;
            j += w;
        }
        let at_end = j == self.b.len();
        match after_break {
            _ if at_end && run_to_end_whole => j,
            Some(end) => end,
            None if at_end => j,
            None if last > i => last,
            None => j,
        }
    }

    /// cl100k (`run_to_end_whole`) or Llama 3: end of the pre-token at `i`.
    #[inline(always)]
    fn cl100k_end(&self, i: usize, run_to_end_whole: bool) -> usize {
        if let Some(end) = self.contraction_end(i) {
            return end;
        }
        let (f, w) = self.class(i);
        if f & L != 0 {
            return self.run_end(i + w, L);
        }
        let next = self.flags(i + w);
        if f & (N | CRLF) == 0 && next.is_some_and(|g| g & L != 0) {
            return self.run_end(i + w, L);
        }
        if f & N != 0 {
            return self.numbers_end(i);
        }
        if f & S == 0 {
            return self.others_end(i + w, b"\r\n");
        }
        if self.b[i] == b' ' && next.is_some_and(|g| g & (L | N | S) == 0) {
            return self.others_end(i + w, b"\r\n");
        }
        self.whitespace_end(i, run_to_end_whole)
    }

    /// o200k's `UP* LO+ C?` from `j`, if it matches.
    fn o200k_lower_word(&self, j: usize) -> Option<usize> {
        let mut k = j;
        // The last position where `UP*` may stop and `LO+` start: greedy `UP*` gives chars
        // back until one is `LO`.
        let mut lower_start = None;
        while k < self.b.len() {
            let (f, w) = self.class(k);
            if f & LO != 0 {
                lower_start = Some(k);
            }
            if f & UP == 0 {
                break;
            }
            k += w;
        }
        let end = self.run_end(lower_start?, LO);
        Some(self.contraction_end(end).unwrap_or(end))
    }

    /// o200k's `UP+ LO* C?` from `j`, if it matches.
    fn o200k_upper_word(&self, j: usize) -> Option<usize> {
        if j == self.b.len() || self.class(j).0 & UP == 0 {
            return None;
        }
        let end = self.run_end(self.run_end(j, UP), LO);
        Some(self.contraction_end(end).unwrap_or(end))
    }

    /// o200k: end of the pre-token at `i`.
    #[inline(always)]
    fn o200k_end(&self, i: usize) -> usize {
        let (f, w) = self.class(i);
        // A prefix char is tried first, then the word without it (each alternative whole
        // before the next).
        let prefix = f & (L | N | CRLF) == 0 && i + w < self.b.len();
        let word = (prefix.then(|| self.o200k_lower_word(i + w)).flatten())
            .or_else(|| self.o200k_lower_word(i))
            .or_else(|| prefix.then(|| self.o200k_upper_word(i + w)).flatten())
            .or_else(|| self.o200k_upper_word(i));
        if let Some(end) = word {
            return end;
        }
        if f & N != 0 {
            return self.numbers_end(i);
        }
        if f & S == 0 {
            return self.others_end(i + w, b"\r\n/");
        }
        if self.b[i] == b' ' && self.flags(i + w).is_some_and(|g| g & (L | N | S) == 0) {
            return self.others_end(i + w, b"\r\n/");
        }
        self.whitespace_end(i, false)
    }
}

/// Calls `emit` with each pre-token of `text` under `pattern`, in order.
pub(super) fn split<'a>(pattern: super::Gpt4Pattern, text: &'a str, emit: &mut impl FnMut(&'a str)) {
    use super::Gpt4Pattern::*;
    let lexer = Lexer { b: text.as_bytes(), table: table() };
    match pattern {
        Cl100k => each_token(text, emit, |i| lexer.cl100k_end(i, true)),
        Llama3 => each_token(text, emit, |i| lexer.cl100k_end(i, false)),
        O200k => each_token(text, emit, |i| lexer.o200k_end(i)),
    }
}

#[inline(always)]
fn each_token<'a>(text: &'a str, emit: &mut impl FnMut(&'a str), token_end: impl Fn(usize) -> usize) {
    let mut i = 0;
    while i < text.len() {
        let end = token_end(i);
        emit(&text[i..end]);
        i = end;
    }
}

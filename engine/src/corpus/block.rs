//! Counting the words of one block of text (run in parallel, one block per task): a
//! small open-addressing table of the block's distinct words, each stored once as a byte
//! range with its hash (handed on to the serial [`super::counter::Counter`], which then
//! never hashes again), and a byte-level splitter for the `whitespace` pre-tokenizer.

use super::counter::{hash, short_hash, SHORT};

/// Words of at most this many bytes are kept in their slot itself (most words are): a
/// lookup then reads no memory but the slot.
const INLINE: usize = SHORT;

/// One lookup slot. `key`: a short word's bytes (little-endian, zero-padded), else its
/// hash. `meta`: the hash's bits 40..64, the word's length (capped at 255) in bits 32..40,
/// then 1 + index into `words` (0: a free slot). A short word matches on `key` and `meta`'s
/// high half alone (bytes and length fix it); a longer one is then compared byte by byte.
#[derive(Clone, Copy, Default)]
struct Slot {
    key: u64,
    meta: u64,
}

/// A word being looked up: byte range, hash, and its [`Slot`] fields.
#[derive(Clone, Copy)]
struct Lookup {
    start: usize,
    end: usize,
    hash: u64,
    key: u64,
    tag: u64,
}

/// The distinct words of one text in first-seen order: `(start, end, count)` byte ranges
/// into it, and their hashes.
#[derive(Default)]
pub struct BlockWords {
    words: Vec<(usize, usize)>,
    /// Apart from `words`: the one field touched on every lookup, packed densely.
    counts: Vec<u64>,
    hashes: Vec<u64>,
    /// Kept at most three quarters full (smaller is faster: it stays in the cache).
    slots: Vec<Slot>,
}

impl BlockWords {
    /// A table sized for about `bytes` of text (English has a distinct word per ~50 bytes
    /// of a 1 MB block; the table grows if a text has more).
    pub fn for_text(bytes: usize) -> Self {
        let slots = (bytes / 32).clamp(256, 1 << 20).next_power_of_two();
        BlockWords { slots: vec![Slot::default(); slots], ..Default::default() }
    }

    /// Count one occurrence of `word`, which lies in `text` (`word` is a sub-slice of it).
    #[inline(always)]
    pub fn add(&mut self, text: &str, word: &str) {
        let start = word.as_ptr() as usize - text.as_ptr() as usize;
        let len = word.len();
        let (key, h) = if len <= INLINE {
            let key = inline_key(text.as_bytes(), start, len);
            (key, short_hash(key, len))
        } else {
            let h = hash(word);
            (h, h)
        };
        let tag = (h & !0xff_ffff_ffff) | ((len.min(255) as u64) << 32);
        let word = Lookup { start, end: start + len, hash: h, key, tag };
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let slot = self.slots[i];
            if slot.meta == 0 {
                break;
            }
            if slot.key == key && slot.meta & !0xffff_ffff == tag {
                let id = (slot.meta & 0xffff_ffff) as usize - 1;
                if len <= INLINE || self.same_as(text, id, &word) {
                    self.counts[id] += 1;
                    return;
                }
            }
            i = (i + 1) & mask;
        }
        self.insert(word, i);
    }

    /// Whether word `id` has the bytes of `word` (a longer word whose slot matched).
    #[inline(never)]
    fn same_as(&self, text: &str, id: usize, word: &Lookup) -> bool {
        let (start, end) = self.words[id];
        same(&text.as_bytes()[start..end], &text.as_bytes()[word.start..word.end])
    }

    /// Add a new word at free slot `i`. Out of line: [`Self::add`] stays small enough to
    /// be inlined into the pre-tokenizer's loop.
    #[inline(never)]
    fn insert(&mut self, word: Lookup, i: usize) {
        self.words.push((word.start, word.end));
        self.counts.push(1);
        self.hashes.push(word.hash);
        self.slots[i] = Slot { key: word.key, meta: word.tag | self.words.len() as u64 };
        if self.words.len() * 4 > self.slots.len() * 3 {
            self.grow();
        }
    }

    fn grow(&mut self) {
        let capacity = self.slots.len() * 2;
        let mask = capacity - 1;
        let mut slots = vec![Slot::default(); capacity];
        for slot in self.slots.iter().filter(|s| s.meta != 0) {
            let mut i = self.hashes[(slot.meta & 0xffff_ffff) as usize - 1] as usize & mask;
            while slots[i].meta != 0 {
                i = (i + 1) & mask;
            }
            slots[i] = *slot;
        }
        self.slots = slots;
    }

    /// The words and hashes (the lookup slots are dropped).
    pub fn finish(self) -> (Vec<(usize, usize, u64)>, Vec<u64>) {
        let words = self.words.iter().zip(&self.counts).map(|(&(start, end), &count)| (start, end, count));
        let words = words.collect();
        (words, self.hashes)
    }
}

/// The low `len` bytes of a `u64`, for `len` from 0 to 8.
const KEEP: [u64; 9] = {
    let mut keep = [u64::MAX; 9];
    let mut len = 0;
    while len < 8 {
        keep[len] = (1u64 << (8 * len)) - 1;
        len += 1;
    }
    keep
};

/// The `len <= 8` bytes at `start`, little-endian and zero-padded to 8.
#[inline(always)]
fn inline_key(bytes: &[u8], start: usize, len: usize) -> u64 {
    match bytes.get(start..start + 8) {
        // One unaligned load and a mask, away from the text's end.
        Some(eight) => u64::from_le_bytes(eight.try_into().unwrap()) & KEEP[len],
        None => {
            let mut padded = [0u8; 8];
            padded[..len].copy_from_slice(&bytes[start..start + len]);
            u64::from_le_bytes(padded)
        }
    }
}

/// Byte equality, inlined for short words (most are): a call to `memcmp` per lookup
/// costs more than comparing a handful of bytes.
#[inline]
pub(super) fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a.len() <= 16 {
        a.iter().zip(b).all(|(x, y)| x == y)
    } else {
        a == b
    }
}

/// ASCII bytes that are whitespace (`char::is_whitespace`): tab to carriage return, space.
const ASCII_SPACE: [bool; 128] = {
    let mut table = [false; 128];
    let mut b = 0x09;
    while b <= 0x0d {
        table[b] = true;
        b += 1;
    }
    table[b' ' as usize] = true;
    table
};

/// The words of `text` between runs of whitespace (`char::is_whitespace`), exactly as
/// `text.split(char::is_whitespace)` without the empty pieces, but decoding only the
/// characters that can be whitespace: every non-ASCII whitespace character starts with
/// byte 0xC2 (U+0085, U+00A0), 0xE1 (U+1680), 0xE2 (U+2000..U+205F) or 0xE3 (U+3000).
/// On x86-64 sixteen bytes are checked at once for such candidates (SSE2, always there).
pub fn split_whitespace<'a>(text: &'a str, emit: &mut impl FnMut(&'a str)) {
    let mut start = 0; // of the current word
    let mut checked = 0; // bytes looked at
    #[cfg(target_arch = "x86_64")]
    {
        let bytes = text.as_bytes();
        while checked + 16 <= bytes.len() {
            let mut mask = candidates16(&bytes[checked..checked + 16]);
            while mask != 0 {
                let at = checked + mask.trailing_zeros() as usize;
                mask &= mask - 1;
                // Candidates are ASCII or lead bytes: never inside a character.
                let width = space_width(text, at);
                if width != 0 {
                    if start < at {
                        emit(&text[start..at]);
                    }
                    start = at + width;
                }
            }
            checked += 16;
        }
    }
    split_whitespace_from(text, start, checked, emit);
}

/// The bit mask of the 16 bytes that may start a whitespace character.
#[cfg(target_arch = "x86_64")]
#[inline]
fn candidates16(chunk: &[u8]) -> u32 {
    use std::arch::x86_64::*;
    assert_eq!(chunk.len(), 16);
    // SAFETY: SSE2 is part of x86-64; the load reads exactly the 16 bytes of `chunk`.
    unsafe {
        let v = _mm_loadu_si128(chunk.as_ptr().cast());
        let is = |b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
        // Tab to carriage return (signed compares: bytes from 0x80 are negative).
        let controls = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(0x08)), _mm_cmplt_epi8(v, _mm_set1_epi8(0x0e)));
        let ascii = _mm_or_si128(controls, is(b' '));
        let leads = _mm_or_si128(_mm_or_si128(is(0xc2), is(0xe1)), _mm_or_si128(is(0xe2), is(0xe3)));
        _mm_movemask_epi8(_mm_or_si128(ascii, leads)) as u32
    }
}

/// The width of the whitespace character at byte `at` (a character boundary), or 0.
#[inline]
fn space_width(text: &str, at: usize) -> usize {
    let b = text.as_bytes()[at];
    if b < 0x80 {
        return usize::from(ASCII_SPACE[b as usize]);
    }
    if !matches!(b, 0xc2 | 0xe1 | 0xe2 | 0xe3) {
        return 0;
    }
    match text[at..].chars().next() {
        Some(c) if c.is_whitespace() => c.len_utf8(),
        _ => 0,
    }
}

/// [`split_whitespace`] one byte at a time from byte `checked` (a character boundary),
/// the current word starting at `start`.
fn split_whitespace_from<'a>(text: &'a str, mut start: usize, checked: usize, emit: &mut impl FnMut(&'a str)) {
    let bytes = text.as_bytes();
    let mut i = checked.max(start);
    while i < bytes.len() {
        let width = space_width(text, i);
        if width == 0 {
            i += 1;
            continue;
        }
        if start < i {
            emit(&text[start..i]);
        }
        i += width;
        start = i;
    }
    if start < bytes.len() {
        emit(&text[start..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn std_words(text: &str) -> Vec<&str> {
        text.split(char::is_whitespace).filter(|w| !w.is_empty()).collect()
    }

    fn fast_words(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        split_whitespace(text, &mut |w| out.push(w));
        let mut bytewise = Vec::new();
        split_whitespace_from(text, 0, 0, &mut |w| bytewise.push(w));
        assert_eq!(out, bytewise, "the 16-byte and the bytewise paths agree");
        out
    }

    #[test]
    fn splits_like_the_standard_library_on_every_whitespace_character() {
        let spaces: Vec<char> = (0..=0x10ffffu32).filter_map(char::from_u32).filter(|c| c.is_whitespace()).collect();
        assert_eq!(spaces.len(), 25, "Unicode's White_Space set");
        for &s in &spaces {
            let text = format!("{s}a{s}{s}bé\u{2}{s}ü\u{2030}x\u{e000}{s}");
            assert_eq!(fast_words(&text), std_words(&text), "{s:?}");
            // At every offset around the 16-byte chunks' edges, and straddling them.
            for pad in 0..40 {
                let text = format!("{}{s}{}{s}{s}ab{s}", "x".repeat(pad), "é".repeat(pad % 7));
                assert_eq!(fast_words(&text), std_words(&text), "{s:?} after {pad}");
            }
        }
        // Characters sharing the lead bytes of whitespace but not whitespace themselves.
        let near = "a\u{a9}b\u{1681}c\u{200b}d\u{2060}e\u{3001}f\u{feff}g \u{80}h";
        assert_eq!(fast_words(near), std_words(near));
        assert_eq!(fast_words(near).len(), 2);
        assert!(fast_words("").is_empty() && fast_words(" \n\t ").is_empty());
    }

    #[test]
    fn short_and_long_comparisons_agree_with_slices() {
        let text = b"abcdefghijklmnopqrs abcdefghijklmnopqrX abc abd ab";
        for len in 1..=19 {
            for (a, b) in [(0, 20), (40, 44), (0, 40), (44, 48)] {
                if a.max(b) + len <= text.len() {
                    let want = text[a..a + len] == text[b..b + len];
                    assert_eq!(same(&text[a..a + len], &text[b..b + len]), want, "{a} {b} {len}");
                }
            }
        }
        assert!(!same(b"ab", b"abc"));
    }

    fn counted(text: &str, words: &[&str]) -> Vec<(String, u64)> {
        let mut table = BlockWords::for_text(text.len());
        // `words` are sub-slices of `text`, found by position.
        for w in words {
            table.add(text, w);
        }
        let (words, hashes) = table.finish();
        assert!(words.iter().zip(&hashes).all(|(&(s, e, _), &h)| hash(&text[s..e]) == h));
        words.into_iter().map(|(s, e, n)| (text[s..e].to_string(), n)).collect()
    }

    #[test]
    fn words_kept_in_their_slot_differ_by_length_and_every_byte() {
        // Words of up to 8 bytes are compared by their zero-padded bytes and length: NULs,
        // near-equal words, words ending at the text's end (no 8-byte load there). Every
        // substring of 1 to 10 bytes, against a plain map in first-seen order.
        let text = "a\0a\0\0abcdefghabcdefghiabcdefgiabcdefgha\0";
        let words: Vec<&str> = (1..=10).flat_map(|len| (0..=text.len() - len).map(move |s| &text[s..s + len])).collect();
        let mut want: Vec<(String, u64)> = Vec::new();
        for w in &words {
            match want.iter_mut().find(|(x, _)| x == w) {
                Some((_, n)) => *n += 1,
                None => want.push((w.to_string(), 1)),
            }
        }
        assert_eq!(counted(text, &words), want);
    }

    #[test]
    fn counts_distinct_words_in_first_seen_order_through_growth() {
        let text: String = (0..3000).map(|i| format!("w{} x{} ", i % 1000, i % 7)).collect();
        let mut table = BlockWords::for_text(16);
        split_whitespace(&text, &mut |w| table.add(&text, w));
        let (words, hashes) = table.finish();
        assert_eq!(words.len(), 1007);
        let (s, e, n) = words[0];
        assert_eq!((&text[s..e], n), ("w0", 3));
        let (s, e, n) = words[1];
        assert_eq!((&text[s..e], n), ("x0", 429));
        assert!(words.iter().zip(&hashes).all(|(&(s, e, _), &h)| hash(&text[s..e]) == h));
        assert_eq!(words.iter().map(|w| w.2).sum::<u64>(), 6000);
    }
}

//! The word-frequency table being counted: distinct words in order of first appearance
//! (one [`WordList`] buffer) with their keys and counts, found through an open-addressing
//! table of 4-byte slots (word id and as many hash bits as the id leaves free). About 29
//! bytes per distinct word for 9-letter words plus 6-11 for the slots, where a hash map
//! of owned strings plus a list of them takes about 150: 100 million distinct words fit
//! in a few GB at the peak (the index's last doubling).
//!
//! A word's key sits beside its count: a word of up to 7 bytes is its key (bytes and
//! length), so finding it reads its slot and one cache line, never its text.

use std::hash::BuildHasher;

use rustc_hash::FxBuildHasher;

use crate::error::{EngineError, Result};
use crate::wordlist::WordList;

use super::block::same;
use super::{FileInfo, WordCounts};

/// An unused slot. Used slots hold `tag | (id + 1)`, never 0.
const EMPTY: u32 = 0;
/// Ids are 32-bit (and id + 1 must fit).
const MAX_WORDS: usize = u32::MAX as usize - 1;
/// Slots at first (a power of two).
const MIN_SLOTS: usize = 1024;

#[derive(Debug, Default)]
pub struct Counter {
    words: WordList,
    /// By id: the word's [`key`] and its count.
    entries: Vec<Entry>,
    slots: Vec<u32>,
    /// Bits of a slot holding `id + 1`: the table holds at most 70 % as many words as
    /// slots, so ids fit in log2(slots) bits; the bits above hold a tag, high bits of
    /// the word's hash, which rules out most other words without reading their text.
    id_mask: u32,
    /// What the words counted stand for, `(length + 1) × count` summed: kept within
    /// 2^64 - 1 for word-count tables (checked line by line as they are read), so that
    /// the corpus's characters and every pair count fit in the model file.
    pub table_weight: u128,
}

/// Words of at most this many bytes are hashed from their bytes read as one integer.
pub const SHORT: usize = 8;

/// Words of at most this many bytes are their own [`key`].
const INLINE: usize = 7;

#[derive(Debug, Clone, Copy)]
#[repr(C)]
struct Entry {
    key: u64,
    count: u64,
}

/// A word's key (`h`: its [`hash`]): for a word of at most [`INLINE`] bytes its bytes
/// (little-endian) with its length in the top byte, which tells it from every other
/// word; for a longer one its hash with the top byte all ones, so that it never equals
/// an inline key (equal keys then only say that the texts are worth comparing).
#[inline(always)]
fn key(word: &[u8], h: u64) -> u64 {
    if word.len() <= INLINE {
        let mut padded = [0u8; 8];
        padded[..word.len()].copy_from_slice(word);
        u64::from_le_bytes(padded) | (word.len() as u64) << 56
    } else {
        h | 0xff << 56
    }
}

/// The hash of the word whose key is `key`, if it is inline (without reading its text).
#[inline(always)]
fn inline_hash(key: u64) -> Option<u64> {
    let len = (key >> 56) as usize;
    (len <= INLINE).then(|| short_hash(key & ((1 << 56) - 1), len))
}

/// The hash [`Counter::add_all`] expects.
#[inline]
pub fn hash(word: &str) -> u64 {
    let bytes = word.as_bytes();
    if bytes.len() <= SHORT {
        let mut padded = [0u8; 8];
        padded[..bytes.len()].copy_from_slice(bytes);
        short_hash(u64::from_le_bytes(padded), bytes.len())
    } else {
        FxBuildHasher.hash_one(word)
    }
}

/// [`hash`] of a word of `len <= SHORT` bytes, given as `key`: its bytes, little-endian,
/// zero-padded (the length tells `"a"` from `"a\0"`). A folded 128-bit multiply mixes
/// every input bit into the low bits (the slot) and the high ones (the tag) alike.
#[inline(always)]
pub fn short_hash(key: u64, len: usize) -> u64 {
    let product = u128::from(key ^ 0x243f_6a88_85a3_08d3) * u128::from(0x9e37_79b9_7f4a_7c15 ^ len as u64);
    (product as u64) ^ ((product >> 64) as u64)
}

/// [`Counter::add_all`] fetches a word's text this many words ahead, its end twice and
/// its slot four times as far: each stage's data then has time to arrive.
const PREFETCH_STEP: usize = 4;

/// A hint to bring `item`'s cache line closer; never faults, does nothing elsewhere.
#[inline(always)]
fn prefetch<T>(item: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch has no effect on program state, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(item.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = item;
}

impl Counter {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Count `word` `count` more times.
    pub fn add(&mut self, word: &str, count: u64) -> Result<()> {
        self.add_hashed(word, hash(word), count)
    }

    /// Count many words whose hashes ([`hash`]) are known, in order. The table is far
    /// larger than the cache, so its misses (slot, then entry, then a long word's end and
    /// text) cost more than the work: each is prefetched some words ahead, one level per
    /// stage.
    pub fn add_all(&mut self, words: &[(&str, u64, u64)]) -> Result<()> {
        for (i, &(word, h, count)) in words.iter().enumerate() {
            if let Some(&(_, h, _)) = words.get(i + 4 * PREFETCH_STEP) {
                if let Some(slot) = self.slots.get(self.home(h)) {
                    prefetch(slot);
                }
            }
            if let Some(&(ahead, h, _)) = words.get(i + 2 * PREFETCH_STEP) {
                if let Some(id) = self.likely_id(h) {
                    prefetch(&self.entries[id]);
                    if ahead.len() > INLINE {
                        prefetch(self.words.end_slot(id));
                    }
                }
            }
            if let Some(&(ahead, h, _)) = words.get(i + PREFETCH_STEP) {
                if ahead.len() > INLINE {
                    if let Some(id) = self.likely_id(h) {
                        prefetch(self.words.text_at(id));
                    }
                }
            }
            self.add_hashed(word, h, count)?;
        }
        Ok(())
    }

    fn add_hashed(&mut self, word: &str, h: u64, count: u64) -> Result<()> {
        if self.entries.len() * 10 >= self.slots.len() * 7 {
            self.grow();
        }
        let tag = self.tag(h);
        let key = key(word.as_bytes(), h);
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let slot = self.slots[i];
            if slot == EMPTY {
                let id = self.entries.len();
                if id >= MAX_WORDS {
                    return Err(EngineError::Config("the corpus has more than 4 billion distinct words".into()));
                }
                self.slots[i] = tag | (id as u32 + 1);
                self.words.push(word);
                self.entries.push(Entry { key, count });
                return Ok(());
            }
            if slot & !self.id_mask == tag {
                let id = (slot & self.id_mask) as usize - 1;
                let entry = &mut self.entries[id];
                if entry.key == key && (word.len() <= INLINE || same(self.words.bytes(id), word.as_bytes())) {
                    entry.count = entry
                        .count
                        .checked_add(count)
                        .ok_or_else(|| EngineError::Config(format!("the count of {word:?} exceeds 2^64 - 1")))?;
                    return Ok(());
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// The tag of hash `h`: its high bits, where the slot's id leaves room. The slot
    /// (`home`) comes from the low bits, so the two are independent.
    fn tag(&self, h: u64) -> u32 {
        (h >> 32) as u32 & !self.id_mask
    }

    /// The slot a word of hash `h` is looked up at first.
    fn home(&self, h: u64) -> usize {
        h as usize & self.slots.len().wrapping_sub(1)
    }

    /// The id in the word's first slot if its tag matches (for prefetching only: no probe).
    fn likely_id(&self, h: u64) -> Option<usize> {
        let &slot = self.slots.get(self.home(h))?;
        (slot != EMPTY && slot & !self.id_mask == self.tag(h)).then(|| (slot & self.id_mask) as usize - 1)
    }

    /// Double the table (kept at most 70 % full, so probes stay short).
    fn grow(&mut self) {
        let capacity = (self.slots.len() * 2).max(MIN_SLOTS);
        let mask = capacity - 1;
        // Ids are below 70 % of the capacity, so `id + 1` fits in the mask.
        self.id_mask = u32::try_from(mask).unwrap_or(u32::MAX);
        // Written before it is read: a page first read maps the shared zero page, and
        // writing it later costs a second fault and a flush of every core's mappings.
        let mut slots = Vec::with_capacity(capacity);
        slots.resize(capacity, EMPTY);
        for (id, entry) in self.entries.iter().enumerate() {
            let h = inline_hash(entry.key).unwrap_or_else(|| hash(self.words.get(id)));
            let mut i = h as usize & mask;
            while slots[i] != EMPTY {
                i = (i + 1) & mask;
            }
            slots[i] = self.tag(h) | (id as u32 + 1);
        }
        self.slots = slots;
    }

    /// The finished table (the lookup slots are dropped).
    pub fn finish(self, files: Vec<FileInfo>) -> WordCounts {
        let Counter { mut words, entries, slots, .. } = self;
        drop(slots);
        let counts = counts_in_place(entries);
        words.shrink_to_fit();
        WordCounts { words, counts, files }
    }
}

/// The entries' counts, in their own buffer (a copy would need it and another half as
/// large at once, at the counting's peak of memory).
fn counts_in_place(entries: Vec<Entry>) -> Vec<u64> {
    let mut entries = std::mem::ManuallyDrop::new(entries);
    let (ptr, len, capacity) = (entries.as_mut_ptr(), entries.len(), entries.capacity());
    let words = ptr.cast::<u64>();
    for i in 0..len {
        // SAFETY: count i goes to u64 slot i (bytes 8i..8i+8); entry i's count is read
        // from bytes 16i+8.., which no earlier write reached (8j + 8 <= 16i for j < i).
        unsafe { words.add(i).write((*ptr.add(i)).count) };
    }
    // SAFETY: the buffer is the entries', allocated for `capacity` entries of two u64s
    // (`Entry` is `repr(C)`, align 8): as u64s it holds `2 * capacity` with the same
    // layout; the first `len` are written.
    let mut counts = unsafe { Vec::from_raw_parts(words, len, 2 * capacity) };
    counts.shrink_to_fit();
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_in_first_seen_order_through_growth() {
        let mut c = Counter::default();
        for round in 0..3u64 {
            for i in 0..5000 {
                c.add(&format!("w{i}"), round + 1).unwrap();
            }
        }
        c.add("", 1).unwrap();
        let wc = c.finish(Vec::new());
        assert_eq!(wc.words.len(), 5001);
        assert_eq!((wc.words.get(0), wc.counts[0]), ("w0", 6));
        assert_eq!((wc.words.get(4999), wc.counts[4999]), ("w4999", 6));
        assert_eq!((wc.words.get(5000), wc.counts[5000]), ("", 1));
    }

    /// Enough words that slots hold few tag bits and many grows happen; words that come
    /// back in scrambled order are summed onto their first occurrence.
    #[test]
    fn many_words_match_a_plain_hash_map() {
        let mut c = Counter::default();
        let mut want: Vec<(String, u64)> = Vec::new();
        let mut index = std::collections::HashMap::new();
        for k in 0..400_000u64 {
            let i = (k * 2_654_435_761) % 150_000; // revisits words out of order
            let word = format!("{i:x}");
            c.add(&word, i % 5 + 1).unwrap();
            match index.get(&word) {
                Some(&at) => {
                    let entry: &mut (String, u64) = &mut want[at];
                    entry.1 += i % 5 + 1;
                }
                None => {
                    index.insert(word.clone(), want.len());
                    want.push((word, i % 5 + 1));
                }
            }
        }
        assert!(c.slots.len() >= 1 << 18 && c.id_mask.count_ones() >= 18);
        let wc = c.finish(Vec::new());
        let got: Vec<(String, u64)> = wc.words.iter().map(str::to_string).zip(wc.counts.iter().copied()).collect();
        assert_eq!(got, want);
    }

    /// Inline keys hold the length: words that differ only by trailing NUL bytes, or by
    /// one byte across the inline limit, stay apart.
    #[test]
    fn words_around_the_inline_limit_and_with_nul_bytes_stay_apart() {
        let words = ["", "\0", "a", "a\0", "a\0\0", "abcdefg", "abcdefg\0", "abcdefgh", "abcdefgh\0", "abcdefghi"];
        let mut c = Counter::default();
        for round in 1..=3u64 {
            for (i, w) in words.iter().enumerate() {
                c.add(w, i as u64 + round).unwrap();
            }
        }
        let wc = c.finish(Vec::new());
        let got: Vec<(&str, u64)> = wc.words.iter().zip(wc.counts.iter().copied()).collect();
        let want: Vec<(&str, u64)> = words.iter().enumerate().map(|(i, &w)| (w, 3 * i as u64 + 6)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn count_overflow_is_an_error() {
        let mut c = Counter::default();
        c.add("a", u64::MAX).unwrap();
        assert!(c.add("a", 1).is_err());
    }
}

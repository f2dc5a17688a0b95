//! A pair's postings (the words it occurs in) as varint-coded differences: a frequent
//! pair's words are close together, so most take one byte instead of four.
//!
//! Words are appended as merges create occurrences, so a list is ascending only until a
//! word comes after a greater one (`sorted` then turns false for good); differences are
//! zigzag-coded so that they may be negative.

#[derive(Debug)]
pub(super) struct Postings {
    bytes: Vec<u8>,
    /// The last word appended (the base of the next difference; 0 when empty).
    last: u32,
    /// bytes[..head] hold words known to hold the pair no more (only while sorted).
    head: u32,
    /// The word before `head` (the base of the difference there).
    head_base: u32,
    /// Whether the words are ascending.
    sorted: bool,
}

/// A word with where it is coded: (byte offset, the word before it, the word).
pub(super) type Coded = (u32, u32, u32);

fn zigzag(d: i64) -> u64 {
    ((d << 1) ^ (d >> 63)) as u64
}

/// Bytes taking the difference from `prev` to `w`.
pub(super) fn coded_len(prev: u32, w: u32) -> usize {
    let z = zigzag(w as i64 - prev as i64);
    (64 - z.max(1).leading_zeros() as usize).div_ceil(7)
}

impl Default for Postings {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl Postings {
    pub(super) fn with_capacity(bytes: usize) -> Self {
        Postings { bytes: Vec::with_capacity(bytes), last: 0, head: 0, head_base: 0, sorted: true }
    }

    pub(super) fn is_sorted(&self) -> bool {
        self.sorted
    }

    /// Append word w unless it is the last one.
    pub(super) fn push(&mut self, w: u32) {
        if !self.bytes.is_empty() {
            if w == self.last {
                return;
            }
            if w < self.last {
                self.sorted = false;
            }
        }
        self.make_room(coded_len(self.last, w));
        let mut z = zigzag(w as i64 - self.last as i64);
        while z >= 0x80 {
            self.bytes.push(z as u8 | 0x80);
            z >>= 7;
        }
        self.bytes.push(z as u8);
        self.last = w;
    }

    /// Room for `needed` more bytes, growing by a quarter, not double: postings are most
    /// of the merge loop's memory, and doubling left a quarter of it unused on large tables.
    fn make_room(&mut self, needed: usize) {
        if self.bytes.capacity() - self.bytes.len() < needed {
            self.bytes.reserve_exact((self.bytes.capacity() / 4).max(16).max(needed));
        }
    }

    /// Bytes held.
    pub(super) fn capacity(&self) -> usize {
        self.bytes.capacity()
    }

    /// Append all of `other`'s words (as if pushed one by one): only its first word is
    /// coded again, the rest are differences already.
    pub(super) fn append(&mut self, other: Postings) {
        if self.bytes.is_empty() && self.head == 0 {
            *self = other;
            return;
        }
        let Some((_, _, first)) = other.coded_from(0, 0).nth(0) else { return };
        let rest = other.coded_from(0, 0).nth(1).map_or(other.bytes.len(), |(at, _, _)| at as usize);
        self.push(first);
        self.make_room(other.bytes.len() - rest);
        self.bytes.extend_from_slice(&other.bytes[rest..]);
        self.last = other.last;
        self.sorted &= other.sorted;
    }

    /// The same words in a buffer allocated by this thread, exactly as large as needed:
    /// freeing a buffer made by a pool thread returns it to that thread's malloc arena,
    /// where the merge loop cannot reuse it.
    pub(super) fn copied(&self) -> Postings {
        Postings { bytes: self.bytes.clone(), ..*self }
    }

    pub(super) fn shrink_to_fit(&mut self) {
        self.bytes.shrink_to_fit();
    }

    /// Every word, in order of appending.
    pub(super) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.coded_from(0, 0).map(|(_, _, w)| w)
    }

    #[cfg(test)]
    pub(super) fn words(&self) -> Vec<u32> {
        self.iter().collect()
    }

    /// The words from `head` on.
    pub(super) fn from_head(&self) -> impl Iterator<Item = Coded> + '_ {
        self.coded_from(self.head, self.head_base)
    }

    /// Words before this one (from `from_head`) are known to hold the pair no more.
    pub(super) fn set_head(&mut self, (pos, base, _): Coded) {
        (self.head, self.head_base) = (pos, base);
    }

    fn coded_from(&self, pos: u32, base: u32) -> impl Iterator<Item = Coded> + '_ {
        let (mut pos, mut prev) = (pos as usize, base);
        std::iter::from_fn(move || {
            let start = pos;
            let mut z = 0u64;
            let mut shift = 0;
            loop {
                let b = *self.bytes.get(pos)?;
                pos += 1;
                z |= ((b & 0x7f) as u64) << shift;
                if b < 0x80 {
                    break;
                }
                shift += 7;
            }
            let d = (z >> 1) as i64 ^ -((z & 1) as i64);
            let before = prev;
            prev = (prev as i64 + d) as u32;
            Some((start as u32, before, prev))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_come_back_in_order_of_appending_with_repeats_dropped() {
        let mut p = Postings::default();
        let words = [0u32, 5, 5, 200, 70_000, 3, 3, u32::MAX, 0, 1];
        let mut bytes = 0;
        let mut prev = 0;
        for (i, &w) in words.iter().enumerate() {
            if i == 0 || words[i - 1] != w {
                bytes += coded_len(prev, w);
                prev = w;
            }
            p.push(w);
        }
        assert_eq!(p.words(), vec![0, 5, 200, 70_000, 3, u32::MAX, 0, 1]);
        assert_eq!(p.bytes.len(), bytes);
        assert!(!p.is_sorted());
    }

    #[test]
    fn appending_a_list_equals_pushing_its_words() {
        let lists: [&[u32]; 5] = [&[], &[7], &[7, 9, 300], &[2, 1_000_000, 5], &[9, 9, 12]];
        for x in lists {
            for y in lists {
                let (mut pushed, mut appended, mut other) = (Postings::default(), Postings::default(), Postings::default());
                x.iter().chain(y).for_each(|&w| pushed.push(w));
                x.iter().for_each(|&w| appended.push(w));
                y.iter().for_each(|&w| other.push(w));
                appended.append(other);
                assert_eq!(appended.words(), pushed.words(), "{x:?} then {y:?}");
                assert_eq!(appended.bytes, pushed.bytes);
                assert_eq!((appended.last, appended.sorted), (pushed.last, pushed.sorted));
            }
        }
    }

    #[test]
    fn the_head_skips_words_and_close_words_take_a_byte() {
        let mut p = Postings::default();
        for w in [10u32, 20, 30, 40] {
            p.push(w);
        }
        assert!(p.is_sorted());
        assert_eq!(p.bytes.len(), 4);
        let third = p.from_head().nth(2).unwrap();
        p.set_head(third);
        assert_eq!(p.from_head().map(|c| c.2).collect::<Vec<_>>(), vec![30, 40]);
    }
}

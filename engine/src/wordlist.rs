//! Many short strings in one buffer: 4 bytes of overhead per string where a `String`
//! costs 24 plus a heap block (32 or more). Corpora have millions of distinct words, and
//! word-count tables 100 million: each byte per word is 100 MB.

/// Bits of an offset kept per entry. Unit tests use few, so that every test crosses
/// many of the wraps that a text over 4 GiB crosses in production.
#[cfg(not(test))]
const END_BITS: u32 = 32;
#[cfg(test)]
const END_BITS: u32 = 5;
const END_MASK: usize = (1 << END_BITS) - 1;

/// A non-decreasing sequence of offsets (below 2^64) in 4 bytes each: the low
/// [`END_BITS`] bits per entry, and for the high bits the entries where they change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Offsets {
    low: Vec<u32>,
    /// `wraps[k]` is the first entry that is at least `(k + 1) << END_BITS`: empty until
    /// an offset reaches 4 GiB (of text, or of symbols).
    wraps: Vec<usize>,
}

impl Offsets {
    pub fn with_capacity(n: usize) -> Self {
        Offsets { low: Vec::with_capacity(n), wraps: Vec::new() }
    }

    /// Append `offset`, which is at least the last one.
    pub fn push(&mut self, offset: usize) {
        while self.wraps.len() < offset >> END_BITS {
            self.wraps.push(self.low.len());
        }
        self.low.push((offset & END_MASK) as u32);
    }

    #[inline]
    pub fn get(&self, i: usize) -> usize {
        let low = self.low[i] as usize;
        if self.wraps.is_empty() {
            return low;
        }
        let high = self.wraps.partition_point(|&first| first <= i);
        high << END_BITS | low
    }

    /// Where entry `i` is kept (for a prefetch hint).
    pub fn slot(&self, i: usize) -> &u32 {
        &self.low[i]
    }

    pub fn len(&self) -> usize {
        self.low.len()
    }

    pub fn is_empty(&self) -> bool {
        self.low.is_empty()
    }

    pub fn shrink_to_fit(&mut self) {
        self.low.shrink_to_fit();
        self.wraps.shrink_to_fit();
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WordList {
    text: String,
    /// Where each word ends in `text` (the start is the previous end).
    ends: Offsets,
}

impl WordList {
    pub fn with_capacity(words: usize, bytes: usize) -> Self {
        WordList { text: String::with_capacity(bytes), ends: Offsets::with_capacity(words) }
    }

    pub fn push(&mut self, word: &str) {
        self.text.push_str(word);
        self.ends.push(self.text.len());
    }

    /// Append a word given as characters (no temporary string).
    pub fn push_chars(&mut self, chars: impl Iterator<Item = char>) {
        self.text.extend(chars);
        self.ends.push(self.text.len());
    }

    pub fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends.get(i - 1) };
        &self.text[start..self.ends.get(i)]
    }

    /// Word `i`'s bytes: a look-up that reads only the two ends it is cut at (slicing the
    /// `str` also reads the text at both ends, to check they are character boundaries).
    #[inline]
    pub fn bytes(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends.get(i - 1) };
        &self.text.as_bytes()[start..self.ends.get(i)]
    }

    /// Where word `i`'s text starts, for a prefetch hint: computed without reading it.
    #[inline]
    pub fn text_at(&self, i: usize) -> *const u8 {
        let start = if i == 0 { 0 } else { self.ends.get(i - 1) };
        self.text.as_ptr().wrapping_add(start)
    }

    /// Where word `i`'s end is kept (for a prefetch hint: reading it locates the text).
    pub fn end_slot(&self, i: usize) -> *const u32 {
        self.ends.slot(i)
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Total bytes of all words.
    pub fn text_len(&self) -> usize {
        self.text.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

impl<'a> FromIterator<&'a str> for WordList {
    fn from_iter<I: IntoIterator<Item = &'a str>>(iter: I) -> Self {
        let mut list = WordList::default();
        for w in iter {
            list.push(w);
        }
        list
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_come_back_as_pushed() {
        let mut list: WordList = ["", "a", "héllo", ""].into_iter().collect();
        list.push_chars("ĠxĊ".chars());
        assert_eq!(list.iter().collect::<Vec<_>>(), ["", "a", "héllo", "", "ĠxĊ"]);
        assert_eq!((list.len(), list.text_len()), (5, 1 + 6 + 5));
    }

    /// Ends past the kept bits (4 GiB in production, 32 bytes here), by short words
    /// and by words longer than a whole wrap, at and across the boundaries.
    #[test]
    fn ends_past_the_kept_bits_come_back_exactly() {
        let span = 1usize << END_BITS;
        let mut words: Vec<String> = Vec::new();
        for i in 0..400 {
            words.push("x".repeat(i % 7));
            if i % 50 == 0 {
                words.push("L".repeat(3 * span + i % 5)); // spans several wraps at once
            }
            if i % 90 == 0 {
                words.push("y".repeat(span - 1));
                words.push(String::new());
            }
        }
        let list: WordList = words.iter().map(String::as_str).collect();
        assert!(list.text_len() > 20 * span, "the test crosses many wraps");
        assert_eq!(list.len(), words.len());
        for (i, w) in words.iter().enumerate() {
            assert_eq!(list.get(i), w, "word {i}");
        }
        assert_eq!(list.text_len(), words.iter().map(String::len).sum::<usize>());
    }
}

//! The word statistics of a corpus sample that the memory estimate extrapolates from
//! (`bpe_desktop.core.memory.estimate_distinct_words`, Heaps' law): its words, its
//! distinct words and their bytes, and the same two counts at about its middle. Counted
//! here without the GIL: in Python the count would hold it for the whole sample, in turns
//! that the GUI thread waits on just as training starts.

use rustc_hash::FxHashSet;

/// The sample is read in slices of this many bytes (a sixteenth of a smaller sample),
/// each extended to the next whitespace; the middle counts are taken after the first
/// slice that ends at or past the middle.
pub const SLICE: usize = 64 << 10;

/// What [`sample_words`] counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SampleWords {
    pub words: u64,
    pub distinct: u64,
    /// Bytes of the distinct words, each once.
    pub distinct_bytes: u64,
    pub half_words: u64,
    pub half_distinct: u64,
}

/// Python's `bytes.split()` whitespace: space, tab, newline, vertical tab, form feed,
/// carriage return.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// Count the whitespace-separated words of `sample` (see [`SampleWords`]).
pub fn sample_words(sample: &[u8]) -> SampleWords {
    let n = sample.len();
    let step = (n / 16).clamp(1, SLICE);
    let mut seen: FxHashSet<&[u8]> = FxHashSet::default();
    let mut out = SampleWords::default();
    let mut start = 0;
    while start < n {
        let mut end = (start + step).min(n);
        while end < n && !is_space(sample[end]) {
            end += 1; // never cut a word
        }
        for word in sample[start..end].split(|&b| is_space(b)).filter(|w| !w.is_empty()) {
            out.words += 1;
            if seen.insert(word) {
                out.distinct_bytes += word.len() as u64;
            }
        }
        if out.half_words == 0 && end * 2 >= n {
            (out.half_words, out.half_distinct) = (out.words, seen.len() as u64);
        }
        start = end;
    }
    out.distinct = seen.len() as u64;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_words_distinct_words_and_the_middle() {
        // 19 bytes in slices of one byte extended to a space (the counts of the Python original).
        let s = sample_words(b"a b a\tc\n\nb  dd\x0be\x0cf\rg");
        assert_eq!((s.words, s.distinct, s.distinct_bytes, s.half_words, s.half_distinct), (9, 7, 8, 5, 3));
        assert_eq!(sample_words(b""), SampleWords::default());
        assert_eq!(sample_words(b"  \n "), SampleWords::default());
        // Non-ASCII bytes (UTF-8, U+00A0 included) are part of words, as in bytes.split().
        let s = sample_words("ä\u{a0}ö ä".as_bytes());
        assert_eq!((s.words, s.distinct), (2, 2));
    }

    #[test]
    fn the_middle_is_after_the_first_slice_past_it() {
        // 32 one-letter words, 64 bytes in slices of 4 bytes extended to the next space (5
        // bytes, three words): the first slice ending at or past byte 32 ends after word 17.
        let text: Vec<u8> = (0..32u8).flat_map(|i| [b'a' + i % 26, b' ']).collect();
        let s = sample_words(&text);
        assert_eq!((s.words, s.half_words, s.half_distinct), (32, 17, 17));
        assert_eq!((s.distinct, s.distinct_bytes), (26, 26));
    }
}

//! Counting the words of one block of text (run in parallel, one block per task): a
//! small open-addressing table of the block's distinct words, each stored once as a byte
//! range with its hash (handed on to the serial [`super::counter::Counter`], which then
//! never hashes again), and a byte-level splitter for the `whitespace` pre-tokenizer.

use super::counter::hash;

/// The distinct words of one text in first-seen order: `(start, end, count)` byte ranges
/// into it, and their hashes.
#[derive(Debug, Default)]
pub struct BlockWords {
    pub words: Vec<(usize, usize, u64)>,
    pub hashes: Vec<u64>,
    /// 1 + index into `words`; 0 is free. Kept at most half full.
    slots: Vec<u32>,
}

impl BlockWords {
    /// A table sized for about `bytes` of text (English has a distinct word per ~50 bytes
    /// of a 1 MB block; the table grows if a text has more).
    pub fn for_text(bytes: usize) -> Self {
        let slots = (bytes / 16).clamp(256, 1 << 20).next_power_of_two();
        BlockWords { words: Vec::new(), hashes: Vec::new(), slots: vec![0; slots] }
    }

    /// Count one occurrence of `word`, which lies in `text` (`word` is a sub-slice of it).
    #[inline]
    pub fn add(&mut self, text: &str, word: &str) {
        let h = hash(word);
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let slot = self.slots[i] as usize;
            if slot == 0 {
                break;
            }
            let (start, end, _) = self.words[slot - 1];
            if self.hashes[slot - 1] == h && same(&text.as_bytes()[start..end], word.as_bytes()) {
                self.words[slot - 1].2 += 1;
                return;
            }
            i = (i + 1) & mask;
        }
        let start = word.as_ptr() as usize - text.as_ptr() as usize;
        self.slots[i] = self.words.len() as u32 + 1;
        self.words.push((start, start + word.len(), 1));
        self.hashes.push(h);
        if self.words.len() * 2 > self.slots.len() {
            self.grow();
        }
    }

    fn grow(&mut self) {
        let capacity = self.slots.len() * 2;
        let mask = capacity - 1;
        let mut slots = vec![0u32; capacity];
        for (k, &h) in self.hashes.iter().enumerate() {
            let mut i = h as usize & mask;
            while slots[i] != 0 {
                i = (i + 1) & mask;
            }
            slots[i] = k as u32 + 1;
        }
        self.slots = slots;
    }

    /// The words and hashes (the lookup slots are dropped).
    pub fn finish(self) -> (Vec<(usize, usize, u64)>, Vec<u64>) {
        (self.words, self.hashes)
    }
}

/// Byte equality, inlined for short words (most are): a call to `memcmp` per lookup
/// costs more than comparing a handful of bytes.
#[inline]
fn same(a: &[u8], b: &[u8]) -> bool {
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
pub fn split_whitespace<'a>(text: &'a str, emit: &mut impl FnMut(&'a str)) {
    let bytes = text.as_bytes();
    let mut start = 0; // of the current word
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let width = if b < 0x80 {
            usize::from(ASCII_SPACE[b as usize])
        } else if matches!(b, 0xc2 | 0xe1 | 0xe2 | 0xe3) {
            // `i` is a character boundary: only whole characters are stepped over.
            let c = text[i..].chars().next().unwrap_or('\0');
            if c.is_whitespace() {
                c.len_utf8()
            } else {
                0
            }
        } else {
            0
        };
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
        out
    }

    #[test]
    fn splits_like_the_standard_library_on_every_whitespace_character() {
        let spaces: Vec<char> = (0..=0x10ffffu32).filter_map(char::from_u32).filter(|c| c.is_whitespace()).collect();
        assert_eq!(spaces.len(), 25, "Unicode's White_Space set");
        for &s in &spaces {
            let text = format!("{s}a{s}{s}bé\u{2}{s}ü\u{2030}x\u{e000}{s}");
            assert_eq!(fast_words(&text), std_words(&text), "{s:?}");
        }
        // Characters sharing the lead bytes of whitespace but not whitespace themselves.
        let near = "a\u{a9}b\u{1681}c\u{200b}d\u{2060}e\u{3001}f\u{feff}g \u{80}h";
        assert_eq!(fast_words(near), std_words(near));
        assert_eq!(fast_words(near).len(), 2);
        assert!(fast_words("").is_empty() && fast_words(" \n\t ").is_empty());
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

//! Many short strings in one buffer: 8 bytes of overhead per string where a `String`
//! costs 24 plus a heap block (32 or more). Corpora have millions of distinct words.

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WordList {
    text: String,
    /// End of each word in `text` (the start is the previous end).
    ends: Vec<usize>,
}

impl WordList {
    pub fn with_capacity(words: usize, bytes: usize) -> Self {
        WordList { text: String::with_capacity(bytes), ends: Vec::with_capacity(words) }
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
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }

    /// Where word `i`'s end is kept (for a prefetch hint: reading it locates the text).
    pub fn end_slot(&self, i: usize) -> *const usize {
        &self.ends[i]
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
}

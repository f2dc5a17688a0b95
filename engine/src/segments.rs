//! Boundaries inside words (MorphBPE): cuts that no merge may cross.
//!
//! A word with cuts is trained as its segments, each counted with the word's count, in
//! the word's place in first-seen order. Only the segment that starts the word carries
//! a start marker (`▁`) and only the one that ends it an end marker (`</w>`, `c</w>`);
//! GPT-2's `Ġ` is text and stays with the first segment. Counting pairs over the segments
//! is exactly counting them over the words while skipping the pairs that straddle a cut,
//! and the earliest occurrence of every pair keeps its order (a segment's first
//! appearance is where its pairs first occur), so ties and everything else are those of
//! plain training. After merging, each word is put back together from its segments'
//! final symbols, so the trained word table lists the corpus words.
//!
//! With no cuts at all the table is passed through untouched: plain training.

use rustc_hash::FxHashMap;

use crate::corpus::WordCounts;
use crate::error::{EngineError, Result};
use crate::symbols::{AnyTable, Sym, WordTable};
use crate::text::{PreTokenizer, TextRules};
use crate::wordlist::WordList;

/// A segment starts its word (gets the start marker).
pub const STARTS_WORD: u8 = 1;
/// A segment ends its word (gets the end marker).
pub const ENDS_WORD: u8 = 2;
/// A whole word: both markers.
pub const WHOLE_WORD: u8 = STARTS_WORD | ENDS_WORD;

/// Where the cuts come from.
#[derive(Debug, Clone, Default)]
pub struct Constraints {
    /// Segmentations of words (each a list of morphs spelling the word); a corpus word
    /// spelled by one (after normalization, ignoring GPT-2's leading space) is cut there.
    pub segmentations: Vec<Vec<String>>,
    /// A pre-segmented corpus: this string marks the cuts inside words and is removed.
    pub separator: Option<String>,
}

impl Constraints {
    pub fn is_empty(&self) -> bool {
        self.segmentations.is_empty() && self.separator.is_none()
    }

    pub fn validate(&self, rules: &TextRules) -> Result<()> {
        let Some(sep) = &self.separator else { return Ok(()) };
        if sep.is_empty() || sep.chars().any(char::is_whitespace) {
            return Err(EngineError::Config(format!(
                "separator must be non-empty and contain no whitespace (words are cut at whitespace first); got {sep:?}"
            )));
        }
        // Every letters word is a run of letters and every other character a word of its
        // own, so a separator with a non-letter never stays inside a word there.
        if rules.pretokenizer == PreTokenizer::Letters && !sep.chars().all(crate::text::is_word_char) {
            return Err(EngineError::Config(format!(
                "separator {sep:?}: the letters pre-tokenizer makes every non-letter a word of its own, so the \
                 separator cannot mark cuts inside words; use a letter separator or another pre-tokenizer"
            )));
        }
        Ok(())
    }
}

/// The corpus words cut into segments, and how to put the words back together.
pub struct Segmented {
    /// Distinct (segment, edges) in first-seen order, with summed counts.
    pub table: WordCounts,
    /// Per segment: [`STARTS_WORD`] | [`ENDS_WORD`] as it applies.
    pub edges: Vec<u8>,
    /// Per corpus word: its count and its segments' numbers (`parts[ends[w-1]..ends[w]]`).
    counts: Vec<u64>,
    parts: Vec<u32>,
    ends: Vec<u32>,
}

/// Cut the counted words; None when no word has a cut (train as usual).
pub fn segment(wc: &WordCounts, constraints: &Constraints, rules: &TextRules) -> Result<Option<Segmented>> {
    if constraints.is_empty() {
        return Ok(None);
    }
    constraints.validate(rules)?;
    let known = cuts_by_word(&constraints.segmentations, rules);
    let mut index: FxHashMap<(String, u8), u32> = FxHashMap::default();
    let mut out = Segmented { table: WordCounts::default(), edges: vec![], counts: vec![], parts: vec![], ends: vec![] };
    out.table.files = wc.files.clone();
    let mut any_cut = false;
    let mut pieces: Vec<String> = Vec::new();
    for (w, &count) in wc.words.iter().zip(&wc.counts) {
        pieces.clear();
        split_word(w, constraints.separator.as_deref(), &known, &mut pieces);
        if pieces.is_empty() {
            continue; // a word that was only separators
        }
        any_cut |= pieces.len() > 1;
        out.counts.push(count);
        let last = pieces.len() - 1;
        for (i, piece) in pieces.drain(..).enumerate() {
            let edges = u8::from(i == 0) * STARTS_WORD | u8::from(i == last) * ENDS_WORD;
            let next = out.edges.len() as u32;
            let id = *index.entry((piece, edges)).or_insert_with_key(|(piece, _)| {
                out.table.words.push(piece);
                out.table.counts.push(0);
                out.edges.push(edges);
                next
            });
            let slot = &mut out.table.counts[id as usize];
            *slot = slot.saturating_add(count);
            out.parts.push(id);
        }
        out.ends.push(out.parts.len() as u32);
    }
    Ok(if any_cut || out.counts.len() != wc.len() { Some(out) } else { None })
}

/// Gold words (normalized as the corpus is) and the char offsets of their inner cuts.
fn cuts_by_word(segmentations: &[Vec<String>], rules: &TextRules) -> FxHashMap<String, Vec<usize>> {
    let mut known = FxHashMap::default();
    for morphs in segmentations {
        let mut word = String::new();
        let mut cuts = Vec::new();
        for m in morphs {
            let m = rules.normalize(m);
            if m.is_empty() {
                continue;
            }
            if !word.is_empty() {
                cuts.push(word.chars().count());
            }
            word.push_str(&m);
        }
        // The first segmentation listed for a word wins.
        if !cuts.is_empty() {
            known.entry(word).or_insert(cuts);
        }
    }
    known
}

/// `word`'s segments: at the separator (removed), else at its known cuts, else whole.
fn split_word(word: &str, separator: Option<&str>, known: &FxHashMap<String, Vec<usize>>, out: &mut Vec<String>) {
    if let Some(sep) = separator.filter(|s| word.contains(*s)) {
        out.extend(word.split(sep).filter(|p| !p.is_empty()).map(str::to_string));
        return;
    }
    if !known.is_empty() {
        // GPT-2 words keep their leading space; the gold word is what follows it.
        let core = word.trim_start_matches(char::is_whitespace);
        if let Some(cuts) = known.get(core) {
            let lead = word.len() - core.len();
            let mut at = core.char_indices().map(|(i, _)| lead + i).collect::<Vec<_>>();
            at.push(word.len());
            let mut from = 0;
            for &c in cuts {
                out.push(word[from..at[c]].to_string());
                from = at[c];
            }
            out.push(word[from..].to_string());
            return;
        }
    }
    out.push(word.to_string());
}

impl Segmented {
    /// The corpus words with their final symbols: each word's segments back to back.
    pub fn reassemble(&self, trained: AnyTable) -> AnyTable {
        fn join<S: Sym>(seg: &Segmented, t: &WordTable<S>) -> WordTable<S> {
            let mut out = WordTable::<S> { words: WordList::with_capacity(seg.counts.len(), t.words.text_len()), ..Default::default() };
            let mut word = String::new();
            let mut ids: Vec<u32> = Vec::new();
            let mut from = 0usize;
            for (w, &count) in seg.counts.iter().enumerate() {
                let to = seg.ends[w] as usize;
                word.clear();
                ids.clear();
                for &p in &seg.parts[from..to] {
                    word.push_str(t.words.get(p as usize));
                    ids.extend(t.ids(p as usize));
                }
                out.push(&word, count, &ids);
                from = to;
            }
            out
        }
        match &trained {
            AnyTable::Narrow(t) => AnyTable::Narrow(join(self, t)),
            AnyTable::Wide(t) => AnyTable::Wide(join(self, t)),
        }
    }

    /// How many corpus words were cut.
    pub fn words_cut(&self) -> usize {
        let mut from = 0;
        self.ends.iter().filter(|&&to| {
            let cut = to as usize - from > 1;
            from = to as usize;
            cut
        }).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{Boundary, Normalization};

    fn rules(pretokenizer: PreTokenizer) -> TextRules {
        TextRules { normalization: Normalization::None, lowercase: false, pretokenizer, boundary: Boundary::EowSymbol }
    }

    fn counts(items: &[(&str, u64)]) -> WordCounts {
        WordCounts { words: items.iter().map(|p| p.0).collect(), counts: items.iter().map(|p| p.1).collect(), files: vec![] }
    }

    #[test]
    fn gold_cuts_split_words_and_share_segments() {
        let c = Constraints { segmentations: vec![vec!["un".into(), "do".into()], vec!["re".into(), "do".into()]], separator: None };
        let s = segment(&counts(&[("undo", 2), (" redo", 3), ("do", 1)]), &c, &rules(PreTokenizer::Whitespace)).unwrap().unwrap();
        let table: Vec<(&str, u64, u8)> =
            (0..s.edges.len()).map(|i| (s.table.words.get(i), s.table.counts[i], s.edges[i])).collect();
        assert_eq!(table, [("un", 2, STARTS_WORD), ("do", 5, ENDS_WORD), (" re", 3, STARTS_WORD), ("do", 1, WHOLE_WORD)]);
        assert_eq!(s.words_cut(), 2);
    }

    #[test]
    fn separator_is_removed_and_bare_separators_vanish() {
        let c = Constraints { segmentations: vec![], separator: Some("@@".into()) };
        let s = segment(&counts(&[("un@@do", 2), ("@@", 4), ("do", 1)]), &c, &rules(PreTokenizer::Gpt2)).unwrap().unwrap();
        assert_eq!(s.table.words.iter().collect::<Vec<_>>(), ["un", "do", "do"]);
        assert_eq!(s.counts, [2, 1]);
    }

    #[test]
    fn no_cuts_means_plain_training() {
        let c = Constraints { segmentations: vec![vec!["x".into(), "y".into()]], separator: Some("@@".into()) };
        assert!(segment(&counts(&[("undo", 2)]), &c, &rules(PreTokenizer::Whitespace)).unwrap().is_none());
    }

    #[test]
    fn bad_separators_are_config_errors() {
        for (sep, pre) in [(" ", PreTokenizer::Whitespace), ("", PreTokenizer::Space), ("-", PreTokenizer::Letters)] {
            let c = Constraints { segmentations: vec![], separator: Some(sep.into()) };
            assert!(matches!(c.validate(&rules(pre)), Err(EngineError::Config(_))), "{sep:?}");
        }
    }
}

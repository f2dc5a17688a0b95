//! From counted words to symbol sequences: the alphabet, character coverage, markers.
//!
//! The alphabet is every symbol that starts out in some word (characters, `c</w>`
//! variants, the marker symbols) plus the initial alphabet, in code-point order; a
//! symbol's id is its index there. Byte-level models always have all 256 bytes.
//! Characters dropped by the coverage rule become [`UNK`], which is never merged.

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::corpus::WordCounts;
use crate::segments::{ENDS_WORD, STARTS_WORD, WHOLE_WORD};
use crate::text::{byte_to_char_table, Boundary, TextRules, BOW, EOW};
use crate::wordlist::{Offsets, WordList};

/// The symbol standing for a character outside the alphabet.
pub const UNK: u32 = u32::MAX;

/// How a symbol id is stored in a word table: as u16 when every id that training can
/// make fits (see [`narrow_fits`]), which halves the largest store of a big table, else
/// as u32. Code outside the store works with u32 ids: `id` widens and `of` narrows,
/// keeping [`UNK`] and the id below it (the trainer's mark of a dead slot).
pub trait Sym: Copy + Eq + Default + Send + Sync + std::fmt::Debug + 'static {
    fn id(self) -> u32;
    fn of(id: u32) -> Self;
}

impl Sym for u32 {
    #[inline(always)]
    fn id(self) -> u32 {
        self
    }
    #[inline(always)]
    fn of(id: u32) -> Self {
        id
    }
}

impl Sym for u16 {
    #[inline(always)]
    fn id(self) -> u32 {
        // The top two values stand for UNK and UNK - 1.
        if self >= NARROW_RESERVED { self as u32 | 0xFFFF_0000 } else { self as u32 }
    }
    #[inline(always)]
    fn of(id: u32) -> Self {
        id as u16 // UNK and UNK - 1 keep their low bits
    }
}

/// The first u16 value that is not a token id.
const NARROW_RESERVED: u16 = u16::MAX - 1;

/// Whether ids below `tokens` fit the u16 store.
pub fn narrow_fits(tokens: u64) -> bool {
    tokens <= NARROW_RESERVED as u64
}

/// Words as symbol-id sequences in one arena, with their counts, in first-seen order.
#[derive(Debug, Clone, Default)]
pub struct WordTable<S: Sym = u32> {
    /// The word as trained (byte-level words in GPT-2 characters), without markers.
    pub words: WordList,
    pub counts: Vec<u64>,
    pub syms: Vec<S>,
    /// Where each word's symbols start in `syms` (a word keeps its span as it shrinks).
    pub starts: Offsets,
    pub lens: Vec<u32>,
}

impl<S: Sym> WordTable<S> {
    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    #[inline]
    pub fn start(&self, w: usize) -> usize {
        self.starts.get(w)
    }

    pub fn symbols(&self, w: usize) -> &[S] {
        let s = self.start(w);
        &self.syms[s..s + self.lens[w] as usize]
    }

    /// Word `w`'s symbol ids.
    pub fn ids(&self, w: usize) -> impl Iterator<Item = u32> + '_ {
        self.symbols(w).iter().map(|s| s.id())
    }

    /// The id at arena index `at`.
    #[inline(always)]
    pub fn sym(&self, at: usize) -> u32 {
        self.syms[at].id()
    }

    #[inline(always)]
    pub fn set_sym(&mut self, at: usize, id: u32) {
        self.syms[at] = S::of(id);
    }

    /// Append a word given as symbol ids.
    pub fn push(&mut self, word: &str, count: u64, ids: &[u32]) {
        self.words.push(word);
        self.counts.push(count);
        self.starts.push(self.syms.len());
        self.lens.push(ids.len() as u32);
        self.syms.extend(ids.iter().map(|&id| S::of(id)));
    }
}

/// A word table in whichever store its ids need.
#[derive(Debug, Clone)]
pub enum AnyTable {
    Narrow(WordTable<u16>),
    Wide(WordTable<u32>),
}

impl Default for AnyTable {
    fn default() -> Self {
        AnyTable::Wide(WordTable::default())
    }
}

/// `$body` with `$t` bound to the table, whichever its store.
#[macro_export]
macro_rules! with_table {
    ($table:expr, $t:ident => $body:expr) => {
        match $table {
            $crate::symbols::AnyTable::Narrow($t) => $body,
            $crate::symbols::AnyTable::Wide($t) => $body,
        }
    };
}

impl AnyTable {
    pub fn len(&self) -> usize {
        with_table!(self, t => t.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn words(&self) -> &WordList {
        with_table!(self, t => &t.words)
    }

    pub fn counts(&self) -> &[u64] {
        with_table!(self, t => &t.counts)
    }

    /// Word `w`'s symbol ids.
    pub fn ids(&self, w: usize) -> Vec<u32> {
        with_table!(self, t => t.ids(w).collect())
    }
}

#[derive(Debug, Clone)]
pub struct Symbolized {
    pub alphabet: Vec<String>,
    pub table: AnyTable,
    /// Characters in the corpus (each occurrence weighted by its word's count).
    pub characters: u128,
    /// Of those, how many became the unknown symbol.
    pub unknown_characters: u128,
}

/// The words as symbol sequences; `most_tokens` bounds, given the alphabet's size, how
/// many tokens training can make (None: no bound), which picks the store. `edges` (for
/// segments of words, see `segments`) says per entry which word markers it gets; None:
/// every entry is a whole word.
pub fn symbolize(
    wc: WordCounts,
    edges: Option<&[u8]>,
    rules: &TextRules,
    coverage: f64,
    initial_alphabet: &str,
    most_tokens: impl FnOnce(usize) -> Option<u64>,
) -> Symbolized {
    let byte_level = rules.pretokenizer.byte_level();
    let WordCounts { words, counts, .. } = wc;
    let words: WordList = if byte_level {
        let table = byte_to_char_table();
        let mut mapped = WordList::with_capacity(words.len(), words.text_len() * 2);
        for w in words.iter() {
            mapped.push_chars(w.bytes().map(|b| table[b as usize]));
        }
        mapped.shrink_to_fit();
        mapped
    } else {
        words
    };
    let ids = || (0..words.len()).into_par_iter();
    // Tallies are kept per run of words: a fold would move its tally at every word.
    const RUN: usize = 1 << 12;
    let runs = || (0..words.len().div_ceil(RUN)).into_par_iter().map(|r| r * RUN..((r + 1) * RUN).min(words.len()));
    let edge = |w: usize| edges.map_or(WHOLE_WORD, |e| e[w]);

    // 1. Character frequencies, weighted by word counts (ASCII characters, most of most
    //    corpora, in an array: a hash look-up per character was most of this pass).
    let freq: FxHashMap<char, u128> = runs()
        .map(|run| {
            let mut m = CharCounts::default();
            run.for_each(|i| m.add(words.get(i), counts[i]));
            m
        })
        .reduce(CharCounts::default, CharCounts::join)
        .into_map();
    let characters: u128 = freq.values().sum();

    // 2. Which characters are kept.
    let kept: FxHashSet<char> = if byte_level {
        byte_to_char_table().into_iter().collect()
    } else {
        let mut by_freq: Vec<(char, u128)> = freq.iter().map(|(&c, &n)| (c, n)).collect();
        by_freq.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut kept = FxHashSet::default();
        let mut cum: u128 = 0;
        for (c, n) in by_freq {
            kept.insert(c);
            cum += n;
            // Compare shares, as the reference does: 55/100 must meet a coverage of 0.55.
            if coverage < 1.0 && cum as f64 / characters as f64 >= coverage {
                break;
            }
        }
        // A character that is in the alphabet anyway is never unknown, or a training word
        // would not re-encode to its training segmentation.
        kept.extend(initial_alphabet.chars());
        if rules.boundary == Boundary::BowPrefix {
            kept.extend(BOW.chars());
        }
        kept
    };
    let unknown_characters: u128 = freq.iter().filter(|(c, _)| !kept.contains(c)).map(|(_, n)| *n).sum();

    // 3. The alphabet: every kept character where it occurs (word-final ones as `c</w>`
    //    with the suffix marker), the marker symbols, the initial alphabet.
    let suffix = rules.boundary == Boundary::EowSuffix;
    let (inner, last) = runs()
        .map(|run| {
            let (mut inner, mut last) = (CharSet::default(), CharSet::default());
            for i in run {
                let w = words.get(i);
                match w.chars().next_back() {
                    Some(c) if suffix && edge(i) & ENDS_WORD != 0 => {
                        inner.add_all(&w[..w.len() - c.len_utf8()]);
                        last.add(c);
                    }
                    _ => inner.add_all(w),
                }
            }
            (inner, last)
        })
        .reduce(|| (CharSet::default(), CharSet::default()), |(a, b), (c, d)| (a.join(c), b.join(d)));
    let (inner, last) = (inner.into_set(), last.into_set());
    let mut alphabet: Vec<String> = inner.iter().filter(|c| kept.contains(c)).map(|c| c.to_string()).collect();
    alphabet.extend(last.iter().filter(|c| kept.contains(c)).map(|c| format!("{c}{EOW}")));
    match rules.boundary {
        Boundary::EowSymbol => alphabet.push(EOW.to_string()),
        Boundary::BowPrefix => alphabet.push(BOW.to_string()),
        _ => {}
    }
    if byte_level {
        alphabet.extend(byte_to_char_table().iter().map(|c| c.to_string()));
    } else {
        alphabet.extend(initial_alphabet.chars().map(|c| c.to_string()));
    }
    alphabet.sort();
    alphabet.dedup();
    let id_of = |s: &str| alphabet.binary_search_by(|a| a.as_str().cmp(s)).unwrap() as u32;
    let char_ids = CharIds::new(inner.iter().filter(|c| kept.contains(c)).map(|&c| (c, id_of(&c.to_string()))));
    let final_ids = CharIds::new(last.iter().filter(|c| kept.contains(c)).map(|&c| (c, id_of(&format!("{c}{EOW}")))));
    let marker = match rules.boundary {
        Boundary::EowSymbol => Some(id_of(EOW)),
        Boundary::BowPrefix => Some(id_of(BOW)),
        _ => None,
    };

    // 4. Words as symbol ids, written straight into one arena (in parallel, in chunks).
    let bow = marker.filter(|_| rules.boundary == Boundary::BowPrefix);
    let eow = marker.filter(|_| rules.boundary == Boundary::EowSymbol);
    let bow_of = |w: usize| bow.filter(|_| edge(w) & STARTS_WORD != 0);
    let eow_of = |w: usize| eow.filter(|_| edge(w) & ENDS_WORD != 0);
    let lens: Vec<u32> = ids()
        .map(|i| (words.get(i).chars().count() + usize::from(bow_of(i).is_some()) + usize::from(eow_of(i).is_some())) as u32)
        .collect();
    let word_ids = |w: usize| {
        let text = words.get(w);
        let last = match text.chars().next_back() {
            Some(c) if edge(w) & ENDS_WORD != 0 => text.len() - c.len_utf8(),
            _ => usize::MAX,
        };
        let (char_ids, final_ids) = (&char_ids, &final_ids);
        bow_of(w)
            .into_iter()
            .chain(text.char_indices().map(move |(at, c)| {
                let ids = if suffix && at == last { final_ids } else { char_ids };
                ids.get(c)
            }))
            .chain(eow_of(w))
    };
    let table = if most_tokens(alphabet.len()).is_some_and(narrow_fits) {
        let (syms, starts) = arena::<u16, _>(&lens, word_ids);
        AnyTable::Narrow(WordTable { words, counts, syms, starts, lens })
    } else {
        let (syms, starts) = arena::<u32, _>(&lens, word_ids);
        AnyTable::Wide(WordTable { words, counts, syms, starts, lens })
    };
    Symbolized { alphabet, table, characters, unknown_characters }
}

/// Characters' frequencies, weighted by word counts: ASCII characters in an array.
struct CharCounts {
    ascii: [u128; 128],
    /// ASCII characters met (in words counted 0 times too).
    ascii_seen: [bool; 128],
    other: FxHashMap<char, u128>,
}

impl Default for CharCounts {
    fn default() -> Self {
        CharCounts { ascii: [0; 128], ascii_seen: [false; 128], other: FxHashMap::default() }
    }
}

impl CharCounts {
    fn add(&mut self, word: &str, count: u64) {
        let n = count as u128;
        if word.is_ascii() {
            word.bytes().for_each(|b| self.ascii[b as usize] += n);
            if count == 0 {
                word.bytes().for_each(|b| self.ascii_seen[b as usize] = true);
            }
        } else {
            for c in word.chars() {
                match ascii_index(c) {
                    Some(b) => {
                        self.ascii[b] += n;
                        self.ascii_seen[b] |= count == 0;
                    }
                    None => *self.other.entry(c).or_insert(0) += n,
                }
            }
        }
    }

    fn join(mut self, other: Self) -> Self {
        for b in 0..128 {
            self.ascii[b] += other.ascii[b];
            self.ascii_seen[b] |= other.ascii_seen[b];
        }
        for (c, n) in other.other {
            *self.other.entry(c).or_insert(0) += n;
        }
        self
    }

    /// Every character met, with its frequency.
    fn into_map(self) -> FxHashMap<char, u128> {
        let mut map = self.other;
        let met = (0..128u8).filter(|&b| self.ascii[b as usize] > 0 || self.ascii_seen[b as usize]);
        map.extend(met.map(|b| (b as char, self.ascii[b as usize])));
        map
    }
}

/// Characters met, ASCII ones in an array.
struct CharSet {
    ascii: [bool; 128],
    other: FxHashSet<char>,
}

impl Default for CharSet {
    fn default() -> Self {
        CharSet { ascii: [false; 128], other: FxHashSet::default() }
    }
}

impl CharSet {
    fn add(&mut self, c: char) {
        match ascii_index(c) {
            Some(b) => self.ascii[b] = true,
            None => {
                self.other.insert(c);
            }
        }
    }

    fn add_all(&mut self, text: &str) {
        if text.is_ascii() {
            text.bytes().for_each(|b| self.ascii[b as usize] = true);
        } else {
            text.chars().for_each(|c| self.add(c));
        }
    }

    fn join(mut self, other: Self) -> Self {
        for b in 0..128 {
            self.ascii[b] |= other.ascii[b];
        }
        self.other.extend(other.other);
        self
    }

    fn into_set(self) -> FxHashSet<char> {
        let mut set = self.other;
        set.extend((0..128u8).filter(|&b| self.ascii[b as usize]).map(char::from));
        set
    }
}

fn ascii_index(c: char) -> Option<usize> {
    c.is_ascii().then_some(c as usize)
}

/// Characters' symbol ids ([`UNK`] for one without), ASCII ones in an array.
struct CharIds {
    ascii: [u32; 128],
    other: FxHashMap<char, u32>,
}

impl CharIds {
    fn new(ids: impl Iterator<Item = (char, u32)>) -> Self {
        let mut table = CharIds { ascii: [UNK; 128], other: FxHashMap::default() };
        for (c, id) in ids {
            match ascii_index(c) {
                Some(b) => table.ascii[b] = id,
                None => {
                    table.other.insert(c, id);
                }
            }
        }
        table
    }

    #[inline]
    fn get(&self, c: char) -> u32 {
        match ascii_index(c) {
            Some(b) => self.ascii[b],
            None => self.other.get(&c).copied().unwrap_or(UNK),
        }
    }
}

/// Every word's ids (`word_ids`, `lens[w]` of them) back to back, and where each starts.
fn arena<S: Sym, I: Iterator<Item = u32>>(lens: &[u32], word_ids: impl Fn(usize) -> I + Sync) -> (Vec<S>, Offsets) {
    let mut starts = Offsets::with_capacity(lens.len());
    let mut total = 0usize;
    for &n in lens {
        starts.push(total);
        total += n as usize;
    }
    let mut syms = vec![S::default(); total];
    const CHUNK: usize = 1 << 14;
    let mut regions: Vec<(usize, &mut [S])> = Vec::with_capacity(lens.len() / CHUNK + 1);
    let mut rest: &mut [S] = &mut syms;
    for first in (0..lens.len()).step_by(CHUNK) {
        let end = (first + CHUNK).min(lens.len());
        let size: usize = lens[first..end].iter().map(|&n| n as usize).sum();
        let (region, tail) = std::mem::take(&mut rest).split_at_mut(size);
        regions.push((first, region));
        rest = tail;
    }
    regions.into_par_iter().for_each(|(first, region)| {
        // The ids drive the zip, so that a word's end takes no slot of the next one.
        let mut out = region.iter_mut();
        for w in first..(first + CHUNK).min(lens.len()) {
            for (id, slot) in word_ids(w).zip(out.by_ref()) {
                *slot = S::of(id);
            }
        }
    });
    (syms, starts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{Normalization, PreTokenizer};

    #[test]
    fn narrow_ids_keep_the_marks() {
        for id in [0, 1, 0xFFFD, UNK, UNK - 1] {
            assert_eq!(u16::of(id).id(), id);
        }
        assert!(narrow_fits(0xFFFE) && !narrow_fits(0xFFFF));
    }

    /// A character met only in words counted 0 times is still in the alphabet (ASCII or not).
    #[test]
    fn characters_of_words_counted_zero_times_are_known() {
        let rules = TextRules {
            normalization: Normalization::None,
            lowercase: false,
            pretokenizer: PreTokenizer::Whitespace,
            boundary: Boundary::EowSuffix,
        };
        let words: WordList = ["ab", "qz", "éè"].into_iter().collect();
        let wc = WordCounts { words: words.clone(), counts: vec![3, 0, 0], files: vec![] };
        let out = symbolize(wc, None, &rules, 1.0, "", |_| None);
        for piece in ["a", "b</w>", "q", "z</w>", "é", "è</w>"] {
            assert!(out.alphabet.iter().any(|s| s == piece), "{piece} missing from {:?}", out.alphabet);
        }
        assert!((0..3).all(|w| !out.table.ids(w).contains(&UNK)));
        assert_eq!(out.characters, 6);
    }

    /// A bound on the tokens picks the u16 store; the ids are the same in both.
    #[test]
    fn both_stores_hold_the_same_ids() {
        let rules = TextRules {
            normalization: Normalization::None,
            lowercase: false,
            pretokenizer: PreTokenizer::Whitespace,
            boundary: Boundary::EowSymbol,
        };
        let words: WordList = ["low", "lowest", "", "né", "x"].into_iter().collect();
        let wc = || WordCounts { words: words.clone(), counts: vec![5, 2, 1, 3, 1], files: vec![] };
        let wide = symbolize(wc(), None, &rules, 0.9, "", |_| None);
        let narrow = symbolize(wc(), None, &rules, 0.9, "", |alphabet| Some(alphabet as u64 + 100));
        assert!(matches!(wide.table, AnyTable::Wide(_)) && matches!(narrow.table, AnyTable::Narrow(_)));
        assert_eq!(wide.alphabet, narrow.alphabet);
        for w in 0..words.len() {
            assert_eq!(wide.table.ids(w), narrow.table.ids(w), "word {w}");
        }
        assert_eq!(wide.table.ids(4), [UNK, wide.alphabet.iter().position(|s| s == EOW).unwrap() as u32], "coverage 0.9 drops x");
        assert_eq!(narrow.table.ids(0).len(), 4, "l o w </w>");
    }
}

//! The long-word path gives exactly what the short-word scan gives, and its work does
//! not grow with the word's length times the number of merges.

use std::cell::Cell;

use proptest::prelude::*;
use rustc_hash::FxHashMap;

use super::tracking::Tuning;
use super::{key, train_tuned, MergeOptions, Ties, Trained, Trainer};
use crate::progress::Reporter;
use crate::symbols::{AnyTable, Sym, WordTable, UNK};

thread_local! {
    /// Whether this thread's trainings recount every pair after every merge.
    pub(super) static RECOUNT: Cell<bool> = const { Cell::new(false) };
}

impl<S: Sym> Trainer<'_, S> {
    /// With `RECOUNT` on: every tracked pair's count equals a full recount of the words,
    /// and every other pair's is within its bound (see `tracking`).
    pub(super) fn check_counts(&self) {
        if !RECOUNT.get() {
            return;
        }
        let long: FxHashMap<u32, usize> = self.long_word_numbers().iter().enumerate().map(|(li, &w)| (w, li)).collect();
        let mut counts: FxHashMap<u64, u64> = FxHashMap::default();
        for w in 0..self.words.len() {
            let seq = match long.get(&(w as u32)) {
                Some(&li) => self.long_word_symbols(li),
                None => self.words.ids(w).collect(),
            };
            for pair in seq.windows(2).filter(|p| p[0] != UNK && p[1] != UNK) {
                *counts.entry(key(pair[0], pair[1])).or_default() += self.words.counts[w];
            }
        }
        for (k, &idx) in &self.pair_index {
            assert_eq!(self.pairs[idx as usize].count, counts.get(k).copied().unwrap_or(0), "pair {k:x}");
        }
        for (k, &n) in &counts {
            if !self.pair_index.contains_key(k) {
                assert!(n <= self.untracked_bound(*k), "untracked pair {k:x} counts {n}");
            }
        }
    }
}

pub(super) fn table<S: Sym>(words: &[(Vec<u32>, u64)]) -> WordTable<S> {
    let mut t = WordTable::default();
    for (syms, count) in words {
        t.push("", *count, syms);
    }
    t
}

fn run(alphabet: &[&str], words: &[(Vec<u32>, u64)], opts: &MergeOptions, long_from: usize) -> (Trained, u64) {
    let tuning = Tuning { long_from, ..Tuning::for_table(&WordTable::<u32>::default()) };
    run_tuned(alphabet, words, opts, tuning)
}

pub(super) fn run_tuned(alphabet: &[&str], words: &[(Vec<u32>, u64)], opts: &MergeOptions, tuning: Tuning) -> (Trained, u64) {
    run_stored::<u32>(alphabet, words, opts, tuning)
}

/// [`run_tuned`] with the symbols stored as `S`.
fn run_stored<S: Sym>(alphabet: &[&str], words: &[(Vec<u32>, u64)], opts: &MergeOptions, tuning: Tuning) -> (Trained, u64) {
    let alphabet = alphabet.iter().map(|s| s.to_string()).collect();
    let (trained, words, work, _) = train_tuned(alphabet, table::<S>(words), opts, &mut Reporter::silent(), tuning).unwrap();
    (with_words(trained, words), work)
}

/// The training with its words put back, as u32 ids (segmentations compare as ids,
/// whatever the store).
pub(super) fn with_words<S: Sym>(trained: Trained, words: WordTable<S>) -> Trained {
    let words = (0..words.len()).fold(WordTable::<u32>::default(), |mut t, w| {
        t.push("", words.counts[w], &words.ids(w).collect::<Vec<_>>());
        t
    });
    Trained { words: AnyTable::Wide(words), ..trained }
}

pub(super) fn segmentations(t: &Trained) -> Vec<Vec<u32>> {
    (0..t.words.len()).map(|w| t.words.ids(w)).collect()
}

/// Alphabets whose tokens concatenate to other tokens make duplicate merges (and the
/// re-encoding after them) frequent.
pub(super) const ALPHABETS: [&[&str]; 3] =
    [&["a", "b", "c", "d"], &["a", "ab", "b", "bc", "c"], &["a", "aa", "aaa", "b", "ba", "c", "cab"]];

fn word(symbols: u32) -> impl Strategy<Value = Vec<u32>> {
    let symbol = prop_oneof![20 => 0..symbols, 2 => 0..2u32, 1 => Just(UNK)];
    prop_oneof![
        3 => prop::collection::vec(symbol.clone(), 0..12),
        2 => prop::collection::vec(symbol, 12..160),
    ]
}

pub(super) fn case() -> impl Strategy<Value = (usize, Vec<(Vec<u32>, u64)>, MergeOptions)> {
    (0..ALPHABETS.len()).prop_flat_map(|a| {
        let n = ALPHABETS[a].len() as u32;
        let words = prop::collection::vec((word(n), 1..4u64), 1..7);
        let ties = prop::sample::select(vec![Ties::FirstSeen, Ties::Lexicographic, Ties::Codepoint]);
        let specials =
            prop::sample::select(vec![vec![], vec!["ab".to_string()], vec!["ca".to_string(), "aaaa".into()]]);
        (Just(a), words, ties, 1..3u64, 0..60u64, specials).prop_map(
            |(a, words, ties, min_frequency, merges, specials)| {
                (a, words, MergeOptions { min_frequency, vocab_size: None, max_merges: Some(merges), ties, specials, forbidden: vec![] })
            },
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(debug_assertions) { 400 } else { 2000 }))]

    #[test]
    fn long_words_train_exactly_like_short_ones((a, words, opts) in case(), long_from in prop::sample::select(vec![0usize, 2, 3, 8, 40])) {
        RECOUNT.set(true);
        let (short, _) = run(ALPHABETS[a], &words, &opts, usize::MAX);
        let (long, _) = run(ALPHABETS[a], &words, &opts, long_from);
        RECOUNT.set(false);
        prop_assert_eq!(&short.merges, &long.merges);
        prop_assert_eq!(&short.tokens, &long.tokens);
        prop_assert_eq!(segmentations(&short), segmentations(&long));
    }

    /// Symbols stored as u16 (unknown characters and dead slots included) train exactly
    /// like u32 ones, on both paths.
    #[test]
    fn narrow_symbols_train_exactly_like_wide_ones((a, words, opts) in case(), long_from in prop::sample::select(vec![3usize, usize::MAX])) {
        let tuning = Tuning { long_from, ..Tuning::for_table(&WordTable::<u32>::default()) };
        let (wide, _) = run_stored::<u32>(ALPHABETS[a], &words, &opts, tuning);
        let (narrow, _) = run_stored::<u16>(ALPHABETS[a], &words, &opts, tuning);
        prop_assert_eq!(&wide.merges, &narrow.merges);
        prop_assert_eq!(&wide.tokens, &narrow.tokens);
        prop_assert_eq!(segmentations(&wide), segmentations(&narrow));
    }
}

/// A deterministic pseudo-random word (xorshift) over `symbols` symbols.
fn random_word(len: usize, symbols: u32, seed: u64) -> Vec<u32> {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % symbols as u64) as u32
        })
        .collect()
}

#[test]
fn long_word_merges_cost_per_occurrence() {
    // Four words of 40,000 random letters and 150 merges: scanning the words on every
    // merge visits 150 x 160,000 symbols; per occurrence it is a few times 160,000.
    let alphabet: Vec<String> = (b'a'..=b'z').map(|c| (c as char).to_string()).collect();
    let alphabet: Vec<&str> = alphabet.iter().map(|s| s.as_str()).collect();
    let words: Vec<(Vec<u32>, u64)> = (1..=4).map(|seed| (random_word(40_000, 26, seed), 1)).collect();
    let symbols: u64 = words.iter().map(|(w, _)| w.len() as u64).sum();
    let opts = MergeOptions {
        min_frequency: 2,
        vocab_size: None,
        max_merges: Some(150),
        ties: Ties::FirstSeen,
        specials: vec![],
        forbidden: vec![],
    };
    let (long, long_work) = run(&alphabet, &words, &opts, super::LONG_WORD);
    let (short, short_work) = run(&alphabet, &words, &opts, usize::MAX);
    assert_eq!(long.merges.len(), 150);
    assert_eq!(long.merges, short.merges);
    assert_eq!(segmentations(&long), segmentations(&short));
    assert!(short_work > 100 * symbols, "the scan's work should grow with the merges: {short_work}");
    assert!(long_work < 4 * symbols, "long words cost {long_work} visits for {symbols} symbols");
}

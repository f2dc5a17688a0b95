//! Tracking only the pairs above a floor trains exactly like tracking every pair, and
//! tracks fewer pairs.

use std::cell::Cell;

use proptest::prelude::*;

use super::long_word_tests::{case, run_tuned, segmentations, table, ALPHABETS, RECOUNT};
use super::rewrite_tests::pool;
use super::tracking::Tuning;
use super::{train_in, train_tuned, MergeOptions, Ties, Trained};
use crate::progress::Reporter;
use crate::symbols::WordTable;

fn every_pair(long_from: usize) -> Tuning {
    Tuning { long_from, prune_from_words: usize::MAX, ..Tuning::for_table(&WordTable::<u32>::default()) }
}

thread_local! {
    /// Re-counts after the first count, on this thread.
    pub(super) static RECOUNTS: Cell<u32> = const { Cell::new(0) };
}

fn pruned(long_from: usize, first_floor: u64, partition_pairs: usize, records: bool) -> Tuning {
    Tuning { long_from, prune_from_words: 0, first_floor: Some(first_floor), partition_pairs, records, ..Tuning::for_table(&WordTable::<u32>::default()) }
}

fn assert_same(a: &Trained, b: &Trained) {
    assert_eq!(a.merges, b.merges);
    assert_eq!(a.tokens, b.tokens);
    assert_eq!(segmentations(a), segmentations(b));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(debug_assertions) { 400 } else { 2000 }))]

    #[test]
    fn tracking_pairs_above_a_floor_trains_exactly(
        (a, words, opts) in case(),
        long_from in prop::sample::select(vec![3usize, 8, usize::MAX]),
        first_floor in prop::sample::select(vec![2u64, 3, 5, 40, u64::MAX / 2]),
        partition_pairs in prop::sample::select(vec![1usize, 4, 1 << 10]),
        records in any::<bool>(),
        foresight in any::<bool>(),
    ) {
        let (all, _) = run_tuned(ALPHABETS[a], &words, &opts, every_pair(usize::MAX));
        RECOUNT.set(true);
        let tuning = Tuning { foresight, ..pruned(long_from, first_floor, partition_pairs, records) };
        let (some, _) = run_tuned(ALPHABETS[a], &words, &opts, tuning);
        RECOUNT.set(false);
        prop_assert_eq!(&all.merges, &some.merges);
        prop_assert_eq!(&all.tokens, &some.tokens);
        prop_assert_eq!(segmentations(&all), segmentations(&some));
    }
}

/// `n` distinct pseudo-random words (xorshift) of 3 to 12 symbols, with Zipf counts
/// (half of them once), as in the word-table benchmark.
fn zipf_words(n: usize, symbols: u32) -> Vec<(Vec<u32>, u64)> {
    let mut x = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n)
        .map(|i| {
            let len = 3 + (next() % 10) as usize;
            let word = (0..len).map(|_| (next() % symbols as u64) as u32).collect();
            (word, (n as u64 / (2 * (i as u64 + 1))).max(1))
        })
        .collect()
}

fn train_with(alphabet: &[&str], words: &[(Vec<u32>, u64)], opts: &MergeOptions, tuning: Tuning) -> (Trained, usize) {
    let alphabet = alphabet.iter().map(|s| s.to_string()).collect();
    let (trained, _, _, most_pairs) = train_tuned(alphabet, table::<u32>(words), opts, &mut Reporter::silent(), tuning).unwrap();
    (trained, most_pairs)
}

#[test]
fn a_zipf_table_trains_exactly_with_far_fewer_pairs_tracked() {
    // Alphabet 1 makes duplicate merges; min_frequency 1 lets merges reach the rare words.
    for (alphabet, ties) in [
        (ALPHABETS[0], Ties::FirstSeen),
        (ALPHABETS[0], Ties::Codepoint),
        (ALPHABETS[1], Ties::Lexicographic),
        (ALPHABETS[1], Ties::FirstSeen),
    ] {
        let words = zipf_words(8000, alphabet.len() as u32);
        let opts = MergeOptions { min_frequency: 1, vocab_size: None, max_merges: Some(600), ties, specials: vec![], forbidden: vec![] };
        let (all, all_pairs) = train_with(alphabet, &words, &opts, every_pair(usize::MAX));
        let (some, some_pairs) = train_with(alphabet, &words, &opts, pruned(usize::MAX, 64, 64, true));
        assert_eq!(all.merges.len(), 600);
        assert_same(&all, &some);
        assert!(3 * some_pairs < all_pairs, "{some_pairs} pairs tracked of {all_pairs}");
    }
}

#[test]
fn the_default_tuning_tracks_every_pair_of_small_tables() {
    let words = zipf_words(500, 4);
    let tuning = Tuning::for_table(&table::<u32>(&words));
    assert!(tuning.prune_from_words > words.len());
    let opts = MergeOptions { min_frequency: 2, vocab_size: None, max_merges: Some(100), ties: Ties::FirstSeen, specials: vec![], forbidden: vec![] };
    let (all, _) = train_with(ALPHABETS[0], &words, &opts, every_pair(usize::MAX));
    let (default, _) = train_with(ALPHABETS[0], &words, &opts, tuning);
    assert_same(&all, &default);
}

#[test]
fn a_table_the_default_tuning_prunes_trains_exactly_on_two_threads() {
    // Past the size from which only pairs above a floor are tracked: the first pairs are
    // all counted, then those below the floor dropped; each re-count selects and counts on
    // the pool's threads. A first floor above every count re-counts from the first merge on.
    let words = zipf_words(70_000, ALPHABETS[0].len() as u32);
    let default = Tuning { parts: 2, ..Tuning::for_table(&table::<u32>(&words)) };
    assert!(default.prune_from_words <= words.len());
    let opts = MergeOptions { min_frequency: 2, vocab_size: None, max_merges: Some(400), ties: Ties::FirstSeen, specials: vec![], forbidden: vec![] };
    let (all, _) = train_with(ALPHABETS[0], &words, &opts, every_pair(usize::MAX));
    assert_eq!(all.merges.len(), 400);
    for first_floor in [None, Some(1 << 20)] {
        let alphabet = ALPHABETS[0].iter().map(|s| s.to_string()).collect();
        let tuning = Tuning { first_floor, ..default };
        let (threads, ..) = train_in(alphabet, table::<u32>(&words), &opts, &mut Reporter::silent(), tuning, Some(pool())).unwrap();
        assert_same(&all, &threads);
    }
}

/// Re-counts of a training (see `tracking`), and its result.
fn recounts(words: &[(Vec<u32>, u64)], opts: &MergeOptions, tuning: Tuning) -> (u32, Trained) {
    RECOUNTS.set(0);
    let (trained, _) = train_with(ALPHABETS[0], words, opts, tuning);
    (RECOUNTS.get(), trained)
}

#[test]
fn foreseeing_the_last_merges_count_spares_re_counts() {
    let mut spared = 0;
    for (n, first_floor) in [(8000, 256), (70_000, 256), (70_000, 1024)] {
        let words = zipf_words(n, ALPHABETS[0].len() as u32);
        for merges in [300, 600, 1200, 2400] {
            let opts = MergeOptions { min_frequency: 2, vocab_size: None, max_merges: Some(merges), ties: Ties::FirstSeen, specials: vec![], forbidden: vec![] };
            let tuning = Tuning { first_floor: Some(first_floor), prune_from_words: 0, ..Tuning::for_table(&table::<u32>(&words)) };
            let (blind, expected) = recounts(&words, &opts, Tuning { foresight: false, ..tuning });
            let (foreseen, trained) = recounts(&words, &opts, tuning);
            assert_same(&expected, &trained);
            assert!(foreseen <= blind, "{n} words, {merges} merges: {foreseen} re-counts, {blind} without foresight");
            spared += blind - foreseen;
        }
    }
    assert!(spared >= 3, "{spared} re-counts spared");
}

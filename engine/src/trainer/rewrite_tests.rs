//! Rewriting a merge's words in parts, on several threads (the pool's, the helper) or one,
//! trains exactly like rewriting them in one run.

use std::cell::Cell;
use std::sync::OnceLock;

use proptest::prelude::*;
use rayon::ThreadPool;

use super::long_word_tests::{case, segmentations, table, with_words, ALPHABETS, RECOUNT};
use super::tracking::Tuning;
use super::{train_in, MergeOptions, Ties, Trained};
use crate::progress::Reporter;
use crate::symbols::UNK;

thread_local! {
    /// Helper threads started on this thread (by `take_helper`).
    pub(super) static HELPERS_STARTED: Cell<u32> = const { Cell::new(0) };
}

pub(super) fn pool() -> &'static ThreadPool {
    static POOL: OnceLock<ThreadPool> = OnceLock::new();
    POOL.get_or_init(|| rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap())
}

/// Two parts from `helper_from` words on, `parts` parts from `split_from` on, the floor
/// from `first_floor` on (None: every pair tracked).
fn tuning(long_from: usize, (helper_from, split_from): (usize, usize), parts: usize, first_floor: Option<u64>) -> Tuning {
    let prune_from_words = if first_floor.is_some() { 0 } else { usize::MAX };
    Tuning { long_from, helper_from, split_from, parts, prune_from_words, first_floor, partition_pairs: 4, records: true, foresight: true }
}

/// Merges never split.
const ONE_PART: (usize, usize) = (usize::MAX, usize::MAX);

/// The training, its work and the most pairs in use. On threads the symbols are stored
/// in 16 bits, else in 32: the results must agree all the same.
fn train(alphabet: &[&str], words: &[(Vec<u32>, u64)], opts: &MergeOptions, tuning: Tuning, threads: bool) -> (Trained, u64, usize) {
    let alphabet = alphabet.iter().map(|s| s.to_string()).collect();
    let mut silent = Reporter::silent();
    if threads {
        let (trained, words, work, pairs) = train_in(alphabet, table::<u16>(words), opts, &mut silent, tuning, Some(pool())).unwrap();
        (with_words(trained, words), work, pairs)
    } else {
        let (trained, words, work, pairs) = train_in(alphabet, table::<u32>(words), opts, &mut silent, tuning, None).unwrap();
        (with_words(trained, words), work, pairs)
    }
}

fn assert_same(one: &(Trained, u64, usize), parts: &(Trained, u64, usize)) {
    assert_eq!(one.0.merges, parts.0.merges);
    assert_eq!(one.0.tokens, parts.0.tokens);
    assert_eq!(segmentations(&one.0), segmentations(&parts.0));
    assert_eq!((one.1, one.2), (parts.1, parts.2), "work and pairs in use");
}

/// Up to 80 words of up to 14 symbols over a few symbols (so that merges touch many).
fn many_words(symbols: u32) -> impl Strategy<Value = Vec<(Vec<u32>, u64)>> {
    let symbol = prop_oneof![30 => 0..symbols, 1 => Just(UNK)];
    prop::collection::vec((prop::collection::vec(symbol, 0..14), 1..5u64), 1..80)
}

fn many_words_case() -> impl Strategy<Value = (usize, Vec<(Vec<u32>, u64)>, MergeOptions)> {
    (0..ALPHABETS.len()).prop_flat_map(|a| {
        let ties = prop::sample::select(vec![Ties::FirstSeen, Ties::Lexicographic, Ties::Codepoint]);
        (Just(a), many_words(ALPHABETS[a].len() as u32), ties, 1..3u64, 0..80u64).prop_map(
            |(a, words, ties, min_frequency, merges)| {
                (a, words, MergeOptions { min_frequency, vocab_size: None, max_merges: Some(merges), ties, specials: vec![], forbidden: vec![] })
            },
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(debug_assertions) { 300 } else { 1500 }))]

    #[test]
    fn merging_in_parts_equals_merging_in_one_run(
        (a, words, opts) in prop_oneof![case(), many_words_case()],
        split_from in prop::sample::select(vec![1usize, 2, 5, usize::MAX]),
        helper_from in prop::sample::select(vec![1usize, 3, usize::MAX]),
        parts in prop::sample::select(vec![2usize, 3, 7]),
        long_from in prop::sample::select(vec![3usize, usize::MAX]),
        first_floor in prop::sample::select(vec![None, Some(2u64), Some(6)]),
        threads in any::<bool>(),
    ) {
        let one = train(ALPHABETS[a], &words, &opts, tuning(long_from, ONE_PART, 1, first_floor), false);
        RECOUNT.set(true);
        let split = train(ALPHABETS[a], &words, &opts, tuning(long_from, (helper_from, split_from), parts, first_floor), threads);
        RECOUNT.set(false);
        prop_assert_eq!(&one.0.merges, &split.0.merges);
        prop_assert_eq!(&one.0.tokens, &split.0.tokens);
        prop_assert_eq!(segmentations(&one.0), segmentations(&split.0));
        prop_assert_eq!((one.1, one.2), (split.1, split.2));
    }
}

#[test]
fn a_large_table_trains_the_same_on_two_threads() {
    // Pseudo-random words over 4 symbols: the first merges touch most of them (20,000
    // words; 5,000 in a debug build, where this test took minutes).
    let n = if cfg!(debug_assertions) { 5_000 } else { 20_000 };
    let mut x = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let words: Vec<(Vec<u32>, u64)> = (0..n)
        .map(|i| ((0..2 + next() % 12).map(|_| (next() % 4) as u32).collect(), 1 + 1000 / (i + 1)))
        .collect();
    for ties in [Ties::FirstSeen, Ties::Codepoint, Ties::Lexicographic] {
        for first_floor in [None, Some(50)] {
            let opts = MergeOptions { min_frequency: 2, vocab_size: None, max_merges: Some(300), ties, specials: vec![], forbidden: vec![] };
            let one = train(ALPHABETS[0], &words, &opts, tuning(usize::MAX, ONE_PART, 1, first_floor), false);
            // In two parts (the helper's) from 64 words on; in two from 16 and three (the
            // pool's threads) from 64.
            for (helper_from, split_from, parts) in [(usize::MAX, 64, 2), (16, 64, 3)] {
                let two = train(ALPHABETS[0], &words, &opts, tuning(usize::MAX, (helper_from, split_from), parts, first_floor), true);
                assert_eq!(one.0.merges.len(), 300);
                assert_same(&one, &two);
            }
        }
    }
}

#[test]
fn one_thread_asked_for_starts_no_helper() {
    // 2,000 words over 4 symbols: the first merges touch most of them.
    let words: Vec<(Vec<u32>, u64)> = (0..2_000u32).map(|i| (vec![i % 4, (i / 4) % 4, (i / 16) % 4, 1], 1 + u64::from(i % 7))).collect();
    let opts = MergeOptions { min_frequency: 2, vocab_size: None, max_merges: Some(20), ties: Ties::FirstSeen, specials: vec![], forbidden: vec![] };
    let one = train(ALPHABETS[0], &words, &opts, tuning(usize::MAX, ONE_PART, 1, None), false);
    for (parts, helpers) in [(1, 0), (2, 1)] {
        HELPERS_STARTED.set(0);
        let run = train(ALPHABETS[0], &words, &opts, tuning(usize::MAX, (64, usize::MAX), parts, None), true);
        assert_eq!(HELPERS_STARTED.get(), helpers, "{parts} part(s)");
        assert_same(&one, &run);
    }
}

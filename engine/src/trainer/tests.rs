//! The merge loop on small hand-counted cases.

use super::*;

fn table(words: &[(&[u32], u64)]) -> AnyTable {
    let owned: Vec<(Vec<u32>, u64)> = words.iter().map(|(syms, count)| (syms.to_vec(), *count)).collect();
    AnyTable::Wide(super::long_word_tests::table(&owned))
}

fn opts(ties: Ties) -> MergeOptions {
    MergeOptions { min_frequency: 1, vocab_size: None, max_merges: None, ties, specials: vec![], forbidden: vec![] }
}

#[test]
fn runs_merge_left_to_right_and_count_overlaps() {
    // "aaaaa" x10 and "bc" x25: overlapping counts give (a,a)=40 > (b,c)=25.
    let alphabet = vec!["a".into(), "b".into(), "c".into()];
    let t = table(&[(&[0, 0, 0, 0, 0], 10), (&[1, 2], 25)]);
    let out = train(alphabet, t, &opts(Ties::FirstSeen), &mut Reporter::silent()).unwrap();
    assert_eq!(out.merges[0], MergeRecord { left: 0, right: 0, result: 3, count: 40 });
    // "aa aa a": (aa, aa) is now 10, so (b, c) = 25 comes next.
    assert_eq!(out.merges[1], MergeRecord { left: 1, right: 2, result: 4, count: 25 });
    assert_eq!(out.merges[2], MergeRecord { left: 3, right: 3, result: 5, count: 10 });
    assert_eq!(out.words.ids(0).len(), 1); // finally one token "aaaaa"
}

#[test]
fn merged_pair_counts_stay_consistent() {
    // Every count must equal a full recount after each merge (checked by debug asserts).
    let alphabet = vec!["a".into(), "b".into()];
    let t = table(&[(&[0, 1, 0, 1, 0, 0, 0, 1], 3), (&[1, 1, 1, 1], 2), (&[0, 1, 1, 0], 5)]);
    let out = train(alphabet, t, &opts(Ties::Codepoint), &mut Reporter::silent()).unwrap();
    assert!(!out.merges.is_empty());
}

#[test]
fn cancel_flag_stops() {
    use std::sync::atomic::AtomicBool;
    let flag = AtomicBool::new(true);
    let alphabet = vec!["a".into(), "b".into()];
    let t = table(&[(&[0, 1], 3)]);
    let mut rep = Reporter::new(None, Some(&flag));
    assert!(train(alphabet, t, &opts(Ties::Codepoint), &mut rep).is_err());
}

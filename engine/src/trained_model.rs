//! A training's result as the model the engine holds ([`Vocabulary`]), its lists built
//! under the model file's rules ([`ListsBuilder`]): what a trained model holds is what its
//! file would give back, with no Python object per token or merge.

use crate::model_file::{ListsBuilder, Vocabulary, Words};
use crate::trainer::MergeRecord;

/// What a training run learned, as the model is built from it.
pub struct TrainedLists<'a> {
    /// The alphabet, then every token merges created (as [`crate::trainer::Trained`]).
    pub tokens: &'a [String],
    pub alphabet_len: usize,
    pub merges: &'a [MergeRecord],
    /// Each token's count in the final segmentation of the training words, by index
    /// into `tokens`.
    pub final_counts: &'a [u64],
}

/// The model of a training run: `protected` strings (with their occurrences) as base
/// symbols before the alphabet, the kept `words`, the special tokens `(id, piece)` at
/// their ids, and each token's final count by id. None where the file's rules would not
/// take the lists (a protected string equal to a symbol, a special token equal to an
/// ordinary one, a special id outside the vocabulary): the caller then builds the model
/// in Python, whose checks say what is wrong.
pub fn trained_vocabulary(
    trained: &TrainedLists<'_>,
    protected: &[(String, u64)],
    words: Words,
    specials: Vec<(u32, String)>,
) -> Option<Vocabulary> {
    let tokens = trained.tokens;
    let mut builder = ListsBuilder::default();
    for (piece, _) in protected {
        builder.symbol(piece)?;
    }
    for symbol in tokens.get(..trained.alphabet_len)? {
        builder.symbol(symbol)?;
    }
    builder.reserve_merges(trained.merges.len());
    for m in trained.merges {
        builder.merge(tokens.get(m.left as usize)?, tokens.get(m.right as usize)?, Some(m.count))?;
    }
    // Final counts by ordinary token; a token no merge made would be a trainer's bug.
    let mut ordinary_counts = vec![0u64; builder.lists().ordinary.len()];
    for (piece, &count) in tokens.iter().zip(trained.final_counts) {
        if count != 0 {
            ordinary_counts[builder.find(piece)? as usize] = count;
        }
    }
    for (piece, count) in protected {
        ordinary_counts[builder.find(piece)? as usize] = *count;
    }
    let mut lists = builder.finish();
    lists.words = words;
    let mut vocabulary = Vocabulary::new(lists, specials)?;
    let mut by_id = vec![0i64; vocabulary.size()];
    for (&id, &count) in vocabulary.ordinary_ids.iter().zip(&ordinary_counts) {
        by_id[id as usize] = i64::try_from(count).ok()?;
    }
    vocabulary.lists.final_counts = Some(by_id);
    Some(vocabulary)
}

/// The indices of the `n` largest counts, largest first, ties by index. At most `2 n`
/// candidates are held, not an index per word (on a table of 100 M words that is 800 MB
/// less at the end of training): when they fill up, the best `n` are kept, and a later
/// word enters only if it beats the worst of them.
pub fn most_frequent(counts: &[u64], n: usize) -> Vec<usize> {
    use std::cmp::Ordering;
    let n = n.min(counts.len());
    if n == 0 {
        return Vec::new();
    }
    // Less: `a` is the better word (the larger count; on a tie, the earlier).
    let order = |&a: &usize, &b: &usize| counts[b].cmp(&counts[a]).then(a.cmp(&b));
    let mut best: Vec<usize> = Vec::with_capacity((2 * n).min(counts.len()));
    let mut worst_kept: Option<usize> = None;
    for i in 0..counts.len() {
        if worst_kept.is_some_and(|w| order(&i, &w) != Ordering::Less) {
            continue;
        }
        best.push(i);
        if best.len() == 2 * n {
            best.select_nth_unstable_by(n - 1, order);
            best.truncate(n);
            worst_kept = Some(best[n - 1]);
        }
    }
    if best.len() > n {
        best.select_nth_unstable_by(n - 1, order);
        best.truncate(n);
    }
    best.sort_unstable_by(order);
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(left: u32, right: u32, result: u32, count: u64) -> MergeRecord {
        MergeRecord { left, right, result, count }
    }

    fn tokens(pieces: &[&str]) -> Vec<String> {
        pieces.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn builds_the_lists_the_file_would_hold() {
        let tokens = tokens(&["a", "b", "ab", "abb"]);
        let merges = [record(0, 1, 2, 5), record(2, 1, 3, 2)];
        let trained = TrainedLists { tokens: &tokens, alphabet_len: 2, merges: &merges, final_counts: &[0, 1, 0, 2] };
        let words = Words { text: "abb".into(), ends: vec![(3, 2)] };
        let v = trained_vocabulary(&trained, &[("<br>".into(), 4)], words.clone(), vec![(0, "<s>".into())]).unwrap();
        assert_eq!(v.pieces(), ["<s>", "<br>", "a", "b", "ab", "abb"]);
        assert_eq!(v.lists.alphabet_len, 3);
        assert_eq!(v.merge_ids(), [(2, 3, 4), (4, 3, 5)]);
        assert_eq!(v.lists.counts, [Some(5), Some(2)]);
        assert_eq!(v.lists.final_counts.as_deref(), Some(&[0, 4, 0, 1, 0, 2][..]));
        assert_eq!(v.lists.words, words);
    }

    #[test]
    fn lists_the_file_would_refuse_are_left_to_python() {
        let tokens = tokens(&["a", "b", "ab"]);
        let merges = [record(0, 1, 2, 5)];
        let trained = TrainedLists { tokens: &tokens, alphabet_len: 2, merges: &merges, final_counts: &[1, 1, 1] };
        let build = |protected: &[(String, u64)], specials: Vec<(u32, String)>| {
            trained_vocabulary(&trained, protected, Words::default(), specials)
        };
        assert!(build(&[("a".into(), 1)], vec![]).is_none()); // protected equals a symbol
        assert!(build(&[], vec![(0, "ab".into())]).is_none()); // special equals a token
        assert!(build(&[], vec![(9, "<s>".into())]).is_none()); // special id too large
        assert!(build(&[], vec![(3, "<s>".into())]).is_some());
    }

    #[test]
    fn most_frequent_is_the_head_of_a_full_sort() {
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let counts: Vec<u64> = (0..5000)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % (1 + 5000 / (i + 1)) // Zipf-like, with many ties
            })
            .collect();
        let mut sorted: Vec<usize> = (0..counts.len()).collect();
        sorted.sort_by(|&a, &b| counts[b].cmp(&counts[a]).then(a.cmp(&b)));
        for n in [0, 1, 2, 3, 100, 2499, 2500, 2501, 4999, 5000, 7000] {
            assert_eq!(most_frequent(&counts, n), sorted[..n.min(counts.len())], "n = {n}");
        }
        assert_eq!(most_frequent(&[], 3), Vec::<usize>::new());
    }
}

//! Where each token of a model comes from: its kind, and the merge that created it.
//!
//! Rule: a token is created by the first merge whose result it is, unless it was a token
//! before (a base symbol: a later merge giving an existing token only adds a rule).
//! Special tokens are never a merge's result. Computed once per model, by id, for the
//! vocabulary table, the merge tree, the token details and trimming alike.

/// A token's kind as `kind` gives it (`core.model.SPECIAL`, `BASE`, `MERGED`).
pub const SPECIAL: i8 = 0;
pub const BASE: i8 = 1;
pub const MERGED: i8 = 2;

/// By token id: kind, and the creating merge's rank, count and parts' ids (-1: none,
/// or a count not recorded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origins {
    pub kind: Vec<i8>,
    pub rank: Vec<i64>,
    pub count: Vec<i64>,
    pub left: Vec<i64>,
    pub right: Vec<i64>,
}

/// The origins of the `size` tokens of a model whose merges are `merges` (left, right,
/// result ids, in rank order) with `counts` (by rank), base symbols `base` and special
/// tokens `specials` (ids). Ids outside the vocabulary are ignored.
pub fn origins(size: usize, merges: &[(u32, u32, u32)], counts: &[Option<u64>], base: &[u32], specials: &[u32]) -> Origins {
    let mut o = Origins {
        kind: vec![MERGED; size],
        rank: vec![-1; size],
        count: vec![-1; size],
        left: vec![-1; size],
        right: vec![-1; size],
    };
    for &b in base.iter().filter(|&&b| (b as usize) < size) {
        o.kind[b as usize] = BASE;
    }
    for &s in specials.iter().filter(|&&s| (s as usize) < size) {
        o.kind[s as usize] = SPECIAL;
    }
    for (rank, &(l, r, result)) in merges.iter().enumerate() {
        let t = result as usize;
        if t >= size || o.kind[t] != MERGED || o.rank[t] >= 0 {
            continue;
        }
        o.rank[t] = rank as i64;
        o.count[t] = counts.get(rank).copied().flatten().map_or(-1, |c| i64::try_from(c).unwrap_or(i64::MAX));
        o.left[t] = l as i64;
        o.right[t] = r as i64;
    }
    o
}

/// Each merge's count by rank (-1: not recorded).
pub fn merge_counts(counts: &[Option<u64>]) -> Vec<i64> {
    counts.iter().map(|c| c.map_or(-1, |c| i64::try_from(c).unwrap_or(i64::MAX))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_merge_giving_a_new_token_creates_it() {
        // tokens: 0 a, 1 b, 2 <s>, 3 ab, 4 abb; merge 2 gives "ab" again, merge 3 gives "b"
        let merges = [(0, 1, 3), (3, 1, 4), (0, 1, 3), (1, 1, 1)];
        let o = origins(5, &merges, &[Some(5), None, Some(2), Some(1)], &[0, 1], &[2]);
        assert_eq!(o.kind, [BASE, BASE, SPECIAL, MERGED, MERGED]);
        assert_eq!(o.rank, [-1, -1, -1, 0, 1]);
        assert_eq!(o.count, [-1, -1, -1, 5, -1]);
        assert_eq!((o.left, o.right), (vec![-1, -1, -1, 0, 3], vec![-1, -1, -1, 1, 1]));
    }

    #[test]
    fn a_merged_token_no_merge_gives_has_no_rank() {
        let o = origins(3, &[], &[], &[0, 1], &[]);
        assert_eq!((o.kind[2], o.rank[2]), (MERGED, -1));
        assert_eq!(merge_counts(&[Some(3), None]), [3, -1]);
    }
}

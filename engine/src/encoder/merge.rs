//! Merge mode's loop on one word: seed 000's "lowest pair, all its occurrences left to
//! right, repeat", in place for short words (long ones: `long_merge`); and the linked
//! word with a heap of (rank, position) that the dropout merge takes one candidate at a
//! time from.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::pairs::NO_RANK;
use super::{Encoder, LONG_WORD};

/// A word as a doubly linked list of symbols (`next[i] == n`, `prev[i] == usize::MAX`:
/// none) with a min-heap of its mergeable pairs by (rank, position); stale entries are
/// skipped when popped. The dropout merge's word.
pub(super) struct LinkedWord {
    pub sym: Vec<u32>,
    pub next: Vec<usize>,
    pub prev: Vec<usize>,
    pub alive: Vec<bool>,
    pub heap: BinaryHeap<Reverse<(u32, usize)>>,
}

impl Encoder {
    pub(super) fn linked_word(&self, syms: &[u32]) -> LinkedWord {
        let n = syms.len();
        let mut heap = BinaryHeap::new();
        for i in 0..n.saturating_sub(1) {
            if let Some((rank, _)) = self.ranks.get(syms[i], syms[i + 1]) {
                heap.push(Reverse((rank, i)));
            }
        }
        LinkedWord {
            sym: syms.to_vec(),
            next: (1..=n).collect(),
            prev: (0..n).map(|i| i.wrapping_sub(1)).collect(),
            alive: vec![true; n],
            heap,
        }
    }

    pub(super) fn lowest_pair(&self, syms: &[u32]) -> Option<(u32, u32, u32, u32)> {
        let mut best: Option<(u32, u32, u32, u32)> = None;
        for i in 1..syms.len() {
            if let Some((rank, c)) = self.ranks.get(syms[i - 1], syms[i]) {
                if best.is_none_or(|(r, ..)| rank < r) {
                    best = Some((rank, syms[i - 1], syms[i], c));
                }
            }
        }
        best
    }

    /// Seed 000's loop in place: `rank[i]` holds the rank of pair (i, i + 1), and after
    /// merging every occurrence of the lowest pair left to right only the pairs next to a
    /// merged symbol are looked up again. Words of at most `LONG_WORD` symbols.
    pub(super) fn merge_short(&self, syms: &mut Vec<u32>) {
        let mut n = syms.len();
        debug_assert!(n <= LONG_WORD);
        if n < 2 {
            return;
        }
        let mut rank = [NO_RANK; LONG_WORD];
        for i in 0..n - 1 {
            rank[i] = self.ranks.rank(syms[i], syms[i + 1]);
        }
        loop {
            let (mut best, mut at) = (NO_RANK, 0);
            for (i, &r) in rank[..n - 1].iter().enumerate() {
                if r < best {
                    (best, at) = (r, i);
                }
            }
            if best == NO_RANK {
                break;
            }
            // A rank names one pair, so `rank[i] == best` is "pair i is the lowest pair".
            let merged_sym = self.ranks.get(syms[at], syms[at + 1]).map_or(syms[at], |(_, c)| c);
            let (mut read, mut write, mut prev_merged) = (at, at, false);
            while read < n {
                let merged = read + 1 < n && rank[read] == best;
                let s = if merged { merged_sym } else { syms[read] };
                syms[write] = s;
                if write > 0 {
                    // Reads of `rank` stay at or after `read - 1`, writes before it.
                    rank[write - 1] = if merged || prev_merged { self.ranks.rank(syms[write - 1], s) } else { rank[read - 1] };
                }
                prev_merged = merged;
                read += if merged { 2 } else { 1 };
                write += 1;
            }
            n = write;
            if n < 2 {
                break;
            }
        }
        syms.truncate(n);
    }

    /// After symbol `i` of a linked word changed, queue its pairs with both neighbours
    /// (by rank; stale entries are skipped when popped).
    pub(super) fn push_neighbour_pairs(
        &self,
        heap: &mut BinaryHeap<Reverse<(u32, usize)>>,
        sym: &[u32],
        prev: &[usize],
        next: &[usize],
        alive: &[bool],
        i: usize,
    ) {
        let n = sym.len();
        let p = prev[i];
        if p < n && alive[p] {
            if let Some((r, _)) = self.ranks.get(sym[p], sym[i]) {
                heap.push(Reverse((r, p)));
            }
        }
        if next[i] < n {
            if let Some((r, _)) = self.ranks.get(sym[i], sym[next[i]]) {
                heap.push(Reverse((r, i)));
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use rustc_hash::FxHashMap;

    use super::super::tests::{rules, toy};
    use super::*;
    use crate::text::Boundary;
    use crate::trainer::merge_all;
    use crate::options::SpecialRole;

    /// Seed 000's loop as written: the reference for both merge paths.
    pub(in crate::encoder) fn reference_merge(e: &Encoder, syms: &[u32]) -> Vec<u32> {
        let mut syms = syms.to_vec();
        while let Some((_, a, b, c)) = e.lowest_pair(&syms) {
            syms = merge_all(&syms, a, b, c);
        }
        syms
    }

    #[test]
    fn short_and_long_paths_agree() {
        let e = toy();
        for n in 1..200 {
            let word = "a".repeat(n) + "b";
            let syms = e.symbols(&word).unwrap();
            if syms.len() <= LONG_WORD {
                let mut short = syms.clone();
                e.merge_short(&mut short);
                assert_eq!(short, reference_merge(&e, &syms), "n = {n}");
            }
            assert_eq!(e.merge_long(&syms), reference_merge(&e, &syms), "n = {n}");
        }
    }

    #[test]
    fn in_place_merge_matches_the_reference_on_random_merges() {
        // Symbols a..d, then 60 random merges of existing tokens (any order of ranks).
        let mut pieces: Vec<String> = ["<unk>", "</w>", "a", "b", "c", "d"].iter().map(|s| s.to_string()).collect();
        let mut merges = Vec::new();
        let mut x: u64 = 99;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..60 {
            let n = pieces.len() as u64;
            let (l, r) = (2 + next() % (n - 2), 2 + next() % (n - 2));
            let piece = format!("{}{}", pieces[l as usize], pieces[r as usize]);
            merges.push((l as u32, r as u32, pieces.len() as u32));
            pieces.push(piece);
        }
        let mut specials = FxHashMap::default();
        specials.insert(0, SpecialRole::Unk);
        let e = Encoder::new(rules(Boundary::None), pieces, &merges, Some(0), specials, false).unwrap();
        for _ in 0..3000 {
            let len = 1 + (next() % LONG_WORD as u64) as usize;
            let syms: Vec<u32> = (0..len).map(|_| 2 + (next() % 4) as u32).collect();
            let mut short = syms.clone();
            e.merge_short(&mut short);
            let want = reference_merge(&e, &syms);
            assert_eq!(short, want, "{syms:?}");
            assert_eq!(e.merge_long(&syms), want, "{syms:?}");
        }
    }
}

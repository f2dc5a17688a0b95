//! Merge mode's loop on long words (more than `LONG_WORD` symbols, e.g. a megabyte of
//! letters without a space) in time linear in practice: seed 000's rounds — the lowest
//! pair, all its occurrences left to right — over a linked list, with a bucket queue by
//! rank in place of a heap of (rank, position).
//!
//! Why linear: a round takes every queued position of one rank at once (a bucket) and
//! visits them in increasing order, so the list is walked forward, as the cache likes;
//! each merge queues at most two new pairs, so there are fewer than 3n entries in all,
//! each looked at once. A heap over ranks orders the buckets, but holds only ranks, not
//! positions (a few thousand at most, against a million positions). Positions are
//! appended in increasing order within a round; a bucket that also got positions in an
//! earlier round is sorted when its round comes. An imported model may
//! give a new pair a rank lower than the current one: its bucket is then queued again and
//! comes out first, as seed 000's loop would take it.
//!
//! Everything lives in one per-thread scratch reused across words (nodes, buckets, the
//! rank -> bucket index), so a long word allocates only its result.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::Encoder;

/// No node / no bucket.
const NONE: u32 = u32::MAX;
/// The symbol of a node merged into its left neighbour (ids are below the vocabulary
/// size, so no symbol is this).
const DEAD: u32 = u32::MAX;

/// What a thread keeps between words (about 1.5 MB at most, plus 4 bytes per rank of the
/// largest model it encoded with): scratch lists of up to `KEEP` entries, and up to
/// `SPARE_LISTS` spare position lists of up to `SPARE_LEN`.
const KEEP: usize = 4096;
const SPARE_LISTS: usize = 1024;
const SPARE_LEN: usize = 256;

/// One symbol of the word with its live neighbours (`NONE` at the ends).
#[derive(Clone, Copy)]
struct Node {
    sym: u32,
    prev: u32,
    next: u32,
}

/// The queued positions of one merge: `left` + `right` -> `result` at `rank`.
struct Bucket {
    rank: u32,
    left: u32,
    right: u32,
    result: u32,
    positions: Vec<u32>,
    /// False once a position was appended below the last one.
    sorted: bool,
}

#[derive(Default)]
struct Scratch {
    nodes: Vec<Node>,
    /// rank -> index in `buckets`, `NONE` for ranks without a bucket in this word.
    bucket_of: Vec<u32>,
    buckets: Vec<Bucket>,
    /// Ranks whose bucket is not empty, lowest first.
    ranks: BinaryHeap<Reverse<u32>>,
    /// Emptied position lists, reused by the next buckets.
    spare: Vec<Vec<u32>>,
    batch: Vec<u32>,
    merged: Vec<u32>,
    /// The pair last queued and its bucket (see `queue`).
    last_pair: (u32, u32),
    last_bucket: u32,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

impl Scratch {
    /// Queue position `at` (the pair starting there) if the pair is a merge. The last
    /// pair's bucket is remembered: runs of one pair (`"aaaa…"`, and each of its rounds)
    /// then skip the lookups.
    #[inline]
    fn queue(&mut self, e: &Encoder, left: u32, right: u32, at: u32) {
        if (left, right) != self.last_pair {
            self.last_pair = (left, right);
            self.last_bucket = self.bucket_for(e, left, right);
        }
        if self.last_bucket == NONE {
            return;
        }
        let bucket = &mut self.buckets[self.last_bucket as usize];
        match bucket.positions.last() {
            None => self.ranks.push(Reverse(bucket.rank)),
            Some(&last) if last > at => bucket.sorted = false,
            _ => {}
        }
        bucket.positions.push(at);
    }

    /// The bucket of the pair's merge (made on first use), or `NONE` if it is no merge.
    fn bucket_for(&mut self, e: &Encoder, left: u32, right: u32) -> u32 {
        let Some((rank, result)) = e.ranks.get(left, right) else { return NONE };
        let r = rank as usize;
        if r >= self.bucket_of.len() {
            self.bucket_of.resize(r + 1, NONE);
        }
        if self.bucket_of[r] == NONE {
            self.bucket_of[r] = self.buckets.len() as u32;
            let positions = self.spare.pop().unwrap_or_default();
            self.buckets.push(Bucket { rank, left, right, result, positions, sorted: true });
        }
        self.bucket_of[r]
    }

    /// Back to empty for the next word, keeping the allocations of ordinary long words
    /// (a thread that once encoded a megabyte-long word does not hold its memory).
    fn reset(&mut self) {
        for mut bucket in self.buckets.drain(..) {
            self.bucket_of[bucket.rank as usize] = NONE;
            if bucket.positions.capacity() <= SPARE_LEN && self.spare.len() < SPARE_LISTS {
                bucket.positions.clear();
                self.spare.push(bucket.positions);
            }
        }
        if self.buckets.capacity() > KEEP {
            self.buckets = Vec::new();
        }
        self.ranks.clear();
        if self.ranks.capacity() > KEEP {
            self.ranks = BinaryHeap::new();
        }
        self.last_pair = (DEAD, DEAD); // no pair of symbols
        self.nodes.clear();
        if self.nodes.capacity() > KEEP {
            self.nodes = Vec::new();
        }
        for list in [&mut self.batch, &mut self.merged] {
            list.clear();
            if list.capacity() > KEEP {
                *list = Vec::new();
            }
        }
    }

    fn merge(&mut self, e: &Encoder, syms: &[u32]) -> Vec<u32> {
        self.reset(); // in case a previous call stopped half-way (a panic)
        let n = syms.len() as u32;
        self.nodes.extend((0..n).map(|i| Node { sym: syms[i as usize], prev: i.wrapping_sub(1), next: i + 1 }));
        self.nodes[n as usize - 1].next = NONE;
        for i in 0..n - 1 {
            self.queue(e, syms[i as usize], syms[i as usize + 1], i);
        }
        let mut batch = std::mem::take(&mut self.batch);
        let mut merged = std::mem::take(&mut self.merged);
        while let Some(Reverse(rank)) = self.ranks.pop() {
            let bucket = &mut self.buckets[self.bucket_of[rank as usize] as usize];
            let (left, right, result) = (bucket.left, bucket.right, bucket.result);
            // Take the round's positions; a pair of this rank made during the round goes to
            // the emptied bucket and waits for the next round, as in seed 000's loop.
            std::mem::swap(&mut batch, &mut bucket.positions);
            if !std::mem::replace(&mut bucket.sorted, true) {
                batch.sort_unstable();
            }
            merged.clear();
            let mut previous = NONE;
            for &i in &batch {
                if i == previous {
                    continue; // queued twice (as a left and as a right pair)
                }
                previous = i;
                // Checked at the moment of merging, left to right: a position merged away
                // earlier in this round, or whose pair changed since it was queued, is
                // skipped (the rank names one pair, so comparing symbols is enough).
                let node = self.nodes[i as usize];
                if node.sym != left || node.next == NONE {
                    continue;
                }
                let j = node.next as usize;
                if self.nodes[j].sym != right {
                    continue;
                }
                let k = self.nodes[j].next;
                self.nodes[j].sym = DEAD;
                self.nodes[i as usize] = Node { sym: result, prev: node.prev, next: k };
                if k != NONE {
                    self.nodes[k as usize].prev = i;
                }
                merged.push(i);
            }
            batch.clear();
            // The pairs each merged symbol now makes with its neighbours, in increasing
            // position order; a left pair that is the previous merged symbol's right pair
            // is queued once.
            let mut previous = NONE;
            for &i in &merged {
                let node = self.nodes[i as usize];
                if node.prev != NONE && node.prev != previous {
                    self.queue(e, self.nodes[node.prev as usize].sym, node.sym, node.prev);
                }
                if node.next != NONE {
                    self.queue(e, node.sym, self.nodes[node.next as usize].sym, i);
                }
                previous = i;
            }
        }
        self.batch = batch;
        self.merged = merged;
        let mut out = Vec::with_capacity(n as usize / 2);
        let mut i = 0;
        while i != NONE {
            out.push(self.nodes[i as usize].sym);
            i = self.nodes[i as usize].next;
        }
        self.reset();
        out
    }
}

impl Encoder {
    /// The same result as `merge_short` (seed 000's loop) on a word of any length, in time
    /// linear in practice (see the module's comment).
    pub(super) fn merge_long(&self, syms: &[u32]) -> Vec<u32> {
        if syms.len() < 2 {
            return syms.to_vec();
        }
        assert!(syms.len() < NONE as usize, "a word of 4 billion symbols");
        SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
            Ok(mut scratch) => scratch.merge(self, syms),
            Err(_) => Scratch::default().merge(self, syms),
        })
    }
}

#[cfg(test)]
mod tests {
    use rustc_hash::FxHashMap;

    use super::super::merge::tests::reference_merge;
    use super::super::tests::rules;
    use super::super::LONG_WORD;
    use super::*;
    use crate::options::SpecialRole;
    use crate::text::Boundary;

    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// How a random merge table is made.
    #[derive(Clone, Copy, Debug)]
    enum Table {
        /// As training makes them: each merge makes a new token, ranks in creation order.
        WellFormed,
        /// The same merges with their ranks shuffled: a token's merges may rank below the
        /// merge that makes it (an imported model's disorder).
        ShuffledRanks,
        /// Any result, an existing token included (a pair's own left or right symbol), and
        /// repeated pairs (the first rank wins).
        AnyResult,
    }

    /// Symbols 2.. are the alphabet (0 is `<unk>`, 1 `</w>`).
    fn random_encoder(rng: &mut Rng, alphabet: usize, merges: usize, kind: Table) -> Encoder {
        let mut pieces: Vec<String> = vec!["<unk>".into(), "</w>".into()];
        pieces.extend((0..alphabet).map(|i| char::from(b'a' + i as u8).to_string()));
        let mut table = Vec::new();
        for _ in 0..merges {
            let n = pieces.len();
            let (l, r) = (2 + rng.below(n - 2), 2 + rng.below(n - 2));
            let result = match kind {
                Table::AnyResult if rng.below(3) == 0 => [l, r, 2 + rng.below(n - 2)][rng.below(3)],
                _ => {
                    pieces.push(format!("{}{}", pieces[l], pieces[r]));
                    n
                }
            };
            table.push((l as u32, r as u32, result as u32));
        }
        if let Table::ShuffledRanks = kind {
            for i in (1..table.len()).rev() {
                table.swap(i, rng.below(i + 1));
            }
        }
        let specials = FxHashMap::from_iter([(0, SpecialRole::Unk)]);
        Encoder::new(rules(Boundary::None), pieces, &table, Some(0), specials, false).unwrap()
    }

    /// A word over the alphabet: uniform, or runs of one symbol, or a short pattern
    /// repeated (ties between overlapping occurrences of one pair).
    fn random_word(rng: &mut Rng, alphabet: usize, len: usize) -> Vec<u32> {
        let symbol = |rng: &mut Rng| 2 + rng.below(alphabet) as u32;
        match rng.below(3) {
            0 => (0..len).map(|_| symbol(rng)).collect(),
            1 => {
                let mut word = Vec::with_capacity(len);
                while word.len() < len {
                    let (s, run) = (symbol(rng), 1 + rng.below(40));
                    word.extend(std::iter::repeat_n(s, run.min(len - word.len())));
                }
                word
            }
            _ => {
                let pattern: Vec<u32> = (0..1 + rng.below(4)).map(|_| symbol(rng)).collect();
                pattern.iter().copied().cycle().take(len).collect()
            }
        }
    }

    #[test]
    fn matches_seed_000_on_random_tables() {
        // Debug builds (the CI) take shorter words; release builds the full range.
        let (tables, max_len) = if cfg!(debug_assertions) { (30, 300) } else { (120, 1500) };
        let mut rng = Rng(0x5eed_0017);
        for t in 0..tables {
            let kind = [Table::WellFormed, Table::ShuffledRanks, Table::AnyResult][t % 3];
            let alphabet = 1 + rng.below(4);
            let merges = 1 + rng.below(80);
            let e = random_encoder(&mut rng, alphabet, merges, kind);
            for _ in 0..20 {
                let len = 1 + rng.below(max_len);
                let word = random_word(&mut rng, alphabet, len);
                let want = reference_merge(&e, &word);
                assert_eq!(e.merge_long(&word), want, "{kind:?} table {t}, word {word:?}");
                if len <= LONG_WORD {
                    let mut short = word.clone();
                    e.merge_short(&mut short);
                    assert_eq!(short, want, "{kind:?} table {t}, word {word:?}");
                }
            }
        }
    }

    #[test]
    fn one_symbol_repeated_halves_each_round() {
        // a+a, aa+aa, aaaa+aaaa, then aa+a and a+aa: every round merges overlapping
        // occurrences left to right, and the word's end depends on n's binary digits.
        let pieces: Vec<String> = ["<unk>", "</w>", "a", "aa", "aaaa", "aaaaaaaa", "aaa"].iter().map(|s| s.to_string()).collect();
        let merges = [(2, 2, 3), (3, 3, 4), (4, 4, 5), (3, 2, 6), (2, 3, 6)];
        let specials = FxHashMap::from_iter([(0, SpecialRole::Unk)]);
        let e = Encoder::new(rules(Boundary::None), pieces, &merges, Some(0), specials, false).unwrap();
        for n in (1..300).chain([4095, 4096, 4097, 10_001]) {
            let word = vec![2; n];
            assert_eq!(e.merge_long(&word), reference_merge(&e, &word), "n = {n}");
        }
    }

    #[test]
    fn a_lower_rank_made_mid_word_is_taken_first() {
        // b+c -> x at rank 1 makes the pair (a, x) whose rank 0 is below it: seed 000's loop
        // goes back to rank 0 (and a+x -> a makes (a, x) again where x follows).
        let pieces: Vec<String> = ["<unk>", "</w>", "a", "b", "c", "x"].iter().map(|s| s.to_string()).collect();
        let merges = [(2, 5, 2), (3, 4, 5)];
        let specials = FxHashMap::from_iter([(0, SpecialRole::Unk)]);
        let e = Encoder::new(rules(Boundary::None), pieces, &merges, Some(0), specials, false).unwrap();
        let word: Vec<u32> = [2, 3, 4, 3, 4, 2, 3, 4].iter().copied().cycle().take(80).collect();
        let got = e.merge_long(&word);
        assert_eq!(got, reference_merge(&e, &word));
        assert!(got.len() < word.len() / 2, "{got:?}");
    }
}

//! Which pairs are tracked: on large tables, only those that can still be the best.
//!
//! Most distinct pairs have tiny counts (merges create them inside rare words), yet each
//! tracked pair costs statistics, an index entry, postings and heap entries. So on
//! tables of at least `prune_from_words` words, only pairs counting at least a floor T
//! are tracked. This stays exact:
//!
//! * an untracked pair counted less than T when it was left out, and a pair's count
//!   only falls, except in a duplicate merge; what a duplicate merge adds to an
//!   untracked pair is summed in `gains` (an upper bound), whose largest is `slack`;
//! * any other merge creates only pairs with its new token, all of them in that step,
//!   so their counts are complete at its end: those below T are dropped then;
//! * so while the best tracked pair counts at least T + slack, no untracked pair counts
//!   as much, and it is the true best, under every tie rule;
//! * when it counts less, T is lowered and the tracked set counted again from the words
//!   (`track_pairs`), in hash partitions so that the count of all pairs never needs
//!   memory for all of them at once.
//!
//! Until the first re-count, each pair left out counting at least T / `RECORD_DIVISOR` is
//! recorded with that count (`records`), an upper bound of its count since, gains apart.
//! Every other untracked pair then counts less than that share of T (plus its gains). So
//! when the first re-count's floor is at least that share, the pairs that may reach it
//! are known without counting every pair: the tracked ones, the recorded ones and those
//! that gained enough. Only they are counted, in one scan of the words.
//!
//! T at most 1 tracks every pair: the path for smaller tables, as before.

use std::collections::BinaryHeap;
use std::mem;

use rayon::ThreadPool;
use rustc_hash::FxHashMap;

use super::postings::{coded_len, Postings};
use super::{key, PairCache, PairStat, Trainer, LONG_WORD};
use crate::error::Result;
use crate::progress::{Reporter, Stage};
use crate::symbols::{Sym, WordTable, UNK};

/// Tables with at least this many words track only pairs above a floor (smaller ones
/// track every pair: they are few).
const PRUNE_FROM_WORDS: usize = 1 << 16;

/// The first floor: this share of all word occurrences (so that the first merges never
/// need a re-count).
const FIRST_FLOOR_SHARE: u64 = 1 << 16;

/// Each re-count lowers the floor to the best count over this, or lower (see
/// `lower_floor`), down to the best count over `LOWEST_FLOOR_DIVISOR`.
const FLOOR_DIVISOR: u64 = 4;
const LOWEST_FLOOR_DIVISOR: u64 = 16;

/// Alphabets of fewer symbols have their pairs counted in a table of every pair (at most
/// 1 MB a thread) rather than a hash map: a hash look-up per occurrence was most of the
/// first count.
const DIRECT_PAIRS_BELOW: usize = 512;

/// Merges made before the counts' fall is foreseen from them (see `lower_floor`).
const FORESIGHT_FROM: usize = 64;

/// Pairs left out counting at least the first floor over this are recorded: enough for a
/// first re-count while the best count is at least half the floor.
const RECORD_DIVISOR: u64 = 2 * FLOOR_DIVISOR;

/// Merges touching fewer words are not split among the pool's threads: waking a pool
/// thread and waiting for it costs 12-42 µs (measured on 2 vCPUs), a word about 50 ns, so
/// a split saves time only well above ~1,500 words.
const SPLIT_FROM_WORDS: usize = 4096;

/// Merges touching at least this many words (and fewer than `SPLIT_FROM_WORDS`) are
/// split in two with the helper thread, which takes its part within about a µs (see
/// `helper`).
const HELPER_FROM_WORDS: usize = 96;

/// Thresholds of the merge loop (fixed in `train`; tests vary them).
#[derive(Debug, Clone, Copy)]
pub(super) struct Tuning {
    /// Words with at least this many symbols take the linked-list path.
    pub long_from: usize,
    /// Tables with at least this many words track only pairs above a floor (smaller ones
/// track every pair: they are few).
    pub prune_from_words: usize,
    /// The first floor (None: from the table's size).
    pub first_floor: Option<u64>,
    /// The table slots (about 25 bytes each) of the partitions a re-count counts at once.
    pub partition_pairs: usize,
    /// Merges touching at least this many short words rewrite them in `parts` parts.
    pub split_from: usize,
    pub parts: usize,
    /// Merges touching at least this many short words (below `split_from`) rewrite them
    /// in two parts, one on the helper thread.
    pub helper_from: usize,
    /// Whether pairs left out are recorded for the first re-count (see above).
    pub records: bool,
    /// Whether a re-count's floor may go below best / `FLOOR_DIVISOR` (see `lower_floor`).
    pub foresight: bool,
}

impl Tuning {
    pub(super) fn for_table<S: Sym>(words: &WordTable<S>) -> Self {
        Tuning {
            long_from: LONG_WORD,
            prune_from_words: PRUNE_FROM_WORDS,
            first_floor: None,
            partition_pairs: (words.len() / 16).max(1 << 18),
            split_from: SPLIT_FROM_WORDS,
            parts: 1,
            helper_from: HELPER_FROM_WORDS,
            records: true,
            foresight: true,
        }
    }
}

/// Which of `parts` partitions pair key k falls in (a multiply, not a division: it is
/// computed for every pair occurrence of every scan).
fn partition(k: u64, parts: u64) -> u64 {
    ((k.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) * parts) >> 32
}

impl<'a, S: Sym> Trainer<'a, S> {
    fn min_floor(&self) -> u64 {
        self.opts.min_frequency.max(1)
    }

    /// The floor for a re-count when the best tracked pair counts `best`: the same if
    /// only the gains of duplicate merges were in the way.
    ///
    /// A re-count costs a scan of every word, and a floor too high needs another before
    /// the last merge; one too low tracks pairs that never matter. So the floor is
    /// best / `FLOOR_DIVISOR`, or lower when the count of the last merge, foreseen from how
    /// counts fell over the merges so far, is lower: 3/4 of that, leaving room for the
    /// foresight's error, if that spares the next re-count: not below the records' floor
    /// (while the records can stand in for a count of every pair) nor below
    /// best / `LOWEST_FLOOR_DIVISOR`. The floor only sets how much is tracked: the merges
    /// are the same whatever it is.
    pub(super) fn lower_floor(&self, best: u64) -> u64 {
        if best >= self.floor {
            return self.floor;
        }
        let floor = best / FLOOR_DIVISOR;
        let lowest = match self.record_floor {
            Some(records) if records <= floor => records.max(best / LOWEST_FLOOR_DIVISOR),
            _ => best / LOWEST_FLOOR_DIVISOR,
        };
        let enough = self.foreseen_last_count(best).filter(|_| self.tuning.foresight).map(|last| last / 4 * 3);
        match enough {
            Some(enough) if enough < floor && enough >= lowest => enough,
            _ => floor,
        }
        .max(self.min_floor())
    }

    /// The count of the last merge if counts keep falling as a power of the merge number,
    /// as they did from half the merges made so far to the best pair's `best`; None
    /// without a bound on the merges or with too few made to tell.
    fn foreseen_last_count(&self, best: u64) -> Option<u64> {
        let done = self.merge_counts.len();
        let last = self.target(done as u64)? as f64;
        let half = *self.merge_counts.get(done / 2)?;
        if done < FORESIGHT_FROM || half <= best || last <= done as f64 {
            return None;
        }
        let exponent = (half as f64 / best as f64).log2();
        Some((best as f64 * (done as f64 / last).powf(exponent)) as u64)
    }

    /// Whether the tracked pairs can no longer tell the best one, whose count is `best`
    /// (None: no tracked pair is left); if so, the floor to re-count from is noted.
    pub(super) fn needs_retrack(&mut self, best: Option<u64>) -> bool {
        if self.floor <= 1 {
            return false;
        }
        let limit = self.floor.saturating_add(self.slack);
        let needed = match best {
            Some(count) => count < limit,
            None => limit > self.min_floor(),
        };
        if needed {
            self.retrack_to = Some(self.lower_floor(best.unwrap_or(self.floor - 1)));
        }
        needed
    }

    pub(super) fn count_initial_pairs(&mut self, reporter: &mut Reporter) -> Result<()> {
        self.link_long_words();
        let occurrences: u128 = self.words.counts.iter().map(|&c| c as u128).sum();
        let floor = if self.words.len() >= self.tuning.prune_from_words {
            let share = (occurrences / FIRST_FLOOR_SHARE as u128).min(u64::MAX as u128) as u64;
            self.tuning.first_floor.unwrap_or(share).max(self.min_floor())
        } else {
            0
        };
        self.record_floor = (floor > 1 && self.tuning.records).then(|| (floor / RECORD_DIVISOR).max(self.min_floor()));
        self.track_pairs(floor, reporter)
    }

    /// The pairs that may count at least `floor`, ascending, if the records tell (None:
    /// they must be selected by counting every pair).
    fn recorded_candidates(&self, floor: u64) -> Option<Vec<u64>> {
        let record_floor = self.record_floor.filter(|&r| floor >= r)?;
        let gain = |k: &u64| self.gains.get(k).copied().unwrap_or(0);
        let tracked = self.pairs.iter().filter(|st| !st.merged && st.count >= floor).map(|st| key(st.left, st.right));
        let recorded = self.records.iter().filter(|&&(k, n)| n + gain(&k) >= floor).map(|&(k, _)| k);
        // A pair neither tracked nor recorded counted less than the record floor.
        let gained = self.gains.iter().filter(|&(_, &g)| record_floor - 1 + g >= floor).map(|(&k, _)| k);
        let mut keys: Vec<u64> = tracked.chain(recorded).chain(gained).collect();
        keys.sort_unstable();
        keys.dedup();
        Some(keys)
    }

    /// Count the pairs again from the words, tracking those counting at least `floor`
    /// (every pair if it is at most 1), and fill the heap.
    pub(super) fn track_pairs(&mut self, floor: u64, reporter: &mut Reporter) -> Result<()> {
        let step = self.step;
        #[cfg(test)]
        super::tracking_tests::RECOUNTS.set(super::tracking_tests::RECOUNTS.get() + u32::from(step > 0));
        // (A floor of at most 1 tracks every pair: they are all counted.)
        let candidates = if step > 0 && floor > 1 { self.recorded_candidates(floor) } else { None };
        if step > 0 {
            // The records hold for the first floor only.
            (self.records, self.record_floor) = (Vec::new(), None);
        }
        self.floor = floor;
        self.pairs = Vec::new();
        self.pair_index = FxHashMap::default();
        self.pair_cache = PairCache::new();
        self.heap = Vec::new();
        self.spots = Vec::new();
        self.gains = FxHashMap::default();
        self.slack = 0;
        self.born.clear();
        self.free.clear();
        crate::release_free_memory(); // the pairs' state just dropped
        self.step = u32::MAX; // nothing is "gained" while counting
        // Before the first merge the pairs are pairs of characters, few whatever the
        // table's size: counting them all and dropping those below the floor afterwards
        // scans the words once instead of twice.
        let select = floor > 1 && step > 0 && candidates.is_none();
        if let Some(keys) = candidates {
            // Counted, then those below the floor dropped as if born in this count.
            for k in keys {
                let idx = self.pairs.len() as u32;
                self.pairs.push(PairStat { left: (k >> 32) as u32, right: k as u32, ..Default::default() });
                self.pair_index.insert(k, idx);
                self.born.push(idx);
            }
            self.frozen = true;
        } else if select {
            self.select_pairs(floor, reporter)?;
            self.frozen = true;
        }
        self.count_long_words(reporter)?;
        match self.pool {
            Some(pool) if pool.current_num_threads() > 1 => self.count_on_threads(pool, reporter)?,
            _ => self.count_here(step == 0, reporter)?,
        }
        if floor > 1 && !select {
            self.drop_born_below_floor(); // every pair was born in this count
        }
        self.frozen = false;
        self.gained.clear();
        self.step = step;
        for st in &mut self.pairs {
            st.postings.shrink_to_fit(); // growth slack is most of their memory (if not reserved)
        }
        for idx in 0..self.pairs.len() as u32 {
            let st = &self.pairs[idx as usize];
            if st.count >= self.opts.min_frequency && !st.merged {
                let e = self.entry(idx);
                self.push(e);
            }
        }
        Ok(())
    }

    /// Count the short words' pairs (only those in the index while `frozen`), with
    /// their postings, on this thread.
    fn count_here(&mut self, initial: bool, reporter: &mut Reporter) -> Result<()> {
        let mut long_words_seen = 0;
        for w in 0..self.words.len() {
            if w % 4096 == 0 {
                reporter.check_cancel()?;
                if initial && reporter.due() {
                    let mut p = self.progress(&[], Vec::new());
                    p.stage = Stage::Counting;
                    reporter.send(p)?;
                }
            }
            if self.long_word_numbers().get(long_words_seen) == Some(&(w as u32)) {
                long_words_seen += 1; // counted already
                continue;
            }
            let (s, n, c) = (self.words.start(w), self.words.lens[w] as usize, self.words.counts[w]);
            for i in 1..n {
                let (l, r) = (self.words.sym(s + i - 1), self.words.sym(s + i));
                self.inc(l, r, w as u32, c);
            }
        }
        Ok(())
    }

    /// [`Self::count_here`] on the pool's threads, each counting a run of the words;
    /// the runs' pairs then enter the index in order, each pair's postings joined in
    /// word order, so the index does not depend on timing.
    fn count_on_threads(&mut self, pool: &ThreadPool, reporter: &mut Reporter) -> Result<()> {
        reporter.check_cancel()?;
        let runs = pool.current_num_threads();
        let scan = Scan { words: &self.words, longs: self.long_word_numbers(), long_pairs: &[], parts: 1, reserve: false };
        let tracked = self.frozen.then_some(&self.pair_index);
        let bounds: Vec<usize> = (0..=runs).map(|i| self.words.len() * i / runs).collect();
        let symbols = self.tokens.len();
        let mut counted: Vec<Vec<(u64, u64, Postings)>> = (0..runs).map(|_| Vec::new()).collect();
        pool.in_place_scope(|s| {
            let (here, others) = counted.split_first_mut().expect("a run");
            for (i, out) in others.iter_mut().enumerate() {
                let (scan, run) = (&scan, bounds[i + 1]..bounds[i + 2]);
                s.spawn(move |_| *out = scan.count(run, tracked, symbols));
            }
            *here = scan.count(bounds[0]..bounds[1], tracked, symbols);
        });
        reporter.check_cancel()?;
        for (k, n, postings) in counted.into_iter().flatten() {
            let idx = match self.pair_index.get(&k) {
                Some(&idx) => idx,
                None => match self.new_pair((k >> 32) as u32, k as u32, n) {
                    Some(idx) => idx,
                    None => continue,
                },
            };
            let st = &mut self.pairs[idx as usize];
            st.count += n;
            st.touched = self.step;
            if st.postings.capacity() == 0 {
                st.postings = postings.copied();
            } else {
                st.postings.append(postings); // copies into the buffer `copied` made
            }
        }
        crate::release_free_memory(); // the threads' buffers just freed
        Ok(())
    }

    /// Put every pair counting at least `floor` into the index (with a zero count and
    /// room for its postings), counting all pairs one hash partition at a time, as many
    /// partitions at once as the pool has threads (each thread scans every word and
    /// counts only its partition's pairs). A partition that fills its table starts the
    /// count over with more partitions, as many as the share of the words scanned when
    /// it overflowed suggests. Pairs enter the index in partition order, whatever the
    /// threads.
    fn select_pairs(&mut self, floor: u64, reporter: &mut Reporter) -> Result<()> {
        let long_pairs = self.long_pairs();
        let threads = self.pool.map_or(1, ThreadPool::current_num_threads).max(1) as u64;
        // The partitions counted at once share the memory of `partition_pairs` pairs
        // (rounded down to a power of two of table slots); each may fill 7/8 of its
        // slots without the table growing.
        let slots = (2 * self.tuning.partition_pairs / threads as usize).max(16).next_power_of_two() / 2;
        let limit = slots / 8 * 7 - 1;
        'over: loop {
            let parts = self.partitions.max(threads);
            // Counting on threads makes each pair's postings anew: no room to reserve.
            let reserve = threads == 1;
            let scan = Scan { words: &self.words, longs: self.long_word_numbers(), long_pairs: &long_pairs, parts, reserve };
            let mut selected = Vec::new();
            for first in (0..parts).step_by(threads as usize) {
                reporter.check_cancel()?;
                let group: Vec<u64> = (first..(first + threads).min(parts)).collect();
                let mut results: Vec<Selected> = group.iter().map(|_| Selected::Overflow(1.0)).collect();
                match self.pool {
                    Some(pool) if group.len() > 1 => pool.in_place_scope(|s| {
                        let (here, others) = results.split_first_mut().expect("a partition");
                        for (&part, out) in group[1..].iter().zip(others) {
                            let scan = &scan;
                            s.spawn(move |_| *out = scan.select(part, floor, limit));
                        }
                        *here = scan.select(group[0], floor, limit);
                    }),
                    _ => {
                        for (&part, out) in group.iter().zip(results.iter_mut()) {
                            *out = scan.select(part, floor, limit);
                        }
                    }
                }
                let overflowed = results.iter().filter_map(|r| match r {
                    Selected::Overflow(share) => Some(*share),
                    Selected::Pairs(_) => None,
                });
                if let Some(share) = overflowed.reduce(f64::min) {
                    // Distinct pairs grow more slowly than the words scanned, so this
                    // over-estimates rather than overflows again (but a few diverse
                    // first words must not multiply the scans).
                    let estimate = (parts as f64 * 1.1 / share).ceil() as u64;
                    self.partitions = estimate.clamp(parts * 2, parts * 8).div_ceil(threads) * threads;
                    continue 'over;
                }
                selected.extend(results);
            }
            for result in selected {
                let Selected::Pairs(pairs) = result else { unreachable!("overflows start over") };
                for (k, bytes) in pairs {
                    let idx = self.pairs.len() as u32;
                    let (left, right) = ((k >> 32) as u32, k as u32);
                    let postings = Postings::with_capacity(bytes as usize);
                    self.pairs.push(PairStat { left, right, postings, ..Default::default() });
                    self.pair_index.insert(k, idx);
                }
            }
            self.partitions = parts;
            return Ok(());
        }
    }

    /// Every adjacent pair of every long word (their current tokens), with the word's count.
    fn long_pairs(&self) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        for (li, &w) in self.long_word_numbers().iter().enumerate() {
            let n = self.words.counts[w as usize];
            for p in self.long_word_symbols(li).windows(2) {
                if p[0] != UNK && p[1] != UNK {
                    out.push((key(p[0], p[1]), n));
                }
            }
        }
        out
    }

    /// A pair not in the index occurs (n times): its new number, or None if it stays
    /// untracked: while re-counting, and in a duplicate merge, which notes the gain.
    pub(super) fn new_pair(&mut self, l: u32, r: u32, n: u64) -> Option<u32> {
        if self.frozen {
            return None;
        }
        let k = key(l, r);
        if self.duplicate_step && self.floor > 1 {
            let gain = self.gains.entry(k).or_insert(0);
            *gain += n;
            self.slack = self.slack.max(*gain);
            return None;
        }
        let st = PairStat { left: l, right: r, ..Default::default() };
        let idx = match self.free.pop() {
            Some(idx) => {
                self.pairs[idx as usize] = st;
                idx
            }
            None => {
                self.pairs.push(st);
                self.pairs.len() as u32 - 1
            }
        };
        self.pair_index.insert(k, idx);
        if self.floor > 1 {
            self.born.push(idx);
        }
        Some(idx)
    }

    /// At the end of a merge: the pairs it created counting less than the floor leave.
    pub(super) fn drop_born_below_floor(&mut self) {
        let mut born = mem::take(&mut self.born);
        for &idx in &born {
            let st = &self.pairs[idx as usize];
            if st.count >= self.floor {
                continue;
            }
            let (k, count, spots) = (key(st.left, st.right), st.count, st.spots);
            self.leave_out(k, count);
            self.pair_index.remove(&k);
            self.pair_cache.forget(k);
            if spots != 0 {
                self.spots[spots as usize - 1] = BinaryHeap::new();
            }
            // `merged` keeps it out of the heap until the number is reused.
            self.pairs[idx as usize] = PairStat { merged: true, ..Default::default() };
            self.free.push(idx);
        }
        born.clear();
        self.born = born;
    }

    /// Pair `k`, counting `count` (below the floor), is not tracked: noted in `records`
    /// if it counts enough for them.
    pub(super) fn leave_out(&mut self, k: u64, count: u64) {
        if self.record_floor.is_some_and(|r| count >= r) {
            self.records.push((k, count));
            if self.records.len() > self.tuning.partition_pairs {
                // More than a re-count would count at once: select as without records.
                (self.records, self.record_floor) = (Vec::new(), None);
            }
        }
    }

    #[cfg(test)]
    pub(super) fn untracked_bound(&self, k: u64) -> u64 {
        let left_out = match self.record_floor {
            Some(r) => self.records.iter().find(|&&(rk, _)| rk == k).map_or(r - 1, |&(_, n)| n),
            None => self.floor.saturating_sub(1),
        };
        left_out.min(self.floor.saturating_sub(1)) + self.gains.get(&k).copied().unwrap_or(0)
    }
}

/// One partition's pairs counting at least the floor (key, bytes of postings), or the
/// share of the words scanned when it overflowed.
enum Selected {
    Pairs(Vec<(u64, u32)>),
    Overflow(f64),
}

/// What a re-count scans: the short words in the arena, and the long words' pairs (listed
/// once: they have no postings).
struct Scan<'t, S: Sym> {
    words: &'t WordTable<S>,
    longs: &'t [u32],
    long_pairs: &'t [(u64, u64)],
    parts: u64,
    /// Whether `select` sums the bytes of each pair's postings (to reserve them).
    reserve: bool,
}

impl<S: Sym> Scan<'_, S> {
    /// Call f(word, its count, pair key) for every pair without `UNK` of the short words
    /// `run`, in order, until it returns false; whether it never did.
    fn each_short_pair(&self, run: std::ops::Range<usize>, mut f: impl FnMut(usize, u64, u64) -> bool) -> bool {
        let mut long_words_seen = self.longs.partition_point(|&w| (w as usize) < run.start);
        for w in run {
            if self.longs.get(long_words_seen) == Some(&(w as u32)) {
                long_words_seen += 1;
                continue;
            }
            let n = self.words.counts[w];
            for p in self.words.symbols(w).windows(2) {
                let (l, r) = (p[0].id(), p[1].id());
                if l != UNK && r != UNK && !f(w, n, key(l, r)) {
                    return false;
                }
            }
        }
        true
    }

    /// Every pair of the short words `run` (only those in `tracked`, if given) in order
    /// of first occurrence, with its count and postings.
    /// `symbols`: every id is below it (then pairs are looked up in a table of
    /// `symbols`² numbers when that is small, as before the first merge).
    fn count(&self, run: std::ops::Range<usize>, tracked: Option<&FxHashMap<u64, u32>>, symbols: usize) -> Vec<(u64, u64, Postings)> {
        let mut out: Vec<(u64, u64, Postings)> = Vec::new();
        let mut add = |w: usize, n: u64, k: u64, i: &mut u32| {
            if *i == u32::MAX {
                out.push((k, 0, Postings::default()));
                *i = out.len() as u32 - 1;
            }
            let entry = &mut out[*i as usize];
            entry.1 += n;
            entry.2.push(w as u32);
        };
        if tracked.is_none() && symbols <= DIRECT_PAIRS_BELOW {
            let mut index = vec![u32::MAX; symbols * symbols];
            self.each_short_pair(run, |w, n, k| {
                add(w, n, k, &mut index[(k >> 32) as usize * symbols + (k as u32) as usize]);
                true
            });
        } else {
            let mut index: FxHashMap<u64, u32> = FxHashMap::default();
            self.each_short_pair(run, |w, n, k| {
                if tracked.is_none_or(|t| t.contains_key(&k)) {
                    add(w, n, k, index.entry(k).or_insert(u32::MAX));
                }
                true
            });
        }
        out
    }

    /// The pairs of partition `part` counting at least `floor`, unless it holds more than
    /// `limit` distinct pairs.
    fn select(&self, part: u64, floor: u64, limit: usize) -> Selected {
        /// A pair's count, the bytes of its postings, and the last word in them.
        #[derive(Default)]
        struct Tally {
            count: u64,
            bytes: u32,
            last: u32,
        }
        // Sized once: growing would hold the old and the new table at the peak.
        let mut tallies: FxHashMap<u64, Tally> = FxHashMap::with_capacity_and_hasher(limit + 1, Default::default());
        let mut stopped_at = 0;
        let complete = self.each_short_pair(0..self.words.len(), |w, n, k| {
            if partition(k, self.parts) == part {
                let t = tallies.entry(k).or_default();
                t.count += n;
                if self.reserve && (t.bytes == 0 || t.last != w as u32) {
                    (t.bytes, t.last) = (t.bytes + coded_len(t.last, w as u32) as u32, w as u32);
                }
            }
            stopped_at = w;
            tallies.len() <= limit
        });
        if !complete {
            return Selected::Overflow((stopped_at + 1) as f64 / self.words.len() as f64);
        }
        for &(k, n) in self.long_pairs {
            if partition(k, self.parts) == part {
                tallies.entry(k).or_default().count += n;
                if tallies.len() > limit {
                    return Selected::Overflow(1.0);
                }
            }
        }
        Selected::Pairs(tallies.into_iter().filter(|(_, t)| t.count >= floor).map(|(k, t)| (k, t.bytes)).collect())
    }
}


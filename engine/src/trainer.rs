//! The merge loop: exact greedy BPE with an incremental pair index and a lazy heap.
//!
//! State: every distinct word as a symbol sequence (one arena) with its count; for
//! every adjacent pair its count (u64) and the words it occurs in ("postings",
//! appended, never eagerly cleaned, varint-coded: `postings`); a max-heap of candidate
//! pairs. On large tables only the pairs that can still be the best are tracked
//! (`tracking`), which bounds the memory of all that by the words, not their pairs.
//!
//! Each step pops the best valid pair, rewrites the words it occurs in left to right
//! without overlap, and updates only the neighbouring pairs' counts (`rewrite`: once per
//! pair and merge, large merges on several threads). The heap is lazy:
//! an entry is a snapshot that is never worse than the pair's true key, because an
//! existing pair only loses occurrences, except after a duplicate merge, which pushes
//! a fresh entry for every pair that gained or may have moved earlier in a word. A popped entry is checked against the
//! live key and re-pushed if stale.
//!
//! Keys: count first; then the tie rule. `first-seen` compares the position of the
//! pair's earliest occurrence (word number in first-seen order, then character offset,
//! or slot in a long word: the same order), computed from the postings when an entry
//! reaches the top.
//!
//! Duplicate merges (the result string already is a token) reuse that token; the
//! changed words are then re-encoded with all merges so far, so that the merge-rank
//! encoder reproduces every training word's final segmentation.
//!
//! Long words (at least `LONG_WORD` symbols, e.g. whole lines of text without spaces)
//! would make every merge cost the length of each word it touches. They are kept as
//! linked lists instead, and their pair occurrences as positions (`long_words`), so
//! that a merge costs per occurrence whatever the word's length. The results are the
//! same either way (`long_word_tests` checks both paths against each other); the price
//! is 8 more bytes per symbol of a long word.

mod choice;
mod helper;
mod long_words;
mod pair_cache;
#[cfg(test)]
mod long_word_tests;
mod postings;
mod rewrite;
#[cfg(test)]
mod rewrite_tests;
mod tracking;
#[cfg(test)]
mod tracking_tests;

use std::cell::Cell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rayon::ThreadPool;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::error::Result;
use crate::progress::{Progress, Reporter, Stage};
use crate::symbols::{AnyTable, Sym, WordTable, UNK};
use long_words::LongWords;
use pair_cache::PairCache;
use postings::Postings;
use rewrite::Changes;
use tracking::Tuning;

/// Words with at least this many symbols take the linked-list path.
const LONG_WORD: usize = 64;

/// How many words ahead a merge fetches a word's symbols (twice that: its span).
const PREFETCH_WORDS: usize = 8;

/// Hand freed memory back to the system after this many bytes of postings were freed.
/// The first postings are most of the merge loop's memory and are freed as their pairs
/// merge, in small blocks all over the heap, which the allocator neither reuses well
/// nor returns: without this, the peak on a 10 M-word table grew by 11 bytes per word
/// during merging (a trim costs a few ms).
const TRIM_AFTER: usize = 32 << 20;

pub use crate::options::Ties;

#[derive(Debug, Clone)]
pub struct MergeOptions {
    pub min_frequency: u64,
    pub vocab_size: Option<u64>,
    pub max_merges: Option<u64>,
    pub ties: Ties,
    /// Special tokens: counted in the vocabulary size; a pair forming one is never merged.
    pub specials: Vec<String>,
    /// Pairs (left token, right token) never merged (BPE-knockout's removed merges).
    pub forbidden: Vec<(String, String)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MergeRecord {
    pub left: u32,
    pub right: u32,
    pub result: u32,
    pub count: u64,
}

#[derive(Debug, Clone)]
pub struct Trained {
    /// The alphabet followed by every token created by merges, in creation order.
    pub tokens: Vec<String>,
    pub alphabet_len: usize,
    pub merges: Vec<MergeRecord>,
    /// The words with their final segmentation.
    pub words: AnyTable,
}

fn key(l: u32, r: u32) -> u64 {
    ((l as u64) << 32) | r as u64
}

#[derive(Debug, Default)]
struct PairStat {
    left: u32,
    right: u32,
    count: u64,
    postings: Postings,
    /// The step that last increased the count (dedups the "gained" list).
    touched: u32,
    /// 1 + index of the pair's occurrences in long words in `Trainer::spots`; 0: none yet.
    spots: u32,
    merged: bool,
    banned: bool,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    count: u64,
    /// Earliest occurrence (word << 32 | char offset), only for `first-seen`.
    pos: u64,
    pair: u32,
}

struct Trainer<'a, S: Sym> {
    opts: &'a MergeOptions,
    words: WordTable<S>,
    tokens: Vec<String>,
    token_chars: Vec<u32>,
    token_index: FxHashMap<String, u32>,
    pair_index: FxHashMap<u64, u32>,
    /// Recent `pair_index` look-ups, direct-mapped (see [`PairCache`]).
    pair_cache: PairCache,
    pairs: Vec<PairStat>,
    heap: Vec<Entry>,
    ranks: FxHashMap<u64, (u32, u32)>,
    specials: FxHashSet<String>,
    forbidden: FxHashSet<(String, String)>,
    step: u32,
    gained: Vec<u32>,
    /// Words of at least this many symbols are long.
    long_from: usize,
    long: LongWords,
    /// Per pair (see `PairStat::spots`): its occurrences in long words as global slot
    /// numbers (see `long_words`) in a min-heap, cleaned lazily (entries may be stale).
    spots: Vec<BinaryHeap<Reverse<u32>>>,
    /// Symbols and positions visited (scans, occurrence lists): bounds the work in tests.
    work: Cell<u64>,
    tuning: Tuning,
    /// Pairs counting less than this need not be tracked (see `tracking`); at most 1:
    /// every pair is.
    floor: u64,
    /// Untracked pairs that duplicate merges may have added to: how much at most.
    gains: FxHashMap<u64, u64>,
    /// Pairs left out counting at least `record_floor`, with that count (see `tracking`).
    records: Vec<(u64, u64)>,
    /// While `records` holds every pair left out counting at least this.
    record_floor: Option<u64>,
    /// The largest of `gains`.
    slack: u64,
    /// Pairs created in this step (only while some pairs are untracked).
    born: Vec<u32>,
    /// Numbers of pairs that left the index, for reuse.
    free: Vec<u32>,
    duplicate_step: bool,
    /// While re-counting: count only the pairs already in the index.
    frozen: bool,
    /// Set by `next_best` when the tracked pairs cannot tell the best: re-track from this floor.
    retrack_to: Option<u64>,
    /// How many hash partitions re-tracking counts in (grows when one overflows).
    partitions: u64,
    /// The most pair numbers in use after a step (`pairs` minus `free`).
    most_pairs: usize,
    /// Bytes of postings freed since memory was last handed back (see [`TRIM_AFTER`]).
    freed: usize,
    /// Threads for rewriting the words of large merges (see `rewrite`); None: this one.
    pool: Option<&'a ThreadPool>,
    /// Whether a run of words owns a run of the arena (see `rewrite`).
    in_arena_order: bool,
    /// The thread for two-part merges (see `rewrite`), once one was needed.
    helper: Option<helper::Helper>,
    /// Whether the helper was started (or could not be).
    helper_tried: bool,
    /// Per part of a merge's words, what rewriting them changed (kept for reuse).
    changes: Vec<Changes>,
    /// The words a merge visits (kept for reuse).
    affected: Vec<u32>,
    /// The count of each merge made (see `tracking::lower_floor`).
    merge_counts: Vec<u64>,
}

pub fn train(alphabet: Vec<String>, words: AnyTable, opts: &MergeOptions, reporter: &mut Reporter) -> Result<Trained> {
    train_any(alphabet, words, opts, reporter, None)
}

/// [`train`], rewriting the words of large merges on the pool's threads too (the same
/// result).
pub fn train_on(
    pool: &ThreadPool,
    alphabet: Vec<String>,
    words: AnyTable,
    opts: &MergeOptions,
    reporter: &mut Reporter,
) -> Result<Trained> {
    train_any(alphabet, words, opts, reporter, Some(pool))
}

fn train_any(
    alphabet: Vec<String>,
    words: AnyTable,
    opts: &MergeOptions,
    reporter: &mut Reporter,
    pool: Option<&ThreadPool>,
) -> Result<Trained> {
    let parts = pool.map_or(1, ThreadPool::current_num_threads);
    match words {
        AnyTable::Narrow(words) => {
            let tuning = Tuning { parts, ..Tuning::for_table(&words) };
            let (trained, words, ..) = train_in(alphabet, words, opts, reporter, tuning, pool)?;
            Ok(Trained { words: AnyTable::Narrow(words), ..trained })
        }
        AnyTable::Wide(words) => {
            let tuning = Tuning { parts, ..Tuning::for_table(&words) };
            let (trained, words, ..) = train_in(alphabet, words, opts, reporter, tuning, pool)?;
            Ok(Trained { words: AnyTable::Wide(words), ..trained })
        }
    }
}

/// The most tokens (alphabet and merges) training can make from an alphabet of
/// `alphabet` symbols, if bounded.
pub fn most_tokens(opts: &MergeOptions, alphabet: usize) -> Option<u64> {
    let alphabet = alphabet as u64;
    let by_merges = opts.max_merges.map(|m| alphabet.saturating_add(m));
    let by_vocab = opts.vocab_size.map(|v| v.max(alphabet));
    by_merges.into_iter().chain(by_vocab).min()
}

/// [`train`] with the long-word and pair-tracking thresholds given; returns the words
/// apart from the rest (`Trained::words` left empty), the work done and the most pair
/// numbers in use at once.
#[cfg(test)]
fn train_tuned<S: Sym>(
    alphabet: Vec<String>,
    words: WordTable<S>,
    opts: &MergeOptions,
    reporter: &mut Reporter,
    tuning: Tuning,
) -> Result<(Trained, WordTable<S>, u64, usize)> {
    train_in(alphabet, words, opts, reporter, tuning, None)
}

/// [`train_tuned`], with the pool for large merges (see `rewrite`).
fn train_in<S: Sym>(
    alphabet: Vec<String>,
    words: WordTable<S>,
    opts: &MergeOptions,
    reporter: &mut Reporter,
    tuning: Tuning,
    pool: Option<&ThreadPool>,
) -> Result<(Trained, WordTable<S>, u64, usize)> {
    let mut t = Trainer::new(alphabet, words, opts, tuning);
    t.pool = pool;
    t.count_initial_pairs(reporter)?;
    let alphabet_len = t.tokens.len();
    let merges = t.run(reporter)?;
    t.compact_long_words();
    let most_pairs = t.most_pairs;
    let trained = Trained { tokens: t.tokens, alphabet_len, merges, words: AnyTable::default() };
    Ok((trained, t.words, t.work.get(), most_pairs))
}

impl<'a, S: Sym> Trainer<'a, S> {
    fn new(alphabet: Vec<String>, words: WordTable<S>, opts: &'a MergeOptions, tuning: Tuning) -> Self {
        let token_chars = alphabet.iter().map(|s| s.chars().count() as u32).collect();
        let token_index = alphabet.iter().enumerate().map(|(i, s)| (s.clone(), i as u32)).collect();
        Trainer {
            opts,
            words,
            tokens: alphabet,
            token_chars,
            token_index,
            pair_index: FxHashMap::default(),
            pair_cache: PairCache::new(),
            pairs: Vec::new(),
            heap: Vec::new(),
            ranks: FxHashMap::default(),
            specials: opts.specials.iter().cloned().collect(),
            forbidden: opts.forbidden.iter().cloned().collect(),
            step: 0,
            gained: Vec::new(),
            long_from: tuning.long_from,
            long: LongWords::default(),
            spots: Vec::new(),
            work: Cell::new(0),
            tuning,
            floor: 0,
            gains: FxHashMap::default(),
            records: Vec::new(),
            record_floor: None,
            slack: 0,
            born: Vec::new(),
            free: Vec::new(),
            duplicate_step: false,
            frozen: false,
            retrack_to: None,
            partitions: 1,
            most_pairs: 0,
            freed: 0,
            pool: None,
            in_arena_order: false,
            helper: None,
            helper_tried: false,
            changes: Vec::new(),
            affected: Vec::new(),
            merge_counts: Vec::new(),
        }
        .with_arena_order()
    }

    fn with_arena_order(mut self) -> Self {
        self.in_arena_order = self.words_in_arena_order();
        self
    }

    fn tally(&self, visited: usize) {
        self.work.set(self.work.get() + visited as u64);
    }

    // -- pair bookkeeping --------------------------------------------------------------

    /// Count n more occurrences of (l, r); its index, or None for a pair never counted
    /// or left untracked.
    #[inline]
    fn count_up(&mut self, l: u32, r: u32, n: u64) -> Option<u32> {
        if l == UNK || r == UNK {
            return None;
        }
        let k = key(l, r);
        let idx = match self.pair_cache.get(k) {
            Some(idx) => idx,
            None => {
                let idx = match self.pair_index.get(&k) {
                    Some(&idx) => idx,
                    None => self.new_pair(l, r, n)?,
                };
                self.pair_cache.put(k, idx);
                idx
            }
        };
        let st = &mut self.pairs[idx as usize];
        st.count += n;
        if st.touched != self.step {
            st.touched = self.step;
            self.gained.push(idx);
        }
        Some(idx)
    }

    /// A new occurrence of (l, r) in the short word w.
    fn inc(&mut self, l: u32, r: u32, w: u32, n: u64) {
        let Some(idx) = self.count_up(l, r, n) else { return };
        self.pairs[idx as usize].postings.push(w);
    }

    /// A tracked pair (l, r) may have a better key now: list it as gained.
    fn touch(&mut self, l: u32, r: u32) {
        if l == UNK || r == UNK {
            return;
        }
        if let Some(&idx) = self.pair_index.get(&key(l, r)) {
            let st = &mut self.pairs[idx as usize];
            if st.touched != self.step {
                st.touched = self.step;
                self.gained.push(idx);
            }
        }
    }

    fn dec(&mut self, l: u32, r: u32, n: u64) {
        if let Some(idx) = self.tracked(l, r) {
            self.dec_at(idx, n);
        }
    }

    /// The number of the pair (l, r), None if it is not tracked (or holds `UNK`).
    #[inline]
    fn tracked(&mut self, l: u32, r: u32) -> Option<u32> {
        if l == UNK || r == UNK {
            return None;
        }
        let k = key(l, r);
        if let Some(idx) = self.pair_cache.get(k) {
            return Some(idx);
        }
        let Some(&idx) = self.pair_index.get(&k) else {
            debug_assert!(self.floor > 1, "a tracked pair is missing");
            return None; // untracked: its bound stays an upper bound
        };
        self.pair_cache.put(k, idx);
        Some(idx)
    }

    /// Pair number idx lost n occurrences.
    fn dec_at(&mut self, idx: u32, n: u64) {
        let st = &mut self.pairs[idx as usize];
        debug_assert!(st.count >= n, "pair count underflow");
        st.count -= n;
        if st.count == 0 {
            // No occurrence is left: its postings are all stale. Free them.
            self.freed += std::mem::take(&mut st.postings).capacity();
            if st.spots != 0 {
                self.spots[st.spots as usize - 1] = BinaryHeap::new();
            }
        }
    }

    // -- the loop -------------------------------------------------------------------------

    fn vocab_len(&self) -> u64 {
        (self.tokens.len() + self.opts.specials.len()) as u64
    }

    fn target(&self, done: u64) -> Option<u64> {
        match (self.opts.max_merges, self.opts.vocab_size) {
            (Some(m), _) => Some(m),
            (None, Some(v)) => Some(done + v.saturating_sub(self.vocab_len())),
            _ => None,
        }
    }

    fn run(&mut self, reporter: &mut Reporter) -> Result<Vec<MergeRecord>> {
        let mut merges: Vec<MergeRecord> = Vec::new();
        let mut new_counts: Vec<u64> = Vec::new();
        reporter.send(self.progress(&merges, Vec::new()))?;
        loop {
            reporter.check_cancel()?;
            if self.opts.max_merges.is_some_and(|m| merges.len() as u64 >= m)
                || self.opts.vocab_size.is_some_and(|v| self.vocab_len() >= v)
            {
                break;
            }
            let Some(idx) = self.next_best() else {
                match self.retrack_to.take() {
                    Some(floor) => {
                        self.track_pairs(floor, reporter)?;
                        continue;
                    }
                    None => break,
                }
            };
            let record = self.merge(idx, merges.len() as u32);
            if self.freed >= TRIM_AFTER {
                crate::release_free_memory();
                self.freed = 0;
            }
            merges.push(record);
            #[cfg(test)]
            self.check_counts();
            new_counts.push(record.count);
            if reporter.due() {
                reporter.send(self.progress(&merges, std::mem::take(&mut new_counts)))?;
            }
        }
        let mut last = self.progress(&merges, new_counts);
        last.stage = Stage::Done;
        reporter.send(last)?;
        Ok(merges)
    }

    fn progress(&self, merges: &[MergeRecord], new_counts: Vec<u64>) -> Progress {
        let last = merges.last();
        Progress {
            words: self.words.len() as u64,
            merges_done: merges.len() as u64,
            merges_target: self.target(merges.len() as u64),
            pair: last.map(|m| (self.tokens[m.left as usize].clone(), self.tokens[m.right as usize].clone())),
            count: last.map(|m| m.count),
            new_counts,
            ..Progress::at(Stage::Merging)
        }
    }

    /// Apply merge `idx` (rank `rank`) to every word containing it.
    fn merge(&mut self, idx: u32, rank: u32) -> MergeRecord {
        self.step += 1;
        self.gained.clear();
        let (a, b, count) = {
            let st = &self.pairs[idx as usize];
            (st.left, st.right, st.count)
        };
        let joined = format!("{}{}", self.tokens[a as usize], self.tokens[b as usize]);
        let (c, duplicate) = match self.token_index.get(&joined) {
            Some(&c) => (c, true),
            None => {
                let c = self.tokens.len() as u32;
                self.token_chars.push(self.token_chars[a as usize] + self.token_chars[b as usize]);
                self.token_index.insert(joined.clone(), c);
                self.tokens.push(joined);
                (c, false)
            }
        };
        self.ranks.insert(key(a, b), (rank, c));
        self.duplicate_step = duplicate; // (see `new_pair`)
        let postings = std::mem::take(&mut self.pairs[idx as usize].postings);
        self.freed += postings.capacity();
        let mut affected = std::mem::take(&mut self.affected);
        affected.clear();
        affected.extend(postings.iter());
        if !postings.is_sorted() {
            affected.sort_unstable();
            affected.dedup();
        }
        drop(postings);
        if duplicate {
            self.reencode_words(&affected, a, b, c);
        } else {
            let in_long_words = self.pairs[idx as usize].spots != 0;
            self.merge_new_token(&affected, (a, b, c), in_long_words, self.pool);
        }
        self.affected = affected;
        self.merge_in_long_words(idx, a, b, c, duplicate);
        self.duplicate_step = false;
        self.drop_born_below_floor();
        let st = &mut self.pairs[idx as usize];
        debug_assert_eq!(st.count, 0, "a merged pair must have no occurrences left");
        st.merged = true;
        let gained = std::mem::take(&mut self.gained);
        for &g in &gained {
            if self.pairs[g as usize].count >= self.opts.min_frequency && !self.pairs[g as usize].merged {
                let e = self.entry(g);
                self.push(e);
            }
        }
        self.gained = gained;
        self.most_pairs = self.most_pairs.max(self.pairs.len() - self.free.len());
        self.merge_counts.push(count);
        MergeRecord { left: a, right: b, result: c, count }
    }
}

/// Replace every non-overlapping (a, b), left to right, by c.
pub fn merge_all(seq: &[u32], a: u32, b: u32, c: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity(seq.len());
    let mut i = 0;
    while i < seq.len() {
        if i + 1 < seq.len() && seq[i] == a && seq[i + 1] == b {
            out.push(c);
            i += 2;
        } else {
            out.push(seq[i]);
            i += 1;
        }
    }
    out
}

/// Seed 000's encode loop: merge the lowest-ranked adjacent pair everywhere, repeat.
pub fn reduce(seq: &mut Vec<u32>, ranks: &FxHashMap<u64, (u32, u32)>) {
    loop {
        let mut best: Option<(u32, u32, u32, u32)> = None; // (rank, a, b, c)
        for i in 1..seq.len() {
            if let Some(&(rank, c)) = ranks.get(&key(seq[i - 1], seq[i])) {
                if best.is_none_or(|(r, ..)| rank < r) {
                    best = Some((rank, seq[i - 1], seq[i], c));
                }
            }
        }
        let Some((_, a, b, c)) = best else { return };
        *seq = merge_all(seq, a, b, c);
    }
}

#[cfg(test)]
mod tests;

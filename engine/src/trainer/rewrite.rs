//! A merge's rewrite of the short words it occurs in, in contiguous parts of its word
//! list that may run on several threads.
//!
//! A merge (a, b) -> c that makes a new token only removes occurrences of pairs without
//! c and only adds occurrences of pairs with c (no word held c before). So each part can
//! rewrite its words alone and note what it changed (`Changes`): the occurrences each
//! pair lost, and each pair with c it gained with its count and words, in the order
//! first met. Applied part after part, in word order, that creates the new pairs in the
//! same order, with the same numbers, counts and postings as rewriting the words one
//! after the other, so every later step (and every tie rule) sees the same state.
//! Duplicate merges (c already a token) re-encode whole words and stay serial.

use rayon::ThreadPool;
use rustc_hash::FxHashMap;

use super::helper::Helper;
use super::long_words::prefetch;
use super::postings::Postings;
use super::{key, merge_all, reduce, Trainer, PREFETCH_WORDS};
use crate::symbols::{Sym, UNK};
use crate::wordlist::Offsets;

/// What rewriting some words changed in the pair counts.
#[derive(Debug, Default)]
pub(super) struct Changes {
    /// Occurrences lost, per pair key (no such pair holds the new token).
    lost: FxHashMap<u64, u64>,
    /// Pairs with the new token: key, occurrences gained, the words, in the order first met.
    gained: Vec<(u64, u64, Postings)>,
    /// Where a key is in `gained`.
    gained_at: FxHashMap<u64, usize>,
    /// Symbols scanned (see `Trainer::work`).
    visited: u64,
    /// The tracked pairs of `lost` with their losses (while applying).
    found: Vec<(u32, u64)>,
}

impl Changes {
    #[inline]
    fn lose(&mut self, l: u32, r: u32, n: u64) {
        if l != UNK && r != UNK {
            *self.lost.entry(key(l, r)).or_insert(0) += n;
        }
    }

    #[inline]
    fn gain(&mut self, l: u32, r: u32, w: u32, n: u64) {
        if l == UNK || r == UNK {
            return;
        }
        let k = key(l, r);
        let at = *self.gained_at.entry(k).or_insert_with(|| {
            self.gained.push((k, 0, Postings::default()));
            self.gained.len() - 1
        });
        let (_, count, words) = &mut self.gained[at];
        *count += n;
        words.push(w);
    }
}

/// The words of one part: word numbers `first..` own `syms` (the arena from
/// `starts[first]` on, up to the next part's first word) and `lens`.
struct Part<'p, S> {
    words: &'p [u32],
    first: usize,
    syms: &'p mut [S],
    lens: &'p mut [u32],
}

/// The read-only inputs of a rewrite.
#[derive(Clone, Copy)]
struct Merge<'m> {
    starts: &'m Offsets,
    counts: &'m [u64],
    a: u32,
    b: u32,
    c: u32,
}

/// Merge (a, b) -> c in every word of the part, left to right without overlap, noting
/// the neighbouring pairs' changes.
fn rewrite_part<S: Sym>(part: Part<S>, m: Merge, out: &mut Changes) {
    let Merge { starts, counts, a, b, c } = m;
    // Compared and written as stored; ids go out widened.
    let (sa, sb, sc) = (S::of(a), S::of(b), S::of(c));
    let base = starts.get(part.first);
    for (k, &w) in part.words.iter().enumerate() {
        // Words are visited far apart in memory: fetch a word's span and count some
        // words ahead, then (with its start in cache) its symbols.
        if let Some(&ahead) = part.words.get(k + 2 * PREFETCH_WORDS) {
            prefetch(starts.slot(ahead as usize));
            prefetch(&part.lens[ahead as usize - part.first]);
            prefetch(&counts[ahead as usize]);
        }
        if let Some(&near) = part.words.get(k + PREFETCH_WORDS) {
            if let Some(sym) = part.syms.get(starts.get(near as usize) - base) {
                prefetch(sym);
            }
        }
        let wi = w as usize;
        let len = &mut part.lens[wi - part.first];
        let n = *len as usize;
        let syms = &mut part.syms[starts.get(wi) - base..][..n];
        let cnt = counts[wi];
        out.visited += n as u64;
        let (mut i, mut kept) = (0usize, 0usize);
        let mut last_was_merge = false;
        while i < n {
            let sym = syms[i];
            if sym == sa && i + 1 < n && syms[i + 1] == sb {
                if kept > 0 {
                    let prev = syms[kept - 1].id();
                    if !last_was_merge {
                        // Unchanged left neighbour: (prev, a) becomes (prev, c).
                        out.lose(prev, a, cnt);
                    }
                    // After a merge the old (b, a) was already removed as the right side.
                    out.gain(prev, c, w, cnt);
                }
                if i + 2 < n {
                    let next = syms[i + 2];
                    out.lose(b, next.id(), cnt);
                    let next_merges = next == sa && i + 3 < n && syms[i + 3] == sb;
                    if !next_merges {
                        out.gain(c, next.id(), w, cnt);
                    }
                }
                out.lose(a, b, cnt);
                syms[kept] = sc;
                kept += 1;
                i += 2;
                last_was_merge = true;
            } else {
                syms[kept] = sym;
                kept += 1;
                i += 1;
                last_was_merge = false;
            }
        }
        *len = kept as u32;
    }
}

/// Where part p of `parts` starts in a merge's `len` words. This thread's part 0 is half
/// as large again as the others: it also applies its changes while they run, and so it
/// rarely waits for a thread that woke up late.
fn cut(p: usize, parts: usize, len: usize) -> usize {
    match p {
        0 => 0,
        p if p >= parts => len,
        p => len * (2 * p + 1) / (2 * parts + 1),
    }
}

impl<S: Sym> Trainer<'_, S> {
    /// Whether the words lie in the arena in word order, one after the other (then a
    /// contiguous run of words owns a contiguous run of symbols).
    pub(super) fn words_in_arena_order(&self) -> bool {
        let (starts, lens) = (&self.words.starts, &self.words.lens);
        let end = |w: usize| starts.get(w) + lens[w] as usize;
        (1..starts.len()).all(|w| end(w - 1) <= starts.get(w))
            && (starts.is_empty() || end(starts.len() - 1) <= self.words.syms.len())
    }

    /// How many parts a merge touching `words` words is rewritten in: two from
    /// `helper_from` words on (this thread and the helper), `parts` from `split_from` on;
    /// one whenever `parts` is (one thread asked for).
    fn parts_for(&self, words: usize) -> usize {
        if !self.in_arena_order {
            1
        } else if words >= self.tuning.split_from {
            self.tuning.parts.min(words).max(1)
        } else if words >= self.tuning.helper_from {
            self.tuning.parts.min(2).min(words).max(1)
        } else {
            1
        }
    }

    /// The helper thread for a two-part merge, started at the first (None: none could be).
    fn take_helper(&mut self) -> Option<Helper> {
        if !self.helper_tried {
            self.helper_tried = true;
            self.helper = Helper::start();
            #[cfg(test)]
            super::rewrite_tests::HELPERS_STARTED.set(super::rewrite_tests::HELPERS_STARTED.get() + 1);
        }
        self.helper.take()
    }

    /// Merge (a, b) -> c, a new token, in the short words `affected` (ascending);
    /// `in_long_words`: whether (a, b) may also occur in long words.
    pub(super) fn merge_new_token(
        &mut self,
        affected: &[u32],
        (a, b, c): (u32, u32, u32),
        in_long_words: bool,
        pool: Option<&ThreadPool>,
    ) {
        let parts = self.parts_for(affected.len());
        // When nothing else adds to the pairs gained in this step, they are applied once
        // all parts are in, each with its count for the whole step: those below the floor
        // are left out at once, not made and then dropped at its end.
        let in_full = !in_long_words && self.floor > 1 && !self.frozen;
        let apply_first = |t: &mut Self, out: &mut Changes| if in_full { t.apply_lost(out) } else { t.apply(out) };
        let helper = if parts == 2 && pool.is_some() { self.take_helper() } else { None };
        let at = |p: usize| cut(p, parts, affected.len());
        let mut changes = std::mem::take(&mut self.changes);
        changes.resize_with(parts.max(changes.len()), Changes::default);
        // The words leave the trainer meanwhile, so that the changes can go in while
        // other parts are still being rewritten.
        let mut words = std::mem::take(&mut self.words);
        let m = Merge { starts: &words.starts, counts: &words.counts, a, b, c };
        let mut split = Vec::with_capacity(parts);
        let (mut syms, mut lens): (&mut [S], &mut [u32]) = (&mut words.syms, &mut words.lens);
        let mut first = 0usize; // the word `syms` and `lens` start at
        for p in 0..parts {
            let chunk = &affected[at(p)..at(p + 1)];
            let start = first;
            let (part_syms, part_lens) = if p + 1 < parts {
                // The next part starts at its first word.
                let next = affected[at(p + 1)] as usize;
                let (part_syms, rest) = std::mem::take(&mut syms).split_at_mut(m.starts.get(next) - m.starts.get(first));
                syms = rest;
                let (part_lens, rest) = std::mem::take(&mut lens).split_at_mut(next - first);
                lens = rest;
                first = next;
                (part_syms, part_lens)
            } else {
                (std::mem::take(&mut syms), std::mem::take(&mut lens))
            };
            split.push(Part { words: chunk, first: start, syms: part_syms, lens: part_lens });
        }
        let (here_out, others_out) = changes[..parts].split_first_mut().expect("at least one part");
        let mut split = split.into_iter();
        let here = split.next().expect("at least one part");
        match (pool, &helper) {
            // Two parts: the helper, awake between merges, rewrites the second.
            (_, Some(helper)) => {
                let (part, out) = (split.next().expect("two parts"), &mut others_out[0]);
                helper.join(|| rewrite_part(part, m, out), || {
                    rewrite_part(here, m, here_out);
                    apply_first(self, here_out);
                });
            }
            // This thread rewrites the first part and applies its changes while the pool's
            // threads rewrite the others.
            (Some(pool), _) if parts > 1 => pool.in_place_scope(|s| {
                for (part, out) in split.zip(others_out.iter_mut()) {
                    s.spawn(move |_| rewrite_part(part, m, out));
                }
                rewrite_part(here, m, here_out);
                apply_first(self, here_out);
            }),
            _ => {
                rewrite_part(here, m, here_out);
                apply_first(self, here_out);
                split.zip(others_out.iter_mut()).for_each(|(part, out)| rewrite_part(part, m, out));
            }
        }
        if helper.is_some() {
            self.helper = helper;
        }
        for out in others_out {
            apply_first(self, out);
        }
        if in_full {
            self.apply_gained_in_full(&mut changes[..parts]);
        }
        self.words = words;
        self.changes = changes;
    }

    /// After a duplicate merge (a, b) -> c: re-encode the short words `affected`, one by one.
    pub(super) fn reencode_words(&mut self, affected: &[u32], a: u32, b: u32, c: u32) {
        for (k, &w) in affected.iter().enumerate() {
            // As in `rewrite_part`: fetch spans and counts, then symbols, ahead.
            if let Some(&ahead) = affected.get(k + 2 * PREFETCH_WORDS) {
                let ahead = ahead as usize;
                prefetch(self.words.starts.slot(ahead));
                prefetch(&self.words.lens[ahead]);
                prefetch(&self.words.counts[ahead]);
            }
            if let Some(&near) = affected.get(k + PREFETCH_WORDS) {
                if let Some(sym) = self.words.syms.get(self.words.start(near as usize)) {
                    prefetch(sym);
                }
            }
            self.rewrite_word(w, a, b, c);
        }
    }

    /// After a duplicate merge: re-encode the whole word and count the pairs it lost and
    /// gained. A pair in the word before and after keeps its count and its posting, so an
    /// untracked one (see `tracking`) gains nothing.
    fn rewrite_word(&mut self, w: u32, a: u32, b: u32, c: u32) {
        let wi = w as usize;
        let (s, n, cnt) = (self.words.start(wi), self.words.lens[wi] as usize, self.words.counts[wi]);
        self.tally(n);
        let old: Vec<u32> = self.words.ids(wi).collect();
        let mut seq = merge_all(&old, a, b, c);
        reduce(&mut seq, &self.ranks);
        for (k, &id) in seq.iter().enumerate() {
            self.words.set_sym(s + k, id);
        }
        self.words.lens[wi] = seq.len() as u32;
        let pairs = |syms: &[u32]| {
            let mut p: Vec<(u32, u32)> = syms.windows(2).map(|p| (p[0], p[1])).collect();
            p.sort_unstable();
            p
        };
        let (before, after) = (pairs(&old), pairs(&seq));
        let (mut i, mut j) = (0, 0);
        while i < before.len() || j < after.len() {
            let lost = match (before.get(i), after.get(j)) {
                (Some(&(l, r)), Some(y)) if (l, r) == *y => {
                    self.touch(l, r); // its first occurrence may have moved
                    (i, j) = (i + 1, j + 1);
                    continue;
                }
                (Some(x), Some(y)) => x < y,
                (x, _) => x.is_some(),
            };
            if lost {
                let (l, r) = before[i];
                self.dec(l, r, cnt);
                i += 1;
            } else {
                let (l, r) = after[j];
                self.inc(l, r, w, cnt);
                j += 1;
            }
        }
    }

    /// Apply one part's changes (parts in word order), leaving `out` empty for reuse.
    fn apply(&mut self, out: &mut Changes) {
        self.apply_lost(out);
        for (k, n, words) in out.gained.drain(..) {
            if let Some(idx) = self.count_up((k >> 32) as u32, k as u32, n) {
                self.pairs[idx as usize].postings.append(words);
            }
        }
        out.gained_at.clear();
    }

    /// Apply the occurrences one part's rewrite removed.
    fn apply_lost(&mut self, out: &mut Changes) {
        self.tally(out.visited as usize);
        out.visited = 0;
        // Find every pair first, then count: their cache misses overlap.
        out.found.clear();
        for (k, n) in out.lost.drain() {
            if let Some(idx) = self.tracked((k >> 32) as u32, k as u32) {
                prefetch(&self.pairs[idx as usize]);
                out.found.push((idx, n));
            }
        }
        for &(idx, n) in &out.found {
            self.dec_at(idx, n);
        }
    }

    /// Apply the pairs every part of a merge gained, once all are in: each pair (with
    /// the new token, so not in the index) with its count over all parts, made in the
    /// order first met and its words in part order, as part-by-part [`Self::apply`]
    /// would; or, counting less than the floor, left out without being made. Only when
    /// nothing else adds to these pairs in this step (long words, a re-count).
    fn apply_gained_in_full(&mut self, outs: &mut [Changes]) {
        for p in 0..outs.len() {
            let (before, rest) = outs.split_at_mut(p);
            let (out, after) = rest.split_first_mut().expect("p is in range");
            for (k, n, words) in out.gained.drain(..) {
                if before.iter().any(|o| o.gained_at.contains_key(&k)) {
                    continue; // applied with the part that met it first
                }
                debug_assert!(!self.pair_index.contains_key(&k));
                let total = n + after.iter().filter_map(|o| o.gained_at.get(&k).map(|&j| o.gained[j].1)).sum::<u64>();
                if total < self.floor {
                    self.leave_out(k, total);
                    continue;
                }
                if let Some(idx) = self.count_up((k >> 32) as u32, k as u32, total) {
                    let postings = &mut self.pairs[idx as usize].postings;
                    postings.append(words);
                    for o in after.iter_mut() {
                        if let Some(&j) = o.gained_at.get(&k) {
                            postings.append(std::mem::take(&mut o.gained[j].2));
                        }
                    }
                }
            }
        }
        for out in outs {
            out.gained_at.clear();
        }
    }
}

//! Long words: merges in time per occurrence, not per symbol of the word.
//!
//! A long word keeps its symbols in place in the arena; merging (a, b) at slot p writes
//! the new token into p and marks b's slot dead, so a slot's number never changes and
//! slot order is text order. The long words' slots are numbered globally, in word
//! order, with a gap slot before each word and after the last one. Links over these
//! numbers find the neighbours: for a token covering slots [s, e), `link[s] = e` and,
//! if e - 1 > s, `link[e - 1] = s`; a gap's link is `GAP`.
//!
//! Each pair keeps its occurrences in long words as global slots ("spots") in a
//! min-heap. Spots are never removed eagerly, so a spot is checked before use.
//!
//! A merge visits only the spots of the merged pair, left to right within each word,
//! with the same neighbour updates as the short-word scan. After a duplicate merge the
//! word is re-encoded locally: before it the word holds no pair that was ever merged,
//! so every such pair after it starts at a changed slot, and a queue of those
//! candidates by merge rank replays the full re-encoding exactly.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::{key, Trainer};
use crate::error::Result;
use crate::progress::Reporter;
use crate::symbols::{Sym, UNK};

/// The link of a gap slot.
const GAP: u32 = u32::MAX;
/// Written into the arena at a slot merged away. Token ids stay below 2^31, `UNK` is
/// u32::MAX.
const DEAD: u32 = u32::MAX - 1;

/// How many occurrences ahead a merge asks for their memory.
const PREFETCH_AHEAD: usize = 8;

/// Start loading the cache line holding `x` (a hint; nothing on other platforms).
#[inline(always)]
pub(super) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults, and the pointer comes from a reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// A pair that an earlier merge applies to: (rank, slot, left, right, result). A rank
/// names one pair.
type Candidate = (u32, u32, u32, u32, u32);

#[derive(Debug, Default)]
pub(super) struct LongWords {
    /// Each long word's word number, ascending.
    word: Vec<u32>,
    /// Each long word's first global slot.
    base: Vec<u32>,
    link: Vec<u32>,
}

impl LongWords {
    /// The long word holding global slot g.
    fn of(&self, g: u32) -> usize {
        self.base.partition_point(|&b| b <= g) - 1
    }

    /// The token after the token starting at g, if any.
    fn next(&self, g: u32) -> Option<u32> {
        let q = self.link[g as usize];
        (self.link[q as usize] != GAP).then_some(q)
    }

    /// The token before the token starting at p, if any.
    fn prev(&self, p: u32) -> Option<u32> {
        match self.link[p as usize - 1] {
            GAP => None,
            v if v >= p => Some(p - 1), // p - 1 is a one-slot token
            v => Some(v),
        }
    }
}

impl<S: Sym> Trainer<'_, S> {
    /// Take on the words of at least `long_from` symbols as long words, while the global
    /// slot numbers fit in 32 bits (longer ones stay short).
    pub(super) fn link_long_words(&mut self) {
        let (mut word, mut base) = (Vec::new(), Vec::new());
        let mut slots = 1; // the gap before the first word
        for (w, &n) in self.words.lens.iter().enumerate() {
            let n = n as usize;
            if n < self.long_from.max(2) || slots + n + 1 >= GAP as usize {
                continue;
            }
            word.push(w as u32);
            base.push(slots as u32);
            slots += n + 1;
        }
        if word.is_empty() {
            return;
        }
        let mut link = Vec::with_capacity(slots);
        link.push(GAP);
        for (&w, &b) in word.iter().zip(&base) {
            link.extend((b + 1)..=(b + self.words.lens[w as usize]));
            link.push(GAP);
        }
        self.long = LongWords { word, base, link };
    }

    /// Count the pairs of the long words' current tokens, with their spots.
    pub(super) fn count_long_words(&mut self, reporter: &mut Reporter) -> Result<()> {
        // Count first, so that every spot heap is allocated once, at its final size.
        let mut spots_needed: Vec<u32> = Vec::new();
        for li in 0..self.long.word.len() {
            reporter.check_cancel()?;
            let cnt = self.words.counts[self.long.word[li] as usize];
            for p in self.long_word_tokens(li).windows(2) {
                if let Some(idx) = self.count_up(p[0].1, p[1].1, cnt) {
                    if spots_needed.len() <= idx as usize {
                        spots_needed.resize(idx as usize + 1, 0);
                    }
                    spots_needed[idx as usize] += 1;
                }
            }
        }
        for (idx, &needed) in spots_needed.iter().enumerate() {
            if needed > 0 {
                self.spots.push(BinaryHeap::with_capacity(needed as usize));
                self.pairs[idx].spots = self.spots.len() as u32;
            }
        }
        drop(spots_needed);
        for li in 0..self.long.word.len() {
            for p in self.long_word_tokens(li).windows(2) {
                let ((g, l), (_, r)) = (p[0], p[1]);
                if l != UNK && r != UNK {
                    if let Some(&idx) = self.pair_index.get(&key(l, r)) {
                        let k = self.pairs[idx as usize].spots as usize;
                        self.spots[k - 1].push(Reverse(g));
                    }
                }
            }
        }
        Ok(())
    }

    /// Long word li's arena start, initial length and count.
    fn word_span(&self, li: usize) -> (usize, usize, u64) {
        let w = self.long.word[li] as usize;
        (self.words.start(w), self.words.lens[w] as usize, self.words.counts[w])
    }

    /// The arena index of global slot g of long word li.
    fn at(&self, li: usize, g: u32) -> usize {
        self.words.start(self.long.word[li] as usize) + (g - self.long.base[li]) as usize
    }

    fn sym(&self, li: usize, g: u32) -> u32 {
        self.words.sym(self.at(li, g))
    }

    /// Whether (l, r) still occurs at slot g of long word li.
    fn holds(&self, li: usize, g: u32, l: u32, r: u32) -> bool {
        self.sym(li, g) == l && self.long.next(g).is_some_and(|q| self.sym(li, q) == r)
    }

    /// A new occurrence of (l, r) at global slot g.
    fn inc_long(&mut self, l: u32, r: u32, g: u32, n: u64) {
        let Some(idx) = self.count_up(l, r, n) else { return };
        let st = &mut self.pairs[idx as usize];
        if st.spots == 0 {
            self.spots.push(BinaryHeap::new());
            st.spots = self.spots.len() as u32;
        }
        self.spots[st.spots as usize - 1].push(Reverse(g));
    }

    /// The pair's earliest occurrence in a long word (word << 32 | slot in the word);
    /// u64::MAX if none. Stale spots met on the way are dropped for good: a pair that
    /// comes back to a slot is counted, and so pushed, anew.
    pub(super) fn first_long_pos(&mut self, idx: u32) -> u64 {
        let st = &self.pairs[idx as usize];
        let (l, r, k) = (st.left, st.right, st.spots as usize - 1);
        while let Some(&Reverse(g)) = self.spots[k].peek() {
            self.tally(1);
            let li = self.long.of(g);
            if self.holds(li, g, l, r) {
                return ((self.long.word[li] as u64) << 32) | (g - self.long.base[li]) as u64;
            }
            self.spots[k].pop();
        }
        u64::MAX
    }

    /// Merge (a, b) -> c at every occurrence in long words (`idx` is the pair's index).
    pub(super) fn merge_in_long_words(&mut self, idx: u32, a: u32, b: u32, c: u32, duplicate: bool) {
        let k = self.pairs[idx as usize].spots;
        if k == 0 {
            return;
        }
        let mut spots: Vec<u32> = std::mem::take(&mut self.spots[k as usize - 1]).into_iter().map(|s| s.0).collect();
        spots.sort_unstable();
        spots.dedup();
        self.tally(spots.len());
        let mut changed = Vec::new();
        let mut start = 0;
        while start < spots.len() {
            let li = self.long.of(spots[start]);
            let word_end = self.long.base.get(li + 1).copied().unwrap_or(GAP);
            let group = &spots[start..start + spots[start..].partition_point(|&g| g < word_end)];
            start += group.len();
            if duplicate {
                changed.clear();
                self.merge_slots(li, group, a, b, c, Some(&mut changed));
                self.reencode_around(li, &changed);
            } else {
                self.merge_slots(li, group, a, b, c, None);
            }
        }
    }

    /// Merge (a, b) -> c at the given slots of long word li (ascending; stale ones are
    /// skipped), left to right without overlap, as `merge_in_word` does for a short
    /// word. `changed` receives the slots where a new pair starts.
    fn merge_slots(&mut self, li: usize, slots: &[u32], a: u32, b: u32, c: u32, mut changed: Option<&mut Vec<u32>>) {
        let (_, _, cnt) = self.word_span(li);
        let mut last_merged = None;
        for (k, &p) in slots.iter().enumerate() {
            if let Some(&ahead) = slots.get(k + PREFETCH_AHEAD) {
                // The slots are far apart in long arrays: load them before they are needed.
                prefetch(&self.words.syms[self.at(li, ahead)]);
                prefetch(&self.long.link[ahead as usize]);
            }
            if !self.holds(li, p, a, b) {
                continue; // stale, or merged away as the right side of the previous slot
            }
            let links = &self.long;
            let (before, q) = (links.prev(p), links.link[p as usize]);
            let (end, after) = (links.link[q as usize], links.next(q));
            if let Some(before) = before {
                let x = self.sym(li, before);
                if last_merged != Some(before) {
                    // Unchanged left neighbour: (x, a) becomes (x, c).
                    self.dec(x, a, cnt);
                }
                // After a merge the old (b, a) was already removed as the right side.
                self.inc_long(x, c, before, cnt);
            }
            if let Some(after) = after {
                let z = self.sym(li, after);
                self.dec(b, z, cnt);
                if !(z == a && self.holds(li, after, a, b)) {
                    self.inc_long(c, z, p, cnt);
                }
            }
            self.dec(a, b, cnt);
            let (at_p, at_q) = (self.at(li, p), self.at(li, q));
            self.words.set_sym(at_p, c);
            self.words.set_sym(at_q, DEAD);
            self.long.link[p as usize] = end;
            self.long.link[end as usize - 1] = p;
            last_merged = Some(p);
            if let Some(changed) = changed.as_mut() {
                changed.extend(before);
                changed.push(p);
            }
        }
    }

    /// After a duplicate merge in long word li: apply every earlier merge that now
    /// applies, lowest rank first, each at all its occurrences left to right (what
    /// `reduce` does to a whole word), starting from the slots in `changed`.
    fn reencode_around(&mut self, li: usize, changed: &[u32]) {
        let mut queue: BinaryHeap<Reverse<Candidate>> = BinaryHeap::new();
        let push_ranked = |t: &Self, queue: &mut BinaryHeap<_>, g: u32| {
            let l = t.sym(li, g);
            if let Some(q) = t.long.next(g) {
                let r = t.sym(li, q);
                if let Some(&(rank, c)) = t.ranks.get(&key(l, r)) {
                    queue.push(Reverse((rank, g, l, r, c)));
                }
            }
        };
        for &g in changed {
            push_ranked(self, &mut queue, g);
        }
        let (mut slots, mut created) = (Vec::new(), Vec::new());
        while let Some(Reverse((rank, g, l, r, c))) = queue.pop() {
            slots.clear();
            slots.push(g);
            while let Some(&Reverse((next_rank, next_g, ..))) = queue.peek() {
                if next_rank != rank {
                    break;
                }
                queue.pop();
                if slots.last() != Some(&next_g) {
                    slots.push(next_g);
                }
            }
            self.tally(slots.len());
            created.clear();
            self.merge_slots(li, &slots, l, r, c, Some(&mut created));
            for &g in &created {
                push_ranked(self, &mut queue, g);
            }
        }
    }

    /// The long words' numbers, ascending.
    pub(super) fn long_word_numbers(&self) -> &[u32] {
        &self.long.word
    }

    /// Long word li's current symbols.
    pub(super) fn long_word_symbols(&self, li: usize) -> Vec<u32> {
        self.long_word_tokens(li).into_iter().map(|(_, sym)| sym).collect()
    }

    /// Long word li's current tokens: (global slot, symbol).
    fn long_word_tokens(&self, li: usize) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        let mut g = Some(self.long.base[li]);
        while let Some(p) = g {
            out.push((p, self.sym(li, p)));
            g = self.long.next(p);
        }
        out
    }

    /// Write every long word's final symbols back as a contiguous sequence.
    pub(super) fn compact_long_words(&mut self) {
        for li in 0..self.long.word.len() {
            let symbols = self.long_word_symbols(li);
            let (s, _, _) = self.word_span(li);
            for (k, &id) in symbols.iter().enumerate() {
                self.words.set_sym(s + k, id);
            }
            self.words.lens[self.long.word[li] as usize] = symbols.len() as u32;
        }
        self.long = LongWords::default();
        self.spots = Vec::new();
    }
}

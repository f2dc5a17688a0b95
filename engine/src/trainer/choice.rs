//! Which pair merges next: the lazy max-heap of pair counts and the tie-break order
//! (`first-seen` needs each pair's earliest occurrence, found here).

use std::cmp::Ordering;

use super::{Entry, Ties, Trainer};
use crate::symbols::{Sym, UNK};

impl<'a, S: Sym> Trainer<'a, S> {
    /// Char offset of the first occurrence of (l, r) in the short word w.
    pub(super) fn find_in_word(&self, w: u32, l: u32, r: u32) -> Option<u32> {
        let syms = self.words.symbols(w as usize);
        let mut offset = 0u32;
        for i in 1..syms.len() {
            let left = syms[i - 1].id();
            if left == l && syms[i].id() == r {
                self.tally(i);
                return Some(offset);
            }
            if left != UNK {
                offset += self.token_chars[left as usize];
            } else {
                offset += 1;
            }
        }
        self.tally(syms.len());
        None
    }

    /// The pair's earliest occurrence: word << 32 | (char offset in a short word, slot
    /// in a long one). Only positions within one word are ever compared, and both
    /// orders agree there. u64::MAX if none.
    pub(super) fn first_pos(&mut self, idx: u32) -> u64 {
        let short = self.first_short_pos(idx);
        if self.pairs[idx as usize].spots == 0 {
            short
        } else {
            short.min(self.first_long_pos(idx))
        }
    }

    pub(super) fn first_short_pos(&mut self, idx: u32) -> u64 {
        let st = &self.pairs[idx as usize];
        let (l, r) = (st.left, st.right);
        if st.postings.is_sorted() {
            let mut found = None;
            for coded in st.postings.from_head() {
                if let Some(off) = self.find_in_word(coded.2, l, r) {
                    found = Some((coded, off));
                    break;
                }
            }
            let Some((coded, off)) = found else { return u64::MAX };
            self.pairs[idx as usize].postings.set_head(coded);
            ((coded.2 as u64) << 32) | off as u64
        } else {
            let mut best = u64::MAX;
            for w in st.postings.iter() {
                if ((w as u64) << 32) < best {
                    if let Some(off) = self.find_in_word(w, l, r) {
                        best = best.min(((w as u64) << 32) | off as u64);
                    }
                }
            }
            best
        }
    }

    pub(super) fn entry(&mut self, idx: u32) -> Entry {
        let pos = if self.opts.ties == Ties::FirstSeen { self.first_pos(idx) } else { 0 };
        Entry { count: self.pairs[idx as usize].count, pos, pair: idx }
    }

    // -- the heap (a binary max-heap under the tie rule) ---------------------------------

    /// Greater means better.
    pub(super) fn cmp(&self, a: &Entry, b: &Entry) -> Ordering {
        a.count.cmp(&b.count).then_with(|| {
            let (pa, pb) = (&self.pairs[a.pair as usize], &self.pairs[b.pair as usize]);
            match self.opts.ties {
                Ties::FirstSeen => b.pos.cmp(&a.pos),
                Ties::Codepoint => (pb.left, pb.right).cmp(&(pa.left, pa.right)),
                Ties::Lexicographic => (&self.tokens[pa.left as usize], &self.tokens[pa.right as usize])
                    .cmp(&(&self.tokens[pb.left as usize], &self.tokens[pb.right as usize])),
            }
        })
    }

    pub(super) fn push(&mut self, e: Entry) {
        self.heap.push(e);
        let mut i = self.heap.len() - 1;
        while i > 0 {
            let p = (i - 1) / 2;
            if self.cmp(&self.heap[i], &self.heap[p]) != Ordering::Greater {
                break;
            }
            self.heap.swap(i, p);
            i = p;
        }
    }

    pub(super) fn pop(&mut self) -> Option<Entry> {
        let n = self.heap.len();
        if n == 0 {
            return None;
        }
        self.heap.swap(0, n - 1);
        let top = self.heap.pop();
        let n = self.heap.len();
        let mut i = 0;
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut best = i;
            if l < n && self.cmp(&self.heap[l], &self.heap[best]) == Ordering::Greater {
                best = l;
            }
            if r < n && self.cmp(&self.heap[r], &self.heap[best]) == Ordering::Greater {
                best = r;
            }
            if best == i {
                break;
            }
            self.heap.swap(i, best);
            i = best;
        }
        top
    }

    /// The best live pair, or None when no pair reaches the minimum frequency or the
    /// tracked pairs must be counted again first (`retrack_to` is then set).
    pub(super) fn next_best(&mut self) -> Option<u32> {
        while let Some(e) = self.pop() {
            let st = &self.pairs[e.pair as usize];
            if st.merged || st.banned || st.count < self.opts.min_frequency {
                continue;
            }
            if st.count != e.count {
                let count = st.count;
                self.push(Entry { count, ..e }); // still an optimistic snapshot
                continue;
            }
            if self.opts.ties == Ties::FirstSeen {
                let pos = self.first_pos(e.pair);
                if pos != e.pos {
                    self.push(Entry { pos, ..e });
                    continue;
                }
            }
            let st = &self.pairs[e.pair as usize];
            if !self.specials.is_empty() {
                let joined = format!("{}{}", self.tokens[st.left as usize], self.tokens[st.right as usize]);
                if self.specials.contains(&joined) {
                    self.pairs[e.pair as usize].banned = true;
                    continue;
                }
            }
            if !self.forbidden.is_empty() {
                let pair = (self.tokens[st.left as usize].clone(), self.tokens[st.right as usize].clone());
                if self.forbidden.contains(&pair) {
                    self.pairs[e.pair as usize].banned = true;
                    continue;
                }
            }
            if self.needs_retrack(Some(e.count)) {
                return None; // an untracked pair may count as much (see `tracking`)
            }
            return Some(e.pair);
        }
        self.needs_retrack(None);
        None
    }
}

//! Parity-aware BPE (Foroutan et al. 2025): before each merge, the language whose
//! development text is currently worst compressed chooses the pair, by its own pair counts.
//!
//! Compression of a language is measured on its development text, which says the same in
//! every language: its tokens (the dev words under the merges so far, each weighted by its
//! count), as the authors' implementation does, or with `ParityMeasure::TokensPerCharacter`
//! its tokens per character. Worst = highest; ties go to the language given first. With a
//! window of W merges (the authors' moving-window variant, alpha = 2), a language that
//! chose more than 2W/L of the last W merges (L languages) is passed over. That
//! language's most frequent pair is merged (ties by the run's tie rule, over that
//! language's words); when it has no pair left (or none counting at least
//! `min_frequency`) the next worst language chooses. The merge is applied to every
//! language's training words and to the development words.
//!
//! State: one entry per training word (its count per language) and per development word
//! (its count per language, no training count), each a plain symbol vector; per pair its
//! count per language and the entries it occurs in (appended, checked when used); one lazy
//! max-heap per language. A merge visits only the entries the pair occurs in, so a step
//! costs about what it costs the plain trainer. The rules otherwise are the plain
//! trainer's (see `trainer`): duplicate results reuse the token and re-encode the changed
//! words with every merge so far; special pieces and forbidden pairs are never merged.

use std::collections::BinaryHeap;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::error::Result;
use crate::progress::{Progress, Reporter, Stage};
use crate::symbols::{AnyTable, WordTable, UNK};
mod dev;

pub use dev::symbolize_dev;

use crate::options::ParityMeasure;
use crate::trainer::{MergeOptions, MergeRecord, Ties, Trained};

/// How the language that chooses a merge is found.
#[derive(Debug, Clone, Copy)]
pub struct ParityRule {
    pub measure: ParityMeasure,
    /// The moving window's length in merges; 0: no window.
    pub window: usize,
}

/// What parity training learns beyond the plain result (Python: `TrainOutput.parity`).
#[cfg_attr(feature = "python", pyo3::pyclass(module = "bpe_desktop._engine", frozen, get_all))]
#[derive(Debug, Clone, Default)]
pub struct ParityTrace {
    /// Per merge, the index of the language that chose it.
    pub chosen: Vec<u32>,
    /// Per language, the development tokens before the first merge and after the last.
    pub dev_tokens_before: Vec<u64>,
    pub dev_tokens_after: Vec<u64>,
    pub dev_chars: Vec<u64>,
}

fn key(l: u32, r: u32) -> u64 {
    ((l as u64) << 32) | r as u64
}

struct Parity<'a> {
    opts: &'a MergeOptions,
    rule: ParityRule,
    langs: usize,
    syms: Vec<Vec<u32>>,
    initial: Vec<Vec<u32>>,
    /// Per entry and language (entry * langs + language): training and development counts.
    train: Vec<u64>,
    dev: Vec<u64>,
    /// Training entries come first; the rest are development words.
    train_entries: usize,
    pair_index: FxHashMap<u64, u32>,
    pair_sides: Vec<(u32, u32)>,
    /// Per pair and language (pair * langs + language).
    counts: Vec<u64>,
    postings: Vec<Vec<u32>>,
    /// Whether a pair's postings may be out of entry order (else the first entry that
    /// still holds the pair is its earliest).
    unsorted: Vec<bool>,
    merged: Vec<bool>,
    banned: Vec<bool>,
    heaps: Vec<BinaryHeap<(u64, u64, u32)>>,
    tokens: Vec<String>,
    token_index: FxHashMap<String, u32>,
    ranks: FxHashMap<u64, u32>,
    specials: FxHashSet<String>,
    forbidden: FxHashSet<(String, String)>,
    dev_tokens: Vec<u64>,
    dev_chars: Vec<u64>,
    /// Per entry: the step that last visited it (dedups postings).
    visited: Vec<u32>,
    step: u32,
    /// Per pair: the step that last increased a count of it; `gained`: those pairs.
    touched: Vec<u32>,
    gained: Vec<u32>,
    /// Pair count changes of one rewrite (kept for reuse).
    delta: Vec<(u32, u32, i64)>,
}

/// Train with the parity rule. `train_counts[w * langs + l]`: training word `w`'s count in
/// language `l` (`table` order); `dev[l]`: language `l`'s development words (from
/// [`symbolize_dev`]). Every language must have development characters.
pub fn train_parity(
    alphabet: Vec<String>,
    table: AnyTable,
    train_counts: Vec<u64>,
    dev: Vec<Vec<(Vec<u32>, u64, u64)>>,
    opts: &MergeOptions,
    rule: ParityRule,
    reporter: &mut Reporter,
) -> Result<(Trained, ParityTrace)> {
    let langs = dev.len();
    let mut syms: Vec<Vec<u32>> = (0..table.len()).map(|w| table.ids(w)).collect();
    let train_entries = syms.len();
    let mut train = train_counts;
    train.resize(train_entries * langs, 0);
    let mut dev_counts = vec![0u64; train_entries * langs];
    let mut dev_chars = vec![0u64; langs];
    for (l, words) in dev.into_iter().enumerate() {
        for (ids, count, chars) in words {
            syms.push(ids);
            train.extend(std::iter::repeat_n(0, langs));
            let mut row = vec![0u64; langs];
            row[l] = count;
            dev_counts.extend(row);
            dev_chars[l] += count * chars;
        }
    }
    let token_index = alphabet.iter().enumerate().map(|(i, s)| (s.clone(), i as u32)).collect();
    let entries = syms.len();
    let mut p = Parity {
        opts,
        rule,
        langs,
        initial: syms.clone(),
        syms,
        train,
        dev: dev_counts,
        train_entries,
        pair_index: FxHashMap::default(),
        pair_sides: Vec::new(),
        counts: Vec::new(),
        postings: Vec::new(),
        unsorted: Vec::new(),
        merged: Vec::new(),
        banned: Vec::new(),
        heaps: (0..langs).map(|_| BinaryHeap::new()).collect(),
        tokens: alphabet,
        token_index,
        ranks: FxHashMap::default(),
        specials: opts.specials.iter().cloned().collect(),
        forbidden: opts.forbidden.iter().cloned().collect(),
        dev_tokens: vec![0; langs],
        dev_chars,
        visited: vec![u32::MAX; entries],
        step: 0,
        touched: Vec::new(),
        gained: Vec::new(),
        delta: Vec::new(),
    };
    let alphabet_len = p.tokens.len();
    for w in 0..entries {
        let word = std::mem::take(&mut p.syms[w]);
        p.add_word(w, &word, 1);
        p.syms[w] = word;
    }
    let before = p.dev_tokens.clone();
    let (merges, chosen) = p.run(reporter)?;
    let mut words = WordTable::<u32>::default();
    let (names, totals) = (table.words(), table.counts());
    for w in 0..train_entries {
        words.push(names.get(w), totals[w], &p.syms[w]);
    }
    let trace = ParityTrace { chosen, dev_tokens_before: before, dev_tokens_after: p.dev_tokens.clone(), dev_chars: p.dev_chars.clone() };
    Ok((Trained { tokens: p.tokens, alphabet_len, merges, words: AnyTable::Wide(words) }, trace))
}

impl Parity<'_> {
    /// Count (sign +1) or uncount (-1) the pairs and dev tokens of entry `w` as `word`.
    fn add_word(&mut self, w: usize, word: &[u32], sign: i64) {
        let langs = self.langs;
        for l in 0..langs {
            let d = self.dev[w * langs + l];
            if d > 0 {
                let n = d * word.len() as u64;
                self.dev_tokens[l] = if sign > 0 { self.dev_tokens[l] + n } else { self.dev_tokens[l] - n };
            }
        }
        for pair in word.windows(2) {
            self.count_pair(w, pair[0], pair[1], sign);
        }
    }

    /// A heap entry with its current count, in every language that has the pair.
    fn push_pair(&mut self, p: u32) {
        if self.merged[p as usize] || self.banned[p as usize] {
            return;
        }
        let tie = self.first_tie(p);
        for l in 0..self.langs {
            let c = self.counts[p as usize * self.langs + l];
            if c > 0 {
                self.heaps[l].push((c, tie, p));
            }
        }
    }

    /// One occurrence of (x, y) more (sign 1) or less (-1) in entry `w`: its count in
    /// every language of the entry, the entry in its postings, and a pair that gained is
    /// noted for a fresh heap entry.
    fn count_pair(&mut self, w: usize, x: u32, y: u32, sign: i64) {
        if x == UNK || y == UNK {
            return;
        }
        let p = self.pair_of(x, y) as usize;
        if sign > 0 {
            self.post(p, w as u32);
        }
        if w >= self.train_entries {
            return;
        }
        let langs = self.langs;
        for l in 0..langs {
            let c = self.train[w * langs + l];
            if c == 0 {
                continue;
            }
            let slot = &mut self.counts[p * langs + l];
            if sign > 0 {
                *slot += c;
                if self.touched[p] != self.step {
                    self.touched[p] = self.step;
                    self.gained.push(p as u32);
                }
            } else {
                *slot -= c;
            }
        }
    }

    /// Note that entry `w` holds pair `p` (once per run of notes from one entry).
    #[inline]
    fn post(&mut self, p: usize, w: u32) {
        match self.postings[p].last() {
            Some(&last) if last == w => {}
            Some(&last) => {
                if w < last {
                    self.unsorted[p] = true;
                }
                self.postings[p].push(w);
            }
            None => self.postings[p].push(w),
        }
    }

    fn pair_of(&mut self, a: u32, b: u32) -> u32 {
        if let Some(&p) = self.pair_index.get(&key(a, b)) {
            return p;
        }
        let p = self.pair_sides.len() as u32;
        self.pair_index.insert(key(a, b), p);
        self.pair_sides.push((a, b));
        self.counts.extend(std::iter::repeat_n(0, self.langs));
        self.postings.push(Vec::new());
        self.unsorted.push(false);
        self.merged.push(false);
        self.touched.push(u32::MAX);
        let (l, r) = (&self.tokens[a as usize], &self.tokens[b as usize]);
        let banned = self.specials.contains(&format!("{l}{r}")) || self.forbidden.contains(&(l.clone(), r.clone()));
        self.banned.push(banned);
        p
    }

    /// Languages from worst compressed to best (highest measure first; ties in the order
    /// given), without those the moving window passes over. A language without
    /// development characters is never chosen.
    fn worst_first(&self, recent: &std::collections::VecDeque<u32>) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.langs).filter(|&l| self.dev_chars[l] > 0).collect();
        let rate = |l: usize| match self.rule.measure {
            ParityMeasure::Tokens => (self.dev_tokens[l] as u128, 1u128),
            ParityMeasure::TokensPerCharacter => (self.dev_tokens[l] as u128, self.dev_chars[l] as u128),
        };
        order.sort_by(|&a, &b| {
            let ((ta, ca), (tb, cb)) = (rate(a), rate(b));
            (tb * ca).cmp(&(ta * cb)).then(a.cmp(&b))
        });
        if self.rule.window > 0 {
            // Chosen at most alpha * W / L times of the last W (alpha = 2, as the authors).
            let allowed = |l: usize| {
                let times = recent.iter().filter(|&&c| c as usize == l).count();
                times * self.langs <= 2 * self.rule.window
            };
            order.retain(|&l| allowed(l));
        }
        order
    }

    /// The best pair of language `l` (count at least `min_frequency`), by count and the tie
    /// rule; it stays in the heap until merged.
    ///
    /// Entries are (count, tie, pair), never worse than the pair's true key: a count only
    /// falls until a merge adds occurrences, which pushes a fresh entry. The tie part is
    /// the rule's key where it is fixed (`codepoint`: smaller ids first) or can only get
    /// worse (`first-seen`: the earliest occurrence, pushed as "earliest possible" and
    /// computed when the entry reaches the top); `lexicographic` compares the tied pairs'
    /// strings when the top is reached.
    fn best_of(&mut self, l: usize) -> Option<u32> {
        let langs = self.langs;
        loop {
            let &(c, tie, p) = self.heaps[l].peek()?;
            let now = self.counts[p as usize * langs + l];
            if self.merged[p as usize] || self.banned[p as usize] || now != c {
                self.heaps[l].pop();
                if now > 0 && now < c && !self.merged[p as usize] && !self.banned[p as usize] {
                    let tie = self.first_tie(p);
                    self.heaps[l].push((now, tie, p));
                }
                continue;
            }
            if c < self.opts.min_frequency {
                return None;
            }
            match self.opts.ties {
                Ties::Codepoint => return Some(p),
                Ties::FirstSeen => {
                    let (w, at) = self.first_seen(p, l);
                    let real = u64::MAX - ((w as u64) << 32 | at as u64);
                    if real == tie {
                        return Some(p);
                    }
                    self.heaps[l].pop();
                    if real < tie {
                        self.heaps[l].push((c, real, p));
                    }
                }
                Ties::Lexicographic => return Some(self.greatest_tied(l, c)),
            }
        }
    }

    /// The tie part of a fresh entry for pair `p` (see [`Self::best_of`]).
    fn first_tie(&self, p: u32) -> u64 {
        match self.opts.ties {
            Ties::Codepoint => {
                let (a, b) = self.pair_sides[p as usize];
                u64::MAX - key(a, b)
            }
            Ties::FirstSeen => u64::MAX,
            Ties::Lexicographic => 0,
        }
    }

    /// Of the live pairs counting `top` in language `l`, the greatest (left, right) by
    /// their strings; every entry looked at goes back into the heap.
    fn greatest_tied(&mut self, l: usize, top: u64) -> u32 {
        let langs = self.langs;
        let mut tied: Vec<u32> = Vec::new();
        let mut held: Vec<(u64, u64, u32)> = Vec::new();
        while let Some(&(c, _, p)) = self.heaps[l].peek() {
            if c < top {
                break;
            }
            self.heaps[l].pop();
            let now = self.counts[p as usize * langs + l];
            if self.merged[p as usize] || self.banned[p as usize] {
                continue;
            }
            if now == top {
                tied.push(p);
            } else if now > 0 && now < c {
                held.push((now, 0, p));
            }
        }
        tied.sort_unstable();
        tied.dedup();
        let side = |p: u32| {
            let (a, b) = self.pair_sides[p as usize];
            (self.tokens[a as usize].as_str(), self.tokens[b as usize].as_str())
        };
        let best = *tied.iter().max_by(|&&x, &&y| side(x).cmp(&side(y))).expect("a tied pair");
        for p in tied {
            self.heaps[l].push((top, 0, p));
        }
        for e in held {
            self.heaps[l].push(e);
        }
        best
    }

    /// The earliest occurrence of pair `p` in a training word of language `l`: (entry,
    /// offset in the entry's text).
    fn first_seen(&self, p: u32, l: usize) -> (u32, usize) {
        let (a, b) = self.pair_sides[p as usize];
        let mut best = (u32::MAX, usize::MAX);
        for &w in &self.postings[p as usize] {
            if (w as usize) >= self.train_entries || self.train[w as usize * self.langs + l] == 0 || (w, 0) > best {
                continue;
            }
            // The offset in bytes of the word's text, not the symbol index: merges before
            // an occurrence shift its index but not its offset.
            let mut offset = 0usize;
            for s in self.syms[w as usize].windows(2) {
                if s[0] == a && s[1] == b {
                    best = best.min((w, offset));
                    break;
                }
                offset += if s[0] == UNK { 1 } else { self.tokens[s[0] as usize].len() };
            }
            if best.0 == w && !self.unsorted[p as usize] {
                break; // later entries come later
            }
        }
        best
    }

    fn run(&mut self, reporter: &mut Reporter) -> Result<(Vec<MergeRecord>, Vec<u32>)> {
        let mut merges: Vec<MergeRecord> = Vec::new();
        let mut chosen: Vec<u32> = Vec::new();
        let mut new_counts: Vec<u64> = Vec::new();
        let mut recent = std::collections::VecDeque::with_capacity(self.rule.window);
        self.gained.clear(); // (every pair gets its entry here)
        for p in 0..self.pair_sides.len() as u32 {
            self.push_pair(p);
        }
        let target = crate::trainer::most_tokens(self.opts, self.tokens.len()).map(|t| t.saturating_sub(self.tokens.len() as u64));
        reporter.send(self.progress(&merges, target, Vec::new()))?;
        loop {
            reporter.check_cancel()?;
            if self.opts.max_merges.is_some_and(|m| merges.len() as u64 >= m) {
                break;
            }
            if self.opts.vocab_size.is_some_and(|v| (self.specials.len() + self.tokens.len()) as u64 >= v) {
                break;
            }
            let pick = self.worst_first(&recent).into_iter().find_map(|l| self.best_of(l).map(|p| (l, p)));
            let Some((lang, p)) = pick else { break };
            if self.rule.window > 0 {
                if recent.len() == self.rule.window {
                    recent.pop_front();
                }
                recent.push_back(lang as u32);
            }
            let total: u64 = (0..self.langs).map(|l| self.counts[p as usize * self.langs + l]).sum();
            let record = self.merge(p, total);
            merges.push(record);
            chosen.push(lang as u32);
            new_counts.push(total);
            if reporter.due() {
                reporter.send(self.progress(&merges, target, std::mem::take(&mut new_counts)))?;
            }
        }
        let mut last = self.progress(&merges, target, new_counts);
        last.stage = Stage::Done;
        reporter.send(last)?;
        Ok((merges, chosen))
    }

    fn progress(&self, merges: &[MergeRecord], target: Option<u64>, new_counts: Vec<u64>) -> Progress {
        let mut p = Progress::at(Stage::Merging);
        p.words = self.train_entries as u64;
        p.merges_done = merges.len() as u64;
        p.merges_target = target;
        if let Some(m) = merges.last() {
            p.pair = Some((self.tokens[m.left as usize].clone(), self.tokens[m.right as usize].clone()));
            p.count = Some(m.count);
        }
        p.new_counts = new_counts;
        p.language_tokens = self.dev_tokens.clone();
        p
    }

    fn merge(&mut self, p: u32, count: u64) -> MergeRecord {
        self.step += 1;
        let (a, b) = self.pair_sides[p as usize];
        let piece = format!("{}{}", self.tokens[a as usize], self.tokens[b as usize]);
        let (result, duplicate) = match self.token_index.get(&piece) {
            Some(&t) => (t, true),
            None => {
                let t = self.tokens.len() as u32;
                self.tokens.push(piece.clone());
                self.token_index.insert(piece, t);
                (t, false)
            }
        };
        self.ranks.entry(key(a, b)).or_insert(self.step - 1);
        self.merged[p as usize] = true;
        let postings = std::mem::take(&mut self.postings[p as usize]);
        for &w in &postings {
            let w = w as usize;
            if self.visited[w] == self.step {
                continue;
            }
            self.visited[w] = self.step;
            let mut word = std::mem::take(&mut self.syms[w]);
            if !word.windows(2).any(|s| s[0] == a && s[1] == b) {
                self.syms[w] = word;
                continue;
            }
            if duplicate {
                let new = self.encode(&self.initial[w]);
                self.add_word(w, &word, -1);
                self.add_word(w, &new, 1);
                word = new;
            } else {
                self.merge_in_place(w, &mut word, a, b, result);
            }
            self.syms[w] = word;
        }
        for p in std::mem::take(&mut self.gained) {
            self.push_pair(p);
        }
        MergeRecord { left: a, right: b, result, count }
    }

    /// Merge (a, b) -> `result` in entry `w`, updating only the pairs around each merge
    /// site (as the plain trainer does): with `x a b y` becoming `x R y`, the pairs (x, a),
    /// (a, b), (b, y) lose one occurrence and (x, R), (R, y) gain one; adjacent sites
    /// (`a b a b`) share the pair between them, counted once as (R, R).
    fn merge_in_place(&mut self, w: usize, word: &mut Vec<u32>, a: u32, b: u32, result: u32) {
        let n = word.len();
        let mut delta = std::mem::take(&mut self.delta);
        delta.clear();
        let mut sites = 0u64;
        // Rewritten in place: `j` <= `i`; `before` is the original symbol at i - 1.
        let (mut i, mut j) = (0, 0);
        let mut before = UNK;
        while i < n {
            let site = word[i] == a && i + 1 < n && word[i + 1] == b;
            if !site {
                before = word[i];
                word[j] = word[i];
                i += 1;
                j += 1;
                continue;
            }
            sites += 1;
            if i > 0 {
                delta.push((before, a, -1));
                delta.push((word[j - 1], result, 1));
            }
            delta.push((a, b, -1));
            let next_site = i + 3 < n && word[i + 2] == a && word[i + 3] == b;
            if i + 2 < n && !next_site {
                delta.push((b, word[i + 2], -1));
                delta.push((result, word[i + 2], 1));
            }
            before = b;
            word[j] = result;
            i += 2;
            j += 1;
        }
        word.truncate(j);
        let langs = self.langs;
        if w >= self.train_entries {
            // (a training entry has no development count: its row is not read)
            for l in 0..langs {
                self.dev_tokens[l] -= sites * self.dev[w * langs + l];
            }
        }
        for &(x, y, sign) in &delta {
            self.count_pair(w, x, y, sign);
        }
        self.delta = delta;
    }

    /// Re-encode initial symbols with every merge so far: the lowest-ranked adjacent
    /// learned pair first, until none is left.
    fn encode(&self, initial: &[u32]) -> Vec<u32> {
        let mut word = initial.to_vec();
        loop {
            let best = word
                .windows(2)
                .filter_map(|s| self.ranks.get(&key(s[0], s[1])).map(|&r| (r, s[0], s[1])))
                .min();
            let Some((_, a, b)) = best else { return word };
            let piece = format!("{}{}", self.tokens[a as usize], self.tokens[b as usize]);
            word = merge_pair(&word, a, b, self.token_index[&piece]);
        }
    }
}

/// Merge every occurrence of (a, b), left to right, without overlap.
fn merge_pair(word: &[u32], a: u32, b: u32, result: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity(word.len());
    let mut i = 0;
    while i < word.len() {
        if i + 1 < word.len() && word[i] == a && word[i + 1] == b {
            out.push(result);
            i += 2;
        } else {
            out.push(word[i]);
            i += 1;
        }
    }
    out
}

//! Encoding text with a trained model, and decoding ids back to text.
//!
//! Merge mode follows seed 000's loop (and subword-nmt's `apply_bpe`): take the adjacent
//! pair with the lowest merge rank and merge all its occurrences left to right; repeat.
//! Short words use that loop directly; long words use a linked list and a bucket queue by
//! rank, taking every occurrence of the lowest rank as one batch, so the result is the
//! same and the cost linear in practice (`long_merge`).

use std::borrow::Cow;

use rustc_hash::FxHashMap;

use crate::error::{EngineError, Result};
use crate::text::{byte_to_char_table, Boundary, TextRules, BOW, EOW};
use crate::trainer::merge_all;

pub mod batch;
mod cache;
mod dropout;
mod lent;
mod long_merge;
mod merge;
mod pairs;
pub use cache::{cached_words, CACHED_WORD_BYTES, CACHE_WORDS};
pub use dropout::Dropout;
use pairs::{PairTable, NO_RANK};

/// Words longer than this (in symbols) use `long_merge`.
const LONG_WORD: usize = 48;

pub use crate::options::SpecialRole;

pub struct Encoder {
    /// Identity of this encoder's word caches (see `cache`).
    id: u64,
    rules: TextRules,
    pieces: Vec<String>,
    /// Non-special pieces -> id.
    index: FxHashMap<String, u32>,
    /// (left, right) -> (rank, result).
    ranks: PairTable,
    unk: Option<u32>,
    specials: FxHashMap<u32, SpecialRole>,
    /// Symbol id of each character, and of each character with `</w>` glued on.
    char_ids: FxHashMap<char, u32>,
    final_char_ids: FxHashMap<char, u32>,
    marker_id: Option<u32>,
    byte_ids: Option<[Option<u32>; 256]>,
    byte_chars: [char; 256],
    max_piece_chars: usize,
    /// A run of unknown symbols in a word becomes one unknown token (sentencepiece, HF
    /// `fuse_unk`); otherwise each unknown character is one.
    fuse_unk: bool,
    /// Byte fallback (sentencepiece `byte_fallback`, HF `byte_fallback`): the id of the
    /// piece `<0xNN>` of each byte. An unknown character becomes its UTF-8 bytes' pieces
    /// when all of them exist, else the unknown token, as HF does.
    fallback_bytes: Option<[Option<u32>; 256]>,
}

impl Encoder {
    pub fn new(
        rules: TextRules,
        pieces: Vec<String>,
        merges: &[(u32, u32, u32)],
        unk: Option<u32>,
        specials: FxHashMap<u32, SpecialRole>,
        fuse_unk: bool,
    ) -> Result<Self> {
        let n = pieces.len() as u32;
        let mut index = FxHashMap::default();
        for (i, p) in pieces.iter().enumerate() {
            if !specials.contains_key(&(i as u32)) {
                index.insert(p.clone(), i as u32);
            }
        }
        let mut ranks = PairTable::with_capacity(merges.len());
        for (rank, &(l, r, res)) in merges.iter().enumerate() {
            if l >= n || r >= n || res >= n || rank as u32 >= NO_RANK {
                return Err(EngineError::Config(format!("merge {rank} refers to an id outside the vocabulary")));
            }
            ranks.insert_first(l, r, rank as u32, res);
        }
        if let Some(u) = unk {
            if u >= n {
                return Err(EngineError::Config("the unknown token's id is outside the vocabulary".into()));
            }
        }
        let mut char_ids = FxHashMap::default();
        let mut final_char_ids = FxHashMap::default();
        for (p, &id) in &index {
            let mut chars = p.chars();
            if let (Some(c), None) = (chars.next(), chars.next()) {
                char_ids.insert(c, id);
            }
            if let Some(stem) = p.strip_suffix(EOW) {
                let mut cs = stem.chars();
                if let (Some(c), None) = (cs.next(), cs.next()) {
                    final_char_ids.insert(c, id);
                }
            }
        }
        let marker_id = match rules.boundary {
            Boundary::EowSymbol => index.get(EOW).copied(),
            Boundary::BowPrefix => index.get(BOW).copied(),
            _ => None,
        };
        let byte_chars = byte_to_char_table();
        let byte_ids = rules.pretokenizer.byte_level().then(|| {
            let mut t = [None; 256];
            for (b, c) in byte_chars.iter().enumerate() {
                t[b] = char_ids.get(c).copied();
            }
            t
        });
        let max_piece_chars = pieces.iter().map(|p| p.chars().count()).max().unwrap_or(1);
        Ok(Encoder { id: cache::new_encoder_id(), rules, pieces, index, ranks, unk, specials, char_ids, final_char_ids, marker_id, byte_ids, byte_chars, max_piece_chars, fuse_unk, fallback_bytes: None })
    }

    /// This encoder with byte fallback on or off (see `fallback_bytes`).
    pub fn with_byte_fallback(mut self, on: bool) -> Self {
        // The byte tokens may be ordinary tokens (an imported vocabulary) or special ones
        // (reserved by training with byte fallback), so every piece is looked at.
        self.fallback_bytes = on.then(|| {
            let mut t = [None; 256];
            for (id, piece) in self.pieces.iter().enumerate() {
                if let Some(b) = byte_piece_value(piece) {
                    t[b as usize].get_or_insert(id as u32);
                }
            }
            t
        });
        self
    }

    /// An unknown character `what` (spelled `text`: with `</w>` glued on when it ends an
    /// `eow-suffix` word, as HF spells the symbol it looks up) as its bytes' pieces, or
    /// the unknown token.
    fn push_unknown(&self, out: &mut Vec<u32>, what: char, text: &str) -> Result<()> {
        if let Some(table) = &self.fallback_bytes {
            if text.bytes().all(|b| table[b as usize].is_some()) {
                out.extend(text.bytes().map(|b| table[b as usize].unwrap()));
                return Ok(());
            }
        }
        out.push(self.unknown(what)?);
        Ok(())
    }

    /// This encoder's identity in the per-thread word caches (for tests of the cache).
    pub fn cache_id(&self) -> u64 {
        self.id
    }

    pub fn pieces(&self) -> &[String] {
        &self.pieces
    }

    fn unknown(&self, what: char) -> Result<u32> {
        self.unk.ok_or_else(|| {
            EngineError::Encode(format!(
                "the character {what:?} (U+{:04X}) is not in the vocabulary and the model has no unknown token",
                what as u32
            ))
        })
    }

    /// A word's initial symbols (markers included).
    pub fn symbols(&self, word: &str) -> Result<Vec<u32>> {
        let mut out = Vec::with_capacity(word.len() + 1);
        if self.rules.boundary == Boundary::BowPrefix {
            out.push(self.marker_id.map_or_else(|| self.unknown('\u{2581}'), Ok)?);
        }
        if let Some(bytes) = &self.byte_ids {
            for b in word.bytes() {
                out.push(bytes[b as usize].map_or_else(|| self.unknown(self.byte_chars[b as usize]), Ok)?);
            }
        } else {
            let mut chars = word.chars().peekable();
            while let Some(c) = chars.next() {
                let last = chars.peek().is_none();
                let suffixed = last && self.rules.boundary == Boundary::EowSuffix;
                let id = if suffixed {
                    self.final_char_ids.get(&c).copied()
                } else {
                    self.char_ids.get(&c).copied()
                };
                match id {
                    Some(id) => out.push(id),
                    None if suffixed => self.push_unknown(&mut out, c, &format!("{c}{EOW}"))?,
                    None => self.push_unknown(&mut out, c, c.encode_utf8(&mut [0; 4]))?,
                }
            }
        }
        if self.rules.boundary == Boundary::EowSymbol {
            out.push(self.marker_id.map_or_else(|| self.unknown('<'), Ok)?);
        }
        Ok(out)
    }

    /// Encode one word (a pre-token) to ids.
    pub fn encode_word(&self, word: &str, greedy: bool) -> Result<Vec<u32>> {
        let syms = self.symbols_to_merge(word)?;
        if greedy {
            return Ok(self.longest_match(&syms));
        }
        if syms.len() > LONG_WORD {
            return Ok(self.merge_long(&syms));
        }
        let mut syms = syms;
        self.merge_short(&mut syms);
        Ok(syms)
    }

    /// A word's symbols, a run of unknowns fused into one with `fuse_unk`: the unknown
    /// token is never part of a merge, so fusing before merging gives the same result as
    /// after, on fewer symbols.
    fn symbols_to_merge(&self, word: &str) -> Result<Vec<u32>> {
        let mut syms = self.symbols(word)?;
        if self.fuse_unk {
            if let Some(u) = self.unk {
                syms.dedup_by(|b, a| *a == u && *b == u);
            }
        }
        Ok(syms)
    }

    /// One word's symbols merged with dropout.
    fn sample_word(&self, word: &str, dropout: &mut Dropout) -> Result<Vec<u32>> {
        Ok(self.merge_dropout(&self.symbols_to_merge(word)?, dropout))
    }

    /// Greedy longest match over the word's symbols (seed 002's `tokenize`).
    fn longest_match(&self, syms: &[u32]) -> Vec<u32> {
        let mut out = Vec::with_capacity(syms.len());
        let mut i = 0;
        let mut buf = String::new();
        while i < syms.len() {
            let mut best = (syms[i], i + 1);
            buf.clear();
            let mut chars = 0;
            for j in i..syms.len() {
                if Some(syms[j]) == self.unk {
                    break; // an unknown symbol is never part of a longer token
                }
                let piece = &self.pieces[syms[j] as usize];
                buf.push_str(piece);
                chars += piece.chars().count();
                if chars > self.max_piece_chars {
                    break;
                }
                if let Some(&id) = self.index.get(buf.as_str()) {
                    best = (id, j + 1);
                }
            }
            out.push(best.0);
            i = best.1;
        }
        out
    }

    /// Encode text: normalize, cut into words, encode each (see `cache` for the words
    /// kept across calls).
    pub fn encode(&self, text: &str, greedy: bool) -> Result<Vec<u32>> {
        let mut out = Vec::with_capacity(text.len() / 3);
        self.encode_into(text, greedy, &mut out)?;
        Ok(out)
    }

    /// [`Encoder::encode`], appending to `out` (many texts into one buffer).
    pub fn encode_into(&self, text: &str, greedy: bool, out: &mut Vec<u32>) -> Result<()> {
        self.cached_words(&self.prepared(text), greedy, |_, ids| match ids {
            [id] => out.push(*id), // most words: no `memcpy` call
            _ => out.extend_from_slice(ids),
        })
    }

    /// Text as it is cut into words: CRLF as LF, then normalized.
    fn prepared<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if text.contains('\r') {
            Cow::Owned(self.rules.normalize(&text.replace("\r\n", "\n")).into_owned())
        } else {
            self.rules.normalize(text)
        }
    }

    /// Encode text with BPE-dropout (see `dropout`); the same seed gives the same sample,
    /// and dropout 0 is [`Encoder::encode`].
    pub fn encode_sampled(&self, text: &str, greedy: bool, dropout: &mut Dropout) -> Result<Vec<u32>> {
        if dropout.probability() <= 0.0 {
            // The word loop inlined, not called through `dyn FnMut`: a whole text 3-6% faster.
            return self.encode(text, greedy);
        }
        let mut out = Vec::with_capacity(text.len() / 3);
        self.for_each_word_with(text, greedy, Some(dropout), &mut |_, ids| out.extend_from_slice(ids))?;
        Ok(out)
    }

    pub fn for_each_word(&self, text: &str, greedy: bool, f: &mut dyn FnMut(&str, &[u32])) -> Result<()> {
        self.for_each_word_with(text, greedy, None, f)
    }

    /// Each word with its ids; with dropout above 0 every occurrence is sampled anew
    /// (no cache), words in text order, so one seed fixes the whole sample.
    pub fn for_each_word_with(
        &self,
        text: &str,
        greedy: bool,
        mut dropout: Option<&mut Dropout>,
        f: &mut dyn FnMut(&str, &[u32]),
    ) -> Result<()> {
        if dropout.as_ref().is_some_and(|d| d.probability() > 0.0) {
            if greedy {
                return Err(EngineError::Config("dropout applies to merge-rank encoding, not greedy longest match".into()));
            }
        } else {
            dropout = None;
        }
        let normalized = self.prepared(text);
        if let Some(d) = dropout {
            let mut error = None;
            self.rules.split_for_encoding(&normalized, &mut |w| {
                if error.is_none() {
                    match self.sample_word(w, d) {
                        Ok(ids) => f(w, &ids),
                        Err(e) => error = Some(e),
                    }
                }
            });
            return error.map_or(Ok(()), Err);
        }
        self.cached_words(&normalized, greedy, f)
    }

    /// Each word of normalized text with its ids, through this thread's word cache
    /// (generic, so that the per-word step inlines).
    fn cached_words(&self, normalized: &str, greedy: bool, mut f: impl FnMut(&str, &[u32])) -> Result<()> {
        let mut error = None;
        cache::with_cache(self.id, greedy, |cache| {
            self.rules.split_for_encoding(normalized, &mut |w| {
                if error.is_some() {
                    return;
                }
                if let Some(ids) = cache.get(w) {
                    f(w, ids);
                    return;
                }
                match self.encode_word(w, greedy) {
                    Ok(ids) => {
                        f(w, &ids);
                        cache.insert(w, &ids);
                    }
                    Err(e) => error = Some(e),
                }
            })
        });
        error.map_or(Ok(()), Err)
    }

    /// Seed 000's loop made visible: the initial symbols, then one entry per merge.
    pub fn merge_steps(&self, word: &str) -> Result<Vec<(Option<(u32, u32)>, Option<u32>, Vec<u32>)>> {
        let normalized = self.rules.normalize(word);
        // As the encoder does: with fuse_unk a run of unknowns is one symbol from the start.
        let mut syms = self.symbols_to_merge(&normalized)?;
        let mut steps = vec![(None, None, syms.clone())];
        while let Some((rank, a, b, c)) = self.lowest_pair(&syms) {
            syms = merge_all(&syms, a, b, c);
            steps.push((Some((a, b)), Some(rank), syms.clone()));
        }
        Ok(steps)
    }

    /// Ids back to text, knowing where each word ends (`ends`: the index after each
    /// word's last id, ascending; ids after the last end form one more word).
    ///
    /// With word markers, words are decoded one by one and joined with one space, so a
    /// word whose final marker an unknown token swallowed (`eow-suffix`: the unknown
    /// token replaces `ä</w>`) still ends where it did; ids alone cannot tell that.
    /// Without markers (`none`) this is [`Encoder::decode`] of all the ids.
    pub fn decode_words(&self, ids: &[u32], ends: &[usize]) -> Result<String> {
        if self.rules.boundary == Boundary::None {
            return self.decode(ids);
        }
        let mut out = String::new();
        let mut start = 0;
        let mut first = true;
        for end in ends.iter().copied().chain(std::iter::once(ids.len())) {
            if end < start || end > ids.len() {
                return Err(EngineError::Encode(format!(
                    "word end {end} is outside the ids (0..{}) or before the previous one",
                    ids.len()
                )));
            }
            if end == start {
                continue;
            }
            let word = self.decode(&ids[start..end])?;
            start = end;
            if word.is_empty() {
                continue; // only pad/bos/eos
            }
            if !first {
                out.push(' ');
            }
            out.push_str(&word);
            first = false;
        }
        Ok(out)
    }

    /// Ids back to text. pad/bos/eos are dropped; markers become spaces.
    pub fn decode(&self, ids: &[u32]) -> Result<String> {
        let mut joined = String::new();
        // Byte fallback: a run of byte pieces is the UTF-8 of the characters they spell.
        let byte_of: FxHashMap<u32, u8> = self.fallback_bytes.iter().flat_map(|t| t.iter().enumerate())
            .filter_map(|(b, id)| id.map(|id| (id, b as u8))).collect();
        let mut run: Vec<u8> = Vec::new();
        for &id in ids {
            let piece = self
                .pieces
                .get(id as usize)
                .ok_or_else(|| EngineError::Encode(format!("id {id} is outside the vocabulary")))?;
            if let Some(&b) = byte_of.get(&id) {
                run.push(b);
                continue;
            }
            if !run.is_empty() {
                joined.push_str(&String::from_utf8_lossy(&run));
                run.clear();
            }
            match self.specials.get(&id) {
                Some(SpecialRole::Pad | SpecialRole::Bos | SpecialRole::Eos) => {}
                _ => joined.push_str(piece),
            }
        }
        joined.push_str(&String::from_utf8_lossy(&run));
        if self.byte_ids.is_some() {
            let mut back: FxHashMap<char, u8> = FxHashMap::default();
            for (b, c) in self.byte_chars.iter().enumerate() {
                back.insert(*c, b as u8);
            }
            let mut bytes = Vec::with_capacity(joined.len());
            let mut tmp = [0u8; 4];
            for ch in joined.chars() {
                match back.get(&ch) {
                    Some(&b) => bytes.push(b),
                    None => bytes.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes()),
                }
            }
            joined = String::from_utf8_lossy(&bytes).into_owned();
        }
        Ok(match self.rules.boundary {
            Boundary::EowSymbol | Boundary::EowSuffix => {
                let s = joined.replace(EOW, " ");
                s.strip_suffix(' ').map(str::to_string).unwrap_or(s)
            }
            Boundary::BowPrefix => {
                let s = joined.replace(BOW, " ");
                s.strip_prefix(' ').map(str::to_string).unwrap_or(s)
            }
            Boundary::None => joined,
        })
    }
}

/// An encoder with at least this many pieces is freed on a thread of its own (see `Drop`).
pub const FREE_ELSEWHERE_PIECES: usize = 10_000;

impl Drop for Encoder {
    /// Freeing a 100,000-token encoder frees ~200,000 strings (its pieces and their index):
    /// ~11 ms, spent by whichever thread lets go of the last reference — from Python, the
    /// GUI thread holding the GIL. So a large encoder's pieces, index and this thread's
    /// word caches of it are handed to a short-lived thread that frees them.
    fn drop(&mut self) {
        // Other threads' caches of this encoder age out as they cache other encoders.
        let cached = cache::forget(self.id);
        if self.pieces.len() < FREE_ELSEWHERE_PIECES {
            return;
        }
        free_elsewhere((std::mem::take(&mut self.pieces), std::mem::take(&mut self.index), cached));
    }
}

/// Drop `parts` on a short-lived thread of its own (on this one if no thread can start:
/// the closure, and with it `parts`, is then dropped right here).
fn free_elsewhere<T: Send + 'static>(parts: T) {
    let _ = std::thread::Builder::new().name("bpe-free".into()).spawn(move || drop(parts));
}

/// The byte an `<0xNN>` piece stands for (two upper-case hex digits, as sentencepiece and
/// HF spell them), or None.
fn byte_piece_value(piece: &str) -> Option<u8> {
    let hex = piece.strip_prefix("<0x")?.strip_suffix('>')?;
    if hex.len() != 2 || !hex.bytes().all(|c| c.is_ascii_digit() || (b'A'..=b'F').contains(&c)) {
        return None;
    }
    u8::from_str_radix(hex, 16).ok()
}

#[cfg(test)]
mod tests;

//! Many texts encoded on several threads, with exactly the ids one thread gives.
//!
//! Work is shared as pieces of similar size, not as whole texts: one to three long texts,
//! or texts of very uneven length, would otherwise leave a thread idle; the last pieces are
//! smaller, so that the threads finish together. A text longer than
//! a piece is cut where no word can span the cut ([`may_cut_before`]), consecutive short
//! texts are grouped, and the calling thread and the helpers take pieces in text order from
//! a shared counter until none is left (whoever is faster takes more; a helper that starts
//! late takes none, see [`run_lent`]). Each piece's ids stay in their own buffer; the
//! buffers, in order, are the texts' ids.

use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

use super::lent::run_lent;
use super::Encoder;
use crate::corpus::reader::may_cut_before as may_cut_before_space;
use crate::error::{EngineError, Result};

/// A batch shorter than this (bytes of text) is encoded on the calling thread alone: waking
/// a helper and waiting for its last piece cost ~50 µs, as much as encoding 20–40 KiB.
/// (`benchmarks/encode_pieces.py`, second core free: two threads ÷ one at 48 KiB 1.4–1.6×
/// at best but ~1× at the median, at 64 KiB 1.6–1.75× and 1.5–1.6×.)
pub const MIN_SHARED_BYTES: usize = 64 * 1024;
/// No piece is shorter than this, but near the batch's end (see [`piece_target`]): a
/// piece's own cost (a buffer, a cache lookup) stays well under 1% of encoding it.
pub const MIN_PIECE_BYTES: usize = 8 * 1024;
/// The smallest piece near the batch's end, ~6 µs of encoding: the threads' last pieces
/// are this small, so they finish within a few µs of each other.
pub const MIN_TAIL_PIECE_BYTES: usize = 2 * 1024;
/// Pieces per thread in a large batch: a thread that runs out of pieces waits at most for
/// the one piece another is finishing, ~1/32 of a thread's share.
const PIECES_PER_THREAD: usize = 32;

/// Whether encoding may cut `text` before byte `i` and encode the two sides apart with the
/// same ids, under every pre-tokenizer, normalization and case rule: before a space that
/// follows a non-whitespace character (training's block cut), or after a newline between
/// two non-whitespace characters. Training may also cut after any newline because it
/// splits lines; GPT-2 encoding runs over the whole text, where `"a \n"` ends in the word
/// `" \n"` but `"a \nb"` has `" "` and `"\n"`, and `"\n  b"` gives a space to the newline.
/// (No non-whitespace character normalizes or lowercases to one ending in whitespace.)
pub fn may_cut_before(text: &str, i: usize) -> bool {
    let b = text.as_bytes();
    if i == 0 || i >= b.len() {
        return false;
    }
    if b[i] == b' ' {
        return may_cut_before_space(b, i);
    }
    b[i - 1] == b'\n'
        && text[..i - 1].chars().next_back().is_some_and(|c| !c.is_whitespace())
        && text[i..].chars().next().is_some_and(|c| !c.is_whitespace())
}

/// The first position at or after `from` where [`may_cut_before`] allows a cut.
pub fn next_cut(text: &str, from: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut at = from;
    while at < b.len() {
        let j = at + b[at..].iter().position(|&c| c == b' ' || c == b'\n')?;
        let cut = if b[j] == b' ' { j } else { j + 1 };
        if may_cut_before(text, cut) {
            return Some(cut);
        }
        at = j + 1;
    }
    None
}

/// Where to cut `text` into chunks of a little over `size` characters that encode apart
/// with the same ids (the Encode tab's chunks): character offsets, each the first cut
/// ([`next_cut`]) at least `size` characters after the previous one while more than `size`
/// characters remain; the last is the text's length in characters.
pub fn cut_points_in_chars(text: &str, size: usize) -> Vec<usize> {
    let size = size.max(1);
    let total = text.chars().count();
    let mut points = Vec::new();
    let (mut at_char, mut at_byte) = (0, 0);
    while total - at_char > size {
        // More than `size` characters remain, so the `size`-th one after `at_byte` exists.
        let from = at_byte + text[at_byte..].char_indices().nth(size).map_or(0, |(i, _)| i);
        let Some(cut) = next_cut(text, from) else { break };
        at_char += size + text[from..cut].chars().count();
        at_byte = cut;
        points.push(at_char);
    }
    points.push(total);
    points
}

/// The texts' ids: `parts` joined in order, and the end of each text's ids in them.
#[derive(Debug, Default)]
pub struct Encoded {
    pub parts: Vec<Vec<u32>>,
    pub ends: Vec<usize>,
}

impl Encoded {
    pub fn len(&self) -> usize {
        self.parts.iter().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.parts.iter().all(Vec::is_empty)
    }

    /// All ids in one vector.
    pub fn joined(&self) -> Vec<u32> {
        self.parts.concat()
    }
}

/// A stretch of one text; `closes` when it is the text's last.
struct Segment<'a> {
    text: &'a str,
    closes: bool,
}

/// The size of the piece that starts when `left` bytes of the batch remain: `size`, and
/// near the end a share of what is left (guided scheduling), so that the last pieces are
/// small and the threads finish together; never under [`MIN_TAIL_PIECE_BYTES`].
fn piece_target(size: usize, left: usize, threads: usize) -> usize {
    (left / (2 * threads)).clamp(MIN_TAIL_PIECE_BYTES.min(size), size)
}

/// Texts cut into segments at exact cuts, then grouped into pieces (ranges of segments),
/// each of about its [`piece_target`]: a text at least half as long again as its target is
/// cut, and short texts are grouped until the piece reaches its target, without taking it
/// past half as long again (so a batch of texts just under `size` is not paired up).
fn plan<'a>(texts: &[&'a str], size: usize, threads: usize) -> (Vec<Segment<'a>>, Vec<Range<usize>>) {
    let total: usize = texts.iter().map(|t| t.len()).sum();
    let target = |done: usize| piece_target(size, total - done, threads);
    let mut segments = Vec::with_capacity(texts.len());
    let mut done = 0; // bytes of the texts before this one
    for &text in texts {
        let mut start = 0;
        loop {
            let want = target(done + start);
            // Not cut when the rest would be a small tail: a piece and a half stays whole.
            if text.len() - start < want + want / 2 {
                break;
            }
            match next_cut(text, start + want) {
                Some(cut) if cut < text.len() => {
                    segments.push(Segment { text: &text[start..cut], closes: false });
                    start = cut;
                }
                _ => break,
            }
        }
        segments.push(Segment { text: &text[start..], closes: true });
        done += text.len();
    }
    let mut pieces = Vec::new();
    let (mut first, mut bytes, mut done) = (0, 0, 0);
    for (k, s) in segments.iter().enumerate() {
        let want = target(done);
        if bytes > 0 && bytes + s.text.len() > want + want / 2 {
            pieces.push(first..k);
            done += bytes;
            (first, bytes) = (k, 0);
        }
        bytes += s.text.len();
        if bytes >= target(done) {
            pieces.push(first..k + 1);
            done += bytes;
            (first, bytes) = (k + 1, 0);
        }
    }
    if first < segments.len() {
        pieces.push(first..segments.len());
    }
    (segments, pieces)
}

/// One piece's ids, and the end (in them) of each text that ends in the piece.
fn encode_piece(enc: &Encoder, segments: &[Segment], greedy: bool) -> Result<(Vec<u32>, Vec<usize>)> {
    let mut ids = Vec::with_capacity(segments.iter().map(|s| s.text.len() / 4).sum());
    let mut ends = Vec::new();
    for s in segments {
        enc.encode_into(s.text, greedy, &mut ids)?;
        if s.closes {
            ends.push(ids.len());
        }
    }
    Ok((ids, ends))
}

/// Encode `texts` in order; with `helpers`, that pool's threads share the work with the
/// calling thread (see the module's comment). The ids, and the first error in text order,
/// are those of encoding the texts one after the other.
pub fn encode_batch(enc: &Encoder, texts: &[&str], greedy: bool, helpers: Option<&rayon::ThreadPool>) -> Result<Encoded> {
    let total: usize = texts.iter().map(|t| t.len()).sum();
    let helpers = helpers.filter(|pool| pool.current_num_threads() > 0 && total >= MIN_SHARED_BYTES);
    let Some(pool) = helpers else {
        // On the calling thread: no hand-over, and its word cache stays warm.
        let segments: Vec<Segment> = texts.iter().map(|&text| Segment { text, closes: true }).collect();
        let (ids, ends) = encode_piece(enc, &segments, greedy)?;
        return Ok(Encoded { parts: vec![ids], ends });
    };
    let threads = pool.current_num_threads() + 1;
    let size = (total / (threads * PIECES_PER_THREAD)).max(MIN_PIECE_BYTES);
    let (segments, pieces) = plan(texts, size, threads);
    let slots: Vec<OnceLock<Result<(Vec<u32>, Vec<usize>)>>> = pieces.iter().map(|_| OnceLock::new()).collect();
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let take_pieces = || {
        while !failed.load(Ordering::Relaxed) {
            let k = next.fetch_add(1, Ordering::Relaxed);
            let Some(range) = pieces.get(k) else { break };
            let result = catch_unwind(AssertUnwindSafe(|| encode_piece(enc, &segments[range.clone()], greedy)))
                .unwrap_or_else(|_| Err(EngineError::Internal("encoding a piece of text panicked".into())));
            if result.is_err() {
                // Pieces after this one need not be encoded: the first error is reported.
                failed.store(true, Ordering::Relaxed);
            }
            let _ = slots[k].set(result);
        }
    };
    run_lent(pool, threads - 1, &take_pieces);
    // Pieces are taken in order and every taken piece is finished (nobody runs
    // `take_pieces` any more), so the filled slots are a prefix: its first error is the
    // first in text order.
    let mut out = Encoded { parts: Vec::with_capacity(pieces.len()), ends: Vec::with_capacity(texts.len()) };
    let mut base = 0;
    for slot in slots {
        let Some(result) = slot.into_inner() else { break };
        let (ids, ends) = result?;
        out.ends.extend(ends.into_iter().map(|e| e + base));
        base += ids.len();
        out.parts.push(ids);
    }
    debug_assert_eq!(out.ends.len(), texts.len());
    Ok(out)
}

#[cfg(test)]
#[path = "batch_tests.rs"]
mod tests;

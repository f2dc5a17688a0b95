//! Many texts encoded on several threads, with exactly the ids one thread gives.
//!
//! Work is shared as pieces of similar size, not as whole texts: one to three long texts,
//! or texts of very uneven length, would otherwise leave a thread idle. A text longer than
//! a piece is cut where no word can span the cut ([`may_cut_before`]) and consecutive
//! short texts are grouped. The calling thread takes pieces from the front, the helpers
//! from the back, until they meet (whoever is faster takes more; a helper that starts late
//! takes none, see [`run_lent`]): so each thread encodes about the same part of a text
//! each time it is encoded again, and finds its words in its own cache (`cache`) and
//! caches, not in the other core's (taken in one order by all threads, the pieces of a
//! 120 KB text went to a different thread each time, and even on the best calls each
//! thread encoded its half 7–20% slower than one thread alone; now at the one-thread
//! rate). Pieces are smaller near where the threads are expected to meet, so that
//! they finish together. Once every piece is encoded, each thread copies the ids of its
//! own pieces (still in its cache) into their place in one array: the copy, ~5% of the
//! work on a short text, is shared too.

use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::lent::run_lent;
use super::Encoder;
use crate::corpus::reader::may_cut_before as may_cut_before_space;
use crate::error::{EngineError, Result};
use crate::pool::Pool;

/// A batch shorter than this (bytes of text) is encoded on the calling thread alone: waking
/// a helper and waiting for its last piece cost ~50 µs, as much as encoding 20–40 KiB.
/// (`benchmarks/encode_pieces.py`, second core free: two threads ÷ one at 48 KiB 1.4–1.6×
/// at best but ~1× at the median, at 64 KiB 1.6–1.75× and 1.5–1.6×.)
pub const MIN_SHARED_BYTES: usize = 64 * 1024;
/// No piece is shorter than this, but near where the threads meet ([`piece_target`]): a
/// piece's own cost (a buffer, a cache lookup) stays well under 1% of encoding it.
pub const MIN_PIECE_BYTES: usize = 8 * 1024;
/// The smallest piece, near where the threads meet, ~6 µs of encoding: the threads' last
/// pieces are this small, so they finish within a few µs of each other.
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
    // Not before '/': GPT-4o's ` ?[^\s\p{L}\p{N}]+[\r\n/]*` carries it with the newline.
    b[i - 1] == b'\n'
        && b[i] != b'/'
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

/// The texts' ids, one after another, and the end of each text's ids in them.
#[derive(Debug, Default)]
pub struct Encoded {
    pub ids: Vec<u32>,
    pub ends: Vec<usize>,
}

/// A stretch of one text; `closes` when it is the text's last.
struct Segment<'a> {
    text: &'a str,
    closes: bool,
}

/// Where the calling thread, taking pieces from the front, and the helpers, from the
/// back, meet if all run at one speed: after the calling thread's share.
fn meeting_point(total: usize, threads: usize) -> usize {
    total / threads
}

/// The size of the piece that starts `at` bytes into a batch whose threads meet at `meet`:
/// `size`, and near the meeting point a share of the distance to it (guided scheduling from
/// both sides), so that the last pieces are small and the threads finish together; never
/// under [`MIN_TAIL_PIECE_BYTES`].
fn piece_target(size: usize, at: usize, meet: usize, threads: usize) -> usize {
    (at.abs_diff(meet) / (2 * threads)).clamp(MIN_TAIL_PIECE_BYTES.min(size), size)
}

/// Texts cut into segments at exact cuts, then grouped into pieces (ranges of segments),
/// each of about its [`piece_target`]: a text at least half as long again as its target is
/// cut, and short texts are grouped until the piece reaches its target, without taking it
/// past half as long again (so a batch of texts just under `size` is not paired up).
fn plan<'a>(texts: &[&'a str], size: usize, threads: usize) -> (Vec<Segment<'a>>, Vec<Range<usize>>) {
    let total: usize = texts.iter().map(|t| t.len()).sum();
    let meet = meeting_point(total, threads);
    let target = |done: usize| piece_target(size, done, meet, threads);
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

/// How long a thread done with its pieces spins for the others' last ones before it
/// yields its core at each check (they are usually a few µs from done).
const SPIN_FOR_LAST_PIECES: Duration = Duration::from_micros(50);

/// What a piece left for the join: how many ids it has, and the end (in them) of each
/// text that ends in it. (Its ids stay with the thread that encoded it.)
type PieceResult = Result<(usize, Vec<usize>)>;

/// Which pieces are taken: the calling thread's from the front, the helpers' from the
/// back, each piece by one thread; after an error, none behind it.
struct Claims {
    front: AtomicUsize,
    /// The pieces before this one are not yet taken from the back.
    back: AtomicUsize,
    taken: Vec<AtomicBool>,
    /// The first piece (in text order) whose encoding failed, or `usize::MAX`.
    first_error: AtomicUsize,
}

impl Claims {
    fn new(pieces: usize) -> Claims {
        Claims {
            front: AtomicUsize::new(0),
            back: AtomicUsize::new(pieces),
            taken: (0..pieces).map(|_| AtomicBool::new(false)).collect(),
            first_error: AtomicUsize::new(usize::MAX),
        }
    }

    /// The next piece to encode from the front or the back; None once the two sides meet.
    /// A piece behind a failed one is passed over: only the first error is reported, and
    /// every piece before it is still encoded.
    fn next(&self, from_front: bool) -> Option<usize> {
        loop {
            let k = if from_front {
                self.front.fetch_add(1, Ordering::Relaxed)
            } else {
                self.back.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| b.checked_sub(1)).ok()? - 1
            };
            if k >= self.taken.len() || self.taken[k].swap(true, Ordering::AcqRel) {
                return None;
            }
            if k < self.first_error.load(Ordering::Relaxed) {
                return Some(k);
            }
            if from_front {
                return None;
            }
        }
    }

    fn failed(&self) -> bool {
        self.first_error.load(Ordering::Relaxed) != usize::MAX
    }
}

/// The array all pieces' ids are copied into, and where each piece's ids start in it.
struct Joined {
    ids: Vec<u32>,
    /// `ids`' buffer, written through by every thread at disjoint places (see `copy_into`).
    at: SharedPtr,
    len: usize,
    starts: Vec<usize>,
}

struct SharedPtr(*mut u32);
// SAFETY: each thread writes only its own pieces' places; see `copy_into`.
unsafe impl Send for SharedPtr {}
unsafe impl Sync for SharedPtr {}

impl Joined {
    /// Room for every piece's ids, in order, once all are encoded without an error.
    fn new(slots: &[OnceLock<PieceResult>]) -> Option<Joined> {
        let mut starts = Vec::with_capacity(slots.len());
        let mut total = 0;
        for slot in slots {
            let (len, _) = slot.get()?.as_ref().ok()?;
            starts.push(total);
            total += len;
        }
        let mut ids = Vec::with_capacity(total);
        Some(Joined { at: SharedPtr(ids.as_mut_ptr()), ids, len: total, starts })
    }

    /// Copy piece `k`'s ids to their place.
    fn copy_into(&self, k: usize, piece: &[u32]) {
        // SAFETY: `ids` has room for every piece (`new`), piece k's place is its own, and
        // each piece is copied once, by the thread that encoded it; `ids` is read only
        // after every thread has left the loan.
        unsafe { std::ptr::copy_nonoverlapping(piece.as_ptr(), self.at.0.add(self.starts[k]), piece.len()) }
    }
}

/// Encode `texts` in order; with `helpers`, that pool's threads share the work with the
/// calling thread (see the module's comment). The ids, and the first error in text order,
/// are those of encoding the texts one after the other.
pub fn encode_batch(enc: &Encoder, texts: &[&str], greedy: bool, helpers: Option<&Pool>) -> Result<Encoded> {
    let total: usize = texts.iter().map(|t| t.len()).sum();
    let helpers = helpers.filter(|pool| pool.current_num_threads() > 0 && total >= MIN_SHARED_BYTES);
    let Some(pool) = helpers else {
        // On the calling thread: no hand-over, and its word cache stays warm.
        let segments: Vec<Segment> = texts.iter().map(|&text| Segment { text, closes: true }).collect();
        let (ids, ends) = encode_piece(enc, &segments, greedy)?;
        return Ok(Encoded { ids, ends });
    };
    let threads = pool.current_num_threads() + 1;
    let size = (total / (threads * PIECES_PER_THREAD)).max(MIN_PIECE_BYTES);
    let (segments, pieces) = plan(texts, size, threads);
    let slots: Vec<OnceLock<PieceResult>> = pieces.iter().map(|_| OnceLock::new()).collect();
    let claims = Claims::new(pieces.len());
    let encoded = AtomicUsize::new(0);
    let joined: OnceLock<Option<Joined>> = OnceLock::new();
    let caller = std::thread::current().id();
    let take_pieces = || {
        let from_front = std::thread::current().id() == caller;
        let mut mine = Vec::new();
        while let Some(k) = claims.next(from_front) {
            let range = pieces[k].clone();
            let result = catch_unwind(AssertUnwindSafe(|| encode_piece(enc, &segments[range], greedy)))
                .unwrap_or_else(|_| Err(EngineError::Internal("encoding a piece of text panicked".into())));
            let _ = slots[k].set(match result {
                Ok((ids, ends)) => {
                    let len = ids.len();
                    mine.push((k, ids));
                    Ok((len, ends))
                }
                Err(e) => {
                    claims.first_error.fetch_min(k, Ordering::Relaxed);
                    Err(e)
                }
            });
            encoded.fetch_add(1, Ordering::Release);
        }
        if mine.is_empty() {
            return;
        }
        let start = Instant::now();
        while encoded.load(Ordering::Acquire) < pieces.len() && !claims.failed() {
            if start.elapsed() < SPIN_FOR_LAST_PIECES {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        if let Some(joined) = joined.get_or_init(|| Joined::new(&slots)) {
            for (k, ids) in &mine {
                joined.copy_into(*k, ids);
            }
        }
    };
    run_lent(pool, threads - 1, &take_pieces);
    // Every taken piece is finished (nobody runs `take_pieces` any more), and every piece
    // before the first failed one was taken (see `Claims::next`): so the first error met
    // in order is the first in text order. Without an error, every piece was encoded and
    // copied.
    let mut piece_ends = Vec::with_capacity(slots.len());
    for slot in slots {
        let Some(result) = slot.into_inner() else { break };
        piece_ends.push(result?.1);
    }
    let Some(Some(Joined { mut ids, len, starts, .. })) = joined.into_inner() else {
        return Err(EngineError::Internal("a batch's pieces were not all encoded".into()));
    };
    // SAFETY: every piece was copied to its place (see `take_pieces`), filling `len` ids.
    unsafe { ids.set_len(len) };
    let ends = piece_ends.iter().zip(&starts).flat_map(|(e, &start)| e.iter().map(move |&end| start + end)).collect::<Vec<_>>();
    debug_assert_eq!(ends.len(), texts.len());
    Ok(Encoded { ids, ends })
}

#[cfg(test)]
#[path = "batch_tests.rs"]
mod tests;

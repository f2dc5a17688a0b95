//! `Tokenizer`: encoding and decoding with a model's vocabulary and merges, and the
//! pre-tokenizer on its own (for tests).

use std::borrow::Cow;
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use rustc_hash::FxHashMap;

use super::ids::Ids;
use super::options::text_rules;
use super::{config_error, engine, extract, extract_items, guard, to_py_err};
use crate::encoder::{batch, Dropout, Encoder, SpecialRole};
use crate::error::EngineError;
use crate::pool::Pool;
use crate::text::{Boundary, Normalization, PreTokenizer, TextRules};

/// Encoder and decoder over a full vocabulary (ids as in the model file).
#[pyclass(module = "bpe_desktop._engine", frozen, name = "Tokenizer")]
pub(super) struct PyTokenizer(pub(super) Arc<Encoder>);

/// Texts shorter than this are encoded holding the GIL: releasing and taking it back
/// would cost more than encoding them (a few microseconds at most).
const RELEASE_GIL_BYTES: usize = 4096;

fn text_arg(value: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    extract(value, what, "EncodeError")
}

/// The text of a `str`, borrowed without a copy when it can be (Python strings are
/// immutable and `value` keeps it alive); otherwise converted, or refused as `class`.
fn borrowed_str<'a>(value: &'a Bound<'_, PyAny>, what: &str, class: &str) -> PyResult<Cow<'a, str>> {
    match value.cast::<PyString>().ok().map(|s| s.to_str()) {
        Some(Ok(text)) => Ok(Cow::Borrowed(text)),
        _ => extract(value, what, class).map(Cow::Owned),
    }
}

/// A text to encode (see [`borrowed_str`]); a bad one is an `EncodeError`.
fn borrowed_text<'a>(value: &'a Bound<'_, PyAny>, what: &str) -> PyResult<Cow<'a, str>> {
    borrowed_str(value, what, "EncodeError")
}

/// Encode with the GIL released when the text is long enough for that to pay.
fn maybe_detached<T: Send>(py: Python<'_>, bytes: usize, work: impl FnOnce() -> T + Send) -> T {
    if bytes < RELEASE_GIL_BYTES {
        work()
    } else {
        py.detach(work)
    }
}

/// Worker pools by thread count, built once: a pool built per call would cost thread
/// starts on every call and lose the workers' word caches.
type Pools = Mutex<Vec<(usize, Arc<Pool>)>>;

fn pool(threads: usize) -> crate::error::Result<Arc<Pool>> {
    static POOLS: OnceLock<Pools> = OnceLock::new();
    let mut pools = POOLS.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, p)) = pools.iter().find(|(n, _)| *n == threads) {
        return Ok(p.clone());
    }
    let built = Arc::new(Pool::new(threads)?);
    pools.push((threads, built.clone()));
    Ok(built)
}

/// The helpers that share a batch with the calling thread: `threads - 1` of them (0: one
/// per core, as rayon counts them), none for one thread.
pub(super) fn helpers(threads: usize) -> crate::error::Result<Option<Arc<Pool>>> {
    let threads = if threads == 0 { rayon::current_num_threads() } else { threads };
    if threads <= 1 {
        return Ok(None);
    }
    pool(threads - 1).map(Some)
}

fn ne_u32s<'a>(raw: &'a [u8], what: &str) -> Result<impl Iterator<Item = u32> + 'a, String> {
    if raw.len() % 4 != 0 {
        return Err(format!("{what}: {} bytes is not a whole number of 32-bit values", raw.len()));
    }
    Ok(raw.chunks_exact(4).map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]])))
}

/// The strings of `text` ending at the given character positions (see `PyTokenizer::new`).
pub(super) fn unpack_strings(text: &str, ends: &[u8]) -> Result<Vec<String>, String> {
    let mut out = Vec::with_capacity(ends.len() / 4);
    let (mut rest, mut at) = (text, 0u32);
    for (i, end) in ne_u32s(ends, "piece ends")?.enumerate() {
        let n = end.checked_sub(at).ok_or_else(|| format!("piece {i} ends at character {end}, before its start {at}"))?;
        let (mut taken, mut stop) = (0u32, rest.len());
        for (byte, _) in rest.char_indices() {
            if taken == n {
                stop = byte;
                break;
            }
            taken += 1;
        }
        if taken < n {
            return Err(format!("piece {i} ends at character {end}, past the pieces' text"));
        }
        out.push(rest[..stop].to_string());
        rest = &rest[stop..];
        at = end;
    }
    if !rest.is_empty() {
        return Err("the pieces' text is longer than their ends say".to_string());
    }
    Ok(out)
}

/// Why a model's merges could not be turned into ids (see [`resolve_merges`]); the
/// pieces are named in Python's spelling once the GIL is back.
pub(super) enum Unresolved {
    Malformed(String),
    /// A piece occurs twice (a special token equals a corpus symbol): its two ids.
    Twice(String, u32, u32),
    /// Merge `rank` names a piece (its left, right or result) that is no token.
    Unknown(usize, String),
}

/// (left, right, result) ids of each merge: `parts` holds every merge's left and right
/// in rank order (l0 r0 l1 r1 ...), the result being the two run together, each looked up
/// among all the pieces (special tokens too). The same ids and the same first problem as
/// `BPEModel.piece_ids` and a lookup of each merge's parts in rank order.
pub(super) fn resolve_merges(pieces: &[String], parts: &[String]) -> Result<Vec<(u32, u32, u32)>, Unresolved> {
    if parts.len() % 2 != 0 {
        return Err(Unresolved::Malformed(format!("merges: {} parts is not a whole number of pairs", parts.len())));
    }
    let mut ids: FxHashMap<&str, u32> = FxHashMap::default();
    ids.reserve(pieces.len());
    for (i, p) in pieces.iter().enumerate() {
        if let Some(&first) = ids.get(p.as_str()) {
            return Err(Unresolved::Twice(p.clone(), first, i as u32));
        }
        ids.insert(p, i as u32);
    }
    let mut joined = String::new();
    let mut out = Vec::with_capacity(parts.len() / 2);
    for (rank, pair) in parts.chunks_exact(2).enumerate() {
        let id = |piece: &str| ids.get(piece).copied().ok_or_else(|| Unresolved::Unknown(rank, piece.to_string()));
        let (left, right) = (id(&pair[0])?, id(&pair[1])?);
        joined.clear();
        joined.push_str(&pair[0]);
        joined.push_str(&pair[1]);
        out.push((left, right, id(&joined)?));
    }
    Ok(out)
}

/// The Python exception for an [`Unresolved`] merge table (the GIL held: pieces are
/// shown as Python's `repr` shows them, as the Python-side checks did).
pub(super) fn unresolved_error(py: Python<'_>, problem: Unresolved) -> PyErr {
    let repr = |piece: &str| -> String {
        PyString::new(py, piece).repr().map(|r| r.to_string()).unwrap_or_else(|_| format!("{piece:?}"))
    };
    let err = match problem {
        Unresolved::Malformed(m) => EngineError::Config(m),
        Unresolved::Twice(p, first, second) => EngineError::Config(format!(
            "token {} occurs twice in the vocabulary (ids {first} and {second}): a special token equals a corpus symbol",
            repr(&p)
        )),
        Unresolved::Unknown(rank, p) => EngineError::Encode(format!("merge {rank} refers to unknown token {}", repr(&p))),
    };
    to_py_err(py, err)
}

#[pymethods]
impl PyTokenizer {
    /// `pieces`: every piece's text back to back (a str) with `piece_ends`, each piece's
    /// end in characters as native-endian u32; `merge_parts`: every merge's left and right
    /// piece back to back in rank order (l0 r0 l1 r1 ...), with `merge_part_ends` likewise.
    /// Packed, so that a 100k-token model crosses in a few copies, and the merges' ids are
    /// looked up here without the GIL: converting a string and a tuple per merge, and looking
    /// the ids up in Python, would hold it for the whole model.
    #[new]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        config: &Bound<'_, PyAny>,
        pieces: &Bound<'_, PyAny>,
        piece_ends: &[u8],
        merge_parts: &Bound<'_, PyAny>,
        merge_part_ends: &[u8],
        unk: &Bound<'_, PyAny>,
        specials: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        guard(|| {
            let rules = text_rules(config)?;
            let text = borrowed_str(pieces, "pieces", "ConfigError")?;
            let parts_text = borrowed_str(merge_parts, "merge parts", "ConfigError")?;
            let unk: Option<u32> = extract(unk, "unknown token id", "ConfigError")?;
            let roles: FxHashMap<u32, SpecialRole> = extract(specials, "special tokens", "ConfigError")?;
            let fuse_unk: bool = extract(&config.getattr("fuse_unk")?, "fuse_unk", "ConfigError")?;
            let byte_fallback: bool = extract(&config.getattr("byte_fallback")?, "byte_fallback", "ConfigError")?;
            // Unpacking, looking the merges up and building the merge tables: without the
            // GIL (work per merge).
            let built = py.detach(move || {
                let pieces = unpack_strings(&text, piece_ends).map_err(Unresolved::Malformed)?;
                let parts = unpack_strings(&parts_text, merge_part_ends).map_err(Unresolved::Malformed)?;
                let merges = resolve_merges(&pieces, &parts)?;
                Ok(Encoder::new(rules, pieces, &merges, unk, roles, fuse_unk)
                    .map(|e| e.with_byte_fallback(byte_fallback)))
            });
            let enc = built.map_err(|problem| unresolved_error(py, problem))?;
            Ok(PyTokenizer(Arc::new(engine(py, enc)?)))
        })
    }

    /// The ids (read as a NumPy array on the Python side, without a copy).
    /// With `dropout` above 0, a BPE-dropout sample drawn from `seed` (merges mode only).
    #[pyo3(signature = (text, greedy, dropout=0.0, seed=0))]
    fn encode<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyAny>,
        greedy: bool,
        dropout: f64,
        seed: u64,
    ) -> PyResult<Ids> {
        guard(|| {
            let enc = &self.0;
            let text = borrowed_text(text, "text")?;
            let mut sampler = engine(py, Dropout::new(dropout, seed))?;
            let ids = maybe_detached(py, text.len(), || enc.encode_sampled(&text, greedy, &mut sampler));
            Ok(Ids::new(engine(py, ids)?))
        })
    }

    /// Ids as a list of ints: the fast path of `Tokenizer.encode` (no dropout).
    fn encode_list<'py>(&self, py: Python<'py>, text: &Bound<'py, PyAny>, greedy: bool) -> PyResult<Bound<'py, PyList>> {
        guard(|| {
            let enc = &self.0;
            let text = borrowed_text(text, "text")?;
            let ids = maybe_detached(py, text.len(), || enc.encode(&text, greedy));
            PyList::new(py, engine(py, ids)?)
        })
    }

    /// All texts' ids, one after another (read as one NumPy array), and where each text's
    /// ids end in them.
    #[pyo3(signature = (texts, greedy, threads=0))]
    fn encode_batch<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        greedy: bool,
        threads: usize,
    ) -> PyResult<(Ids, Vec<usize>)> {
        guard(|| {
            if threads > crate::MAX_THREADS {
                return config_error(py, format!("threads must be from 0 to {}; got {threads}", crate::MAX_THREADS));
            }
            let items: Vec<Bound<'py, PyAny>> = extract(texts, "text", "EncodeError")?;
            let texts = items
                .iter()
                .enumerate()
                .map(|(i, t)| borrowed_text(t, &format!("text {i}")))
                .collect::<PyResult<Vec<Cow<'_, str>>>>()?;
            let texts: Vec<&str> = texts.iter().map(|t| t.as_ref()).collect();
            let enc = &self.0;
            let bytes = texts.iter().map(|t| t.len()).sum();
            let helpers = engine(py, helpers(threads))?;
            let encoded = maybe_detached(py, bytes, || batch::encode_batch(enc, &texts, greedy, helpers.as_deref()));
            let encoded = engine(py, encoded)?;
            Ok((Ids::new(encoded.ids), encoded.ends))
        })
    }

    /// (word, ids) for each word of the text, as the pre-tokenizer cuts it.
    #[pyo3(signature = (text, greedy, dropout=0.0, seed=0))]
    fn encode_words(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        greedy: bool,
        dropout: f64,
        seed: u64,
    ) -> PyResult<Vec<(String, Vec<u32>)>> {
        guard(|| {
            let text = text_arg(text, "text")?;
            let enc = self.0.clone();
            let mut sampler = engine(py, Dropout::new(dropout, seed))?;
            let words = py.detach(move || {
                let mut out = Vec::new();
                enc.for_each_word_with(&text, greedy, Some(&mut sampler), &mut |w, ids| out.push((w.to_string(), ids.to_vec())))
                    .map(|_| out)
            });
            engine(py, words)
        })
    }

    #[allow(clippy::type_complexity)]
    fn merge_steps(
        &self,
        py: Python<'_>,
        word: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<(Option<(String, String)>, Option<u32>, Vec<String>)>> {
        guard(|| {
            let word = text_arg(word, "word")?;
            let steps = engine(py, self.0.merge_steps(&word))?;
            let p = self.0.pieces();
            Ok(steps
                .into_iter()
                .map(|(pair, rank, syms)| {
                    (
                        pair.map(|(a, b)| (p[a as usize].clone(), p[b as usize].clone())),
                        rank,
                        syms.iter().map(|&s| p[s as usize].clone()).collect(),
                    )
                })
                .collect())
        })
    }

    /// Ids with the index after each word's last id: see `Encoder::decode_words`.
    fn decode_words(&self, py: Python<'_>, ids: &Bound<'_, PyAny>, ends: &Bound<'_, PyAny>) -> PyResult<String> {
        guard(|| {
            let ids: Vec<u32> = extract_items(ids, "id", "EncodeError")?;
            let ends: Vec<usize> = extract_items(ends, "word end", "EncodeError")?;
            let enc = self.0.clone();
            engine(py, py.detach(move || enc.decode_words(&ids, &ends)))
        })
    }

    fn decode(&self, py: Python<'_>, ids: &Bound<'_, PyAny>) -> PyResult<String> {
        guard(|| {
            let ids: Vec<u32> = extract_items(ids, "id", "EncodeError")?;
            let enc = self.0.clone();
            engine(py, py.detach(move || enc.decode(&ids)))
        })
    }

    /// Ids written as text (whole numbers separated by white space, as `encode --ids`
    /// prints a line) back to text, without a Python object per id: a 200 MB line of ids
    /// decoded through a list took 45 s and 6 GB. A field that is not an id, or an id
    /// outside the vocabulary, is an `EncodeError` naming it.
    fn decode_id_text(&self, py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<String> {
        guard(|| {
            let text = borrowed_text(text, "ids")?;
            let size = self.0.pieces().len();
            let ids = engine(py, parse_ids(&text, size))?;
            let enc = self.0.clone();
            engine(py, maybe_detached(py, ids.len() * 4, move || enc.decode(&ids)))
        })
    }
}

/// The ids of `text` (white-space-separated whole numbers below `size`).
fn parse_ids(text: &str, size: usize) -> crate::error::Result<Vec<u32>> {
    let mut ids = Vec::with_capacity(text.len() / 4);
    for field in text.split_ascii_whitespace() {
        let id = field
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| field.parse::<u64>().ok())
            .flatten();
        let Some(id) = id else {
            let shown: String = field.chars().take(40).collect();
            let quoted = format!("'{}'", shown.escape_debug());
            return Err(EngineError::Encode(format!("{quoted} is not a token id (a whole number >= 0)")));
        };
        if id >= size as u64 {
            return Err(EngineError::Encode(format!(
                "id {id} is outside the vocabulary (0..{})",
                size.saturating_sub(1)
            )));
        }
        ids.push(id as u32);
    }
    Ok(ids)
}

/// The pre-tokens of `text` under a pre-tokenizer (before byte mapping): for tests.
#[pyfunction]
pub(super) fn pretokenize(py: Python<'_>, text: &Bound<'_, PyAny>, pretokenizer: &str) -> PyResult<Vec<String>> {
    guard(|| {
        let text = text_arg(text, "text")?;
        let rules = TextRules {
            normalization: Normalization::None,
            lowercase: false,
            pretokenizer: engine(py, PreTokenizer::parse(pretokenizer))?,
            boundary: Boundary::None,
        };
        let mut out = Vec::new();
        rules.split_words(&text, &mut |w| out.push(w.to_string()));
        Ok(out)
    })
}

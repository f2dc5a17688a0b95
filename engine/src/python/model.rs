//! `Model`: a model's vocabulary and merges held by the engine (`crate::model_file`), read
//! from a model file without a Python object per token; Python asks it for what it needs
//! (a look-up, a column as a list, the tokenizer) when it needs it.

use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
use rustc_hash::FxHashMap;

use super::json::Builder;
use super::options::text_rules;
use super::tokenizer::{resolve_merges, unpack_strings, unresolved_error, PyTokenizer, Unresolved};
use super::{engine, extract, guard};
use crate::encoder::{Encoder, SpecialRole};
use crate::json::parse;
use crate::json_write::rows;
use crate::model_file::{read, ModelLists, Vocabulary};
use crate::origins::{merge_counts, origins, Origins};

/// A model file's long lists, read but not yet numbered (the special tokens, from the
/// configuration Python checks, come next: [`PyModelLists::finish`]).
#[pyclass(module = "bpe_desktop._engine", frozen, name = "ModelLists")]
pub(super) struct PyModelLists(Mutex<Option<ModelLists>>);

/// `(other members, lists)` of a model file (its UTF-8 bytes, or its text): the
/// top-level members other than the long lists as a dict of Python values, the lists
/// kept here. None when the engine does not take the file (see `crate::model_file`): the
/// caller then reads it in Python.
#[pyfunction]
pub(super) fn read_model_file<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
) -> PyResult<Option<(Bound<'py, PyDict>, PyModelLists)>> {
    guard(|| {
        let bytes: &[u8] = if let Ok(b) = data.cast::<PyBytes>() {
            b.as_bytes()
        } else if let Ok(Ok(text)) = data.cast::<PyString>().map(|s| s.to_str()) {
            text.as_bytes()
        } else {
            return Ok(None);
        };
        let Some((parsed, lists, rest)) = py.detach(|| {
            let text = std::str::from_utf8(bytes).ok()?;
            let parsed = parse(text)?;
            let (lists, rest) = read(&parsed)?;
            Some((parsed, lists, rest))
        }) else {
            return Ok(None);
        };
        let members = PyDict::new(py);
        for at in rest {
            let mut b = Builder::new(py, &parsed, at);
            let key = b.build()?;
            members.set_item(key, b.build()?)?;
        }
        py.detach(move || drop(parsed));
        Ok(Some((members, PyModelLists(Mutex::new(Some(lists))))))
    })
}

#[pymethods]
impl PyModelLists {
    /// The model with its special tokens `(id, piece)` in place, or None where the lists
    /// and the special tokens do not fit together (Python's checks then say why). Once.
    fn finish(&self, py: Python<'_>, specials: Vec<(u32, String)>) -> Option<PyModel> {
        let lists = self.0.lock().unwrap_or_else(|e| e.into_inner()).take()?;
        py.detach(|| Vocabulary::new(lists, specials)).map(|v| PyModel(Arc::new(v)))
    }
}

/// Native-endian bytes of `values` (read in Python with `np.frombuffer`).
fn ne_bytes<'py, const N: usize>(py: Python<'py>, values: impl Iterator<Item = [u8; N]>) -> Bound<'py, PyBytes> {
    PyBytes::new(py, &values.flatten().collect::<Vec<u8>>())
}

/// `(kind, rank, count, left, right)`: the columns of [`Origins`] as native-endian bytes
/// (kind i8, the others i64), `BPEModel.origins`.
type OriginBytes<'py> = (Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>);

fn origin_bytes(py: Python<'_>, o: Origins) -> OriginBytes<'_> {
    let col = |v: &[i64]| ne_bytes(py, v.iter().map(|x| x.to_ne_bytes()));
    (ne_bytes(py, o.kind.iter().map(|k| k.to_ne_bytes())), col(&o.rank), col(&o.count), col(&o.left), col(&o.right))
}

/// The origins (see `crate::origins`) of a model made in Python, packed as
/// `_engine.Tokenizer` takes it (its pieces and merges, which are looked up here), with
/// its merges' `counts`, its `alphabet` and its special tokens' ids. The same errors as
/// building its tokenizer.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub(super) fn model_origins<'py>(
    py: Python<'py>,
    pieces: &str,
    piece_ends: &[u8],
    merge_parts: &str,
    merge_part_ends: &[u8],
    counts: Vec<Option<u64>>,
    alphabet: Vec<String>,
    specials: Vec<u32>,
) -> PyResult<OriginBytes<'py>> {
    guard(|| {
        let found = py.detach(|| {
            let pieces = unpack_strings(pieces, piece_ends).map_err(Unresolved::Malformed)?;
            let parts = unpack_strings(merge_parts, merge_part_ends).map_err(Unresolved::Malformed)?;
            let merges = resolve_merges(&pieces, &parts)?;
            let ids: FxHashMap<&str, u32> = pieces.iter().enumerate().map(|(i, p)| (p.as_str(), i as u32)).collect();
            let base: Vec<u32> = alphabet.iter().filter_map(|p| ids.get(p.as_str()).copied()).collect();
            Ok(origins(pieces.len(), &merges, &counts, &base, &specials))
        });
        Ok(origin_bytes(py, found.map_err(|problem| unresolved_error(py, problem))?))
    })
}

/// A model's tokens and merges (see the module's comment). Immutable.
#[pyclass(module = "bpe_desktop._engine", frozen, name = "Model")]
pub(super) struct PyModel(pub(super) Arc<Vocabulary>);

impl PyModel {
    fn int_list(&self, name: &str) -> Option<&Vec<i64>> {
        match name {
            "ids" => self.0.lists.ids.as_ref(),
            "final_counts" => self.0.lists.final_counts.as_ref(),
            _ => None,
        }
    }
}

#[pymethods]
impl PyModel {
    #[getter]
    fn size(&self) -> usize {
        self.0.size()
    }

    #[getter]
    fn merge_count(&self) -> usize {
        self.0.lists.merges.len()
    }

    fn alphabet(&self) -> Vec<String> {
        self.0.lists.ordinary.iter().take(self.0.lists.alphabet_len).map(str::to_string).collect()
    }

    /// Merges `start..stop` as three columns: left pieces, right pieces, counts (None:
    /// unknown). A range, so that a caller holds the GIL for a slice at a time.
    #[allow(clippy::type_complexity)]
    fn merge_columns(&self, start: usize, stop: usize) -> (Vec<&str>, Vec<&str>, Vec<Option<u64>>) {
        let (l, o) = (&self.0.lists, &self.0.lists.ordinary);
        let range = start.min(l.merges.len())..stop.min(l.merges.len()).max(start.min(l.merges.len()));
        let merges = &l.merges[range.clone()];
        let lefts = merges.iter().map(|m| o.get(m.0 as usize)).collect();
        let rights = merges.iter().map(|m| o.get(m.1 as usize)).collect();
        (lefts, rights, l.counts[range].to_vec())
    }

    /// Each token's kind and creating merge by id (see `crate::origins`): [`OriginBytes`].
    fn origins<'py>(&self, py: Python<'py>) -> OriginBytes<'py> {
        let v = self.0.clone();
        origin_bytes(py, py.detach(move || v.origins()))
    }

    /// Each merge's count by rank as native-endian i64 (-1: not recorded).
    fn merge_counts<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        ne_bytes(py, merge_counts(&self.0.lists.counts).into_iter().map(i64::to_ne_bytes))
    }

    /// Every merge's left and right piece back to back (l0 r0 l1 r1 ...) and where each
    /// ends in characters (native-endian u32): `BPEModel.packed_merges`.
    fn packed_merges<'py>(&self, py: Python<'py>) -> (String, Bound<'py, PyBytes>) {
        let (l, o) = (&self.0.lists, &self.0.lists.ordinary);
        let mut text = String::new();
        let mut ends: Vec<u8> = Vec::with_capacity(8 * l.merges.len());
        let mut chars = 0u32;
        for &(left, right, _) in &l.merges {
            for side in [left, right] {
                let piece = o.get(side as usize);
                text.push_str(piece);
                chars += piece.chars().count() as u32;
                ends.extend_from_slice(&chars.to_ne_bytes());
            }
        }
        (text, PyBytes::new(py, &ends))
    }

    /// The model file's `merges` or `words` rows (see `crate::json_write::rows`) joined by
    /// `",\n" + pad`, as UTF-8, written without the GIL (the writer's `EngineRows`).
    fn json_rows<'py>(&self, py: Python<'py>, name: &str, pad: &str) -> PyResult<Bound<'py, PyBytes>> {
        guard(|| {
            let merges = match name {
                "merges" => true,
                "words" => false,
                _ => return Err(pyo3::exceptions::PyValueError::new_err(format!("no rows named {name:?}"))),
            };
            let (v, pad) = (self.0.clone(), pad.to_string());
            let text = py.detach(move || {
                let lists = &v.lists;
                if merges {
                    let o = &lists.ordinary;
                    let parts: Vec<&str> =
                        lists.merges.iter().flat_map(|m| [o.get(m.0 as usize), o.get(m.1 as usize)]).collect();
                    rows(&parts, 2, &lists.counts, &pad)
                } else {
                    let (parts, counts): (Vec<&str>, Vec<Option<u64>>) = lists.words.iter().map(|(w, c)| (w, Some(c))).unzip();
                    rows(&parts, 1, &counts, &pad)
                }
            });
            Ok(PyBytes::new(py, text.as_bytes()))
        })
    }

    /// How many numbers the model's `ids` or `final_counts` hold (None: it has none).
    fn int_list_len(&self, name: &str) -> Option<usize> {
        self.int_list(name).map(Vec::len)
    }

    /// The model's `ids` or `final_counts` as the model file's lines: each number's JSON
    /// joined by `",\n" + pad`, as UTF-8 (None: it has none).
    fn int_lines<'py>(&self, py: Python<'py>, name: &str, pad: &str) -> Option<Bound<'py, PyBytes>> {
        use std::fmt::Write;
        let values = self.int_list(name)?;
        let mut text = String::with_capacity(values.len() * (pad.len() + 8));
        for (k, v) in values.iter().enumerate() {
            if k > 0 {
                text.push_str(",\n");
                text.push_str(pad);
            }
            let _ = write!(text, "{v}");
        }
        Some(PyBytes::new(py, text.as_bytes()))
    }

    /// The pieces of ids `start..stop` (a range: see `merge_columns`).
    fn pieces(&self, start: usize, stop: usize) -> Vec<&str> {
        let p = self.0.pieces();
        let start = start.min(p.len());
        p[start..stop.clamp(start, p.len())].iter().map(String::as_str).collect()
    }

    /// The kept training words `start..stop` with their counts (a range: see `merge_columns`).
    fn words(&self, start: usize, stop: usize) -> Vec<(&str, u64)> {
        self.0.lists.words.iter().skip(start).take(stop.saturating_sub(start)).collect()
    }

    #[getter]
    fn word_count(&self) -> usize {
        self.0.lists.words.ends.len()
    }

    /// The explicit ids of the ordinary tokens as the file gave them (None: numbered in order).
    fn ids(&self) -> Option<Vec<i64>> {
        self.0.lists.ids.clone()
    }

    fn final_counts(&self) -> Option<Vec<i64>> {
        self.0.lists.final_counts.clone()
    }

    fn piece_to_id(&self, piece: &str) -> Option<u32> {
        self.0.piece_to_id(piece)
    }

    fn id_to_piece(&self, id: usize) -> Option<&str> {
        self.0.pieces().get(id).map(String::as_str)
    }

    /// The vocabulary size of the model cut to its first `merges` merges.
    fn vocab_size_at(&self, merges: usize) -> usize {
        self.0.specials.len() + self.0.ordinary_at(merges.min(self.0.lists.merges.len()))
    }

    /// The model cut to its first `merges` merges, its special tokens at the ids given;
    /// None for a model with explicit ids.
    fn truncated(&self, py: Python<'_>, merges: usize, specials: Vec<(u32, String)>) -> Option<PyModel> {
        let v = self.0.clone();
        py.detach(move || v.truncated(merges, specials)).map(|v| PyModel(Arc::new(v)))
    }

    /// The encoder of this model, built here (`config` gives the text rules, `unk` the
    /// unknown token's id, `specials` each special token's role by id).
    fn tokenizer(&self, py: Python<'_>, config: &Bound<'_, PyAny>, unk: Option<u32>, specials: &Bound<'_, PyAny>) -> PyResult<PyTokenizer> {
        guard(|| {
            let rules = text_rules(config)?;
            let roles: FxHashMap<u32, SpecialRole> = extract(specials, "special tokens", "ConfigError")?;
            let fuse_unk: bool = extract(&config.getattr("fuse_unk")?, "fuse_unk", "ConfigError")?;
            let byte_fallback: bool = extract(&config.getattr("byte_fallback")?, "byte_fallback", "ConfigError")?;
            let v = self.0.clone();
            let built = py.detach(move || {
                Encoder::new(rules, v.pieces_by_id(), &v.merge_ids(), unk, roles, fuse_unk)
                    .map(|e| e.with_byte_fallback(byte_fallback))
            });
            Ok(PyTokenizer(Arc::new(engine(py, built)?)))
        })
    }
}

//! `Tokenizer`: encoding and decoding with a model's vocabulary and merges, and the
//! pre-tokenizer on its own (for tests).

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rustc_hash::FxHashMap;

use super::options::text_rules;
use super::{config_error, engine, extract, extract_items, guard};
use crate::encoder::{Dropout, Encoder, SpecialRole};
use crate::error::EngineError;
use crate::text::{Boundary, Normalization, PreTokenizer, TextRules};

/// Encoder and decoder over a full vocabulary (ids as in the model file).
#[pyclass(module = "bpe_desktop._engine", frozen, name = "Tokenizer")]
pub(super) struct PyTokenizer(Arc<Encoder>);

fn ids_bytes<'py>(py: Python<'py>, ids: &[u32]) -> Bound<'py, PyBytes> {
    let mut raw = Vec::with_capacity(ids.len() * 4);
    for id in ids {
        raw.extend_from_slice(&id.to_le_bytes());
    }
    PyBytes::new(py, &raw)
}

fn text_arg(value: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    extract(value, what, "EncodeError")
}

#[pymethods]
impl PyTokenizer {
    #[new]
    fn new(
        py: Python<'_>,
        config: &Bound<'_, PyAny>,
        pieces: &Bound<'_, PyAny>,
        merges: &Bound<'_, PyAny>,
        unk: &Bound<'_, PyAny>,
        specials: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        guard(|| {
            let rules = text_rules(config)?;
            let pieces: Vec<String> = extract_items(pieces, "piece", "ConfigError")?;
            let merges: Vec<(u32, u32, u32)> = extract_items(merges, "merge", "ConfigError")?;
            let unk: Option<u32> = extract(unk, "unknown token id", "ConfigError")?;
            let roles: FxHashMap<u32, SpecialRole> = extract(specials, "special tokens", "ConfigError")?;
            let fuse_unk: bool = extract(&config.getattr("fuse_unk")?, "fuse_unk", "ConfigError")?;
            // Building the merge tables takes ~90 ms at 100k tokens: not with the GIL held.
            let enc = engine(py, py.detach(move || Encoder::new(rules, pieces, &merges, unk, roles, fuse_unk)))?;
            Ok(PyTokenizer(Arc::new(enc)))
        })
    }

    /// Ids as little-endian u32 bytes (wrapped as a NumPy array on the Python side).
    /// With `dropout` above 0, a BPE-dropout sample drawn from `seed` (merges mode only).
    #[pyo3(signature = (text, greedy, dropout=0.0, seed=0))]
    fn encode<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyAny>,
        greedy: bool,
        dropout: f64,
        seed: u64,
    ) -> PyResult<Bound<'py, PyBytes>> {
        guard(|| {
            let enc = self.0.clone();
            let text = text_arg(text, "text")?;
            let mut sampler = engine(py, Dropout::new(dropout, seed))?;
            let ids = py.detach(move || enc.encode_sampled(&text, greedy, &mut sampler));
            Ok(ids_bytes(py, &engine(py, ids)?))
        })
    }

    #[pyo3(signature = (texts, greedy, threads=0))]
    fn encode_batch<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        greedy: bool,
        threads: usize,
    ) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        guard(|| {
            use rayon::prelude::*;
            if threads > crate::MAX_THREADS {
                return config_error(py, format!("threads must be from 0 to {}; got {threads}", crate::MAX_THREADS));
            }
            let texts: Vec<String> = extract_items(texts, "text", "EncodeError")?;
            let enc = self.0.clone();
            let results: crate::error::Result<Vec<Vec<u32>>> = py.detach(move || {
                let run = || texts.par_iter().map(|t| enc.encode(t, greedy)).collect();
                if threads == 0 {
                    run()
                } else {
                    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
                        Ok(pool) => pool.install(run),
                        Err(e) => Err(EngineError::Config(format!("cannot start {threads} worker threads: {e}"))),
                    }
                }
            });
            Ok(engine(py, results)?.iter().map(|ids| ids_bytes(py, ids)).collect())
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

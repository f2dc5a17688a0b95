//! `train_segments`: continue training from words already segmented into tokens.
//!
//! Extending an existing tokenizer: its tokens are the alphabet, every corpus word
//! arrives as the token ids the tokenizer gives it, and the usual merge loop learns new
//! merges on top. Results listed in `blocked` (the existing tokens) are never formed, so
//! every new merge makes a new token and no existing token gains a second merge.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use super::options::train_settings;
use super::training::{reported, trained_dict, CancelFlag};
use super::{config_error, engine, guard};
use crate::symbols::{narrow_fits, AnyTable, WordTable, UNK};
use crate::trainer;

/// Train on `words` (with `counts`), word `w` given as `lens[w]` symbol ids from `ids`
/// (native-endian u32; `UNK` = 2**32-1 is a symbol never merged) over `alphabet`.
/// `merges` / `vocab_size` as in `TrainConfig`; returns the dict of `train` (no files).
#[pyfunction]
#[pyo3(signature = (alphabet, words, counts, ids, lens, config, blocked, merges=None, vocab_size=None, progress=None, cancel=None))]
#[allow(clippy::too_many_arguments)]
pub(super) fn train_segments<'py>(
    py: Python<'py>,
    alphabet: Vec<String>,
    words: Vec<String>,
    counts: Vec<u64>,
    ids: &Bound<'py, PyBytes>,
    lens: Vec<u32>,
    config: &Bound<'py, PyAny>,
    blocked: Vec<String>,
    merges: Option<u64>,
    vocab_size: Option<u64>,
    progress: Option<Py<PyAny>>,
    cancel: Option<Py<CancelFlag>>,
) -> PyResult<Bound<'py, PyDict>> {
    guard(|| {
        let (settings, unk_piece) = train_settings(py, config)?;
        let raw = ids.as_bytes();
        if raw.len() % 4 != 0 || words.len() != counts.len() || words.len() != lens.len() {
            return config_error(py, "segmented words: words, counts, ids and lengths disagree".into());
        }
        let ids: Vec<u32> = raw.chunks_exact(4).map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]])).collect();
        if lens.iter().map(|&n| n as usize).sum::<usize>() != ids.len() {
            return config_error(py, "segmented words: the lengths do not add up to the ids".into());
        }
        if let Some(bad) = ids.iter().find(|&&id| id != UNK && id as usize >= alphabet.len()) {
            return config_error(py, format!("segmented words: symbol id {bad} is outside the alphabet"));
        }
        let mut opts = settings.merge.clone();
        opts.max_merges = merges;
        opts.vocab_size = vocab_size;
        opts.specials.extend(blocked);
        let most = trainer::most_tokens(&opts, alphabet.len());
        let mut wide: WordTable<u32> = WordTable::default();
        let mut at = 0usize;
        for ((word, &count), &n) in words.iter().zip(&counts).zip(&lens) {
            wide.push(word, count, &ids[at..at + n as usize]);
            at += n as usize;
        }
        let table = if most.is_some_and(narrow_fits) {
            let WordTable { words, counts, syms, starts, lens } = wide;
            let syms = syms.into_iter().map(<u16 as crate::symbols::Sym>::of).collect();
            AnyTable::Narrow(WordTable { words, counts, syms, starts, lens })
        } else {
            AnyTable::Wide(wide)
        };
        let pool = engine(py, crate::priority::worker_pool(settings.threads))?;
        let result = reported(py, progress, cancel, |reporter| trainer::train_on(&pool, alphabet, table, &opts, reporter))?;
        let trained = engine(py, result)?;
        trained_dict(py, trained, unk_piece.unwrap_or_else(|| "\u{fffd}".into()))
    })
}

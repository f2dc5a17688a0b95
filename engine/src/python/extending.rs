//! `train_extension`: continue training an existing tokenizer on counted words.
//!
//! Extending a tokenizer: its ordinary tokens are the alphabet, every counted word is
//! encoded by the tokenizer itself (here, in parallel, without a round trip through
//! Python) and mapped to those symbols, and the usual merge loop learns new merges on
//! top. Results listed in `blocked` (the existing tokens) are never formed, so every new
//! merge makes a new token and no existing token gains a second merge.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::counting::WordCountTable;
use super::options::train_settings;
use super::tokenizer::{helpers, PyTokenizer};
use super::training::{reporting, unk_piece_or_default, CancelFlag, TrainedModel};
use super::{config_error, engine, guard};
use crate::encoder::batch;
use crate::symbols::{narrow_fits, AnyTable, Sym, WordTable, UNK};
use crate::trainer;

/// Train on the words of `table`, each as `tokenizer` encodes it, its ids turned into
/// symbols by `symbol_of` (native-endian u32 per token id: an index into `alphabet`, or
/// `UNK` = 2**32-1 for a symbol never merged: special and unknown tokens). `merges` /
/// `vocab_size` as in `TrainConfig` (the size counts `blocked` like special tokens);
/// returns what merging learned (a `TrainedModel`).
#[pyfunction]
#[pyo3(signature = (table, tokenizer, symbol_of, alphabet, config, blocked, merges=None, vocab_size=None, progress=None, cancel=None))]
#[allow(clippy::too_many_arguments)]
pub(super) fn train_extension<'py>(
    py: Python<'py>,
    table: &Bound<'py, WordCountTable>,
    tokenizer: &Bound<'py, PyTokenizer>,
    symbol_of: &Bound<'py, PyBytes>,
    alphabet: Vec<String>,
    config: &Bound<'py, PyAny>,
    blocked: Vec<String>,
    merges: Option<u64>,
    vocab_size: Option<u64>,
    progress: Option<Py<PyAny>>,
    cancel: Option<Py<CancelFlag>>,
) -> PyResult<Py<TrainedModel>> {
    guard(|| {
        let (settings, unk_piece) = train_settings(py, config)?;
        let raw = symbol_of.as_bytes();
        if raw.len() % 4 != 0 {
            return config_error(py, "symbol_of: expected native-endian u32 values".into());
        }
        let symbol_of: Vec<u32> = raw.chunks_exact(4).map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]])).collect();
        if let Some(bad) = symbol_of.iter().find(|&&s| s != UNK && s as usize >= alphabet.len()) {
            return config_error(py, format!("symbol_of: symbol {bad} is outside the alphabet"));
        }
        let mut opts = settings.merge.clone();
        opts.max_merges = merges;
        opts.vocab_size = vocab_size;
        opts.specials.extend(blocked);
        let most = trainer::most_tokens(&opts, alphabet.len());
        let counted = &table.get().0;
        let encoder = tokenizer.get().0.clone();
        let helpers = engine(py, helpers(settings.threads))?;
        let pool = engine(py, crate::priority::worker_pool(settings.threads))?;
        let result = reporting(py, progress, cancel, |reporter| {
            let words: Vec<&str> = (0..counted.len()).map(|i| counted.words.get(i)).collect();
            let encoded = batch::encode_batch(&encoder, &words, false, helpers.as_deref())?;
            let mut wide: WordTable<u32> = WordTable::default();
            let mut start = 0;
            let mut symbols = Vec::new();
            for (i, &end) in encoded.ends.iter().enumerate() {
                symbols.clear();
                for &id in &encoded.ids[start..end] {
                    match symbol_of.get(id as usize) {
                        Some(&s) => symbols.push(s),
                        None => return Err(crate::error::EngineError::Internal(format!("token id {id} outside symbol_of"))),
                    }
                }
                wide.push(words[i], counted.counts[i], &symbols);
                start = end;
            }
            drop(words);
            reporter.check_cancel()?;
            let table = if most.is_some_and(narrow_fits) {
                let WordTable { words, counts, syms, starts, lens } = wide;
                let syms = syms.into_iter().map(<u16 as Sym>::of).collect();
                AnyTable::Narrow(WordTable { words, counts, syms, starts, lens })
            } else {
                AnyTable::Wide(wide)
            };
            trainer::train_on(&pool, alphabet, table, &opts, reporter)
        })?;
        let trained = engine(py, result)?;
        TrainedModel::new(py, trained, unk_piece_or_default(unk_piece))
    })
}

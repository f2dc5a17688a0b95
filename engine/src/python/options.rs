//! Reading a Python `TrainConfig`, `SpecialToken` and corpus description into the
//! engine's settings.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::{config_error, engine, extract, extract_items, get};
use crate::corpus::Source;
use crate::encoder::SpecialRole;
use crate::text::{Boundary, Normalization, PreTokenizer, TextRules};
use crate::trainer::{MergeOptions, Ties};
use crate::TrainSettings;

/// Option values arrive as the names users write; a bad one is a ConfigError listing the
/// choices (from `crate::options`, where every option's values are stated once).
macro_rules! option_from_name {
    ($($t:ty),+) => { $(
        impl<'a, 'py> FromPyObject<'a, 'py> for $t {
            type Error = PyErr;
            fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
                let name: String = extract(&obj.to_owned(), <$t>::OPTION, "ConfigError")?;
                engine(obj.py(), <$t>::parse(&name))
            }
        }
    )+ };
}
option_from_name!(Normalization, PreTokenizer, Boundary, Ties, SpecialRole);

/// The text rules of a `TrainConfig`, read from its attributes.
#[derive(FromPyObject)]
struct RulesArg {
    #[pyo3(attribute("normalize"))]
    normalization: Normalization,
    #[pyo3(attribute)]
    lowercase: bool,
    #[pyo3(attribute)]
    pretokenizer: PreTokenizer,
    #[pyo3(attribute)]
    boundary: Boundary,
}

/// A `SpecialToken`, read from its attributes.
#[derive(FromPyObject)]
struct SpecialArg {
    #[pyo3(attribute)]
    piece: String,
    #[pyo3(attribute)]
    role: SpecialRole,
}

/// The merge options of a `TrainConfig`, read from its attributes.
#[derive(FromPyObject)]
struct MergeArg {
    #[pyo3(attribute)]
    min_frequency: u64,
    #[pyo3(attribute)]
    vocab_size: Option<u64>,
    #[pyo3(attribute)]
    merges: Option<u64>,
    #[pyo3(attribute)]
    ties: Ties,
    #[pyo3(attribute)]
    character_coverage: f64,
    #[pyo3(attribute)]
    initial_alphabet: String,
    #[pyo3(attribute)]
    special_tokens: Vec<SpecialArg>,
    #[pyo3(attribute)]
    effective_threads: usize,
}

pub(super) fn text_rules(config: &Bound<'_, PyAny>) -> PyResult<TextRules> {
    let r: RulesArg = extract(config, "training options", "ConfigError")?;
    Ok(TextRules { normalization: r.normalization, lowercase: r.lowercase, pretokenizer: r.pretokenizer, boundary: r.boundary })
}

/// A `TrainConfig` as the engine's settings, plus the unknown token's piece.
pub(super) fn train_settings(py: Python<'_>, config: &Bound<'_, PyAny>) -> PyResult<(TrainSettings, Option<String>)> {
    let m: MergeArg = extract(config, "training options", "ConfigError")?;
    let unk_piece = m.special_tokens.iter().find(|t| t.role == SpecialRole::Unk).map(|t| t.piece.clone());
    let settings = TrainSettings {
        rules: text_rules(config)?,
        merge: MergeOptions {
            min_frequency: m.min_frequency,
            vocab_size: m.vocab_size,
            max_merges: m.merges,
            ties: m.ties,
            specials: m.special_tokens.into_iter().map(|t| t.piece).collect(),
            forbidden: vec![],
        },
        character_coverage: m.character_coverage,
        initial_alphabet: m.initial_alphabet,
        threads: m.effective_threads,
        constraints: Default::default(),
    };
    engine(py, settings.validate())?;
    Ok((settings, unk_piece))
}

pub(super) fn parse_source(py: Python<'_>, source: &Bound<'_, PyDict>) -> PyResult<Source> {
    let kind: String = get(source, "kind")?;
    let item = |key: &str| -> PyResult<Bound<'_, PyAny>> {
        match source.get_item(key)? {
            Some(v) => Ok(v),
            None => config_error(py, format!("missing corpus entry {key}")),
        }
    };
    Ok(match kind.as_str() {
        "files" => Source::Files {
            paths: extract_items::<PathBuf>(&item("paths")?, "corpus path", "ConfigError")?,
            word_counts: get::<String>(source, "format")? == "word-counts",
            lossy: get::<String>(source, "errors")? == "replace",
        },
        "texts" => Source::Texts(extract_items(&item("texts")?, "text", "CorpusError")?),
        "word-counts" => Source::WordCounts(extract_items(&item("items")?, "word count entry", "CorpusError")?),
        "tables" => Source::Tables(extract_items(&item("tables")?, "table", "CorpusError")?),
        other => return config_error(py, format!("unknown corpus kind {other:?}")),
    })
}

/// Linguistic constraints as `core.constraints` hands them over: `segmentations` (lists of
/// morphs), `separator` (str or None), `forbidden` ((left, right) pieces).
pub(super) fn apply_constraints(py: Python<'_>, settings: &mut TrainSettings, given: &Bound<'_, PyDict>) -> PyResult<()> {
    let item = |key: &str| given.get_item(key);
    if let Some(v) = item("segmentations")? {
        settings.constraints.segmentations = extract_items(&v, "segmentation", "ConfigError")?;
    }
    if let Some(v) = item("separator")? {
        settings.constraints.separator = extract(&v, "separator", "ConfigError")?;
    }
    if let Some(v) = item("forbidden")? {
        settings.merge.forbidden = extract_items(&v, "forbidden pair", "ConfigError")?;
    }
    engine(py, settings.validate())
}

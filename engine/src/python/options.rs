//! Reading a Python `TrainConfig`, `SpecialToken`, `Corpus` and `Constraints` into the
//! engine's settings, from their attributes.

use std::path::PathBuf;

use pyo3::prelude::*;

use super::{config_error, engine, extract, extract_items};
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

/// A `Corpus` (`bpe_desktop.core.training`), read from its attributes: `kind` ("files",
/// "texts", "word-counts", or "tables": word-count table texts held in memory), `paths`
/// with `file_format` and `errors`, `texts` or `word_counts`.
pub(super) fn parse_source(py: Python<'_>, corpus: &Bound<'_, PyAny>) -> PyResult<Source> {
    let kind: String = extract(&corpus.getattr("kind")?, "corpus kind", "ConfigError")?;
    let attribute = |name: &str| corpus.getattr(name);
    Ok(match kind.as_str() {
        "files" => Source::Files {
            paths: extract_items::<PathBuf>(&attribute("paths")?, "corpus path", "ConfigError")?,
            word_counts: extract::<String>(&attribute("file_format")?, "corpus file format", "ConfigError")? == "word-counts",
            lossy: extract::<String>(&attribute("errors")?, "corpus errors", "ConfigError")? == "replace",
        },
        "texts" => Source::Texts(extract_items(&attribute("texts")?, "text", "CorpusError")?),
        "word-counts" => Source::WordCounts(extract_items(&attribute("word_counts")?, "word count entry", "CorpusError")?),
        "tables" => Source::Tables(extract_items(&attribute("texts")?, "table", "CorpusError")?),
        other => return config_error(py, format!("unknown corpus kind {other:?}")),
    })
}

/// Linguistic `Constraints` (`core.constraints`), read from their attributes: `segmentations`
/// (tuples of morphs; a single morph cuts nothing), `separator` ("": none), `forbidden`
/// ((left, right) pieces).
pub(super) fn apply_constraints(py: Python<'_>, settings: &mut TrainSettings, given: &Bound<'_, PyAny>) -> PyResult<()> {
    let segmentations: Vec<Vec<String>> = extract_items(&given.getattr("segmentations")?, "segmentation", "ConfigError")?;
    settings.constraints.segmentations = segmentations.into_iter().filter(|s| s.len() > 1).collect();
    let separator: String = extract(&given.getattr("separator")?, "separator", "ConfigError")?;
    settings.constraints.separator = (!separator.is_empty()).then_some(separator);
    settings.merge.forbidden = extract_items(&given.getattr("forbidden")?, "forbidden pair", "ConfigError")?;
    engine(py, settings.validate())
}

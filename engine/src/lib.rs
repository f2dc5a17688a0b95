//! BPE Desktop's engine: exact, fast byte-pair-encoding training and encoding.
//!
//! Pipeline: [`corpus`] reads and counts words in parallel blocks; [`symbols`] turns
//! them into symbol sequences over the alphabet; [`trainer`] runs the merge loop;
//! [`encoder`] applies a model to new text. [`python`] exposes it all to Python
//! (`bpe_desktop._engine`) with the GIL released while working.

pub mod corpus;
pub mod encoder;
pub mod error;
pub mod gpt2;
pub mod gpt4;
pub mod json;
pub mod json_write;
pub mod model_file;
pub mod options;
pub mod origins;
pub mod parity;
pub mod pool;
pub mod priority;
pub mod progress;
pub mod segments;
pub mod symbols;
pub mod text;
pub mod trained_model;
pub mod trainer;
pub mod wordlist;

#[cfg(feature = "python")]
mod python;

use std::time::Instant;

use corpus::{FileInfo, Source};
use error::{EngineError, Result};
use progress::{Progress, Reporter, Stage};
use text::TextRules;
use trainer::{MergeOptions, Trained};

/// Everything a training run needs besides the corpus.
#[derive(Debug, Clone)]
pub struct TrainSettings {
    pub rules: TextRules,
    pub merge: MergeOptions,
    pub character_coverage: f64,
    pub initial_alphabet: String,
    pub threads: usize,
    /// Boundaries inside words that no merge crosses (see [`segments`]).
    pub constraints: segments::Constraints,
}

#[derive(Debug)]
pub struct TrainOutput {
    pub trained: Trained,
    pub files: Vec<FileInfo>,
    pub total_words: u128,
    pub characters: u128,
    pub unknown_characters: u128,
    pub count_seconds: f64,
    pub merge_seconds: f64,
}

impl TrainOutput {
    /// The output of a run whose merging started at `merging`; `characters`: (all,
    /// unknown) as symbolizing counted them.
    fn new(
        trained: Trained,
        files: Vec<FileInfo>,
        total_words: u128,
        characters: (u128, u128),
        count_seconds: f64,
        merging: Instant,
    ) -> Self {
        TrainOutput {
            trained,
            files,
            total_words,
            characters: characters.0,
            unknown_characters: characters.1,
            count_seconds,
            merge_seconds: merging.elapsed().as_secs_f64(),
        }
    }
}

/// Most worker threads accepted (more only adds overhead; a typo must not start 10^6).
pub const MAX_THREADS: usize = 1024;
/// Largest vocabulary or merge count: token ids are 32-bit, and `u32::MAX` marks a
/// character outside the alphabet, so 2^31 - 1 leaves ample room.
pub const MAX_VOCAB: u64 = (1 << 31) - 1;

impl TrainSettings {
    /// Every number in range, each message naming the setting and the allowed range.
    pub fn validate(&self) -> Result<()> {
        let range = |name: &str, value: u64, low: u64, high: u64| -> Result<()> {
            if (low..=high).contains(&value) {
                Ok(())
            } else {
                Err(EngineError::Config(format!("{name} must be from {low} to {high}; got {value}")))
            }
        };
        range("threads", self.threads as u64, 1, MAX_THREADS as u64)?;
        range("min_frequency", self.merge.min_frequency, 1, u64::MAX)?;
        if let Some(v) = self.merge.vocab_size {
            range("vocab_size", v, 1, MAX_VOCAB)?;
        }
        if let Some(m) = self.merge.max_merges {
            range("merges", m, 0, MAX_VOCAB)?;
        }
        let coverage = self.character_coverage;
        if !(coverage > 0.0 && coverage <= 1.0) {
            return Err(EngineError::Config(format!(
                "character_coverage must be more than 0 and at most 1; got {coverage}"
            )));
        }
        self.constraints.validate(&self.rules)?;
        if self.merge.specials.len() as u64 > MAX_VOCAB {
            return Err(EngineError::Config(format!("at most {MAX_VOCAB} special tokens are allowed")));
        }
        Ok(())
    }
}

/// Read, count, symbolize and merge. Deterministic for any thread count.
pub fn run_training(source: Source, settings: &TrainSettings, reporter: &mut Reporter) -> Result<TrainOutput> {
    settings.validate()?;
    let pool = priority::worker_pool(settings.threads)?;
    let started = Instant::now();
    reporter.send(Progress::at(Stage::Reading))?;
    let words = corpus::count_words(source, &settings.rules, &pool, reporter)?;
    let files = words.files.clone();
    let total_words: u128 = words.counts.iter().map(|&c| c as u128).sum();
    let mut counting = Progress::at(Stage::Counting);
    counting.words = words.len() as u64;
    reporter.send(counting)?;
    let segmented = segments::segment(&words, &settings.constraints, &settings.rules)?;
    let (words, edges) = match segmented {
        Some(mut s) => (std::mem::take(&mut s.table), Some(s)),
        None => (words, None),
    };
    let symbolized = pool.install(|| {
        symbols::symbolize(words, edges.as_ref().map(|s| s.edges.as_slice()), &settings.rules, settings.character_coverage, &settings.initial_alphabet, |alphabet| {
            trainer::most_tokens(&settings.merge, alphabet)
        })
    });
    reporter.check_cancel()?;
    release_free_memory();
    let count_seconds = started.elapsed().as_secs_f64();
    let merging = Instant::now();
    let mut trained = trainer::train_on(&pool, symbolized.alphabet, symbolized.table, &settings.merge, reporter)?;
    if let Some(segmented) = &edges {
        trained.words = segmented.reassemble(std::mem::take(&mut trained.words));
    }
    Ok(TrainOutput::new(trained, files, total_words, (symbolized.characters, symbolized.unknown_characters), count_seconds, merging))
}

/// [`run_training`] with the parity rule (see [`parity`]): `tables` holds each language's
/// (balanced) word counts, trained as one table in first-seen order over the languages in
/// order (a word's count the sum of its languages'); `dev` each language's development
/// words with their counts.
pub fn run_parity_training(
    tables: Vec<Vec<(String, u64)>>,
    settings: &TrainSettings,
    dev: &[Vec<(String, u64)>],
    rule: parity::ParityRule,
    reporter: &mut Reporter,
) -> Result<(TrainOutput, parity::ParityTrace)> {
    settings.validate()?;
    if !settings.constraints.segmentations.is_empty() || settings.constraints.separator.is_some() {
        return Err(EngineError::Config("parity-aware training does not take word-internal boundaries".into()));
    }
    let langs = dev.len();
    if tables.len() != langs {
        return Err(EngineError::Config(format!("{} languages but {} development texts", tables.len(), langs)));
    }
    // The joint table, and each word's count per language.
    let mut index: rustc_hash::FxHashMap<String, usize> = rustc_hash::FxHashMap::default();
    let mut joint: Vec<(String, u64)> = Vec::new();
    let mut rows: Vec<u64> = Vec::new();
    for (l, table) in tables.into_iter().enumerate() {
        for (word, count) in table {
            let at = match index.get(&word) {
                Some(&at) => at,
                None => {
                    index.insert(word.clone(), joint.len());
                    joint.push((word, 0));
                    rows.extend(std::iter::repeat_n(0, langs));
                    joint.len() - 1
                }
            };
            joint[at].1 = joint[at].1.saturating_add(count);
            rows[at * langs + l] += count;
        }
    }
    let pool = priority::worker_pool(settings.threads)?;
    let started = Instant::now();
    reporter.send(Progress::at(Stage::Reading))?;
    let words = corpus::count_words(Source::WordCounts(joint), &settings.rules, &pool, reporter)?;
    let files = words.files.clone();
    let total_words: u128 = words.counts.iter().map(|&c| c as u128).sum();
    let mut train_counts = Vec::with_capacity(words.len() * langs);
    for w in words.words.iter() {
        match index.get(w) {
            Some(&at) => train_counts.extend_from_slice(&rows[at * langs..(at + 1) * langs]),
            None => return Err(EngineError::Internal(format!("the word {w:?} changed in counting"))),
        }
    }
    drop(index);
    let symbolized = pool.install(|| {
        symbols::symbolize(words, None, &settings.rules, settings.character_coverage, &settings.initial_alphabet, |alphabet| {
            trainer::most_tokens(&settings.merge, alphabet)
        })
    });
    reporter.check_cancel()?;
    let dev_ids = dev.iter().map(|words| parity::symbolize_dev(words, &symbolized.alphabet, &settings.rules)).collect();
    let count_seconds = started.elapsed().as_secs_f64();
    let merging = Instant::now();
    let (trained, trace) =
        parity::train_parity(symbolized.alphabet, symbolized.table, train_counts, dev_ids, &settings.merge, rule, reporter)?;
    let characters = (symbolized.characters, symbolized.unknown_characters);
    Ok((TrainOutput::new(trained, files, total_words, characters, count_seconds, merging), trace))
}

/// Hand free pages of every malloc arena back to the system. Counting allocates in the
/// worker threads' arenas, which the merge loop (on this thread) cannot reuse, and the
/// merge loop frees its first postings in small blocks (see `trainer`): so that the
/// peak does not add up.
pub(crate) fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::malloc_trim(0);
    }
}

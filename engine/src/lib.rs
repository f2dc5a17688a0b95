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
pub mod progress;
pub mod symbols;
pub mod text;
pub mod trainer;

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

/// Read, count, symbolize and merge. Deterministic for any thread count.
pub fn run_training(source: Source, settings: &TrainSettings, reporter: &mut Reporter) -> Result<TrainOutput> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(settings.threads.max(1))
        .build()
        .map_err(|e| EngineError::Config(format!("cannot start worker threads: {e}")))?;
    let first_path = match &source {
        Source::Files { paths, .. } => paths.first().cloned(),
        _ => None,
    };
    let started = Instant::now();
    reporter.send(Progress::at(Stage::Reading))?;
    let words = corpus::count_words(source, &settings.rules, &pool, reporter)?;
    if words.is_empty() {
        let message = match &first_path {
            Some(p) => format!("the corpus ({p}{}) contains no words", if words.files.len() > 1 { " and others" } else { "" }),
            None => "the corpus contains no words".to_string(),
        };
        return Err(EngineError::Corpus { message, path: first_path, offset: None, line: None });
    }
    let words = words.finish();
    let files = words.files.clone();
    let total_words: u128 = words.counts.iter().map(|&c| c as u128).sum();
    let mut counting = Progress::at(Stage::Counting);
    counting.words = words.len() as u64;
    reporter.send(counting)?;
    let symbolized = pool.install(|| {
        symbols::symbolize(words, &settings.rules, settings.character_coverage, &settings.initial_alphabet)
    });
    reporter.check_cancel()?;
    release_free_memory();
    let count_seconds = started.elapsed().as_secs_f64();
    let merging = Instant::now();
    let trained = trainer::train(symbolized.alphabet, symbolized.table, &settings.merge, reporter)?;
    Ok(TrainOutput {
        trained,
        files,
        total_words,
        characters: symbolized.characters,
        unknown_characters: symbolized.unknown_characters,
        count_seconds,
        merge_seconds: merging.elapsed().as_secs_f64(),
    })
}

/// Counting allocates in the worker threads' malloc arenas, which the merge loop (on
/// this thread) cannot reuse; hand their free pages back so the peak does not add up.
fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::malloc_trim(0);
    }
}

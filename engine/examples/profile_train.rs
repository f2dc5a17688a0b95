//! Times a whole training through the engine (no Python), printing a digest of the merges:
//! `cargo run --release --example profile_train FILE [PRETOK] [BOUNDARY] [TIES] [VOCAB] [MIN_FREQ]`
//! (defaults: whitespace, eow-symbol, first-seen, 300, 2 — the app's defaults with one special).
use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::Instant;

use bpe_engine::corpus::Source;
use bpe_engine::progress::Reporter;
use bpe_engine::text::{Boundary, Normalization, PreTokenizer, TextRules};
use bpe_engine::trainer::{MergeOptions, Ties};
use bpe_engine::{run_training, TrainSettings};

fn peak_rss_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmHWM")).unwrap_or("VmHWM: 0 kB");
    line.split_whitespace().nth(1).and_then(|v| v.parse().ok()).unwrap_or(0) / 1024
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or_else(|| default.to_string());
    let pretokenizer = PreTokenizer::parse(&arg(2, "whitespace")).unwrap();
    let boundary = Boundary::parse(&arg(3, "eow-symbol")).unwrap();
    let ties = Ties::parse(&arg(4, "first-seen")).unwrap();
    let settings = TrainSettings {
        rules: TextRules { normalization: Normalization::None, lowercase: false, pretokenizer, boundary },
        merge: MergeOptions {
            min_frequency: arg(6, "2").parse().unwrap(),
            vocab_size: Some(arg(5, "300").parse().unwrap()),
            max_merges: None,
            ties,
            specials: vec!["<unk>".into()],
        },
        character_coverage: 1.0,
        initial_alphabet: String::new(),
        threads: 2,
    };
    let source = Source::Files { paths: vec![args[1].clone().into()], word_counts: false, lossy: false };
    let started = Instant::now();
    let out = run_training(source, &settings, &mut Reporter::silent()).unwrap();
    let mut h = DefaultHasher::new();
    out.trained.merges.iter().for_each(|m| (m.left, m.right, m.result, m.count).hash(&mut h));
    out.trained.tokens.hash(&mut h);
    println!(
        "{} merges in {:.2} s (count {:.2} s, merge {:.2} s), peak {} MB, digest {:016x}",
        out.trained.merges.len(),
        started.elapsed().as_secs_f64(),
        out.count_seconds,
        out.merge_seconds,
        peak_rss_mb(),
        h.finish()
    );
}

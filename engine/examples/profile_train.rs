//! Times a whole training through the engine (no Python), printing a digest of the merges:
//! `cargo run --release --example profile_train FILE [PRETOK] [BOUNDARY] [TIES] [VOCAB] [MIN_FREQ]`
//! (defaults: whitespace, eow-symbol, first-seen, 300, 2 — the app's defaults with one special).
//! Also prints the merging thread's CPU time in the merge stage (its critical path, little
//! disturbed by other processes' load: waiting for the other threads takes none) and the
//! process's CPU time.
use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::Instant;

use bpe_engine::corpus::Source;
use bpe_engine::progress::{Progress, Reporter, Stage};
use bpe_engine::text::{Boundary, Normalization, PreTokenizer, TextRules};
use bpe_engine::trainer::{MergeOptions, Ties};
use bpe_engine::{run_training, TrainSettings};

fn peak_rss_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with("VmHWM")).unwrap_or("VmHWM: 0 kB");
    line.split_whitespace().nth(1).and_then(|v| v.parse().ok()).unwrap_or(0) / 1024
}

/// CPU seconds of this thread (`RUSAGE_THREAD`) or of the whole process.
fn cpu_seconds(who: libc::c_int) -> f64 {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(who, &mut usage) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
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
            forbidden: vec![],
        },
        character_coverage: 1.0,
        initial_alphabet: String::new(),
        threads: 2,
        constraints: Default::default(),
    };
    let source = Source::Files { paths: vec![args[1].clone().into()], word_counts: false, lossy: false };
    let started = Instant::now();
    let (mut merge_start, mut merge_end) = (None, 0.0);
    let mut on_progress = |p: &Progress| {
        match p.stage {
            Stage::Merging if merge_start.is_none() => merge_start = Some(cpu_seconds(libc::RUSAGE_THREAD)),
            Stage::Done => merge_end = cpu_seconds(libc::RUSAGE_THREAD),
            _ => {}
        }
        true
    };
    let out = run_training(source, &settings, &mut Reporter::new(Some(&mut on_progress), None)).unwrap();
    let merge_cpu = merge_end - merge_start.unwrap_or(merge_end);
    let mut h = DefaultHasher::new();
    out.trained.merges.iter().for_each(|m| (m.left, m.right, m.result, m.count).hash(&mut h));
    out.trained.tokens.hash(&mut h);
    println!(
        "{} merges in {:.2} s (count {:.2} s, merge {:.2} s, merging thread CPU {:.3} s, process CPU {:.2} s), peak {} MB, digest {:016x}",
        out.trained.merges.len(),
        started.elapsed().as_secs_f64(),
        out.count_seconds,
        out.merge_seconds,
        merge_cpu,
        cpu_seconds(libc::RUSAGE_SELF),
        peak_rss_mb(),
        h.finish()
    );
}

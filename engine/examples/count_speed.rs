//! Counting speed per core, by process CPU time (steadier than wall time on a busy
//! machine): `cargo run --release --example count_speed FILE [PRETOK...]`.
//!
//! For each pre-tokenizer (default: whitespace and gpt2), the best of five runs of
//! (a) pre-tokenizing the text alone and (b) counting it (pre-tokenize, per-block tables,
//! the serial table) on one thread, from memory: no file reading, no checksum.
use bpe_engine::corpus::{count_words, Source};
use bpe_engine::progress::Reporter;
use bpe_engine::text::{Boundary, Normalization, PreTokenizer, TextRules};

const RUNS: usize = 5;

fn cpu_seconds() -> f64 {
    // SAFETY: getrusage writes into the zeroed struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(usage.ru_utime) + t(usage.ru_stime)
}

/// The least CPU time of `RUNS` runs of `run` on what `setup` makes (not timed).
fn best_of<T>(mut setup: impl FnMut() -> T, mut run: impl FnMut(T) -> usize) -> (f64, usize) {
    let mut best = f64::INFINITY;
    let mut out = 0;
    for _ in 0..RUNS {
        let input = setup();
        let start = cpu_seconds();
        out = std::hint::black_box(run(input));
        best = best.min(cpu_seconds() - start);
    }
    (best, out)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).expect("a UTF-8 file");
    let names: Vec<&str> = if args.len() > 2 { args[2..].iter().map(String::as_str).collect() } else { vec!["whitespace", "gpt2"] };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let mb = text.len() as f64 / 1e6;
    for name in names {
        let pretokenizer = PreTokenizer::parse(name).unwrap();
        let rules = TextRules { normalization: Normalization::None, lowercase: false, pretokenizer, boundary: Boundary::None };
        let (split_s, tokens) = best_of(|| (), |()| {
            let mut n = 0;
            rules.split_words(&text, &mut |w| n += w.len().min(1));
            n
        });
        let (count_s, distinct) = best_of(|| Source::Texts(vec![text.clone()]), |source| {
            count_words(source, &rules, &pool, &mut Reporter::silent()).unwrap().len()
        });
        println!(
            "{name}: {tokens} words, {distinct} distinct; pre-tokenize {split_s:.3} s cpu ({:.0} MB/s), count {count_s:.3} s cpu ({:.0} MB/s per core)",
            mb / split_s,
            mb / count_s
        );
    }
}

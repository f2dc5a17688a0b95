//! Times the phases of training on one file: `cargo run --release --example profile_count FILE [PRETOK]`.
use std::time::Instant;


use bpe_engine::corpus::{count_words, Source};
use bpe_engine::progress::Reporter;
use bpe_engine::symbols::symbolize;
use bpe_engine::text::{Boundary, Normalization, PreTokenizer, TextRules};
use bpe_engine::trainer::{most_tokens, train, MergeOptions, Ties};

fn cpu() -> f64 {
    let mut ru: libc_rusage = unsafe { std::mem::zeroed() };
    unsafe { getrusage(0, &mut ru) };
    ru.utime_s as f64 + ru.utime_us as f64 / 1e6
}
#[repr(C)]
struct libc_rusage { utime_s: i64, utime_us: i64, rest: [i64; 16] }
extern "C" { fn getrusage(who: i32, ru: *mut libc_rusage) -> i32; }

fn rss_mb() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = s.lines().find(|l| l.starts_with("VmHWM")).unwrap().to_string();
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() / 1024
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let pre = PreTokenizer::parse(args.get(2).map(|s| s.as_str()).unwrap_or("whitespace")).unwrap();
    let threads: usize = args.get(3).map(|s| s.parse().unwrap()).unwrap_or(2);
    let rules = TextRules { normalization: Normalization::None, lowercase: false, pretokenizer: pre, boundary: Boundary::None };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let (t, c) = (Instant::now(), cpu());
    let wc = count_words(Source::Files { paths: vec![args[1].clone().into()], word_counts: false, lossy: false }, &rules, &pool, &mut Reporter::silent()).unwrap();
    println!("count: {:.2}s wall {:.2}s cpu, {} words, peak {} MB", t.elapsed().as_secs_f64(), cpu() - c, wc.len(), rss_mb());
    let (t, c) = (Instant::now(), cpu());
    let max_merges = std::env::var("MAX_MERGES").ok().map(|v| v.parse().unwrap());
    let opts = MergeOptions { min_frequency: 1, vocab_size: Some(32000), max_merges, ties: Ties::Codepoint, specials: vec![], forbidden: vec![] };
    let s = pool.install(|| symbolize(wc, None, &rules, 1.0, "", |alphabet| most_tokens(&opts, alphabet)));
    println!("symbolize: {:.2}s wall {:.2}s cpu, peak {} MB", t.elapsed().as_secs_f64(), cpu() - c, rss_mb());
    let (t, c) = (Instant::now(), cpu());
    let out = train(s.alphabet, s.table, &opts, &mut Reporter::silent()).unwrap();
    println!("merge: {:.2}s wall {:.2}s cpu, {} merges, peak {} MB", t.elapsed().as_secs_f64(), cpu() - c, out.merges.len(), rss_mb());
}

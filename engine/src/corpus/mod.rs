//! Reading a corpus into a word-frequency table, streaming and in parallel.
//!
//! One thread reads the files as blocks ([`reader`]); worker threads normalize,
//! pre-tokenize and count each block; the per-block tables are merged in block order,
//! which numbers words in order of first appearance whatever the thread count: the
//! basis of the `first-seen` tie-break and of deterministic output. In-memory texts are
//! cut into blocks the same way, so one huge text is counted in parallel too.

mod block;
mod counter;
pub mod lines;
pub mod reader;
pub mod sample_words;
pub mod table;

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::Arc;

use rayon::prelude::*;

use crate::wordlist::WordList;
use block::BlockWords;
use counter::Counter;

use crate::error::{shown, CorpusFault, CorpusProblem, EngineError, Result};
use crate::progress::{Progress, Reporter, Stage, REPORT_INTERVAL};
use crate::text::{PreTokenizer, TextRules};

use reader::{cut_point, decode_block, decode_block_owned, may_cut_before, plan_files, spawn_reader, with_line, Block, Limits};

pub enum Source {
    Files { paths: Vec<PathBuf>, word_counts: bool, lossy: bool },
    Texts(Vec<String>),
    WordCounts(Vec<(String, u64)>),
    /// Word-count tables held in memory (partial tables of a distributed count), read
    /// as table files are; errors name them "table piece N" (from 1).
    Tables(Vec<String>),
}

#[derive(Debug, Clone)]
pub struct FileInfo {
    pub path: PathBuf,
    pub size: u64,
    pub sha256: String,
}

/// Distinct words in order of first appearance, with their counts.
#[derive(Debug, Default)]
pub struct WordCounts {
    pub words: WordList,
    pub counts: Vec<u64>,
    pub files: Vec<FileInfo>,
}

impl WordCounts {
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }
}

/// Count the words of `source`.
pub fn count_words(
    source: Source,
    rules: &TextRules,
    pool: &rayon::ThreadPool,
    reporter: &mut Reporter,
) -> Result<WordCounts> {
    let paths = match &source {
        Source::Files { paths, .. } => paths.clone(),
        _ => Vec::new(),
    };
    let counted = match source {
        Source::Texts(texts) => count_texts(&texts, rules, pool, reporter),
        Source::WordCounts(items) => {
            let mut counter = Counter::default();
            for (word, count) in items {
                add_table_word(&mut counter, rules, &word, count)?;
            }
            Ok(counter.finish(Vec::new()))
        }
        Source::Tables(texts) => {
            let mut counter = Counter::default();
            for (i, text) in texts.iter().enumerate() {
                let name = PathBuf::from(format!("table piece {}", i + 1));
                let mut lines = TableLines::default();
                for line in text.split('\n') {
                    lines.parse(&mut counter, rules, &name, line)?;
                }
            }
            Ok(counter.finish(Vec::new()))
        }
        Source::Files { paths, word_counts: true, lossy } => {
            read_word_count_files(&paths, rules, lossy, reporter)
        }
        Source::Files { paths, word_counts: false, lossy } => {
            count_files(&paths, rules, lossy, pool, reporter, Limits::DEFAULT)
        }
    }?;
    if counted.is_empty() {
        return Err(no_words(&paths));
    }
    Ok(counted)
}

fn no_words(paths: &[PathBuf]) -> EngineError {
    let message = match paths {
        [] => "the corpus contains no words".to_string(),
        [one] => format!("{} contains no words (only spaces and line breaks)", shown(one)),
        many => {
            let listed: Vec<String> = many.iter().take(10).map(|p| shown(p).to_string()).collect();
            let more = if many.len() > 10 { format!(" and {} more", many.len() - 10) } else { String::new() };
            format!("the corpus files contain no words (only spaces and line breaks): {}{more}", listed.join(", "))
        }
    };
    EngineError::corpus_at(CorpusProblem::NoWords, message, paths.first().map(PathBuf::as_path), None)
}

fn add_table_word(wc: &mut Counter, rules: &TextRules, word: &str, count: u64) -> Result<()> {
    let word = rules.normalize(word);
    if !word.is_empty() && count > 0 {
        wc.table_weight += (word.chars().count() as u128 + 1) * u128::from(count);
        wc.add(&word, count)?;
    }
    Ok(())
}

/// Past this, a table's words stand for more characters than a model file records (its
/// numbers end at 2^64 - 1): said at the line that crosses it, not when saving.
fn check_table_weight(wc: &Counter) -> Result<()> {
    if wc.table_weight > u128::from(u64::MAX) {
        return Err(EngineError::Config(
            "the counts add up to more than 2^64 - 1 characters (each word's length times its \
             count), more than a model can record; scale the counts down"
                .into(),
        ));
    }
    Ok(())
}

/// Pieces of `text` of about `block` bytes, cut where [`cut_point`] allows.
fn text_pieces(text: &str, block: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let bytes = rest.as_bytes();
        let cut = if bytes.len() <= block {
            bytes.len()
        } else {
            match cut_point(&bytes[..block]) {
                0 => bytes[block..]
                    .iter()
                    .enumerate()
                    .find(|&(i, &b)| b == b'\n' || may_cut_before(bytes, block + i))
                    .map_or(bytes.len(), |(i, &b)| block + i + usize::from(b == b'\n')),
                cut => cut,
            }
        };
        // Cuts fall on ASCII bytes, which are always character boundaries.
        let (piece, tail) = rest.split_at(cut);
        rest = tail;
        Some(piece)
    })
}

fn count_texts(
    texts: &[String],
    rules: &TextRules,
    pool: &rayon::ThreadPool,
    reporter: &mut Reporter,
) -> Result<WordCounts> {
    let total: u64 = texts.iter().map(|t| t.len() as u64).sum();
    let budget = pool.current_num_threads().max(1) * 2 * Limits::DEFAULT.block;
    let mut wc = Counter::default();
    let mut done = 0u64;
    let mut batch: Vec<&str> = Vec::new();
    let mut batch_bytes = 0usize;
    let mut counted: Vec<Result<Counted>> = Vec::new(); // counted, not yet added
    let mut flush = |batch: &mut Vec<&str>, wc: &mut Counter, reporter: &mut Reporter| -> Result<()> {
        reporter.check_cancel()?;
        let previous = std::mem::take(&mut counted);
        done += batch.iter().map(|t| t.len() as u64).sum::<u64>();
        counted = count_overlapped(pool, std::mem::take(batch), |t| Ok(count_text(Cow::Borrowed(t), rules)), previous, wc)?;
        if reporter.due() {
            reporter.send(reading_progress(Stage::Counting, done, total, wc.len()))?;
        }
        Ok(())
    };
    // Batches keep progress and cancellation responsive on large inputs.
    for text in texts {
        for piece in text_pieces(text, Limits::DEFAULT.block) {
            batch.push(piece);
            batch_bytes += piece.len();
            if batch.len() >= 256 || batch_bytes >= budget {
                flush(&mut batch, &mut wc, reporter)?;
                batch_bytes = 0;
            }
        }
    }
    flush(&mut batch, &mut wc, reporter)?;
    add_tables(counted, &mut wc)?;
    Ok(wc.finish(Vec::new()))
}

/// One piece of text, normalized, with its distinct words (as byte ranges into it) and
/// their counts in first-seen order. Ranges, not strings: no allocation per word. Each
/// word's [`counter::hash`] is computed here, in parallel, for the serial [`Counter`].
struct Counted {
    text: String,
    words: Vec<(usize, usize, u64)>,
    hashes: Vec<u64>,
}

impl Counted {
    fn add_to(&self, wc: &mut Counter) -> Result<()> {
        let words: Vec<(&str, u64, u64)> = self
            .words
            .iter()
            .zip(&self.hashes)
            .map(|(&(start, end, count), &h)| (&self.text[start..end], h, count))
            .collect();
        wc.add_all(&words)
    }
}

/// Add counted tables to `wc` in order; the first error (in block order) wins.
fn add_tables(tables: Vec<Result<Counted>>, wc: &mut Counter) -> Result<()> {
    for table in tables {
        table?.add_to(wc)?;
    }
    Ok(())
}

/// Count `items` in parallel while `previous` (the tables of the batch before) is added
/// to `wc` on another thread: adding is serial (it numbers the words), so overlapping it
/// with counting keeps both cores busy. Returns this batch's tables.
fn count_overlapped<T: Send>(
    pool: &rayon::ThreadPool,
    items: Vec<T>,
    count: impl Fn(T) -> Result<Counted> + Sync,
    previous: Vec<Result<Counted>>,
    wc: &mut Counter,
) -> Result<Vec<Result<Counted>>> {
    let (tables, added) =
        pool.install(|| rayon::join(|| items.into_par_iter().map(&count).collect(), || add_tables(previous, wc)));
    added.map(|()| tables)
}

/// Normalize, pre-tokenize and count one piece of text.
fn count_text(text: Cow<str>, rules: &TextRules) -> Counted {
    let text: Cow<str> = if text.contains('\r') { text.replace("\r\n", "\n").into() } else { text };
    // A block read from a file is counted in its own buffer, not a copy.
    let changed = match rules.normalize(&text) {
        Cow::Owned(normalized) => Some(normalized),
        Cow::Borrowed(_) => None,
    };
    let normalized = changed.unwrap_or_else(|| text.into_owned());
    let mut table = BlockWords::for_text(normalized.len());
    match rules.pretokenizer {
        // The default pre-tokenizer, split without decoding every character.
        PreTokenizer::Whitespace => block::split_whitespace(&normalized, &mut |w| table.add(&normalized, w)),
        _ => rules.split_words(&normalized, &mut |w| table.add(&normalized, w)),
    }
    let (words, hashes) = table.finish();
    Counted { text: normalized, words, hashes }
}

fn reading_progress(stage: Stage, done: u64, total: u64, words: usize) -> Progress {
    Progress { bytes_done: done, bytes_total: total, words: words as u64, ..Progress::at(stage) }
}

fn count_block(block: Block, paths: &[PathBuf], rules: &TextRules, lossy: bool) -> Result<Counted> {
    let path = &paths[block.file];
    Ok(count_text(Cow::Owned(decode_block_owned(block, path, lossy)?), rules))
}

/// Count text files. The reader thread runs ahead by a bounded queue of blocks; waiting
/// for it (a slow disk, a pipe) keeps reporting progress and honouring cancellation.
pub fn count_files(
    paths: &[PathBuf],
    rules: &TextRules,
    lossy: bool,
    pool: &rayon::ThreadPool,
    reporter: &mut Reporter,
    limits: Limits,
) -> Result<WordCounts> {
    let files = plan_files(paths)?;
    let total: u64 = files.iter().filter_map(|f| f.size).sum();
    let read = Arc::new(AtomicU64::new(0));
    let batch = pool.current_num_threads().max(1) * 2;
    let (rx, reader) = spawn_reader(files, read.clone(), batch, limits);
    let mut wc = Counter::default();
    let mut counted: Vec<Result<Counted>> = Vec::new(); // counted, not yet added
    let progress = |wc: &Counter| reading_progress(Stage::Reading, read.load(Ordering::Relaxed), total, wc.len());
    let outcome = (|| -> Result<()> {
        loop {
            let mut blocks = Vec::with_capacity(batch);
            let mut stop: Option<Result<()>> = None;
            while blocks.len() < batch && stop.is_none() {
                match rx.recv_timeout(REPORT_INTERVAL) {
                    Ok(Ok(block)) => blocks.push(block),
                    Ok(Err(e)) => stop = Some(Err(e)), // after counting the blocks before it
                    Err(RecvTimeoutError::Disconnected) => stop = Some(Ok(())),
                    Err(RecvTimeoutError::Timeout) => {
                        reporter.check_cancel()?;
                        if reporter.due() {
                            reporter.send(progress(&wc))?;
                        }
                        if !blocks.is_empty() {
                            break; // slow input: count what has arrived
                        }
                    }
                }
            }
            let previous = std::mem::take(&mut counted);
            counted = count_overlapped(pool, blocks, |b| count_block(b, paths, rules, lossy), previous, &mut wc)?;
            reporter.check_cancel()?;
            if reporter.due() {
                reporter.send(progress(&wc))?;
            }
            if let Some(end) = stop {
                add_tables(std::mem::take(&mut counted), &mut wc)?;
                return end;
            }
        }
    })();
    drop(rx); // the reader stops at its next block
    match outcome {
        Ok(()) => {
            let infos = reader.join().map_err(|_| EngineError::Internal("the corpus reader thread failed".into()))?;
            Ok(wc.finish(infos))
        }
        // Not joined: the reader may be waiting on a stalled disk or pipe, and must not
        // hold up the error or the cancellation; it ends on its own.
        Err(e) => Err(with_line(e)),
    }
}

fn read_word_count_files(
    paths: &[PathBuf],
    rules: &TextRules,
    lossy: bool,
    reporter: &mut Reporter,
) -> Result<WordCounts> {
    let files = plan_files(paths)?;
    let total: u64 = files.iter().filter_map(|f| f.size).sum();
    let read = Arc::new(AtomicU64::new(0));
    let mut wc = Counter::default();
    let mut infos = Vec::with_capacity(files.len());
    for (index, file) in files.iter().enumerate() {
        let path = &file.path;
        let mut lines = TableLines::default();
        let mut failure: Option<EngineError> = None;
        let info = reader::read_file(file, index, &Limits::DEFAULT, &read, &mut |block| {
            let text = match decode_block(&block, path, lossy) {
                Ok(text) => text,
                Err(e) => {
                    failure = Some(e);
                    return false;
                }
            };
            // Blocks end after '\n', so the piece after the last one is not a line.
            let body = text.strip_suffix('\n').unwrap_or(&text);
            for line in body.split('\n') {
                if let Err(e) = lines.parse(&mut wc, rules, path, line) {
                    failure = Some(e);
                    return false;
                }
            }
            true
        });
        if let Some(e) = failure {
            return Err(with_line(e));
        }
        let Some(info) = info? else { continue };
        infos.push(info);
        reporter.check_cancel()?;
        if reporter.due() {
            reporter.send(reading_progress(Stage::Reading, read.load(Ordering::Relaxed), total, wc.len()))?;
        }
    }
    Ok(wc.finish(infos))
}

/// The lines of one table, in order: whether it is escaped (its first line is
/// [`table::HEADER`]; its second line may then be a language label) and the current
/// line number.
#[derive(Default)]
struct TableLines {
    line_no: u64,
    escaped: bool,
}

impl TableLines {
    fn parse(&mut self, wc: &mut Counter, rules: &TextRules, path: &Path, line: &str) -> Result<()> {
        self.line_no += 1;
        let line = line.strip_suffix('\r').unwrap_or(line);
        if self.line_no == 1 && line == table::HEADER {
            self.escaped = true;
            return Ok(());
        }
        if self.line_no == 2 && self.escaped && line.starts_with(table::LANGUAGE_PREFIX) {
            return Ok(()); // the table's language label: read by the caller, not counted
        }
        parse_count_line(wc, rules, path, line, self.line_no, self.escaped)
    }
}

/// Whether the pre-tokenizer makes `word` whole (it splits it at none of its characters).
fn is_one_word(rules: &TextRules, word: &str) -> bool {
    let mut pieces = 0;
    let mut whole = false;
    rules.split_words(word, &mut |w| {
        pieces += 1;
        whole = w.len() == word.len();
    });
    pieces == 1 && whole
}

/// One `word<TAB>count` line; blank lines are skipped.
fn parse_count_line(
    wc: &mut Counter,
    rules: &TextRules,
    path: &Path,
    line: &str,
    line_no: u64,
    escaped: bool,
) -> Result<()> {
    if line.trim().is_empty() {
        return Ok(());
    }
    let bad = |why: String| {
        EngineError::Corpus(Box::new(CorpusFault {
            message: format!("{}, line {line_no}: {why} (expected word<TAB>count)", shown(path)),
            problem: CorpusProblem::BadLine,
            path: Some(path.to_path_buf()),
            offset: None,
            line: Some(line_no),
        }))
    };
    let (word, count) = line.rsplit_once('\t').ok_or_else(|| bad("there is no tab character".into()))?;
    let count = count.trim();
    let count: u64 = count
        .parse()
        .ok()
        .filter(|&c| c > 0)
        .ok_or_else(|| bad(format!("{count:?} is not a whole number from 1 to 2^64-1")))?;
    if word.is_empty() {
        return Err(bad("the word is empty".into()));
    }
    // A tab inside a word that the pre-tokenizer would not make whole is a third column
    // (`the\t5000\t1`), not a word; escaped tables write a word's tabs as `\t`.
    if word.contains('\t') && (escaped || !is_one_word(rules, word)) {
        return Err(bad(format!(
            "a second tab character: the line has more than two columns (the word would \
             be {:?})",
            word.chars().take(60).collect::<String>()
        )));
    }
    // A sum out of range is reported at the line that took it there.
    let at_line = |e: EngineError| match e {
        EngineError::Config(why) => EngineError::Corpus(Box::new(CorpusFault {
            message: format!("{}, line {line_no}: {why}", shown(path)),
            problem: CorpusProblem::BadLine,
            path: Some(path.to_path_buf()),
            offset: None,
            line: Some(line_no),
        })),
        other => other,
    };
    if escaped {
        let word = table::unescape(word).map_err(bad)?;
        add_table_word(wc, rules, &word, count).map_err(at_line)?;
    } else {
        add_table_word(wc, rules, word, count).map_err(at_line)?;
    }
    check_table_weight(wc).map_err(at_line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_pieces_cut_at_word_boundaries_and_cover_the_text() {
        let text = "alpha beta\ngamma delta epsilon ".repeat(40) + &"x".repeat(300) + " tail";
        let pieces: Vec<&str> = text_pieces(&text, 64).collect();
        assert_eq!(pieces.concat(), text);
        for p in &pieces[..pieces.len() - 1] {
            let next = &text[p.as_ptr() as usize - text.as_ptr() as usize + p.len()..];
            assert!(p.ends_with('\n') || next.starts_with(' '), "{p:?}");
        }
        assert!(pieces.iter().any(|p| p.len() > 300), "the long word stays whole");
    }

    /// Words and counts in first-seen order, the plain way.
    fn reference(text: &str, rules: &TextRules) -> Vec<(String, u64)> {
        let mut order: Vec<(String, u64)> = Vec::new();
        let mut index: std::collections::HashMap<String, usize> = Default::default();
        rules.split_words(text, &mut |w| match index.get(w) {
            Some(&i) => order[i].1 += 1,
            None => {
                index.insert(w.to_string(), order.len());
                order.push((w.to_string(), 1));
            }
        });
        order
    }

    fn listed(wc: &WordCounts) -> Vec<(String, u64)> {
        wc.words.iter().map(str::to_string).zip(wc.counts.iter().copied()).collect()
    }

    /// Many small blocks, counted in overlapped batches on several threads, give the
    /// words in first-seen order with the counts of one sequential pass.
    #[test]
    fn overlapped_batches_keep_first_seen_order() {
        let text: String = (0..4000)
            .map(|i| format!("w{} \u{a0}v{}\u{2003}x{}\n", (i * 7919) % 1500, i % 13, i / 3))
            .collect();
        for pretokenizer in [PreTokenizer::Whitespace, PreTokenizer::Gpt2] {
            let rules = TextRules {
                normalization: crate::text::Normalization::None,
                lowercase: false,
                pretokenizer,
                boundary: crate::text::Boundary::None,
            };
            let want = reference(&text, &rules);
            let path = std::env::temp_dir().join(format!("bpe-overlap-{}-{pretokenizer:?}.txt", std::process::id()));
            std::fs::write(&path, &text).unwrap();
            for threads in [1, 2, 3] {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                let limits = Limits { block: 64, unbroken: 1 << 20 };
                let files = count_files(&[path.clone()], &rules, false, &pool, &mut Reporter::silent(), limits);
                assert_eq!(listed(&files.unwrap()), want, "files, {threads} threads");
                let texts = count_texts(&[text.clone(), text.clone()], &rules, &pool, &mut Reporter::silent());
                let doubled: Vec<(String, u64)> = want.iter().map(|(w, n)| (w.clone(), 2 * n)).collect();
                assert_eq!(listed(&texts.unwrap()), doubled, "texts, {threads} threads");
            }
            std::fs::remove_file(&path).unwrap();
        }
    }
}

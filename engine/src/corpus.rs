//! Reading a corpus into a word-frequency table, streaming and in parallel.
//!
//! Files are read by one thread in blocks cut at line ends (or, inside a huge line, just
//! before a space that follows a non-space, which is a word boundary for every
//! pre-tokenizer), so memory stays bounded whatever the line length. Worker threads
//! normalize, pre-tokenize and count each block; the per-block tables are merged in
//! block order, which numbers words in order of first appearance whatever the thread
//! count: the basis of the `first-seen` tie-break and of deterministic output.

use std::fs::File;
use std::io::{self, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use sha2::{Digest, Sha256};

use crate::error::{EngineError, Result};
use crate::progress::{Progress, Reporter, Stage};
use crate::text::TextRules;

const BLOCK_SIZE: usize = 1 << 20;
const BINARY_SNIFF: usize = 8 << 10;

pub enum Source {
    Files { paths: Vec<String>, word_counts: bool, lossy: bool },
    Texts(Vec<String>),
    WordCounts(Vec<(String, u64)>),
}

#[derive(Debug, Clone)]
pub struct FileInfo {
    pub path: String,
    pub size: u64,
    pub sha256: String,
}

/// Distinct words in order of first appearance, with their counts.
#[derive(Debug, Default)]
pub struct WordCounts {
    pub words: Vec<String>,
    pub counts: Vec<u64>,
    index: FxHashMap<Box<str>, u32>,
    pub files: Vec<FileInfo>,
}

impl WordCounts {
    fn add(&mut self, word: &str, count: u64) -> Result<()> {
        if let Some(&i) = self.index.get(word) {
            let c = &mut self.counts[i as usize];
            *c = c.checked_add(count).ok_or_else(|| {
                EngineError::Config(format!("the count of {word:?} exceeds 2^64 - 1"))
            })?;
        } else {
            if self.words.len() >= u32::MAX as usize - 1 {
                return Err(EngineError::Config("more than 4 billion distinct words".into()));
            }
            self.index.insert(word.into(), self.words.len() as u32);
            self.words.push(word.to_string());
            self.counts.push(count);
        }
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Drop the lookup table once counting is done.
    pub fn finish(mut self) -> Self {
        self.index = FxHashMap::default();
        self
    }
}

/// A block of text from one file; `offset` is where it starts in the (decompressed) file.
struct Block {
    file: usize,
    offset: u64,
    bytes: Vec<u8>,
}

/// Count the words of `source`.
pub fn count_words(
    source: Source,
    rules: &TextRules,
    pool: &rayon::ThreadPool,
    reporter: &mut Reporter,
) -> Result<WordCounts> {
    match source {
        Source::Texts(texts) => count_texts(texts, rules, pool, reporter),
        Source::WordCounts(items) => {
            let mut wc = WordCounts::default();
            for (word, count) in items {
                add_table_word(&mut wc, rules, &word, count)?;
            }
            Ok(wc)
        }
        Source::Files { paths, word_counts: true, lossy } => {
            read_word_count_files(&paths, rules, lossy, reporter)
        }
        Source::Files { paths, word_counts: false, lossy } => {
            count_files(&paths, rules, lossy, pool, reporter)
        }
    }
}

fn add_table_word(wc: &mut WordCounts, rules: &TextRules, word: &str, count: u64) -> Result<()> {
    let word = rules.normalize(word);
    if !word.is_empty() && count > 0 {
        wc.add(&word, count)?;
    }
    Ok(())
}

fn count_texts(
    texts: Vec<String>,
    rules: &TextRules,
    pool: &rayon::ThreadPool,
    reporter: &mut Reporter,
) -> Result<WordCounts> {
    let total: u64 = texts.iter().map(|t| t.len() as u64).sum();
    let mut wc = WordCounts::default();
    let mut done = 0u64;
    // Batches keep progress and cancellation responsive on large inputs.
    for batch in texts.chunks(256) {
        reporter.check_cancel()?;
        let tables: Vec<Counted> =
            pool.install(|| batch.par_iter().map(|t| count_text(t, rules)).collect());
        for table in tables {
            table.add_to(&mut wc)?;
        }
        done += batch.iter().map(|t| t.len() as u64).sum::<u64>();
        if reporter.due() {
            reporter.send(reading_progress(Stage::Counting, done, total, wc.len()))?;
        }
    }
    Ok(wc)
}

/// One piece of text, normalized, with its distinct words (as byte ranges into it) and
/// their counts in first-seen order. Ranges, not strings: no allocation per word.
struct Counted {
    text: String,
    words: Vec<(u32, u32, u64)>,
}

impl Counted {
    fn add_to(&self, wc: &mut WordCounts) -> Result<()> {
        for &(start, end, count) in &self.words {
            wc.add(&self.text[start as usize..end as usize], count)?;
        }
        Ok(())
    }
}

/// Normalize, pre-tokenize and count one piece of text.
fn count_text(text: &str, rules: &TextRules) -> Counted {
    let text: std::borrow::Cow<str> =
        if text.contains('\r') { text.replace("\r\n", "\n").into() } else { text.into() };
    let normalized = rules.normalize(&text).into_owned();
    let base = normalized.as_ptr() as usize;
    let mut index: FxHashMap<&str, u32> = FxHashMap::default();
    let mut words: Vec<(u32, u32, u64)> = Vec::new();
    rules.split_words(&normalized, &mut |w| match index.get(w) {
        Some(&i) => words[i as usize].2 += 1,
        None => {
            index.insert(w, words.len() as u32);
            let start = (w.as_ptr() as usize - base) as u32;
            words.push((start, start + w.len() as u32, 1));
        }
    });
    drop(index);
    Counted { text: normalized, words }
}

fn reading_progress(stage: Stage, done: u64, total: u64, words: usize) -> Progress {
    Progress { bytes_done: done, bytes_total: total, words: words as u64, ..Progress::at(stage) }
}

/// Wraps a file so that raw bytes read are counted (for progress) and hashed.
struct HashingReader {
    inner: File,
    hasher: Sha256,
    read: Arc<AtomicU64>,
}

impl Read for HashingReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

fn io_error(path: &str, action: &str, err: &io::Error) -> EngineError {
    let reason = match err.kind() {
        io::ErrorKind::NotFound => "the file does not exist".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        io::ErrorKind::InvalidInput | io::ErrorKind::InvalidData => {
            format!("the data is corrupt ({err})")
        }
        _ => err.to_string(),
    };
    EngineError::corpus(format!("cannot {action} {path}: {reason}"), path)
}

/// Open every file up front, so a missing one fails before any work is done.
fn open_all(paths: &[String]) -> Result<Vec<(File, u64)>> {
    let mut out = Vec::with_capacity(paths.len());
    for path in paths {
        let file = File::open(path).map_err(|e| io_error(path, "open", &e))?;
        let meta = file.metadata().map_err(|e| io_error(path, "read", &e))?;
        if meta.is_dir() {
            return Err(EngineError::corpus(format!("{path} is a folder, not a text file"), path));
        }
        if meta.len() == 0 {
            return Err(EngineError::corpus(format!("{path} is empty"), path));
        }
        out.push((file, meta.len()));
    }
    Ok(out)
}

/// The reader thread: streams every file as blocks, then reports each file's hash.
fn spawn_reader(
    paths: Vec<String>,
    files: Vec<(File, u64)>,
    read: Arc<AtomicU64>,
    queue: usize,
) -> (Receiver<Result<Block>>, std::thread::JoinHandle<Vec<FileInfo>>) {
    let (tx, rx) = sync_channel::<Result<Block>>(queue);
    let handle = std::thread::spawn(move || {
        let mut infos = Vec::new();
        for (idx, ((file, size), path)) in files.into_iter().zip(paths.iter()).enumerate() {
            let mut hashing = HashingReader { inner: file, hasher: Sha256::new(), read: read.clone() };
            let result = stream_blocks(&mut hashing, idx, path, &mut |b| tx.send(Ok(b)).is_ok());
            match result {
                Ok(true) => {}
                Ok(false) => return infos, // the consumer stopped
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return infos;
                }
            }
            let digest = hashing.hasher.finalize();
            let sha256 = digest.iter().map(|b| format!("{b:02x}")).collect();
            infos.push(FileInfo { path: path.clone(), size, sha256 });
        }
        infos
    });
    (rx, handle)
}

/// Read one file (transparently gunzipped) and hand out blocks; false when told to stop.
fn stream_blocks(
    raw: &mut HashingReader,
    file: usize,
    path: &str,
    send: &mut dyn FnMut(Block) -> bool,
) -> Result<bool> {
    let mut magic = [0u8; 2];
    let mut head = Vec::with_capacity(2);
    let n = read_full(raw, &mut magic).map_err(|e| io_error(path, "read", &e))?;
    head.extend_from_slice(&magic[..n]);
    let gz = n == 2 && magic == [0x1f, 0x8b];
    let chained = io::Cursor::new(head).chain(raw);
    let mut reader: Box<dyn Read + '_> = if gz {
        Box::new(flate2::read::MultiGzDecoder::new(chained))
    } else {
        Box::new(chained)
    };
    let mut pending: Vec<u8> = Vec::new();
    let mut offset: u64 = 0; // offset of pending[0] in the decompressed stream
    let mut first = true;
    let mut eof = false;
    while !eof {
        let start = pending.len();
        pending.resize(start + BLOCK_SIZE, 0);
        let got = read_full(&mut reader, &mut pending[start..]).map_err(|e| io_error(path, "read", &e))?;
        pending.truncate(start + got);
        eof = got == 0 || got < BLOCK_SIZE;
        if first {
            first = false;
            if pending.starts_with(&[0xef, 0xbb, 0xbf]) {
                pending.drain(..3);
                offset = 3;
            }
            let sniff = &pending[..pending.len().min(BINARY_SNIFF)];
            if let Some(pos) = sniff.iter().position(|&b| b == 0) {
                let what = if gz { " (after decompression)" } else { "" };
                return Err(EngineError::Corpus {
                    message: format!(
                        "{path} looks like a binary file, not text: it has a NUL byte at byte offset {}{what}",
                        offset + pos as u64
                    ),
                    path: Some(path.to_string()),
                    offset: Some(offset + pos as u64),
                    line: None,
                });
            }
        }
        let cut = if eof { pending.len() } else { cut_point(&pending) };
        if cut == 0 {
            continue; // no safe cut yet: keep reading into the same block
        }
        let rest = pending.split_off(cut);
        let block = Block { file, offset, bytes: std::mem::replace(&mut pending, rest) };
        offset += cut as u64;
        if !send(block) {
            return Ok(false);
        }
    }
    Ok(true)
}

fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Where a block may end: after the last '\n', or else before the last space that
/// follows a non-space byte (a word boundary for every pre-tokenizer). 0: none yet.
fn cut_point(buf: &[u8]) -> usize {
    if let Some(p) = buf.iter().rposition(|&b| b == b'\n') {
        return p + 1;
    }
    let mut i = buf.len();
    while i > 1 {
        i -= 1;
        if buf[i] == b' ' && !buf[i - 1].is_ascii_whitespace() {
            return i;
        }
    }
    0
}

fn utf8_error(path: &str, offset: u64, bytes: &[u8], valid: usize) -> EngineError {
    let at = offset + valid as u64;
    let bad: Vec<String> = bytes[valid..bytes.len().min(valid + 4)].iter().map(|b| format!("0x{b:02x}")).collect();
    EngineError::Corpus {
        message: format!(
            "{path} is not valid UTF-8: invalid byte sequence {} at byte offset {at} \
             (convert the file to UTF-8, or read it with replacement characters)",
            bad.join(" ")
        ),
        path: Some(path.to_string()),
        offset: Some(at),
        line: None,
    }
}

fn count_block(block: &Block, paths: &[String], rules: &TextRules, lossy: bool) -> Result<Counted> {
    let text = match std::str::from_utf8(&block.bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(e) if !lossy => {
            return Err(utf8_error(&paths[block.file], block.offset, &block.bytes, e.valid_up_to()))
        }
        Err(_) => String::from_utf8_lossy(&block.bytes),
    };
    Ok(count_text(&text, rules))
}

fn count_files(
    paths: &[String],
    rules: &TextRules,
    lossy: bool,
    pool: &rayon::ThreadPool,
    reporter: &mut Reporter,
) -> Result<WordCounts> {
    let files = open_all(paths)?;
    let total: u64 = files.iter().map(|(_, s)| *s).sum();
    let read = Arc::new(AtomicU64::new(0));
    let batch = pool.current_num_threads().max(1) * 2;
    let (rx, reader) = spawn_reader(paths.to_vec(), files, read.clone(), batch);
    let mut wc = WordCounts::default();
    let outcome = (|| -> Result<()> {
        loop {
            reporter.check_cancel()?;
            let mut blocks = Vec::with_capacity(batch);
            while blocks.len() < batch {
                match rx.recv() {
                    Ok(b) => blocks.push(b?),
                    Err(_) => break, // reader finished
                }
            }
            if blocks.is_empty() {
                return Ok(());
            }
            let tables: Vec<Result<Counted>> = pool.install(|| {
                blocks.par_iter().map(|b| count_block(b, paths, rules, lossy)).collect()
            });
            drop(blocks);
            for table in tables {
                table?.add_to(&mut wc)?;
            }
            if reporter.due() {
                reporter.send(reading_progress(Stage::Reading, read.load(Ordering::Relaxed), total, wc.len()))?;
            }
        }
    })();
    drop(rx); // unblocks the reader if we stopped early
    let infos = reader.join().map_err(|_| EngineError::Config("the corpus reader failed".into()))?;
    outcome?;
    wc.files = infos;
    Ok(wc)
}

fn read_word_count_files(
    paths: &[String],
    rules: &TextRules,
    lossy: bool,
    reporter: &mut Reporter,
) -> Result<WordCounts> {
    let files = open_all(paths)?;
    let total: u64 = files.iter().map(|(_, s)| *s).sum();
    let mut wc = WordCounts::default();
    let mut done = 0u64;
    for ((file, size), path) in files.into_iter().zip(paths) {
        let mut hashing =
            HashingReader { inner: file, hasher: Sha256::new(), read: Arc::new(AtomicU64::new(0)) };
        let mut line_no = 0u64;
        let mut failure: Option<EngineError> = None;
        stream_blocks(&mut hashing, 0, path, &mut |block| {
            let text = match std::str::from_utf8(&block.bytes) {
                Ok(s) => std::borrow::Cow::Borrowed(s),
                Err(e) if !lossy => {
                    failure = Some(utf8_error(path, block.offset, &block.bytes, e.valid_up_to()));
                    return false;
                }
                Err(_) => String::from_utf8_lossy(&block.bytes),
            };
            // Blocks end after '\n', so the piece after the last one is not a line.
            let body = text.strip_suffix('\n').unwrap_or(&text);
            for line in body.split('\n') {
                line_no += 1;
                if let Err(e) = parse_count_line(&mut wc, rules, path, line, line_no) {
                    failure = Some(e);
                    return false;
                }
            }
            true
        })?;
        if let Some(e) = failure {
            return Err(e);
        }
        done += size;
        reporter.check_cancel()?;
        if reporter.due() {
            reporter.send(reading_progress(Stage::Reading, done, total, wc.len()))?;
        }
        let digest = hashing.hasher.finalize();
        let sha256 = digest.iter().map(|b| format!("{b:02x}")).collect();
        wc.files.push(FileInfo { path: path.clone(), size, sha256 });
    }
    Ok(wc)
}

/// One `word<TAB>count` line; blank lines are skipped.
fn parse_count_line(wc: &mut WordCounts, rules: &TextRules, path: &str, line: &str, line_no: u64) -> Result<()> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line.trim().is_empty() {
        return Ok(());
    }
    let bad = |why: String| EngineError::Corpus {
        message: format!("{path}, line {line_no}: {why} (expected word<TAB>count)"),
        path: Some(path.to_string()),
        offset: None,
        line: Some(line_no),
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
    add_table_word(wc, rules, word, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_point_prefers_newlines_then_spaces() {
        assert_eq!(cut_point(b"ab\ncd ef"), 3);
        assert_eq!(cut_point(b"ab cd  ef"), 5);
        assert_eq!(cut_point(b"abcdef"), 0);
    }
}

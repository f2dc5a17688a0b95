//! Reading corpus files as blocks of text, with every fault named by file and byte offset.
//!
//! All paths are checked before any work starts (missing, folders, devices, empty files,
//! unreadable files); each file is then opened only when its turn comes, so a corpus of
//! thousands of files needs one descriptor, and a file removed or replaced meanwhile is an
//! error naming it. Blocks are cut at line ends (or, inside a huge line, just before a
//! space that follows a non-space, a word boundary for every pre-tokenizer), so memory
//! stays bounded whatever the line length, up to [`Limits::unbroken`] bytes without any
//! such cut. A regular file must end with exactly the size it had when checked: a file
//! that shrinks or grows while it is read is an error, never a silently partial corpus.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::error::{shown, CorpusProblem, EngineError, Result};

use super::FileInfo;

/// Sizes that bound the memory of reading.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Bytes read per block.
    pub block: usize,
    /// Longest stretch without a line break or a space after a non-space.
    pub unbroken: usize,
}

impl Limits {
    pub const DEFAULT: Limits = Limits { block: 1 << 20, unbroken: 64 << 20 };
}

/// Bytes examined for NUL bytes and byte-order marks before any text is counted.
pub(super) const BINARY_SNIFF: usize = 8 << 10;

/// A checked corpus file: `size` is None for pipes (their length is unknown).
#[derive(Debug, Clone)]
pub struct PlannedFile {
    pub path: PathBuf,
    pub size: Option<u64>,
}

/// A block of text from one file; `offset` is where it starts in the (decompressed) file.
pub struct Block {
    pub file: usize,
    pub offset: u64,
    pub bytes: Vec<u8>,
    /// Whether the file is gzip-compressed (offsets then count decompressed bytes).
    pub gz: bool,
}

fn is_fifo(meta: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        meta.file_type().is_fifo()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

/// Check every path before reading any: each is an existing, readable, non-empty file
/// (or a pipe). All empty files are named in one message.
pub fn plan_files(paths: &[PathBuf]) -> Result<Vec<PlannedFile>> {
    let mut planned = Vec::with_capacity(paths.len());
    let mut empty: Vec<&Path> = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|e| open_error(path, &e))?;
        if meta.is_dir() {
            return Err(EngineError::corpus(
                CorpusProblem::NotAFile,
                format!("{} is a folder, not a text file", shown(path)),
                path,
            ));
        }
        let size = if meta.is_file() {
            // Opening now reports a permission problem before any work is done; pipes
            // are not opened here, as that would wait for their writer.
            File::open(path).map_err(|e| open_error(path, &e))?;
            if meta.len() == 0 {
                empty.push(path);
            }
            Some(meta.len())
        } else if is_fifo(&meta) {
            None
        } else {
            return Err(EngineError::corpus(
                CorpusProblem::NotAFile,
                format!("{} is a device or socket, not a text file", shown(path)),
                path,
            ));
        };
        planned.push(PlannedFile { path: path.clone(), size });
    }
    match empty.as_slice() {
        [] => Ok(planned),
        [one] => Err(EngineError::corpus(CorpusProblem::Empty, format!("{} is empty", shown(one)), one)),
        many => {
            let listed: Vec<String> = many.iter().take(10).map(|p| shown(p).to_string()).collect();
            let more = if many.len() > 10 { format!(" and {} more", many.len() - 10) } else { String::new() };
            Err(EngineError::corpus(
                CorpusProblem::Empty,
                format!("{} corpus files are empty: {}{more}", many.len(), listed.join(", ")),
                many[0],
            ))
        }
    }
}

pub(crate) fn reason(err: &io::Error) -> String {
    match err.kind() {
        io::ErrorKind::NotFound => "the file does not exist".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => err.to_string(),
    }
}

fn open_error(path: &Path, err: &io::Error) -> EngineError {
    let problem = if err.kind() == io::ErrorKind::NotFound { CorpusProblem::Missing } else { CorpusProblem::Unreadable };
    EngineError::corpus(problem, format!("cannot open {}: {}", shown(path), reason(err)), path)
}

/// Wraps the raw input so that bytes read are counted (for progress) and hashed.
pub struct HashingReader<R> {
    inner: R,
    hasher: Sha256,
    progress: Arc<AtomicU64>,
    /// Raw bytes read from this input.
    raw: u64,
    /// Set when the raw input itself failed (as opposed to the gzip decoder).
    failed: bool,
}

impl<R: Read> HashingReader<R> {
    pub fn new(inner: R, progress: Arc<AtomicU64>) -> Self {
        HashingReader { inner, hasher: Sha256::new(), progress, raw: 0, failed: false }
    }

    fn finish(self, path: &Path, size: u64) -> FileInfo {
        let sha256 = self.hasher.finalize().iter().map(|b| format!("{b:02x}")).collect();
        FileInfo { path: path.to_path_buf(), size, sha256 }
    }
}

impl<R: Read> Read for HashingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf).inspect_err(|_| self.failed = true)?;
        self.hasher.update(&buf[..n]);
        self.raw += n as u64;
        self.progress.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Open `file` and stream it; None when the consumer stopped listening.
pub fn read_file(
    file: &PlannedFile,
    index: usize,
    limits: &Limits,
    progress: &Arc<AtomicU64>,
    send: &mut dyn FnMut(Block) -> bool,
) -> Result<Option<FileInfo>> {
    let path = &file.path;
    let opened = File::open(path).map_err(|e| open_error(path, &e))?;
    let mut raw = HashingReader::new(opened, progress.clone());
    if !stream_blocks(&mut raw, index, path, limits, send)? {
        return Ok(None);
    }
    match file.size {
        Some(size) if raw.raw != size => Err(EngineError::corpus(
            CorpusProblem::Changed,
            format!(
                "{} changed while it was being read: it had {size} bytes when training started, \
                 {} bytes were read (train again once the file is complete)",
                shown(path),
                raw.raw
            ),
            path,
        )),
        None if raw.raw == 0 => Err(EngineError::corpus(
            CorpusProblem::Empty,
            format!("{} is empty (nothing could be read from it)", shown(path)),
            path,
        )),
        _ => {
            let size = raw.raw;
            Ok(Some(raw.finish(path, size)))
        }
    }
}

/// The reader thread: streams every file as blocks, then returns each file's hash. An
/// error is sent down the channel, after the blocks before it.
pub fn spawn_reader(
    files: Vec<PlannedFile>,
    progress: Arc<AtomicU64>,
    queue: usize,
    limits: Limits,
) -> (Receiver<Result<Block>>, std::thread::JoinHandle<Vec<FileInfo>>) {
    let (tx, rx) = sync_channel::<Result<Block>>(queue);
    let handle = std::thread::spawn(move || {
        crate::priority::lower_this_thread();
        let mut infos = Vec::new();
        for (index, file) in files.iter().enumerate() {
            match read_file(file, index, &limits, &progress, &mut |b| tx.send(Ok(b)).is_ok()) {
                Ok(Some(info)) => infos.push(info),
                Ok(None) => return infos, // the consumer stopped
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return infos;
                }
            }
        }
        infos
    });
    (rx, handle)
}

fn read_error<R>(path: &Path, raw: &HashingReader<R>, gz: bool, err: &io::Error) -> EngineError {
    if gz && !raw.failed {
        return EngineError::corpus_at(
            CorpusProblem::Corrupt,
            format!(
                "cannot read {}: the compressed data is truncated or corrupt ({err}) \
                 near byte offset {} of the compressed file",
                shown(path),
                raw.raw
            ),
            Some(path),
            None,
        );
    }
    EngineError::corpus_at(
        CorpusProblem::Unreadable,
        format!("cannot read {} at byte offset {}: {}", shown(path), raw.raw, reason(err)),
        Some(path),
        Some(raw.raw),
    )
}

/// The text encoding a byte-order mark other than UTF-8's announces.
fn foreign_bom(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(&[0xff, 0xfe, 0, 0]) || head.starts_with(&[0, 0, 0xfe, 0xff]) {
        Some("UTF-32")
    } else if head.starts_with(&[0xff, 0xfe]) || head.starts_with(&[0xfe, 0xff]) {
        Some("UTF-16")
    } else {
        None
    }
}

/// Refuse text that is not UTF-8 at all: other byte-order marks, NUL bytes near the start.
pub(super) fn sniff(path: &Path, head: &[u8], offset: u64, gz: bool) -> Result<()> {
    let decompressed = if gz { " (after decompression)" } else { "" };
    if let Some(encoding) = foreign_bom(head) {
        return Err(EngineError::corpus_at(
            CorpusProblem::OtherEncoding,
            format!(
                "{} is {encoding} text{decompressed}, not UTF-8 (it starts with a {encoding} \
                 byte-order mark): save it as UTF-8 and add it again",
                shown(path)
            ),
            Some(path),
            Some(0),
        ));
    }
    let sniffed = &head[..head.len().min(BINARY_SNIFF)];
    let Some(first) = sniffed.iter().position(|&b| b == 0) else { return Ok(()) };
    let at = offset + first as u64;
    // UTF-16 without a byte-order mark: the zero bytes are all on one side of each pair.
    let nuls: Vec<usize> = sniffed.iter().enumerate().filter(|(_, &b)| b == 0).map(|(i, _)| i).collect();
    let utf16 = nuls.len() * 4 >= sniffed.len() && nuls.iter().all(|i| i % 2 == nuls[0] % 2);
    let message = if utf16 {
        format!(
            "{} looks like UTF-16 text{decompressed} (every other byte is 0), not UTF-8: \
             save it as UTF-8 and add it again",
            shown(path)
        )
    } else {
        format!(
            "{} looks like a binary file, not text: it has a NUL byte at byte offset {at}{decompressed}",
            shown(path)
        )
    };
    let problem = if utf16 { CorpusProblem::OtherEncoding } else { CorpusProblem::Binary };
    Err(EngineError::corpus_at(problem, message, Some(path), Some(at)))
}

/// Read one input (transparently gunzipped) and hand out blocks; false when told to stop.
pub fn stream_blocks<R: Read>(
    raw: &mut HashingReader<R>,
    file: usize,
    path: &Path,
    limits: &Limits,
    send: &mut dyn FnMut(Block) -> bool,
) -> Result<bool> {
    let (mut stream, gz) = match decompressed(&mut *raw) {
        Ok(opened) => opened,
        Err(e) => return Err(read_error(path, raw, false, &e)),
    };
    let mut pending: Vec<u8> = Vec::new();
    let mut offset: u64 = 0; // offset of pending[0] in the decompressed stream
    let mut first = true;
    let mut eof = false;
    while !eof {
        let start = pending.len();
        pending.resize(start + limits.block, 0);
        let got = read_full(&mut stream, &mut pending[start..]);
        let got = match got {
            Ok(g) => g,
            Err(e) => {
                drop(stream);
                return Err(read_error(path, raw, gz, &e));
            }
        };
        pending.truncate(start + got);
        eof = got < limits.block;
        if first {
            first = false;
            sniff(path, &pending, offset, gz)?;
            if pending.starts_with(&[0xef, 0xbb, 0xbf]) {
                pending.drain(..3);
                offset = 3;
            }
        }
        let cut = if eof { pending.len() } else { cut_point(&pending) };
        if cut == 0 {
            if pending.len() >= limits.unbroken {
                return Err(EngineError::corpus_at(
                    CorpusProblem::LineTooLong,
                    format!(
                        "{} has more than {} MB without a line break or a space, from byte offset \
                         {offset}: a word that long cannot be trained (break the text into lines)",
                        shown(path),
                        limits.unbroken >> 20
                    ),
                    Some(path),
                    Some(offset),
                ));
            }
            continue; // no safe cut yet: keep reading into the same block
        }
        let rest = pending.split_off(cut);
        let block = Block { file, offset, bytes: std::mem::replace(&mut pending, rest), gz };
        offset += cut as u64;
        if !send(block) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `input` gunzipped when its first two bytes are gzip's magic number, else as it is (the
/// content tells, not the file's name); and whether it was.
pub(crate) fn decompressed<R: Read>(mut input: R) -> io::Result<(GzOrPlain<io::Chain<io::Cursor<Vec<u8>>, R>>, bool)> {
    let mut magic = [0u8; 2];
    let n = read_full(&mut input, &mut magic)?;
    let gz = n == 2 && magic == [0x1f, 0x8b];
    Ok((GzOrPlain::new(io::Cursor::new(magic[..n].to_vec()).chain(input), gz), gz))
}

/// The decompressed stream of a gzip file, or the bytes as they are.
pub(crate) enum GzOrPlain<R: Read> {
    Gz(Box<flate2::read::MultiGzDecoder<R>>),
    Plain(R),
}

impl<R: Read> GzOrPlain<R> {
    fn new(inner: R, gz: bool) -> Self {
        if gz {
            GzOrPlain::Gz(Box::new(flate2::read::MultiGzDecoder::new(inner)))
        } else {
            GzOrPlain::Plain(inner)
        }
    }
}

impl<R: Read> Read for GzOrPlain<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            GzOrPlain::Gz(d) => d.read(buf),
            GzOrPlain::Plain(r) => r.read(buf),
        }
    }
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
/// follows a non-whitespace character (a word boundary for every pre-tokenizer). 0: none yet.
pub fn cut_point(buf: &[u8]) -> usize {
    if let Some(p) = buf.iter().rposition(|&b| b == b'\n') {
        return p + 1;
    }
    (1..buf.len()).rev().find(|&i| may_cut_before(buf, i)).unwrap_or(0)
}

/// Whether text may be cut just before byte `i`: a space after a character that is not
/// whitespace. (After whitespace, GPT-2's `\s+(?!\S)` would see the run differently; the
/// character is decoded because multi-byte ones such as U+2028 and U+00A0 are whitespace.)
pub fn may_cut_before(buf: &[u8], i: usize) -> bool {
    if i == 0 || buf[i] != b' ' {
        return false;
    }
    let mut start = i - 1;
    while start > 0 && i - start < 4 && buf[start] & 0xc0 == 0x80 {
        start -= 1;
    }
    match std::str::from_utf8(&buf[start..i]) {
        Ok(before) => before.chars().next_back().is_some_and(|c| !c.is_whitespace()),
        // Invalid UTF-8: an error, or U+FFFD (not whitespace) when replacing.
        Err(_) => true,
    }
}

/// A block as text: invalid UTF-8 and NUL bytes are errors naming the byte offset, or
/// with `lossy` become U+FFFD (the NUL check near the start of a file came earlier).
pub fn decode_block<'a>(block: &'a Block, path: &Path, lossy: bool) -> Result<std::borrow::Cow<'a, str>> {
    let text = match std::str::from_utf8(&block.bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(e) if !lossy => return Err(utf8_error(path, block, e.valid_up_to())),
        Err(_) => String::from_utf8_lossy(&block.bytes),
    };
    if !text.as_bytes().contains(&0) {
        return Ok(text);
    }
    if lossy {
        return Ok(std::borrow::Cow::Owned(text.replace('\0', "\u{fffd}")));
    }
    let pos = block.bytes.iter().position(|&b| b == 0).unwrap_or(0);
    let at = block.offset + pos as u64;
    let decompressed = if block.gz { " of the decompressed text" } else { "" };
    Err(EngineError::corpus_at(
        CorpusProblem::NulByte,
        format!(
            "{} has a NUL byte at byte offset {at}{decompressed}: it is binary or corrupt there \
             (clean the file, or read it with replacement characters)",
            shown(path)
        ),
        Some(path),
        Some(at),
    ))
}

/// [`decode_block`] of a block this takes: valid text keeps the block's buffer.
pub fn decode_block_owned(block: Block, path: &Path, lossy: bool) -> Result<String> {
    let Block { file, offset, bytes, gz } = block;
    let bytes = match String::from_utf8(bytes) {
        Ok(text) if !text.as_bytes().contains(&0) => return Ok(text),
        Ok(text) => text.into_bytes(),
        Err(e) => e.into_bytes(),
    };
    // A NUL byte or invalid UTF-8: replaced, or the error naming where.
    decode_block(&Block { file, offset, bytes, gz }, path, lossy).map(|text| text.into_owned())
}

fn utf8_error(path: &Path, block: &Block, valid: usize) -> EngineError {
    let at = block.offset + valid as u64;
    let bytes = &block.bytes;
    let bad: Vec<String> = bytes[valid..bytes.len().min(valid + 4)].iter().map(|b| format!("0x{b:02x}")).collect();
    let decompressed = if block.gz { " of the decompressed text" } else { "" };
    EngineError::corpus_at(
        CorpusProblem::NotUtf8,
        format!(
            "{} is not valid UTF-8: invalid byte sequence {} at byte offset {at}{decompressed} \
             (convert the file to UTF-8, or read it with replacement characters)",
            shown(path),
            bad.join(" ")
        ),
        Some(path),
        Some(at),
    )
}

/// Add the 1-based line number to an error that has a byte offset, by counting line
/// breaks up to it (read again: the fast path never counts lines). Best effort: the
/// error is returned unchanged if the file cannot be read again.
pub fn with_line(err: EngineError) -> EngineError {
    let EngineError::Corpus(mut fault) = err else { return err };
    let (Some(path), Some(offset), None) = (&fault.path, fault.offset, fault.line) else {
        return EngineError::Corpus(fault);
    };
    if !matches!(fault.problem, CorpusProblem::NotUtf8 | CorpusProblem::NulByte) {
        return EngineError::Corpus(fault);
    }
    if let Some(line) = line_at(path, offset) {
        fault.line = Some(line);
        fault.message = fault.message.replacen(
            &format!("at byte offset {offset}"),
            &format!("at byte offset {offset} (line {line})"),
            1,
        );
    }
    EngineError::Corpus(fault)
}

fn line_at(path: &Path, offset: u64) -> Option<u64> {
    if !std::fs::metadata(path).ok()?.is_file() {
        return None; // a pipe cannot be read twice (and opening it would wait for a writer)
    }
    let mut file = File::open(path).ok()?;
    let mut magic = [0u8; 2];
    let n = read_full(&mut file, &mut magic).ok()?;
    let gz = n == 2 && magic == [0x1f, 0x8b];
    let mut stream = GzOrPlain::new(io::Cursor::new(magic[..n].to_vec()).chain(file), gz).take(offset);
    let mut buf = vec![0u8; 1 << 16];
    let mut breaks = 0u64;
    loop {
        let got = stream.read(&mut buf).ok()?;
        if got == 0 {
            return Some(breaks + 1);
        }
        breaks += buf[..got].iter().filter(|&&b| b == b'\n').count() as u64;
    }
}

#[cfg(test)]
mod tests;

//! A text file's lines, counted for the desktop's corpus list while the user picks files
//! (or while a model trains on them): without the GIL, on a thread of the engine's (which
//! runs below the GUI thread when the front end asks, see `priority`). Counted in Python,
//! the count would hold the GIL for every MiB and compete for a core at the GUI thread's
//! priority, while training may be reading the same file.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use super::reader::{decompressed, reason, sniff, BINARY_SNIFF};
use crate::error::{shown, CorpusProblem, EngineError, Result};

/// Bytes read and counted at a time.
pub const BUFFER: usize = 1 << 20;

/// The lines of the file at `path`, gzip-compressed or not (told by its first two bytes,
/// as training tells): its newlines, and one more when it ends without one. None when
/// `cancel` was set meanwhile.
pub fn count_lines(path: &Path, cancel: Option<&AtomicBool>, buffer: usize) -> Result<Option<u64>> {
    let unreadable = |e: &io::Error| {
        EngineError::corpus(CorpusProblem::Unreadable, format!("cannot read {}: {}", shown(path), reason(e)), path)
    };
    let file = File::open(path).map_err(|e| unreadable(&e))?;
    let (mut stream, gz) = decompressed(file).map_err(|e| unreadable(&e))?;
    let mut buf = vec![0u8; buffer.max(1)];
    let (mut lines, mut last) = (0u64, b'\n');
    // Binary or UTF-16 files are refused here as training refuses them (from the same
    // first bytes), so the corpus list can mark them when they are added, not at Train.
    let mut head: Vec<u8> = Vec::new();
    let mut sniffed = false;
    loop {
        if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Ok(None);
        }
        let size = match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(size) => size,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) if gz => {
                return Err(EngineError::corpus(
                    CorpusProblem::Corrupt,
                    format!("cannot read {}: the compressed data is truncated or corrupt ({e})", shown(path)),
                    path,
                ))
            }
            Err(e) => return Err(unreadable(&e)),
        };
        if !sniffed {
            // (the first reads may be short: the gzip check peeks at two bytes)
            head.extend_from_slice(&buf[..size.min(BINARY_SNIFF - head.len())]);
            if head.len() >= BINARY_SNIFF {
                sniff(path, &head, 0, gz)?;
                sniffed = true;
            }
        }
        lines += buf[..size].iter().filter(|&&b| b == b'\n').count() as u64;
        last = buf[size - 1];
    }
    if !sniffed {
        sniff(path, &head, 0, gz)?;
    }
    Ok(Some(lines + u64::from(last != b'\n')))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn lines_of(data: &[u8]) -> u64 {
        data.iter().filter(|&&b| b == b'\n').count() as u64 + u64::from(!data.is_empty() && !data.ends_with(b"\n"))
    }

    #[test]
    fn counts_plain_and_compressed_files_across_buffer_refills() {
        let dir = std::env::temp_dir().join(format!("bpe-lines-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let samples: [&[u8]; 8] = [b"", b"\n", b"one", b"one\n", b"one\ntwo", b"a\n\n\nb\n", b"xxxxxxxxxx\nyyyyyyy", b"\n\n\n"];
        for (k, data) in samples.iter().enumerate() {
            let plain = dir.join(format!("{k}.txt"));
            std::fs::write(&plain, data).unwrap();
            let packed = dir.join(format!("{k}.txt.gz"));
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            gz.write_all(data).unwrap();
            std::fs::write(&packed, gz.finish().unwrap()).unwrap();
            for buffer in [1, 3, 4, BUFFER] {
                assert_eq!(count_lines(&plain, None, buffer).unwrap(), Some(lines_of(data)), "{data:?} {buffer}");
                assert_eq!(count_lines(&packed, None, buffer).unwrap(), Some(lines_of(data)), "{data:?} gz {buffer}");
            }
        }
        let cancelled = AtomicBool::new(true);
        assert_eq!(count_lines(&dir.join("3.txt"), Some(&cancelled), BUFFER).unwrap(), None);
        let missing = count_lines(&dir.join("none.txt"), None, BUFFER).unwrap_err().to_string();
        assert!(missing.contains("none.txt") && missing.contains("does not exist"), "{missing}");
        std::fs::write(dir.join("bad.gz"), [0x1f, 0x8b, 8, 0, 0, 0]).unwrap();
        let corrupt = count_lines(&dir.join("bad.gz"), None, BUFFER).unwrap_err().to_string();
        assert!(corrupt.contains("truncated or corrupt"), "{corrupt}");
        // refused as training refuses them: binary data, UTF-16 text
        std::fs::write(dir.join("x.bin"), b"\x7fELF\x02\x01\x00\x00rest").unwrap();
        let binary = count_lines(&dir.join("x.bin"), None, BUFFER).unwrap_err();
        assert!(binary.to_string().contains("looks like a binary file"), "{binary}");
        std::fs::write(dir.join("u16.txt"), b"h\x00i\x00 \x00t\x00h\x00e\x00r\x00e\x00").unwrap();
        let utf16 = count_lines(&dir.join("u16.txt"), None, BUFFER).unwrap_err().to_string();
        assert!(utf16.contains("UTF-16"), "{utf16}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

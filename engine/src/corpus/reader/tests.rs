//! The reader: cut points, blocks, failing streams, encodings and limits.

use super::*;

/// Fails with an I/O error after handing out `good` bytes of `data`.
struct FailingReader {
    data: Vec<u8>,
    at: usize,
    good: usize,
}

impl Read for FailingReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at >= self.good {
            return Err(io::Error::other("input/output error"));
        }
        let n = buf.len().min(self.good - self.at);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

fn stream(data: &[u8], limits: Limits) -> Result<Vec<Block>> {
    let mut raw = HashingReader::new(io::Cursor::new(data.to_vec()), Arc::new(AtomicU64::new(0)));
    let mut blocks = Vec::new();
    stream_blocks(&mut raw, 0, Path::new("c.txt"), &limits, &mut |b| {
        blocks.push(b);
        true
    })?;
    Ok(blocks)
}

#[test]
fn cut_point_prefers_newlines_then_spaces() {
    assert_eq!(cut_point(b"ab\ncd ef"), 3);
    assert_eq!(cut_point(b"ab cd  ef"), 5);
    assert_eq!(cut_point(b"abcdef"), 0);
}

#[test]
fn no_cut_after_whitespace_of_any_width() {
    for ws in ["\u{2028}", "\u{a0}", "\u{3000}", "\u{b}", "\u{85}", "\t"] {
        let text = format!("ab{ws} cd");
        assert_eq!(cut_point(text.as_bytes()), 0, "{ws:?}");
    }
    assert_eq!(cut_point("ab\u{e9} cd".as_bytes()), 4);
    assert_eq!(cut_point(b"ab\xe9 cd"), 3, "invalid UTF-8 is not whitespace");
}

#[test]
fn blocks_cover_the_text_and_end_at_cuts() {
    let text: Vec<u8> = b"one two\nthree four five six seven\n".repeat(50);
    let blocks = stream(&text, Limits { block: 16, unbroken: 1 << 20 }).unwrap();
    let joined: Vec<u8> = blocks.iter().flat_map(|b| b.bytes.clone()).collect();
    assert_eq!(joined, text);
    let mut offset = 0;
    for b in &blocks {
        assert_eq!(b.offset, offset);
        offset += b.bytes.len() as u64;
    }
}

#[test]
fn a_read_failure_names_the_file_and_offset() {
    let data = b"some words\n".repeat(1000);
    let mut raw = HashingReader::new(FailingReader { data, at: 0, good: 4000 }, Arc::new(AtomicU64::new(0)));
    let err = stream_blocks(&mut raw, 0, Path::new("disk.txt"), &Limits::DEFAULT, &mut |_| true).unwrap_err();
    let EngineError::Corpus(fault) = err else { panic!("not a corpus error") };
    assert_eq!(fault.problem, CorpusProblem::Unreadable);
    assert_eq!(fault.offset, Some(4000));
    assert!(fault.message.contains("disk.txt") && fault.message.contains("input/output error"), "{}", fault.message);
}

#[test]
fn a_stretch_without_breaks_is_bounded() {
    let long = vec![b'a'; 5000];
    let err = stream(&long, Limits { block: 512, unbroken: 2048 }).err().unwrap();
    assert_eq!(err.corpus_problem(), Some(CorpusProblem::LineTooLong));
    // With a space now and then the same length streams in small blocks.
    let spaced: Vec<u8> = b"aaaaaaaaa ".repeat(500);
    let blocks = stream(&spaced, Limits { block: 512, unbroken: 2048 }).unwrap();
    assert!(blocks.iter().all(|b| b.bytes.len() <= 1024));
}

#[test]
fn other_encodings_and_binary_are_refused() {
    let utf16: Vec<u8> = "hello world".encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
    let with_bom = [&[0xff, 0xfe][..], &utf16].concat();
    for data in [with_bom.as_slice(), &utf16] {
        let err = stream(data, Limits::DEFAULT).err().unwrap();
        assert_eq!(err.corpus_problem(), Some(CorpusProblem::OtherEncoding), "{err}");
    }
    let err = stream(b"GIF89a\x01\x00\x01\x00\x80\xff\x00", Limits::DEFAULT).err().unwrap();
    assert_eq!(err.corpus_problem(), Some(CorpusProblem::Binary));
}

#[test]
fn nul_bytes_later_are_errors_or_replaced() {
    let block = Block { file: 0, offset: 100, bytes: b"ab\0cd".to_vec(), gz: false };
    let err = decode_block(&block, Path::new("x.txt"), false).unwrap_err();
    let EngineError::Corpus(fault) = err else { panic!() };
    assert_eq!((fault.problem, fault.offset), (CorpusProblem::NulByte, Some(102)));
    assert_eq!(decode_block(&block, Path::new("x.txt"), true).unwrap(), "ab\u{fffd}cd");
}

#[test]
fn a_block_decoded_in_its_own_buffer_reads_as_a_borrowed_one() {
    let cases: [&[u8]; 4] = [b"plain text\n", "caf\u{e9} \u{1f600}\n".as_bytes(), b"ab\0cd", b"ok \xff\xfe bad"];
    for bytes in cases {
        for lossy in [false, true] {
            let block = || Block { file: 0, offset: 100, bytes: bytes.to_vec(), gz: false };
            let borrowed = decode_block(&block(), Path::new("x.txt"), lossy).map(|t| t.into_owned());
            let owned = decode_block_owned(block(), Path::new("x.txt"), lossy);
            match (borrowed, owned) {
                (Ok(a), Ok(b)) => assert_eq!(a, b),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                (a, b) => panic!("{a:?} against {b:?}"),
            }
        }
    }
}

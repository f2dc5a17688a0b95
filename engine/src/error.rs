//! Errors the engine reports. Every variant carries a complete, user-facing sentence.

use std::fmt;
use std::path::{Path, PathBuf};

/// Why a corpus could not be read: lets a front end offer the right way out (e.g. read
/// the file again with replacement characters after [`CorpusProblem::NotUtf8`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CorpusProblem {
    /// The path does not exist (or no longer does).
    Missing,
    /// A folder, device or socket instead of a file.
    NotAFile,
    /// The operating system refused or failed to read it.
    Unreadable,
    /// Zero bytes long.
    Empty,
    /// NUL bytes near the start: an image, an archive, a program.
    Binary,
    /// UTF-16 or UTF-32 text (a byte-order mark, or every other byte 0).
    OtherEncoding,
    /// Invalid UTF-8 (strict mode only; replacement characters get past it).
    NotUtf8,
    /// A NUL byte further in (strict mode only; replacement characters get past it).
    NulByte,
    /// The compressed data is truncated or corrupt.
    Corrupt,
    /// The file's size changed while it was read.
    Changed,
    /// A stretch of text with no line break or space longer than the engine accepts.
    LineTooLong,
    /// The text contains no words at all.
    NoWords,
    /// A line of a word-count table is malformed.
    BadLine,
}

impl CorpusProblem {
    /// The name Python sees as `CorpusError.reason`.
    pub fn name(self) -> &'static str {
        match self {
            CorpusProblem::Missing => "missing",
            CorpusProblem::NotAFile => "not-a-file",
            CorpusProblem::Unreadable => "unreadable",
            CorpusProblem::Empty => "empty",
            CorpusProblem::Binary => "binary",
            CorpusProblem::OtherEncoding => "other-encoding",
            CorpusProblem::NotUtf8 => "not-utf8",
            CorpusProblem::NulByte => "nul-byte",
            CorpusProblem::Corrupt => "corrupt",
            CorpusProblem::Changed => "changed",
            CorpusProblem::LineTooLong => "line-too-long",
            CorpusProblem::NoWords => "no-words",
            CorpusProblem::BadLine => "bad-line",
        }
    }
}

/// Where and why a corpus failed. `offset` is a byte offset into the file (into the
/// decompressed text for `.gz` files), `line` is 1-based.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorpusFault {
    pub message: String,
    pub problem: CorpusProblem,
    pub path: Option<PathBuf>,
    pub offset: Option<u64>,
    pub line: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineError {
    /// An option is invalid or inconsistent.
    Config(String),
    /// A corpus cannot be read.
    Corpus(Box<CorpusFault>),
    /// Text or ids cannot be encoded/decoded with this model.
    Encode(String),
    /// The job was cancelled (by the flag, or the progress callback asked to stop).
    Cancelled,
    /// A bug in the engine (a caught panic, a worker thread that died).
    Internal(String),
}

impl EngineError {
    pub fn corpus(problem: CorpusProblem, message: impl Into<String>, path: &Path) -> Self {
        Self::corpus_at(problem, message, Some(path), None)
    }

    pub fn corpus_at(
        problem: CorpusProblem,
        message: impl Into<String>,
        path: Option<&Path>,
        offset: Option<u64>,
    ) -> Self {
        EngineError::Corpus(Box::new(CorpusFault {
            message: message.into(),
            problem,
            path: path.map(Path::to_path_buf),
            offset,
            line: None,
        }))
    }

    /// The corpus problem, if this is a corpus error (for tests and callers that branch).
    pub fn corpus_problem(&self) -> Option<CorpusProblem> {
        match self {
            EngineError::Corpus(f) => Some(f.problem),
            _ => None,
        }
    }
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Config(m) | EngineError::Encode(m) | EngineError::Internal(m) => f.write_str(m),
            EngineError::Corpus(fault) => f.write_str(&fault.message),
            EngineError::Cancelled => f.write_str("training was cancelled"),
        }
    }
}

impl std::error::Error for EngineError {}

pub type Result<T> = std::result::Result<T, EngineError>;

/// A file name as shown in messages.
pub fn shown(path: &Path) -> std::path::Display<'_> {
    path.display()
}

//! Errors the engine reports. Every variant carries a complete, user-facing sentence.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineError {
    /// An option is invalid or inconsistent.
    Config(String),
    /// A corpus cannot be read. `offset` is a byte offset into `path`, `line` 1-based.
    Corpus { message: String, path: Option<String>, offset: Option<u64>, line: Option<u64> },
    /// Text or ids cannot be encoded/decoded with this model.
    Encode(String),
    /// The job was cancelled (by the flag, or the progress callback asked to stop).
    Cancelled,
}

impl EngineError {
    pub fn corpus(message: impl Into<String>, path: &str) -> Self {
        EngineError::Corpus { message: message.into(), path: Some(path.to_string()), offset: None, line: None }
    }
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Config(m) | EngineError::Encode(m) => f.write_str(m),
            EngineError::Corpus { message, .. } => f.write_str(message),
            EngineError::Cancelled => f.write_str("training was cancelled"),
        }
    }
}

impl std::error::Error for EngineError {}

pub type Result<T> = std::result::Result<T, EngineError>;

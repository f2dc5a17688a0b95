//! The GPT-4 (`cl100k_base`), Llama 3 and GPT-4o (`o200k_base`) pre-tokenization patterns,
//! and a hand-written lexer ([`lexer`]) that cuts text exactly as a backtracking regex
//! engine runs them (tiktoken's core runs them with `fancy-regex`: they need look-ahead,
//! `\s+(?!\S)`, and possessive quantifiers, which the `regex` crate lacks). The tests
//! compare the lexer with `fancy-regex` running the patterns.
//!
//! The patterns are character for character the `pat_str` of tiktoken's `openai_public`
//! encodings and the `Split` regex of Llama 3's `tokenizer.json`: exporting them back (HF
//! `Split`, tiktoken `pat_str`) must reproduce the file a user imported, and an import is
//! exact only when its pattern equals one of these.
//!
//! Semantics equal Python's `regex.findall(pattern, text)` with these caveats:
//! * Letter, mark, number and whitespace classes come from `regex-syntax`'s Unicode tables
//!   (those `fancy-regex` uses); code points that a newer Unicode version assigns are
//!   "other" here until its tables catch up.
//! * Every code point belongs to one alternative of each pattern (a letter, number,
//!   whitespace or other char), so the pre-tokens cover the text.
//! * A whitespace run of any length is cut by the patterns' rules, where a regex engine's
//!   backtracking stack may fail on one of about a million chars (tiktoken then fails).

/// `cl100k_base`'s pattern (GPT-3.5, GPT-4).
pub const CL100K_PATTERN: &str = r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s";

/// Llama 3's pattern: `cl100k_base`'s older form, without possessive quantifiers and
/// `\s++$`. It cuts the same words except at the end of a text, where a run of
/// whitespace after a line break is one word in `cl100k_base` (`"a\n "`: `"a"`, `"\n "`)
/// and two here (`"\n"`, `" "`).
pub const LLAMA3_PATTERN: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

/// `o200k_base`'s pattern (GPT-4o): words split before an upper-case letter that follows
/// lower-case ones (`HelloWorld` -> `Hello`, `World`), contractions kept with their word.
pub const O200K_PATTERN: &str = concat!(
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    "|",
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    "|",
    r"\p{N}{1,3}",
    "|",
    r" ?[^\s\p{L}\p{N}]+[\r\n/]*",
    "|",
    r"\s*[\r\n]+",
    "|",
    r"\s+(?!\S)",
    "|",
    r"\s+",
);

/// Which of the three patterns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gpt4Pattern {
    Cl100k,
    Llama3,
    O200k,
}

impl Gpt4Pattern {
    pub fn source(self) -> &'static str {
        match self {
            Self::Cl100k => CL100K_PATTERN,
            Self::Llama3 => LLAMA3_PATTERN,
            Self::O200k => O200K_PATTERN,
        }
    }
}

/// Calls `emit` with each pre-token of `text` under `pattern`, in order; they concatenate
/// to `text`. With `per_line` each `\n`-terminated line is split on its own, as HF
/// tokenizers trains from a file.
pub fn split_gpt4<'a>(pattern: Gpt4Pattern, text: &'a str, per_line: bool, emit: &mut impl FnMut(&'a str)) {
    if per_line {
        for line in text.split_inclusive('\n') {
            lexer::split(pattern, line, emit);
        }
    } else {
        lexer::split(pattern, text, emit);
    }
}

mod classes;
mod lexer;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod equivalence_tests;

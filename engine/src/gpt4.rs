//! The GPT-4 (`cl100k_base`), Llama 3 and GPT-4o (`o200k_base`) pre-tokenization patterns,
//! run by `fancy-regex` as tiktoken's own core runs them: the patterns need look-ahead
//! (`\s+(?!\S)`) and possessive quantifiers, which the `regex` crate lacks.
//!
//! The patterns are character for character the `pat_str` of tiktoken's `openai_public`
//! encodings and the `Split` regex of Llama 3's `tokenizer.json`: exporting them back (HF
//! `Split`, tiktoken `pat_str`) must reproduce the file a user imported, and an import is
//! exact only when its pattern equals one of these.
//!
//! Semantics equal Python's `regex.findall(pattern, text)` with these caveats, both outside
//! text a user can type today:
//! * Letter, mark and number classes come from `regex-syntax`'s Unicode tables; code points
//!   that a newer Unicode version assigns are "other" here until its tables catch up.
//! * Every code point belongs to one alternative of each pattern (a letter, number,
//!   whitespace or other char), so the matches cover the text; a gap, were there one, is
//!   still emitted, as the byte-level encoding must lose nothing.
//! * A whitespace run of about a million chars exhausts `fancy-regex`'s backtracking stack
//!   (tiktoken then fails); its pre-tokens are found by the same rules, by hand.

use std::sync::OnceLock;

use fancy_regex::{Regex, RegexBuilder};

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

    fn regex(self) -> &'static Regex {
        static CL100K: OnceLock<Regex> = OnceLock::new();
        static LLAMA3: OnceLock<Regex> = OnceLock::new();
        static O200K: OnceLock<Regex> = OnceLock::new();
        let cell = match self {
            Self::Cl100k => &CL100K,
            Self::Llama3 => &LLAMA3,
            Self::O200k => &O200K,
        };
        cell.get_or_init(|| {
            RegexBuilder::new(self.source())
                // Each match attempt backtracks at most over the run it starts (a run of
                // letters, digits or whitespace): time is linear without a limit.
                .backtrack_limit(usize::MAX)
                .build()
                .expect("the GPT-4 patterns compile")
        })
    }
}

/// Calls `emit` with each pre-token of `text` under `pattern`, in order; they concatenate
/// to `text`. With `per_line` each `\n`-terminated line is split on its own, as HF
/// tokenizers trains from a file.
pub fn split_gpt4<'a>(pattern: Gpt4Pattern, text: &'a str, per_line: bool, emit: &mut impl FnMut(&'a str)) {
    if per_line {
        for line in text.split_inclusive('\n') {
            split_all(pattern, line, emit);
        }
    } else {
        split_all(pattern, text, emit);
    }
}

fn split_all<'a>(pattern: Gpt4Pattern, text: &'a str, emit: &mut impl FnMut(&'a str)) {
    let re = pattern.regex();
    let mut at = 0;
    while at < text.len() {
        let end = match re.find_from_pos(text, at) {
            Ok(Some(m)) => {
                if m.start() > at {
                    emit(&text[at..m.start()]);
                }
                m.end()
            }
            Ok(None) => text.len(),
            // The backtracking stack holds one entry per char of a whitespace run that
            // `\s+(?!\S)` may give back: a run of about a million fails the match.
            Err(_) => whitespace_token_end(pattern, text, at),
        };
        emit(&text[at..end]);
        at = end;
    }
}

/// End of the pre-token at `at` when it starts a whitespace run too long for the regex
/// engine, by the patterns' whitespace alternatives (the earlier ones need a letter or
/// other char right after a single whitespace char, which a long run is not):
/// `\s++$` (cl100k: a run up to the end is one token), `\s*[\r\n]` / `\s*[\r\n]+` (up to
/// the run's last line break), `\s+(?!\S)` (all but the last char before a non-space), `\s`.
/// Not whitespace (unreached: only whitespace runs exhaust the stack): the rest, whole.
fn whitespace_token_end(pattern: Gpt4Pattern, text: &str, at: usize) -> usize {
    let run = text[at..].find(|c: char| !c.is_whitespace()).map_or(text.len(), |n| at + n);
    if run == at {
        return text.len();
    }
    let at_end = run == text.len();
    if at_end && pattern == Gpt4Pattern::Cl100k {
        return run;
    }
    if let Some(last_break) = text[at..run].rfind(['\r', '\n']) {
        return at + last_break + 1;
    }
    if at_end {
        return run;
    }
    let last_char = text[..run].char_indices().next_back().map_or(at, |(i, _)| i);
    if last_char > at {
        last_char
    } else {
        run
    }
}

#[cfg(test)]
mod tests;

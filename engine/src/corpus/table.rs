//! Word-count tables: `word<TAB>count` lines, as `bpe-desktop count` writes them and
//! training reads them.
//!
//! A table whose first line is [`HEADER`] has its words escaped (`\\`, `\t`, `\n`,
//! `\r`), so that every word the pre-tokenizers make (GPT-2's keep their newline) fits
//! on one line. Its second line may be [`LANGUAGE_PREFIX`] and a language code: the
//! language the words were counted from (multilingual training reads it; counting skips
//! it, since a line without a tab cannot be an entry). A table without it is read literally (each line's last tab separates the
//! count), so tables made by other tools (Spark, a spreadsheet) need no escaping.

use std::borrow::Cow;
use std::fmt::Write;

use super::WordCounts;

/// First line of an escaped table (what `bpe-desktop count` writes).
pub const HEADER: &str = "#bpe-desktop word counts 1: word<TAB>count, backslash escapes \\\\ \\t \\n \\r";

/// Start of an escaped table's optional second line, `#language: CODE`.
pub const LANGUAGE_PREFIX: &str = "#language: ";

/// `word` with backslash, tab, newline and carriage return escaped.
pub fn escape_into(word: &str, out: &mut String) {
    if !word.contains(['\\', '\t', '\n', '\r']) {
        out.push_str(word);
        return;
    }
    for c in word.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

/// The word an escaped table line holds; the error says what is wrong.
pub fn unescape(word: &str) -> std::result::Result<Cow<'_, str>, String> {
    if !word.contains('\\') {
        return Ok(Cow::Borrowed(word));
    }
    let mut out = String::with_capacity(word.len());
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => out.push('\\'),
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => return Err(format!("unknown escape \\{other} (known: \\\\ \\t \\n \\r)")),
            None => return Err("the word ends with a lone backslash".into()),
        }
    }
    Ok(Cow::Owned(out))
}

/// Lines `start..end` of `table` as escaped `word<TAB>count` text (with [`HEADER`] first
/// when `header`).
pub fn escaped_lines(table: &WordCounts, start: usize, end: usize, header: bool) -> String {
    let end = end.min(table.len());
    let start = start.min(end);
    let mut out = String::with_capacity((end - start) * 16 + HEADER.len() + 1);
    if header {
        out.push_str(HEADER);
        out.push('\n');
    }
    for i in start..end {
        escape_into(table.words.get(i), &mut out);
        // Writing to a String cannot fail.
        let _ = writeln!(out, "\t{}", table.counts[i]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_round_trips_every_special_character() {
        for word in ["plain", "a\\b", "tab\there", " line\n", "\r\n", "\\n", "\\", "日本\t語"] {
            let mut escaped = String::new();
            escape_into(word, &mut escaped);
            assert!(!escaped.contains(['\t', '\n', '\r']), "{escaped:?}");
            assert_eq!(unescape(&escaped).unwrap(), word);
        }
    }

    #[test]
    fn bad_escapes_are_errors() {
        assert!(unescape("a\\x").unwrap_err().contains("\\x"));
        assert!(unescape("a\\").unwrap_err().contains("lone backslash"));
    }
}

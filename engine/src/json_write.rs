//! JSON text as Python's `json` module writes it (`ensure_ascii=False`), for the parts of a
//! model file that are long lists (merges, training words): built without the GIL, so an
//! autosave beside the GUI runs no Python per merge or word.

use std::fmt::Write;

/// `s` as a JSON string, escaped as `json.encoder.encode_basestring` does: `"`, `\`, and
/// the control characters below U+0020 (`\n`, `\r`, `\t`, `\b`, `\f` by name, the rest as
/// `\u00xx` in lowercase hex); everything else as it is.
pub fn push_string(out: &mut String, s: &str) {
    out.push('"');
    let mut plain = 0; // start of the run not yet copied
    for (at, byte) in s.bytes().enumerate() {
        let escaped = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[plain..at]);
        if escaped.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(HEX[usize::from(byte >> 4)] as char);
            out.push(HEX[usize::from(byte & 15)] as char);
        } else {
            out.push_str(escaped);
        }
        plain = at + 1;
    }
    out.push_str(&s[plain..]);
    out.push('"');
}

/// The rows of one of a model file's long lists, each `["s1", ..., "sN", count]` (an unknown
/// count, `None`: `null`), joined by `",\n" + pad`: `parts` holds `per_row` strings a row,
/// row after row (`merges`: left and right, 2 a row; `words`: the word, 1 a row).
pub fn rows<S: AsRef<str>>(parts: &[S], per_row: usize, counts: &[Option<u64>], pad: &str) -> String {
    let size: usize = parts.iter().map(|p| p.as_ref().len() + 4).sum();
    let mut out = String::with_capacity(size + counts.len() * (pad.len() + 12));
    for (i, (row, &count)) in parts.chunks_exact(per_row).zip(counts).enumerate() {
        if i > 0 {
            out.push_str(",\n");
            out.push_str(pad);
        }
        out.push('[');
        for part in row {
            push_string(&mut out, part.as_ref());
            out.push_str(", ");
        }
        match count {
            Some(count) => write!(out, "{count}").expect("a String takes any text"),
            None => out.push_str("null"),
        }
        out.push(']');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string(s: &str) -> String {
        let mut out = String::new();
        push_string(&mut out, s);
        out
    }

    #[test]
    fn strings_are_escaped_as_python_writes_them() {
        assert_eq!(string(""), r#""""#);
        assert_eq!(string("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(string("\n\r\t\u{8}\u{c}"), r#""\n\r\t\b\f""#);
        assert_eq!(string("\u{0}\u{1f}\u{7f}"), "\"\\u0000\\u001f\u{7f}\"");
        assert_eq!(string("é你</w>Ġ▁"), "\"é你</w>Ġ▁\"");
    }

    #[test]
    fn merges_are_one_item_a_line_with_null_for_an_unknown_count() {
        let parts: Vec<String> = ["a", "b", "ab", "\"", "x", "y"].iter().map(|s| s.to_string()).collect();
        assert_eq!(rows(&parts, 2, &[Some(5), Some(u64::MAX), None], "  "),
                   "[\"a\", \"b\", 5],\n  [\"ab\", \"\\\"\", 18446744073709551615],\n  [\"x\", \"y\", null]");
        assert_eq!(rows::<&str>(&[], 2, &[], "  "), "");
    }

    #[test]
    fn words_are_a_string_and_a_count_a_line() {
        let parts: Vec<String> = ["the", "caf\u{e9}\n"].iter().map(|s| s.to_string()).collect();
        assert_eq!(rows(&parts, 1, &[Some(7), Some(1)], " "), "[\"the\", 7],\n [\"caf\u{e9}\\n\", 1]");
    }
}

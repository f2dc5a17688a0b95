//! GPT-2 pre-tokenization without a regex engine. Equivalent to
//! `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`.

use unicode_general_category::{get_general_category, GeneralCategory as G};

fn is_letter(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    matches!(get_general_category(c), G::UppercaseLetter | G::LowercaseLetter | G::TitlecaseLetter | G::ModifierLetter | G::OtherLetter)
}

fn is_number(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    matches!(get_general_category(c), G::DecimalNumber | G::LetterNumber | G::OtherNumber)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Letter,
    Number,
    Space,
    Other,
}

fn class(c: char) -> Class {
    if is_letter(c) {
        Class::Letter
    } else if is_number(c) {
        Class::Number
    } else if c.is_whitespace() {
        Class::Space
    } else {
        Class::Other
    }
}

/// Calls `emit` with each pre-token of `text`, in order; the pre-tokens concatenate to `text`.
pub fn split_gpt2<'a>(text: &'a str, mut emit: impl FnMut(&'a str)) {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let n = chars.len();
    let at = |k: usize| if k < n { chars[k].0 } else { text.len() };
    let run = |mut k: usize, cls: Class| {
        while k < n && class(chars[k].1) == cls {
            k += 1;
        }
        k
    };
    let mut i = 0;
    while i < n {
        let c = chars[i].1;
        // Contractions.
        if c == '\'' && i + 1 < n {
            let c1 = chars[i + 1].1;
            let len = match c1 {
                's' | 't' | 'm' | 'd' => 2,
                'r' | 'v' if i + 2 < n && chars[i + 2].1 == 'e' => 3,
                'l' if i + 2 < n && chars[i + 2].1 == 'l' => 3,
                _ => 0,
            };
            if len > 0 {
                emit(&text[at(i)..at(i + len)]);
                i += len;
                continue;
            }
        }
        // An optional space, then a run of one class.
        let (start, body) = if c == ' ' && i + 1 < n && class(chars[i + 1].1) != Class::Space { (i, i + 1) } else { (i, i) };
        let cls = class(chars[body].1);
        if cls != Class::Space {
            let end = run(body, cls);
            emit(&text[at(start)..at(end)]);
            i = end;
            continue;
        }
        // Whitespace: all of it at the end of text; else all but the last character.
        let end = run(i, Class::Space);
        let end = if end == n || end - i == 1 { end } else { end - 1 };
        emit(&text[at(i)..at(end)]);
        i = end;
    }
}

//! The development words as the trainer's symbols.

use rustc_hash::FxHashMap;

use crate::symbols::UNK;
use crate::text::{byte_to_char_table, Boundary, TextRules, BOW, EOW};

/// The development words of every language as symbol ids over `alphabet` (characters
/// outside it are the unknown symbol), the same way `symbols::symbolize` builds training
/// words: `(ids, count, characters)` per word.
pub fn symbolize_dev(words: &[(String, u64)], alphabet: &[String], rules: &TextRules) -> Vec<(Vec<u32>, u64, u64)> {
    let index: FxHashMap<&str, u32> = alphabet.iter().enumerate().map(|(i, s)| (s.as_str(), i as u32)).collect();
    let table = byte_to_char_table();
    let id = |s: &str| index.get(s).copied().unwrap_or(UNK);
    words
        .iter()
        .map(|(word, count)| {
            let chars: Vec<char> = if rules.pretokenizer.byte_level() {
                word.bytes().map(|b| table[b as usize]).collect()
            } else {
                word.chars().collect()
            };
            let mut ids = Vec::with_capacity(chars.len() + 1);
            if rules.boundary == Boundary::BowPrefix {
                ids.push(id(BOW));
            }
            for (i, c) in chars.iter().enumerate() {
                let last = i + 1 == chars.len();
                if rules.boundary == Boundary::EowSuffix && last {
                    ids.push(id(&format!("{c}{EOW}")));
                } else {
                    ids.push(id(&c.to_string()));
                }
            }
            if rules.boundary == Boundary::EowSymbol {
                ids.push(id(EOW));
            }
            (ids, *count, word.chars().count() as u64)
        })
        .collect()
}

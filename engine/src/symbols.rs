//! From counted words to symbol sequences: the alphabet, character coverage, markers.
//!
//! The alphabet is every symbol that starts out in some word (characters, `c</w>`
//! variants, the marker symbols) plus the initial alphabet, in code-point order; a
//! symbol's id is its index there. Byte-level models always have all 256 bytes.
//! Characters dropped by the coverage rule become [`UNK`], which is never merged.

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::corpus::WordCounts;
use crate::text::{byte_to_char_table, to_byte_chars, Boundary, TextRules, BOW, EOW};

/// The symbol standing for a character outside the alphabet.
pub const UNK: u32 = u32::MAX;

/// Words as symbol-id sequences in one arena, with their counts, in first-seen order.
#[derive(Debug, Clone, Default)]
pub struct WordTable {
    /// The word as trained (byte-level words in GPT-2 characters), without markers.
    pub words: Vec<String>,
    pub counts: Vec<u64>,
    pub syms: Vec<u32>,
    pub starts: Vec<usize>,
    pub lens: Vec<u32>,
}

impl WordTable {
    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    pub fn symbols(&self, w: usize) -> &[u32] {
        &self.syms[self.starts[w]..self.starts[w] + self.lens[w] as usize]
    }
}

#[derive(Debug, Clone)]
pub struct Symbolized {
    pub alphabet: Vec<String>,
    pub table: WordTable,
    /// Characters in the corpus (each occurrence weighted by its word's count).
    pub characters: u128,
    /// Of those, how many became the unknown symbol.
    pub unknown_characters: u128,
}

pub fn symbolize(wc: WordCounts, rules: &TextRules, coverage: f64, initial_alphabet: &str) -> Symbolized {
    let byte_level = rules.pretokenizer.byte_level();
    let WordCounts { words, counts, .. } = wc;
    let words: Vec<String> = if byte_level {
        let table = byte_to_char_table();
        words.par_iter().map(|w| to_byte_chars(w, &table)).collect()
    } else {
        words
    };

    // 1. Character frequencies, weighted by word counts.
    let freq: FxHashMap<char, u128> = words
        .par_iter()
        .zip(counts.par_iter())
        .fold(FxHashMap::default, |mut m: FxHashMap<char, u128>, (w, &c)| {
            for ch in w.chars() {
                *m.entry(ch).or_insert(0) += c as u128;
            }
            m
        })
        .reduce(FxHashMap::default, |mut a, b| {
            for (k, v) in b {
                *a.entry(k).or_insert(0) += v;
            }
            a
        });
    let characters: u128 = freq.values().sum();

    // 2. Which characters are kept.
    let kept: rustc_hash::FxHashSet<char> = if byte_level {
        byte_to_char_table().into_iter().collect()
    } else {
        let mut by_freq: Vec<(char, u128)> = freq.iter().map(|(&c, &n)| (c, n)).collect();
        by_freq.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut kept = rustc_hash::FxHashSet::default();
        let mut cum: u128 = 0;
        for (c, n) in by_freq {
            kept.insert(c);
            cum += n;
            if coverage < 1.0 && cum as f64 >= coverage * characters as f64 {
                break;
            }
        }
        kept
    };
    let unknown_characters: u128 = freq.iter().filter(|(c, _)| !kept.contains(c)).map(|(_, n)| *n).sum();

    // 3. Each word's initial symbols as strings, then the alphabet they form.
    let boundary = rules.boundary;
    let word_symbols = |w: &str| -> Vec<Option<String>> {
        let n = w.chars().count();
        let mut out: Vec<Option<String>> = Vec::with_capacity(n + 1);
        if boundary == Boundary::BowPrefix {
            out.push(Some(BOW.to_string()));
        }
        for (i, ch) in w.chars().enumerate() {
            if !kept.contains(&ch) {
                out.push(None);
            } else if boundary == Boundary::EowSuffix && i + 1 == n {
                out.push(Some(format!("{ch}{EOW}")));
            } else {
                out.push(Some(ch.to_string()));
            }
        }
        if boundary == Boundary::EowSymbol {
            out.push(Some(EOW.to_string()));
        }
        out
    };
    let mut alphabet: Vec<String> = words
        .par_iter()
        .fold(rustc_hash::FxHashSet::default, |mut set: rustc_hash::FxHashSet<String>, w| {
            set.extend(word_symbols(w).into_iter().flatten());
            set
        })
        .reduce(rustc_hash::FxHashSet::default, |mut a, b| {
            a.extend(b);
            a
        })
        .into_iter()
        .collect();
    if byte_level {
        alphabet.extend(byte_to_char_table().iter().map(|c| c.to_string()));
    } else {
        alphabet.extend(initial_alphabet.chars().map(|c| c.to_string()));
    }
    alphabet.sort();
    alphabet.dedup();
    let index: FxHashMap<&str, u32> = alphabet.iter().enumerate().map(|(i, s)| (s.as_str(), i as u32)).collect();

    // 4. Words as symbol ids.
    let seqs: Vec<Vec<u32>> = words
        .par_iter()
        .map(|w| word_symbols(w).into_iter().map(|s| s.map_or(UNK, |s| index[s.as_str()])).collect())
        .collect();
    let mut table = WordTable { words, counts, ..Default::default() };
    let total: usize = seqs.iter().map(|s| s.len()).sum();
    table.syms.reserve_exact(total);
    for s in seqs {
        table.starts.push(table.syms.len());
        table.lens.push(s.len() as u32);
        table.syms.extend(s);
    }
    Symbolized { alphabet, table, characters, unknown_characters }
}

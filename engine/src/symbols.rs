//! From counted words to symbol sequences: the alphabet, character coverage, markers.
//!
//! The alphabet is every symbol that starts out in some word (characters, `c</w>`
//! variants, the marker symbols) plus the initial alphabet, in code-point order; a
//! symbol's id is its index there. Byte-level models always have all 256 bytes.
//! Characters dropped by the coverage rule become [`UNK`], which is never merged.

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::corpus::WordCounts;
use crate::text::{byte_to_char_table, Boundary, TextRules, BOW, EOW};
use crate::wordlist::WordList;

/// The symbol standing for a character outside the alphabet.
pub const UNK: u32 = u32::MAX;

/// Words as symbol-id sequences in one arena, with their counts, in first-seen order.
#[derive(Debug, Clone, Default)]
pub struct WordTable {
    /// The word as trained (byte-level words in GPT-2 characters), without markers.
    pub words: WordList,
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
    let words: WordList = if byte_level {
        let table = byte_to_char_table();
        let mut mapped = WordList::with_capacity(words.len(), words.text_len() * 2);
        for w in words.iter() {
            mapped.push_chars(w.bytes().map(|b| table[b as usize]));
        }
        mapped.shrink_to_fit();
        mapped
    } else {
        words
    };
    let ids = || (0..words.len()).into_par_iter();

    // 1. Character frequencies, weighted by word counts.
    let freq: FxHashMap<char, u128> = ids()
        .fold(FxHashMap::default, |mut m: FxHashMap<char, u128>, i| {
            let (w, c) = (words.get(i), counts[i]);
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
    let kept: FxHashSet<char> = if byte_level {
        byte_to_char_table().into_iter().collect()
    } else {
        let mut by_freq: Vec<(char, u128)> = freq.iter().map(|(&c, &n)| (c, n)).collect();
        by_freq.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut kept = FxHashSet::default();
        let mut cum: u128 = 0;
        for (c, n) in by_freq {
            kept.insert(c);
            cum += n;
            // Compare shares, as the reference does: 55/100 must meet a coverage of 0.55.
            if coverage < 1.0 && cum as f64 / characters as f64 >= coverage {
                break;
            }
        }
        // A character that is in the alphabet anyway is never unknown, or a training word
        // would not re-encode to its training segmentation.
        kept.extend(initial_alphabet.chars());
        if rules.boundary == Boundary::BowPrefix {
            kept.extend(BOW.chars());
        }
        kept
    };
    let unknown_characters: u128 = freq.iter().filter(|(c, _)| !kept.contains(c)).map(|(_, n)| *n).sum();

    // 3. The alphabet: every kept character where it occurs (word-final ones as `c</w>`
    //    with the suffix marker), the marker symbols, the initial alphabet.
    let suffix = rules.boundary == Boundary::EowSuffix;
    let (inner, last): (FxHashSet<char>, FxHashSet<char>) = ids()
        .fold(
            || (FxHashSet::default(), FxHashSet::default()),
            |(mut inner, mut last): (FxHashSet<char>, FxHashSet<char>), i| {
                let mut chars = words.get(i).chars().peekable();
                while let Some(c) = chars.next() {
                    if suffix && chars.peek().is_none() {
                        last.insert(c);
                    } else {
                        inner.insert(c);
                    }
                }
                (inner, last)
            },
        )
        .reduce(
            || (FxHashSet::default(), FxHashSet::default()),
            |(mut a, mut b), (c, d)| {
                a.extend(c);
                b.extend(d);
                (a, b)
            },
        );
    let mut alphabet: Vec<String> = inner.iter().filter(|c| kept.contains(c)).map(|c| c.to_string()).collect();
    alphabet.extend(last.iter().filter(|c| kept.contains(c)).map(|c| format!("{c}{EOW}")));
    match rules.boundary {
        Boundary::EowSymbol => alphabet.push(EOW.to_string()),
        Boundary::BowPrefix => alphabet.push(BOW.to_string()),
        _ => {}
    }
    if byte_level {
        alphabet.extend(byte_to_char_table().iter().map(|c| c.to_string()));
    } else {
        alphabet.extend(initial_alphabet.chars().map(|c| c.to_string()));
    }
    alphabet.sort();
    alphabet.dedup();
    let id_of = |s: &str| alphabet.binary_search_by(|a| a.as_str().cmp(s)).unwrap() as u32;
    let char_id: FxHashMap<char, u32> = inner.iter().filter(|c| kept.contains(c)).map(|&c| (c, id_of(&c.to_string()))).collect();
    let final_id: FxHashMap<char, u32> =
        last.iter().filter(|c| kept.contains(c)).map(|&c| (c, id_of(&format!("{c}{EOW}")))).collect();
    let marker = match rules.boundary {
        Boundary::EowSymbol => Some(id_of(EOW)),
        Boundary::BowPrefix => Some(id_of(BOW)),
        _ => None,
    };

    // 4. Words as symbol ids, written straight into one arena (in parallel, in chunks).
    let marked = usize::from(marker.is_some());
    let lens: Vec<u32> = ids().map(|i| (words.get(i).chars().count() + marked) as u32).collect();
    let mut starts = Vec::with_capacity(lens.len());
    let mut total = 0usize;
    for &n in &lens {
        starts.push(total);
        total += n as usize;
    }
    let mut syms = vec![0u32; total];
    let write = |w: usize, out: &mut [u32]| {
        let mut k = 0;
        let mut put = |id: u32| {
            out[k] = id;
            k += 1;
        };
        if rules.boundary == Boundary::BowPrefix {
            marker.into_iter().for_each(&mut put);
        }
        let mut chars = words.get(w).chars().peekable();
        while let Some(c) = chars.next() {
            let table = if suffix && chars.peek().is_none() { &final_id } else { &char_id };
            put(table.get(&c).copied().unwrap_or(UNK));
        }
        if rules.boundary == Boundary::EowSymbol {
            marker.into_iter().for_each(&mut put);
        }
    };
    const CHUNK: usize = 1 << 14;
    let mut regions: Vec<(usize, &mut [u32])> = Vec::with_capacity(lens.len() / CHUNK + 1);
    let mut rest: &mut [u32] = &mut syms;
    for first in (0..lens.len()).step_by(CHUNK) {
        let end = (first + CHUNK).min(lens.len());
        let size: usize = lens[first..end].iter().map(|&n| n as usize).sum();
        let (region, tail) = std::mem::take(&mut rest).split_at_mut(size);
        regions.push((first, region));
        rest = tail;
    }
    regions.into_par_iter().for_each(|(first, region)| {
        let base = starts[first];
        for w in first..(first + CHUNK).min(lens.len()) {
            let at = starts[w] - base;
            write(w, &mut region[at..at + lens[w] as usize]);
        }
    });
    let table = WordTable { words, counts, syms, starts, lens };
    Symbolized { alphabet, table, characters, unknown_characters }
}

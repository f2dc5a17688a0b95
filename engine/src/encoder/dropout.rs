//! BPE-dropout (Provilkov et al. 2020) with HF tokenizers' `BPE(dropout=p)` semantics.
//!
//! Candidate merges are taken one occurrence at a time, lowest (rank, position) first;
//! each is skipped with probability p. A skipped candidate is set aside and comes back
//! as soon as a later candidate is not skipped (as in HF's `Word::merge_all`, even when
//! that one turns out stale); the word is done when every candidate left was skipped. p = 0 is ordinary
//! encoding, p = 1 leaves the word's initial symbols.
//!
//! The random numbers come from SplitMix64 seeded per call, so a sample is reproducible
//! from its seed alone (no dependency on a global generator or on threads).

use std::cmp::Reverse;

use super::merge::LinkedWord;
use super::Encoder;
use crate::error::{EngineError, Result};

/// The skip probability and the random stream of one encoding call.
pub struct Dropout {
    p: f64,
    state: u64,
}

impl Dropout {
    pub fn new(p: f64, seed: u64) -> Result<Self> {
        if !(0.0..=1.0).contains(&p) {
            return Err(EngineError::Config(format!("dropout must be from 0 to 1; got {p}")));
        }
        Ok(Dropout { p, state: seed })
    }

    pub fn probability(&self) -> f64 {
        self.p
    }

    /// SplitMix64 (Steele, Lea and Flood 2014): one 64-bit add and a mix per number.
    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) from the top 53 bits.
    fn next_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Whether to skip this candidate merge. p = 0 and p = 1 draw nothing.
    fn skip(&mut self) -> bool {
        if self.p <= 0.0 {
            false
        } else if self.p >= 1.0 {
            true
        } else {
            self.next_unit() < self.p
        }
    }
}

impl Encoder {
    /// Merge a word's symbols with dropout (a linked list and a heap of candidates).
    pub(super) fn merge_dropout(&self, syms: &[u32], dropout: &mut Dropout) -> Vec<u32> {
        let n = syms.len();
        let LinkedWord { mut sym, mut next, mut prev, mut alive, mut heap } = self.linked_word(syms);
        let mut skipped: Vec<Reverse<(u32, usize)>> = Vec::new();
        while let Some(Reverse((rank, i))) = heap.pop() {
            // As HF: draw first, and any entry not skipped gives the skipped ones back,
            // even a stale one (merged away, or its pair changed) that is then dropped.
            if dropout.skip() {
                skipped.push(Reverse((rank, i)));
                continue;
            }
            heap.extend(skipped.drain(..));
            if !alive[i] || next[i] >= n {
                continue;
            }
            let j = next[i];
            let c = match self.ranks.get(sym[i], sym[j]) {
                Some((r, c)) if r == rank => c,
                _ => continue,
            };
            sym[i] = c;
            alive[j] = false;
            next[i] = next[j];
            if next[j] < n {
                prev[next[j]] = i;
            }
            self.push_neighbour_pairs(&mut heap, &sym, &prev, &next, &alive, i);
        }
        (0..n).filter(|&i| alive[i]).map(|i| sym[i]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoder::tests::toy;

    #[test]
    fn zero_dropout_is_ordinary_merging() {
        let e = toy();
        for n in 1..120 {
            for tail in ["", "b", "ab", "aab"] {
                let word = "a".repeat(n) + tail;
                let syms = e.symbols(&word).unwrap();
                let mut d = Dropout::new(0.0, 7).unwrap();
                assert_eq!(e.merge_dropout(&syms, &mut d), e.merge_long(&syms), "{word}");
            }
        }
    }

    #[test]
    fn full_dropout_keeps_the_symbols() {
        let e = toy();
        let syms = e.symbols("aaaab").unwrap();
        let mut d = Dropout::new(1.0, 7).unwrap();
        assert_eq!(e.merge_dropout(&syms, &mut d), syms);
    }

    #[test]
    fn same_seed_same_sample_and_samples_decode() {
        let e = toy();
        let text = "aaaaab aab ab aaaaaaaaab";
        let sample = |seed| e.encode_sampled(text, false, &mut Dropout::new(0.5, seed).unwrap()).unwrap();
        assert_eq!(sample(3), sample(3));
        let distinct: std::collections::HashSet<Vec<u32>> = (0..20).map(sample).collect();
        assert!(distinct.len() > 1);
        for seed in 0..20 {
            assert_eq!(e.decode(&sample(seed)).unwrap(), text);
        }
    }

    #[test]
    fn greedy_with_dropout_is_refused() {
        let e = toy();
        assert!(e.encode_sampled("ab", true, &mut Dropout::new(0.5, 1).unwrap()).is_err());
        assert_eq!(e.encode_sampled("ab", true, &mut Dropout::new(0.0, 1).unwrap()).unwrap(), e.encode("ab", true).unwrap());
    }

    #[test]
    fn probability_out_of_range_is_refused() {
        assert!(Dropout::new(-0.1, 0).is_err());
        assert!(Dropout::new(1.5, 0).is_err());
        assert!(Dropout::new(f64::NAN, 0).is_err());
    }

    #[test]
    fn splitmix_matches_reference_values() {
        // First outputs of SplitMix64 seeded with 0 (reference implementation by Vigna).
        let mut d = Dropout::new(0.5, 0).unwrap();
        assert_eq!(d.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(d.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }
}

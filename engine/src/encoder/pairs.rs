//! Merge ranks of symbol pairs in one flat open-addressing table: a probe is a multiply,
//! a shift and (nearly always) one 16-byte slot, where a general hash map costs more per
//! lookup. Encoding does a lookup for every adjacent pair it sees, so this is hot.

/// No pair has this key: ids are below the vocabulary size, which fits in u32.
const EMPTY: u64 = u64::MAX;
/// Returned by [`PairTable::rank`] for a pair that is not a merge.
pub const NO_RANK: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Slot {
    key: u64,
    rank: u32,
    result: u32,
}

pub struct PairTable {
    slots: Vec<Slot>,
    shift: u32,
    len: usize,
}

fn key(left: u32, right: u32) -> u64 {
    ((left as u64) << 32) | right as u64
}

impl PairTable {
    /// A table for `capacity` pairs, at most a quarter full (a miss then ends within
    /// about one slot: pairs that are not merges are most lookups on unusual text).
    pub fn with_capacity(capacity: usize) -> Self {
        let size = (capacity.max(4) * 4).next_power_of_two();
        PairTable { slots: vec![Slot { key: EMPTY, rank: NO_RANK, result: 0 }; size], shift: 64 - size.trailing_zeros(), len: 0 }
    }

    #[inline]
    fn home(&self, k: u64) -> usize {
        (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// Adds (left, right) -> (rank, result) unless the pair is already there (the first
    /// merge of a pair wins). Returns whether it was added.
    pub fn insert_first(&mut self, left: u32, right: u32, rank: u32, result: u32) -> bool {
        if (self.len + 1) * 4 > self.slots.len() {
            self.grow();
        }
        let k = key(left, right);
        let mask = self.slots.len() - 1;
        let mut i = self.home(k);
        loop {
            let slot = &mut self.slots[i];
            if slot.key == k {
                return false;
            }
            if slot.key == EMPTY {
                *slot = Slot { key: k, rank, result };
                self.len += 1;
                return true;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let old = std::mem::replace(self, PairTable::with_capacity(self.slots.len()));
        for s in old.slots.into_iter().filter(|s| s.key != EMPTY) {
            self.insert_first((s.key >> 32) as u32, s.key as u32, s.rank, s.result);
        }
    }

    /// (rank, result) of merging `left` with `right`, if that is a merge.
    #[inline]
    pub fn get(&self, left: u32, right: u32) -> Option<(u32, u32)> {
        let k = key(left, right);
        let mask = self.slots.len() - 1;
        let mut i = self.home(k);
        loop {
            let slot = self.slots[i];
            if slot.key == k {
                return Some((slot.rank, slot.result));
            }
            if slot.key == EMPTY {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// The merge rank of the pair, or [`NO_RANK`].
    #[inline]
    pub fn rank(&self, left: u32, right: u32) -> u32 {
        self.get(left, right).map_or(NO_RANK, |(r, _)| r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustc_hash::FxHashMap;

    #[test]
    fn agrees_with_a_hash_map_and_keeps_the_first_rank() {
        let mut table = PairTable::with_capacity(1);
        let mut map = FxHashMap::default();
        let mut x: u64 = 12345;
        for rank in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (l, r) = ((x % 300) as u32, ((x >> 20) % 300) as u32);
            let added = table.insert_first(l, r, rank, rank + 7);
            assert_eq!(added, !map.contains_key(&(l, r)));
            map.entry((l, r)).or_insert((rank, rank + 7));
        }
        for l in 0..310 {
            for r in 0..310 {
                assert_eq!(table.get(l, r), map.get(&(l, r)).copied());
            }
        }
        assert_eq!(table.rank(u32::MAX - 1, 0), NO_RANK);
    }
}

//! Recent look-ups of the pair index.

/// A small direct-mapped cache of `pair_index` (pair key -> pair number). One merge
/// touches the same few neighbouring pairs in word after word, and the full index (millions
/// of pairs) misses the processor cache on most look-ups. Always exact: the index never
/// renumbers a pair, and a pair leaving it is forgotten here too, so a cached number
/// stays right.
pub(super) struct PairCache {
    slots: Vec<(u64, u32)>,
}

impl PairCache {
    const BITS: u32 = 10;
    /// No pair has this key (token ids stay far below u32::MAX).
    const FREE: u64 = u64::MAX;

    pub(super) fn new() -> Self {
        PairCache { slots: vec![(Self::FREE, 0); 1 << Self::BITS] }
    }

    #[inline]
    fn slot(k: u64) -> usize {
        (k.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - Self::BITS)) as usize
    }

    #[inline]
    pub(super) fn get(&self, k: u64) -> Option<u32> {
        let (key, idx) = self.slots[Self::slot(k)];
        (key == k).then_some(idx)
    }

    #[inline]
    pub(super) fn put(&mut self, k: u64, idx: u32) {
        self.slots[Self::slot(k)] = (k, idx);
    }

    /// The pair left the index (its number may be reused).
    #[inline]
    pub(super) fn forget(&mut self, k: u64) {
        let slot = &mut self.slots[Self::slot(k)];
        if slot.0 == k {
            *slot = (Self::FREE, 0);
        }
    }
}

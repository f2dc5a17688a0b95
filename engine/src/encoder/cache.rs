//! Words already encoded, kept across calls: most calls encode short texts whose words
//! were seen before, so re-running BPE on each word of each call would dominate.
//!
//! One cache per (thread, encoder, mode): lookups take no lock and threads never contend.
//! Bounded: a thread keeps caches for at most [`ENCODERS_PER_THREAD`] encoders (the least
//! recently used is dropped), each holding at most [`CACHE_WORDS`] words of at most
//! [`CACHED_WORD_BYTES`] bytes; a full cache is emptied and refilled. The cache only stores
//! what `encode_word` returned, so ids are the same with or without it.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use rustc_hash::FxHashMap;

/// Words per cache before it is emptied.
pub const CACHE_WORDS: usize = 1 << 16;
/// Longer words are not cached (rare, and they would dominate the cache's memory).
pub const CACHED_WORD_BYTES: usize = 128;
/// Encoders whose caches one thread keeps.
pub const ENCODERS_PER_THREAD: usize = 4;

static NEXT_ENCODER: AtomicU64 = AtomicU64::new(1);

/// A fresh identity for an encoder (never reused, unlike an address).
pub fn new_encoder_id() -> u64 {
    NEXT_ENCODER.fetch_add(1, Ordering::Relaxed)
}

/// Up to 7 bytes as one integer: the bytes (little-endian) with the length in the top
/// byte, so it names exactly one byte string. Read with at most three loads (they overlap
/// and agree where they do), without a byte loop or a `memcpy` call.
#[inline]
fn pack7(b: &[u8]) -> u64 {
    let n = b.len();
    debug_assert!(n <= 7);
    let load4 = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes")) as u64;
    let bytes = match n {
        0 => 0,
        1..=3 => b[0] as u64 | (b[n / 2] as u64) << (8 * (n / 2)) | (b[n - 1] as u64) << (8 * (n - 1)),
        _ => load4(0) | load4(n - 4) << (8 * (n - 4)),
    };
    bytes | (n as u64) << 56
}

/// A word by length class: most words fit in one or two integers, hashed and compared
/// without a `memcmp` call, in small entries (16 or 24 bytes) that keep the cache compact.
enum Key<'a> {
    Upto7(u64),
    Upto15(u64, u64),
    Long(&'a [u8]),
}

#[inline]
fn key_of(b: &[u8]) -> Key<'_> {
    match b.len() {
        0..=7 => Key::Upto7(pack7(b)),
        8..=15 => Key::Upto15(u64::from_le_bytes(b[..8].try_into().expect("8 bytes")), pack7(&b[8..])),
        _ => Key::Long(b),
    }
}

/// Marks a cached word of one token, kept in the entry itself: (id, SINGLE).
const SINGLE: u32 = u32::MAX;

#[derive(Default)]
pub struct WordCache {
    /// word -> (start, length) in `ids`, or (id, SINGLE); by length class (see `Key`).
    upto7: FxHashMap<u64, (u32, u32)>,
    upto15: FxHashMap<(u64, u64), (u32, u32)>,
    long: FxHashMap<Box<[u8]>, (u32, u32)>,
    ids: Vec<u32>,
}

impl WordCache {
    #[inline(always)]
    pub fn get(&self, word: &str) -> Option<&[u32]> {
        let found = match key_of(word.as_bytes()) {
            Key::Upto7(k) => self.upto7.get(&k),
            Key::Upto15(a, b) => self.upto15.get(&(a, b)),
            Key::Long(b) => self.long.get(b),
        };
        found.map(|place| match place.1 {
            SINGLE => std::slice::from_ref(&place.0),
            n => &self.ids[place.0 as usize..(place.0 + n) as usize],
        })
    }

    pub fn insert(&mut self, word: &str, ids: &[u32]) {
        if word.len() > CACHED_WORD_BYTES {
            return;
        }
        if self.len() >= CACHE_WORDS {
            self.upto7.clear();
            self.upto15.clear();
            self.long.clear();
            self.ids.clear();
        }
        let place = if let [id] = ids {
            (*id, SINGLE) // most words are one token: no second memory access on a hit
        } else {
            self.ids.extend_from_slice(ids);
            ((self.ids.len() - ids.len()) as u32, ids.len() as u32)
        };
        match key_of(word.as_bytes()) {
            Key::Upto7(k) => self.upto7.insert(k, place),
            Key::Upto15(a, b) => self.upto15.insert((a, b), place),
            Key::Long(b) => self.long.insert(b.into(), place),
        };
    }

    pub fn len(&self) -> usize {
        self.upto7.len() + self.upto15.len() + self.long.len()
    }
}

/// (encoder, greedy): whose cache.
type CacheOwner = (u64, bool);

thread_local! {
    /// Most recently used last.
    static CACHES: RefCell<Vec<(CacheOwner, WordCache)>> = const { RefCell::new(Vec::new()) };
}

/// Run `f` with this thread's cache for (encoder, greedy). Re-entered on the same thread
/// (not done today), `f` gets a fresh cache that is then dropped.
pub fn with_cache<R>(encoder: u64, greedy: bool, f: impl FnOnce(&mut WordCache) -> R) -> R {
    let mut f = Some(f);
    let done = CACHES.try_with(|caches| {
        let Ok(mut caches) = caches.try_borrow_mut() else { return None };
        let key = (encoder, greedy);
        match caches.iter().position(|(k, _)| *k == key) {
            Some(i) => {
                let entry = caches.remove(i);
                caches.push(entry);
            }
            None => {
                if caches.len() >= ENCODERS_PER_THREAD * 2 {
                    caches.remove(0);
                }
                caches.push((key, WordCache::default()));
            }
        }
        let cache = &mut caches.last_mut().expect("just pushed").1;
        Some(f.take().expect("called once")(cache))
    });
    match done {
        Ok(Some(r)) => r,
        _ => f.take().expect("not called yet")(&mut WordCache::default()),
    }
}

/// Take this thread's caches of `encoder` out (when it is dropped), for the caller to drop.
pub fn forget(encoder: u64) -> Vec<WordCache> {
    CACHES
        .try_with(|caches| {
            let Ok(mut caches) = caches.try_borrow_mut() else { return Vec::new() };
            let (gone, kept) = std::mem::take(&mut *caches).into_iter().partition(|((e, _), _)| *e == encoder);
            *caches = kept;
            gone.into_iter().map(|(_, words)| words).collect::<Vec<_>>()
        })
        .unwrap_or_default()
}

/// Words cached on this thread for (encoder, greedy): for tests.
pub fn cached_words(encoder: u64, greedy: bool) -> usize {
    CACHES.with(|c| c.borrow().iter().find(|(k, _)| *k == (encoder, greedy)).map_or(0, |(_, w)| w.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_keys_name_one_word() {
        // Words over a small alphabet up to 16 bytes (sampled), incl. repeats and NUL.
        let mut seen: FxHashMap<(u64, u64), Vec<u8>> = FxHashMap::default();
        let alphabet = [b'a', 0u8, 0xff];
        let mut x: u64 = 5;
        for n in 0..=16usize {
            for _ in 0..4000 {
                let w: Vec<u8> = (0..n)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        alphabet[(x % 3) as usize]
                    })
                    .collect();
                let k = match key_of(&w) {
                    Key::Upto7(a) => (a, u64::MAX), // never a pack7 value: apart from Upto15
                    Key::Upto15(a, b) => (a, b),
                    Key::Long(b) => {
                        assert_eq!(b.len(), 16);
                        continue;
                    }
                };
                assert_eq!(seen.entry(k).or_insert_with(|| w.clone()), &w);
            }
        }
        assert_eq!(pack7(b"abc"), u64::from_le_bytes(*b"abc\0\0\0\0\x03"));
        assert_eq!(pack7(b"abcdef"), u64::from_le_bytes(*b"abcdef\0\x06"));
        let mut cache = WordCache::default();
        cache.insert(&"a".repeat(9), &[9]);
        cache.insert(&"a".repeat(10), &[10]);
        cache.insert(&"a".repeat(40), &[40, 41]);
        cache.insert("", &[]);
        assert_eq!(cache.get(&"a".repeat(9)), Some(&[9][..]));
        assert_eq!(cache.get(&"a".repeat(10)), Some(&[10][..]));
        assert_eq!(cache.get(&"a".repeat(40)), Some(&[40, 41][..]));
        assert_eq!(cache.get(""), Some(&[][..]));
        assert_eq!(cache.get(&"a".repeat(11)), None);
    }

    #[test]
    fn bounded_in_words_and_length() {
        let mut cache = WordCache::default();
        for i in 0..CACHE_WORDS + 10 {
            cache.insert(&format!("w{i}"), &[i as u32]);
        }
        assert!(cache.len() <= CACHE_WORDS);
        assert_eq!(cache.get(&format!("w{}", CACHE_WORDS + 9)), Some(&[(CACHE_WORDS + 9) as u32][..]));
        cache.insert(&"x".repeat(CACHED_WORD_BYTES + 1), &[1]);
        assert_eq!(cache.get(&"x".repeat(CACHED_WORD_BYTES + 1)), None);
    }

    #[test]
    fn one_thread_keeps_few_encoders_and_reentry_gets_its_own() {
        let ids: Vec<u64> = (0..ENCODERS_PER_THREAD * 3).map(|_| new_encoder_id()).collect();
        for &e in &ids {
            with_cache(e, false, |c| c.insert("a", &[1]));
        }
        let kept = ids.iter().filter(|&&e| cached_words(e, false) == 1).count();
        assert_eq!(kept, ENCODERS_PER_THREAD * 2);
        let e = ids[ids.len() - 1];
        with_cache(e, false, |outer| {
            assert_eq!(outer.get("a"), Some(&[1][..]));
            with_cache(e, false, |inner| assert_eq!(inner.get("a"), None));
        });
        forget(e);
        assert_eq!(cached_words(e, false), 0);
    }
}

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

#[derive(Default)]
pub struct WordCache {
    /// word -> (start, length) in `ids`.
    words: FxHashMap<Box<[u8]>, (u32, u32)>,
    ids: Vec<u32>,
}

impl WordCache {
    #[inline]
    pub fn get(&self, word: &str) -> Option<&[u32]> {
        self.words.get(word.as_bytes()).map(|&(s, n)| &self.ids[s as usize..(s + n) as usize])
    }

    pub fn insert(&mut self, word: &str, ids: &[u32]) {
        if word.len() > CACHED_WORD_BYTES {
            return;
        }
        if self.words.len() >= CACHE_WORDS {
            self.words.clear();
            self.ids.clear();
        }
        let start = self.ids.len() as u32;
        self.ids.extend_from_slice(ids);
        self.words.insert(word.as_bytes().into(), (start, ids.len() as u32));
    }

    pub fn len(&self) -> usize {
        self.words.len()
    }
}

type Key = (u64, bool);

thread_local! {
    /// Most recently used last.
    static CACHES: RefCell<Vec<(Key, WordCache)>> = const { RefCell::new(Vec::new()) };
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

/// Drop this thread's caches of `encoder` (when it is dropped).
pub fn forget(encoder: u64) {
    let _ = CACHES.try_with(|caches| {
        if let Ok(mut caches) = caches.try_borrow_mut() {
            caches.retain(|((e, _), _)| *e != encoder);
        }
    });
}

/// Words cached on this thread for (encoder, greedy): for tests.
pub fn cached_words(encoder: u64, greedy: bool) -> usize {
    CACHES.with(|c| c.borrow().iter().find(|(k, _)| *k == (encoder, greedy)).map_or(0, |(_, w)| w.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

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

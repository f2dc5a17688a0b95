//! The encoder's unit tests.

use super::*;
use crate::text::{Normalization, PreTokenizer};

pub(super) fn rules(boundary: Boundary) -> TextRules {
    TextRules { normalization: Normalization::None, lowercase: false, pretokenizer: PreTokenizer::Whitespace, boundary }
}

#[test]
fn large_parts_are_freed_on_another_thread() {
    use std::sync::{Arc, Mutex};
    use std::thread::ThreadId;
    struct Recorder(Arc<Mutex<Option<ThreadId>>>);
    impl Drop for Recorder {
        fn drop(&mut self) {
            *self.0.lock().unwrap() = Some(std::thread::current().id());
        }
    }
    let freed_on = Arc::new(Mutex::new(None));
    free_elsewhere(Recorder(freed_on.clone()));
    let start = std::time::Instant::now();
    while freed_on.lock().unwrap().is_none() && start.elapsed().as_secs() < 10 {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let thread = freed_on.lock().unwrap().expect("freed within 10 s");
    assert_ne!(thread, std::thread::current().id());
}

#[test]
fn a_large_encoder_dropped_leaves_no_cache_on_this_thread() {
    let pieces: Vec<String> = (0..FREE_ELSEWHERE_PIECES as u32).map(|i| char::from_u32(0x4E00 + i).unwrap().to_string()).collect();
    let enc = Encoder::new(rules(Boundary::None), pieces, &[], None, FxHashMap::default(), false).unwrap();
    enc.encode("\u{4E00}\u{4E01} \u{4E02}", false).unwrap();
    let id = enc.cache_id();
    assert!(cache::cached_words(id, false) > 0);
    drop(enc);
    assert_eq!(cache::cached_words(id, false), 0);
}

pub(super) fn toy() -> Encoder {
    // a b </w> ; merges: a+a -> aa, aa+a -> aaa, b+</w> -> b</w>
    let pieces: Vec<String> = ["<unk>", "</w>", "a", "b", "aa", "aaa", "b</w>"].iter().map(|s| s.to_string()).collect();
    let merges = [(2, 2, 4), (4, 2, 5), (3, 1, 6)];
    let mut specials = FxHashMap::default();
    specials.insert(0, SpecialRole::Unk);
    Encoder::new(rules(Boundary::EowSymbol), pieces, &merges, Some(0), specials, false).unwrap()
}

#[test]
fn cached_words_give_the_same_ids_across_calls() {
    let e = toy();
    let text = "aaab ab aaaaab b aaab";
    let first = e.encode(text, false).unwrap();
    assert!(cached_words(e.cache_id(), false) > 0);
    for _ in 0..3 {
        assert_eq!(e.encode(text, false).unwrap(), first);
    }
    // The greedy mode has its own cache: its ids differ here.
    assert_eq!(e.encode("aaaab", true).unwrap(), vec![5, 2, 6]);
    assert_eq!(e.encode("aaaab", false).unwrap(), vec![4, 4, 6]);
    let id = e.cache_id();
    drop(e);
    assert_eq!(cached_words(id, false), 0);
}

#[test]
fn runs_merge_left_to_right() {
    let e = toy();
    assert_eq!(e.encode_word("aaa", false).unwrap(), vec![5, 1]);
    // a a a a a -> aa aa a -> aa aaa (rank 1 applies where aa meets a)
    assert_eq!(e.encode_word("aaaaa", false).unwrap(), vec![4, 5, 1]);
}

#[test]
fn unknown_characters_map_to_unk_and_decode() {
    let e = toy();
    let ids = e.encode("ab xb", false).unwrap();
    assert_eq!(ids, vec![2, 6, 0, 6]);
    assert_eq!(e.decode(&ids).unwrap(), "ab <unk>b");
}

#[test]
fn greedy_takes_longest_prefix() {
    let e = toy();
    assert_eq!(e.encode_word("aaaab", true).unwrap(), vec![5, 2, 6]);
}

fn suffix_toy(fuse_unk: bool) -> Encoder {
    // eow-suffix: k, s, s</w>, a</w>; "ä" is unknown.
    let pieces: Vec<String> = ["<unk>", "a</w>", "k", "s", "s</w>", "ks</w>"].iter().map(|s| s.to_string()).collect();
    let merges = [(2, 4, 5)];
    let mut specials = FxHashMap::default();
    specials.insert(0, SpecialRole::Unk);
    Encoder::new(rules(Boundary::EowSuffix), pieces, &merges, Some(0), specials, fuse_unk).unwrap()
}

#[test]
fn word_final_unknown_keeps_its_word_end_in_decode_words() {
    let e = suffix_toy(false);
    let ids = e.encode("kä a", false).unwrap();
    assert_eq!(ids, vec![2, 0, 1]);
    // Ids alone: the unknown token swallowed "ä</w>", so the words run together.
    assert_eq!(e.decode(&ids).unwrap(), "k<unk>a");
    assert_eq!(e.decode_words(&ids, &[2]).unwrap(), "k<unk> a");
    assert!(e.decode_words(&ids, &[4]).is_err());
}

#[test]
fn byte_fallback_spells_unknown_characters_in_byte_pieces() {
    // "я" is D1 8F in UTF-8; "ж" (D0 B6) lacks <0xB6>, so it stays unknown.
    let pieces: Vec<String> = ["<unk>", "a", "<0xD1>", "<0x8F>", "<0xD0>"].iter().map(|s| s.to_string()).collect();
    let mut specials = FxHashMap::default();
    specials.insert(0, SpecialRole::Unk);
    let e = Encoder::new(rules(Boundary::None), pieces, &[], Some(0), specials, true).unwrap().with_byte_fallback(true);
    assert_eq!(e.encode("aяa ж", false).unwrap(), vec![1, 2, 3, 1, 0]);
    assert_eq!(e.encode("яя", true).unwrap(), vec![2, 3, 2, 3]);
    assert_eq!(e.decode(&[1, 2, 3, 1, 0]).unwrap(), "aяa<unk>");
    assert_eq!(e.decode(&[2, 1]).unwrap(), "\u{FFFD}a"); // a lone lead byte
}

#[test]
fn fuse_unk_makes_one_unknown_per_run() {
    let plain = suffix_toy(false);
    let fused = suffix_toy(true);
    assert_eq!(plain.encode("käää", false).unwrap(), vec![2, 0, 0, 0]);
    assert_eq!(fused.encode("käää", false).unwrap(), vec![2, 0]);
    assert_eq!(fused.encode("ääks ää", true).unwrap(), vec![0, 5, 0]);
    // Runs in different words are not fused.
    assert_eq!(fused.encode("ä ä", false).unwrap(), vec![0, 0]);
    // The step-through starts from the symbols the encoder merges: one per run.
    let steps = fused.merge_steps("käää").unwrap();
    assert_eq!(steps[0].2.len(), 2);
    assert_eq!(steps.last().unwrap().2, fused.encode("käää", false).unwrap());
    assert_eq!(suffix_toy(false).merge_steps("käää").unwrap()[0].2.len(), 4);
}

//! Property tests over the engine's public functions, on random corpora (arbitrary
//! Unicode mixed with characters that make frequent pairs, runs, combining marks, ZWJ
//! sequences, line ends) and random configurations:
//!
//! * training never panics; it succeeds or reports "no words";
//! * it is deterministic: the same input gives the same merges for 1 and 2 threads;
//! * merges never cross word or symbol boundaries: each final segmentation spells its
//!   word with its marker, and each merged token is the concatenation of its pair;
//! * merge counts never increase while no merge has reused an existing token;
//! * encoding each training word reproduces its training segmentation;
//! * decode(encode(text)) gives the text as the configuration defines it;
//! * byte-level models encode any string, and decode it back exactly;
//! * reading files (in tiny blocks) counts exactly what the same text in memory counts,
//!   and invalid UTF-8 is reported at its exact byte offset or replaced.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use rustc_hash::FxHashMap;

use bpe_engine::corpus::reader::Limits;
use bpe_engine::corpus::{count_files, count_words, Source};
use bpe_engine::encoder::Encoder;
use bpe_engine::error::{CorpusProblem, EngineError};
use bpe_engine::progress::Reporter;
use bpe_engine::symbols::{AnyTable, UNK};
use bpe_engine::text::{byte_to_char_table, to_byte_chars, Boundary, Normalization, PreTokenizer, TextRules, BOW, EOW};
use bpe_engine::trainer::{MergeOptions, Ties};
use bpe_engine::{run_training, TrainOutput, TrainSettings};

// -- strategies ---------------------------------------------------------------------------

/// Mostly a few letters (frequent pairs and runs), with the awkward cases mixed in.
fn awkward_char() -> impl Strategy<Value = char> {
    prop_oneof![
        8 => prop::sample::select(vec!['a', 'b', 'c', 'a', 'b', 'é', 'A']),
        3 => prop::sample::select(vec![' ', ' ', '\n', '\t', '\r', '\u{a0}', '\u{b}', '\u{85}', '\u{3000}']),
        2 => prop::sample::select(vec![
            '\u{301}', '\u{200d}', '\u{fe0f}', '😀', '👩', '𝔘', '字', 'ش', 'ם', '\u{200f}', 'ß', 'İ', 'Σ', '1',
            '\'', '.', '\u{feff}', 'ﬁ', '\u{2028}',
        ]),
        1 => any::<char>(),
    ]
}

/// Mostly short; now and then long enough for long words (the encoder's heap path).
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::collection::vec(awkward_char(), 0..40),
        1 => prop::collection::vec(awkward_char(), 40..400),
    ]
    .prop_map(|cs| cs.into_iter().collect())
}

fn texts() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(text(), 1..5)
}

fn rules() -> impl Strategy<Value = TextRules> {
    let pretokenizer = prop::sample::select(vec![
        PreTokenizer::Whitespace,
        PreTokenizer::Space,
        PreTokenizer::Letters,
        PreTokenizer::Gpt2,
        PreTokenizer::SentencePiece,
    ]);
    let boundary = prop::sample::select(vec![Boundary::EowSymbol, Boundary::EowSuffix, Boundary::BowPrefix, Boundary::None]);
    let normalization = prop::sample::select(vec![Normalization::None, Normalization::None, Normalization::Nfc, Normalization::Nfkc]);
    (pretokenizer, boundary, normalization, any::<bool>()).prop_map(|(pretokenizer, boundary, normalization, lowercase)| {
        let boundary = match pretokenizer {
            PreTokenizer::SentencePiece => Boundary::BowPrefix,
            PreTokenizer::Gpt2 => Boundary::None,
            _ => boundary,
        };
        TextRules { normalization, lowercase, pretokenizer, boundary }
    })
}

fn merge_options() -> impl Strategy<Value = MergeOptions> {
    (
        prop::sample::select(vec![Ties::FirstSeen, Ties::Lexicographic, Ties::Codepoint]),
        1u64..3,
        prop::option::weighted(0.3, 1u64..400),
        prop::option::weighted(0.5, 0u64..60),
        prop::sample::select(vec![vec![], vec!["<unk>".to_string()], vec!["ab".to_string()]]),
    )
        .prop_map(|(ties, min_frequency, vocab_size, max_merges, specials)| MergeOptions {
            min_frequency,
            vocab_size,
            max_merges,
            ties,
            specials,
            forbidden: vec![],
        })
}

fn settings(coverage: impl Strategy<Value = f64>) -> impl Strategy<Value = TrainSettings> {
    (rules(), merge_options(), coverage, prop::sample::select(vec![String::new(), "zé".to_string()])).prop_map(
        |(rules, merge, character_coverage, initial_alphabet)| TrainSettings {
            rules,
            merge,
            character_coverage,
            initial_alphabet,
            threads: 1,
            constraints: Default::default(),
        },
    )
}

fn full_coverage() -> impl Strategy<Value = TrainSettings> {
    settings(Just(1.0))
}

// -- helpers ------------------------------------------------------------------------------

fn train(texts: &[String], settings: &TrainSettings) -> Result<TrainOutput, EngineError> {
    run_training(Source::Texts(texts.to_vec()), settings, &mut Reporter::silent())
}

/// Train; a corpus without words is the one acceptable failure (then None).
fn train_ok(texts: &[String], settings: &TrainSettings) -> Result<Option<TrainOutput>, TestCaseError> {
    match train(texts, settings) {
        Ok(out) => Ok(Some(out)),
        Err(e) if e.corpus_problem() == Some(CorpusProblem::NoWords) => Ok(None),
        Err(e) => Err(TestCaseError::fail(format!("unexpected error: {e}"))),
    }
}

/// Text as training sees it: CRLF read as LF, then normalized.
fn prepared(text: &str, rules: &TextRules) -> String {
    rules.normalize(&text.replace("\r\n", "\n")).into_owned()
}

/// A training word with its boundary marker, as its pieces must spell it.
fn marked(word: &str, boundary: Boundary) -> String {
    match boundary {
        Boundary::EowSymbol | Boundary::EowSuffix => format!("{word}{EOW}"),
        Boundary::BowPrefix => format!("{BOW}{word}"),
        Boundary::None => word.to_string(),
    }
}

fn encoder(out: &TrainOutput, rules: TextRules) -> Encoder {
    let t = &out.trained;
    let merges: Vec<(u32, u32, u32)> = t.merges.iter().map(|m| (m.left, m.right, m.result)).collect();
    Encoder::new(rules, t.tokens.clone(), &merges, None, FxHashMap::default(), false).expect("a trained model is valid")
}

/// What decode(encode(text)) must give.
fn expected_decoding(text: &str, rules: &TextRules) -> String {
    let text = prepared(text, rules);
    if rules.pretokenizer.byte_level() {
        return text;
    }
    let mut words = Vec::new();
    rules.split_for_encoding(&text, &mut |w| words.push(w.to_string()));
    words.join(if rules.boundary == Boundary::None { "" } else { " " })
}

static FILE_NUMBER: AtomicUsize = AtomicUsize::new(0);

/// A scratch file, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(bytes: &[u8]) -> Self {
        let n = FILE_NUMBER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("bpe-proptest-{}-{n}.txt", std::process::id()));
        std::fs::write(&path, bytes).expect("temp dir is writable");
        Scratch(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("threads")
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)
}

/// Tiny blocks, so that nearly every line end and space becomes a cut.
const TINY: Limits = Limits { block: 8, unbroken: 1 << 20 };

// -- properties ---------------------------------------------------------------------------

proptest! {
    // PROPTEST_CASES=5000 cargo test --release --test proptest_engine for a longer search.
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn training_is_deterministic_across_thread_counts(texts in texts(), settings in settings(prop::sample::select(vec![1.0, 1.0, 0.9, 0.6]))) {
        let Some(one) = train_ok(&texts, &settings)? else { return Ok(()) };
        let two = train(&texts, &TrainSettings { threads: 2, ..settings.clone() }).expect("the same input trains again");
        prop_assert_eq!(&one.trained.tokens, &two.trained.tokens);
        prop_assert_eq!(&one.trained.merges, &two.trained.merges);
        let ids = |t: &AnyTable| (0..t.len()).map(|w| t.ids(w)).collect::<Vec<_>>();
        prop_assert_eq!(ids(&one.trained.words), ids(&two.trained.words));
    }

    #[test]
    fn merges_stay_inside_words(texts in texts(), settings in full_coverage()) {
        let Some(out) = train_ok(&texts, &settings)? else { return Ok(()) };
        let t = &out.trained;
        let words: Vec<String> = t.words.words().iter().map(|w| marked(w, settings.rules.boundary)).collect();
        for (w, word) in words.iter().enumerate() {
            let syms = t.words.ids(w);
            prop_assert!(!syms.contains(&UNK));
            let spelled: String = syms.iter().map(|&s| t.tokens[s as usize].as_str()).collect();
            prop_assert_eq!(&spelled, word);
        }
        for m in &t.merges {
            let joined = format!("{}{}", t.tokens[m.left as usize], t.tokens[m.right as usize]);
            prop_assert_eq!(&t.tokens[m.result as usize], &joined);
            prop_assert!(words.iter().any(|w| w.contains(&joined)), "{joined:?} is in no word");
            prop_assert!(!settings.merge.specials.contains(&joined), "a special token was merged");
        }
    }

    #[test]
    fn counts_do_not_increase_until_a_token_is_reused(texts in texts(), settings in full_coverage()) {
        let Some(out) = train_ok(&texts, &settings)? else { return Ok(()) };
        let t = &out.trained;
        let mut created: HashSet<u32> = (0..t.alphabet_len as u32).collect(); // tokens so far
        for pair in t.merges.windows(2) {
            if !created.insert(pair[0].result) {
                break; // pair[0] reused a token: re-encoded words may gain pairs
            }
            prop_assert!(pair[1].count <= pair[0].count, "{:?} after {:?}", pair[1], pair[0]);
        }
        prop_assert!(t.merges.iter().all(|m| m.count >= settings.merge.min_frequency));
    }

    #[test]
    fn training_words_reencode_to_their_segmentation(texts in texts(), settings in full_coverage()) {
        let Some(out) = train_ok(&texts, &settings)? else { return Ok(()) };
        let rules = settings.rules;
        let enc = encoder(&out, rules);
        let t = &out.trained;
        let index: HashMap<&str, usize> = t.words.words().iter().enumerate().map(|(i, w)| (w, i)).collect();
        let bytes = byte_to_char_table();
        for text in &texts {
            let text = prepared(text, &rules);
            let mut pretokens = Vec::new();
            rules.split_words(&text, &mut |w| pretokens.push(w.to_string()));
            for word in pretokens {
                let key = if rules.pretokenizer.byte_level() { to_byte_chars(&word, &bytes) } else { word.clone() };
                let w = index[key.as_str()];
                let ids = enc.encode_word(&word, false).expect("training characters are known");
                prop_assert_eq!(&ids, &t.words.ids(w), "word {:?}", word);
            }
        }
    }

    #[test]
    fn decode_inverts_encode(texts in texts(), settings in full_coverage()) {
        prop_assume!(texts.iter().all(|t| !t.contains(EOW) && !t.contains(BOW)));
        let Some(out) = train_ok(&texts, &settings)? else { return Ok(()) };
        let enc = encoder(&out, settings.rules);
        for text in &texts {
            let ids = enc.encode(text, false).expect("training characters are known");
            prop_assert_eq!(enc.decode(&ids).expect("ids are valid"), expected_decoding(text, &settings.rules));
            let greedy = enc.encode(text, true).expect("training characters are known");
            prop_assert_eq!(enc.decode(&greedy).expect("ids are valid"), expected_decoding(text, &settings.rules));
        }
    }

    #[test]
    fn byte_level_models_encode_any_string(texts in texts(), probe in any::<String>(), nfc in any::<bool>()) {
        let rules = TextRules {
            normalization: if nfc { Normalization::Nfc } else { Normalization::None },
            lowercase: false,
            pretokenizer: PreTokenizer::Gpt2,
            boundary: Boundary::None,
        };
        let settings = TrainSettings {
            rules,
            merge: MergeOptions { min_frequency: 1, vocab_size: None, max_merges: Some(50), ties: Ties::Codepoint, specials: vec![], forbidden: vec![] },
            character_coverage: 1.0,
            initial_alphabet: String::new(),
            threads: 1,
            constraints: Default::default(),
        };
        let Some(out) = train_ok(&texts, &settings)? else { return Ok(()) };
        let enc = encoder(&out, rules);
        let ids = enc.encode(&probe, false).expect("every byte is in the alphabet");
        prop_assert_eq!(enc.decode(&ids).expect("ids are valid"), prepared(&probe, &rules));
    }

    #[test]
    fn files_in_tiny_blocks_count_like_texts(texts in texts(), rules in rules()) {
        // A file loses a leading BOM and cannot hold NUL bytes; the texts match that.
        let texts: Vec<String> = texts.iter().map(|t| t.replace('\0', "").trim_start_matches('\u{feff}').to_string()).collect();
        prop_assume!(texts.iter().all(|t| !t.is_empty()));
        let files: Vec<Scratch> = texts.iter().map(|t| Scratch::new(t.as_bytes())).collect();
        let paths: Vec<PathBuf> = files.iter().map(|f| f.0.clone()).collect();
        let pool = pool();
        let from_files = count_files(&paths, &rules, false, &pool, &mut Reporter::silent(), TINY);
        let from_texts = count_words(Source::Texts(texts.clone()), &rules, &pool, &mut Reporter::silent());
        match (from_files, from_texts) {
            (Ok(f), Ok(t)) => {
                prop_assert_eq!(&f.words, &t.words);
                prop_assert_eq!(&f.counts, &t.counts);
                prop_assert_eq!(f.files.len(), texts.len());
            }
            (Ok(f), Err(e)) => {
                prop_assert!(f.is_empty() && e.corpus_problem() == Some(CorpusProblem::NoWords));
            }
            (Err(e), _) => return Err(TestCaseError::fail(format!("reading failed: {e}"))),
        }
    }

    #[test]
    fn invalid_utf8_is_located_exactly_or_replaced(bytes in prop::collection::vec(1u8..=255, 1..200), rules in rules()) {
        // Not a UTF-16 byte-order mark, nor gzip's magic number (then it is a gzip file).
        prop_assume!(![[0xff, 0xfe], [0xfe, 0xff], [0x1f, 0x8b]].iter().any(|m| bytes.starts_with(m)));
        let file = Scratch::new(&bytes);
        let pool = pool();
        let paths = vec![file.0.clone()];
        let body = bytes.strip_prefix(&[0xef, 0xbb, 0xbf][..]).unwrap_or(&bytes);
        let skipped = (bytes.len() - body.len()) as u64;
        match std::str::from_utf8(body) {
            Ok(_) => prop_assert!(count_files(&paths, &rules, false, &pool, &mut Reporter::silent(), TINY).is_ok()),
            Err(e) => {
                let err = count_files(&paths, &rules, false, &pool, &mut Reporter::silent(), TINY).expect_err("invalid UTF-8 fails");
                let EngineError::Corpus(fault) = err else { return Err(TestCaseError::fail("not a corpus error")) };
                prop_assert_eq!(fault.problem, CorpusProblem::NotUtf8);
                prop_assert_eq!(fault.offset, Some(skipped + e.valid_up_to() as u64));
                let line = 1 + body[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() as u64;
                prop_assert_eq!(fault.line, Some(line));
            }
        }
        let lossy = count_files(&paths, &rules, true, &pool, &mut Reporter::silent(), TINY).expect("replacement reads anything");
        let text = String::from_utf8_lossy(body).into_owned();
        let expected = count_words(Source::Texts(vec![text]), &rules, &pool, &mut Reporter::silent());
        match expected {
            Ok(t) => prop_assert_eq!((&lossy.words, &lossy.counts), (&t.words, &t.counts)),
            Err(_) => prop_assert!(lossy.is_empty()),
        }
    }
}

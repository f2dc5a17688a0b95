use rustc_hash::FxHashMap;

use super::*;
use crate::encoder::tests::toy;
use crate::encoder::SpecialRole;
use crate::options::{Boundary, Normalization, PreTokenizer};
use crate::text::TextRules;

fn helpers() -> Pool {
    Pool::new(1).unwrap()
}

/// An encoder whose only purpose is to cut words: every character is unknown.
fn word_cutter(rules: TextRules) -> Encoder {
    let pieces = vec!["<unk>".to_string(), "a".to_string()];
    let mut specials = FxHashMap::default();
    specials.insert(0, SpecialRole::Unk);
    Encoder::new(rules, pieces, &[], Some(0), specials, false).unwrap()
}

/// The words of `text`, appended back to back, with each one's length.
fn words_into(enc: &Encoder, text: &str, out: &mut (String, Vec<usize>)) {
    enc.for_each_word(text, false, &mut |w, _| {
        out.0.push_str(w);
        out.1.push(w.len());
    })
    .unwrap();
}

/// Every position where [`may_cut_before`] allows a cut.
fn all_cuts(text: &str) -> Vec<usize> {
    let mut cuts = Vec::new();
    let mut at = 0;
    while let Some(c) = next_cut(text, at) {
        cuts.push(c);
        at = c + 1;
    }
    assert_eq!(cuts, (0..=text.len()).filter(|&i| may_cut_before(text, i)).collect::<Vec<_>>());
    cuts
}

/// Each code point in `chars` in contexts around spaces, newlines, CRLF and a final sigma.
fn contexts(chars: impl Iterator<Item = char>) -> String {
    chars.map(|c| format!("{c}a{c} Σ{c}\n{c}Σ {c}{c}\n\n{c}\r\n{c}  {c}\n b{c}\n'{c} ")).collect()
}

/// The text cut at every allowed position gives the words of the whole text.
fn assert_cuts_exact(enc: &Encoder, text: &str) {
    let mut pieces = Default::default();
    let mut start = 0;
    for cut in all_cuts(text) {
        words_into(enc, &text[start..cut], &mut pieces);
        start = cut;
    }
    words_into(enc, &text[start..], &mut pieces);
    let mut whole = Default::default();
    words_into(enc, text, &mut whole);
    assert!(pieces == whole, "{:?}", enc.rules);
}

fn code_points(step: usize) -> impl Iterator<Item = char> {
    (0..=0x10FFFFu32).step_by(step).filter_map(char::from_u32)
}

/// Every code point under `cargo test --release`; every fifth in a debug build (the
/// engine's CI run), where this one test took minutes.
const CODE_POINT_STEP: usize = if cfg!(debug_assertions) { 5 } else { 1 };

#[test]
fn cuts_never_change_words_for_any_code_point_under_gpt2() {
    for (normalization, lowercase) in [(Normalization::None, false), (Normalization::Nfkc, true)] {
        let enc = word_cutter(TextRules { normalization, lowercase, pretokenizer: PreTokenizer::Gpt2, boundary: Boundary::None });
        let all: Vec<char> = code_points(CODE_POINT_STEP).collect();
        for group in all.chunks(4096) {
            assert_cuts_exact(&enc, &contexts(group.iter().copied()));
        }
    }
}

/// The GPT-4 patterns run on a regex engine: every 7th code point in a release build (the
/// classes come in ranges far longer than 7), every 61st in a debug one.
#[test]
fn cuts_never_change_words_for_code_points_under_gpt4_patterns() {
    let step = if cfg!(debug_assertions) { 61 } else { 7 };
    for pretokenizer in [PreTokenizer::Gpt4, PreTokenizer::Llama3, PreTokenizer::Gpt4o] {
        for (normalization, lowercase) in [(Normalization::None, false), (Normalization::Nfkc, true)] {
            let enc = word_cutter(TextRules { normalization, lowercase, pretokenizer, boundary: Boundary::None });
            let all: Vec<char> = code_points(step).chain("/'sS\u{17f}".chars()).collect();
            for group in all.chunks(4096) {
                assert_cuts_exact(&enc, &contexts(group.iter().copied()));
            }
        }
    }
}

#[test]
fn no_cut_between_a_newline_and_a_slash() {
    // GPT-4o: "!\n/" is one word.
    assert_eq!(all_cuts("a !\n/b\nc"), [1, 7]);
}

#[test]
fn cuts_never_change_words_under_every_rule() {
    let sample: Vec<char> = code_points(97).chain("\u{a8}\u{1fbd}\u{3000}\u{a0}\u{2028}\u{85}\t\x0b\x1c".chars()).collect();
    let text = contexts(sample.into_iter());
    for &pretokenizer in PreTokenizer::ALL {
        for &normalization in Normalization::ALL {
            for lowercase in [false, true] {
                // (Word markers do not change where words are cut.)
                let rules = TextRules { normalization, lowercase, pretokenizer, boundary: Boundary::None };
                assert_cuts_exact(&word_cutter(rules), &text);
            }
        }
    }
}

#[test]
fn where_cuts_fall() {
    let cuts = |t: &str| all_cuts(t);
    assert_eq!(cuts("ab cd"), [2]);
    assert_eq!(cuts("ab  cd"), [2]); // not between the spaces
    assert_eq!(cuts("ab\ncd"), [3]);
    assert_eq!(cuts("ab \ncd\n\nef\r\ngh\n ij"), [2]); // " \n", "\n\n", CRLF, "\n " are kept
    assert_eq!(cuts("abc"), Vec::<usize>::new());
    assert_eq!(cuts("日本\n語 x"), [7, 10]);
    assert_eq!(next_cut("ab cd ef", 3), Some(5));
    assert_eq!(next_cut("ab cd", 3), None);
}

#[test]
fn chunk_cuts_are_character_offsets_of_the_first_cut_after_each_size() {
    let points = |t: &str, size| cut_points_in_chars(t, size);
    assert_eq!(points("ab cd ef", 2), [2, 5, 8]); // before each space
    assert_eq!(points("ab cd ef", 3), [5, 8]); // the first cut at or after character 3
    assert_eq!(points("ab cd ef", 8), [8]); // not more than `size` left: one chunk
    assert_eq!(points("abcdef", 1), [6]); // no cut point
    assert_eq!(points("", 4), [0]);
    // Characters, not bytes: "日本\n語 x" cuts after the newline (byte 7, character 3) and
    // before the space (byte 10, character 4); from character 3 on only the space is left.
    assert_eq!(points("日本\n語 x", 1), [3, 4, 6]);
    assert_eq!(points("日本\n語 x", 3), [4, 6]);
    // Every chunk boundary is a cut the batch rule allows, in characters.
    let text = toy_text(3000, 7) + "\nΣοφίας 日本語の\n\n naïve  x";
    for size in [1, 5, 64, 700] {
        let pts = points(&text, size);
        assert_eq!(*pts.last().unwrap(), text.chars().count());
        let byte_of = |c: usize| text.char_indices().nth(c).map_or(text.len(), |(i, _)| i);
        let mut previous = 0;
        for &p in &pts[..pts.len() - 1] {
            assert!(p >= previous + size && may_cut_before(&text, byte_of(p)), "size {size}, cut {p}");
            assert_eq!(next_cut(&text, byte_of(previous + size)), Some(byte_of(p)));
            previous = p;
        }
    }
}

fn sequential(enc: &Encoder, texts: &[&str], greedy: bool) -> Result<(Vec<u32>, Vec<usize>)> {
    let mut ids = Vec::new();
    let mut ends = Vec::new();
    for t in texts {
        enc.encode_into(t, greedy, &mut ids)?;
        ends.push(ids.len());
    }
    Ok((ids, ends))
}

fn assert_same_as_sequential(enc: &Encoder, texts: &[&str], pool: &Pool) {
    for greedy in [false, true] {
        let want = sequential(enc, texts, greedy).unwrap();
        for helpers in [None, Some(pool)] {
            let got = encode_batch(enc, texts, greedy, helpers).unwrap();
            assert_eq!((got.ids, got.ends), want, "greedy {greedy}, helpers {}", helpers.is_some());
        }
    }
}

/// Texts of `n` bytes made of words of the toy's alphabet, cut points every few bytes.
fn toy_text(n: usize, seed: usize) -> String {
    let words = ["aaab", "ab", "aaaaab", "b", "a", "aa"];
    let seps = [" ", "\n", "  ", "\r\n", " \n", "\n "];
    let mut s = String::with_capacity(n + 8);
    let mut k = seed;
    while s.len() < n {
        s.push_str(words[k % words.len()]);
        s.push_str(seps[(k / 7) % seps.len()]);
        k = k.wrapping_mul(2654435761).wrapping_add(12345) >> 3;
    }
    s.truncate(n);
    s
}

#[test]
fn batches_of_every_shape_give_the_sequential_ids() {
    let enc = toy();
    let pool = helpers();
    let m = MIN_PIECE_BYTES;
    let s = MIN_SHARED_BYTES;
    let sizes = [0, 1, 5, m - 1, m, m + 1, 2 * m - 1, 2 * m, 2 * m + 1, s - 1, s, s + 1, 3 * m + m / 2, 10 * m + 3, 40 * m];
    let owned: Vec<String> = sizes.iter().enumerate().map(|(i, &n)| toy_text(n, i)).collect();
    // One text of each size alone, all together, and uneven mixes.
    for t in &owned {
        assert_same_as_sequential(&enc, &[t.as_str()], &pool);
    }
    let all: Vec<&str> = owned.iter().map(String::as_str).collect();
    assert_same_as_sequential(&enc, &all, &pool);
    let reversed: Vec<&str> = all.iter().rev().copied().collect();
    assert_same_as_sequential(&enc, &reversed, &pool);
    let many_small: Vec<String> = (0..3000).map(|i| toy_text(i % 40, i)).collect();
    let many: Vec<&str> = many_small.iter().map(String::as_str).chain([all[all.len() - 1]]).collect();
    assert_same_as_sequential(&enc, &many, &pool);
}

#[test]
fn texts_without_a_cut_point_stay_whole() {
    let enc = toy();
    let pool = helpers();
    let long = "a".repeat(5 * MIN_PIECE_BYTES);
    let spaced = format!("{long} {long}");
    assert_same_as_sequential(&enc, &[&long, "ab", &spaced], &pool);
    let (segments, pieces) = plan(&[&long], MIN_PIECE_BYTES, 2);
    assert_eq!((segments.len(), pieces.len()), (1, 1));
}

#[test]
fn long_texts_are_cut_into_pieces_near_the_size() {
    let text = toy_text(10 * MIN_PIECE_BYTES, 3);
    let (segments, pieces) = plan(&[&text], MIN_PIECE_BYTES, 2);
    assert!(segments.len() >= 8, "{} segments", segments.len());
    assert_eq!(pieces.len(), segments.len());
    assert_eq!(segments.iter().map(|s| s.text).collect::<String>(), text);
    assert!(segments.iter().all(|s| s.text.len() < 2 * MIN_PIECE_BYTES));
    assert_eq!(segments.iter().filter(|s| s.closes).count(), 1);
}

#[test]
fn pieces_shrink_near_where_the_threads_meet_and_short_texts_are_not_paired_past_their_size() {
    let size = 4 * MIN_PIECE_BYTES;
    let text = toy_text(40 * size, 5);
    for threads in [2, 3] {
        let (segments, pieces) = plan(&[&text], size, threads);
        let lens: Vec<usize> = pieces.iter().map(|r| segments[r.clone()].iter().map(|s| s.text.len()).sum()).collect();
        assert_eq!(lens.iter().sum::<usize>(), text.len());
        assert_eq!(segments.iter().map(|s| s.text).collect::<String>(), text);
        // Whole-size pieces at both ends, ever smaller ones towards the meeting point
        // (where the calling thread, from the front, has done its share), and none under
        // the smallest but the text's last.
        let meet = meeting_point(text.len(), threads);
        let at_meet = pieces_before(&lens, meet);
        assert!((size..size + 100).contains(&lens[0]) && lens.len() > 40, "{lens:?}");
        assert!(lens[lens.len() - 1] >= size / 2, "{lens:?}");
        assert!(lens[..at_meet].windows(2).all(|w| w[1] <= w[0] + 100), "{lens:?}");
        assert!(lens[at_meet..lens.len() - 1].windows(2).all(|w| w[1] + 100 >= w[0]), "{lens:?}");
        assert!(lens[at_meet - 2..at_meet + 2].iter().all(|&n| n < size / 4), "{lens:?}");
        assert!(lens.iter().all(|&n| n >= MIN_TAIL_PIECE_BYTES), "{lens:?}");
    }
    // Texts just under the size are pieces of their own, not pairs (until the tail cuts them).
    let short = toy_text(size - 500, 6);
    let texts = vec![short.as_str(); 40];
    let (segments, pieces) = plan(&texts, size, 2);
    assert!(segments.len() >= 40);
    assert!(pieces[..30].iter().all(|r| r.len() == 1), "{pieces:?}");
}

/// How many of pieces of lengths `lens` start before byte `at`.
fn pieces_before(lens: &[usize], at: usize) -> usize {
    lens.iter().scan(0, |start, &n| {
        let this = *start;
        *start += n;
        Some(this)
    })
    .take_while(|&start| start < at)
    .count()
}

#[test]
fn pieces_are_taken_once_from_both_ends_and_not_behind_an_error() {
    let claims = Claims::new(6);
    let order: Vec<Option<usize>> = [true, false, false, true, false, true, false].iter().map(|&front| claims.next(front)).collect();
    assert_eq!(order, [Some(0), Some(5), Some(4), Some(1), Some(3), Some(2), None]);
    assert_eq!((claims.next(true), claims.next(false)), (None, None));
    // Piece 2 fails while the back has taken 7 only: the back passes 6 to 3 over (behind
    // the error), and the front stops.
    let claims = Claims::new(8);
    let taken: Vec<Option<usize>> = [true, true, false, true].iter().map(|&front| claims.next(front)).collect();
    assert_eq!(taken, [Some(0), Some(1), Some(7), Some(2)]);
    claims.first_error.fetch_min(2, Ordering::Relaxed);
    assert!(claims.failed());
    assert_eq!((claims.next(false), claims.next(true)), (None, None));
    // Piece 5 fails, taken from the back: the pieces before it are all still taken.
    let claims = Claims::new(8);
    let taken: Vec<Option<usize>> = [true, false, false, false].iter().map(|&front| claims.next(front)).collect();
    assert_eq!(taken, [Some(0), Some(7), Some(6), Some(5)]);
    claims.first_error.fetch_min(5, Ordering::Relaxed);
    let taken: Vec<Option<usize>> = [false, true, false, true, true].iter().map(|&front| claims.next(front)).collect();
    assert_eq!(taken, [Some(4), Some(1), Some(3), Some(2), None]);
}

#[test]
fn the_first_error_in_text_order_is_reported() {
    // No unknown token: an unknown character is an error naming it.
    let pieces: Vec<String> = ["a", "b", " "].iter().map(|s| s.to_string()).collect();
    let rules = TextRules { normalization: Normalization::None, lowercase: false, pretokenizer: PreTokenizer::Whitespace, boundary: Boundary::None };
    let enc = Encoder::new(rules, pieces, &[], None, FxHashMap::default(), false).unwrap();
    let clean = toy_text(6 * MIN_PIECE_BYTES, 1).replace('\r', "");
    let bad = |c: char| format!("{}{c}{}", &clean[..3 * MIN_PIECE_BYTES], &clean[3 * MIN_PIECE_BYTES..]);
    let (x, y) = (bad('x'), bad('y'));
    let pool = helpers();
    for texts in [vec![clean.as_str(), x.as_str(), y.as_str()], vec![y.as_str(), x.as_str()]] {
        let want = sequential(&enc, &texts, false).unwrap_err();
        let got = encode_batch(&enc, &texts, false, Some(&pool)).unwrap_err();
        assert_eq!(got.to_string(), want.to_string());
    }
}

//! A model file's long lists (alphabet, merges, ids, final counts, training words) read
//! straight from the parsed JSON into a [`ModelLists`], with no value per item in Python.
//!
//! Rule: this reader only ever *accepts*. It takes a file only when it is sure the
//! Python validator (`core/model_file_checks.py`) accepts it too, and answers `None` at
//! the first thing it is not sure of; the caller then runs the Python validator, whose
//! messages (naming the JSON path) the user sees. So the messages live in one place.

use std::hash::BuildHasher;
use std::sync::OnceLock;

use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};

use crate::json::{Item, Parsed};
use crate::origins::{origins, Origins};

/// The top-level keys read here; every other member is left to Python (see [`read`]).
pub const LIST_KEYS: [&str; 5] = ["alphabet", "merges", "ids", "final_counts", "words"];

/// A model's long lists, its ordinary tokens numbered in their defining order: the
/// alphabet, then each merge's result where it first appears.
#[derive(Debug, Clone, Default)]
pub struct ModelLists {
    pub alphabet_len: usize,
    /// Ordinary tokens in defining order.
    pub ordinary: Pieces,
    /// Each merge's (left, right, result) as indices into `ordinary`.
    pub merges: Vec<(u32, u32, u32)>,
    pub counts: Vec<Option<u64>>,
    /// Explicit ids of the ordinary tokens, as read (checked in [`Vocabulary::new`]).
    pub ids: Option<Vec<i64>>,
    pub final_counts: Option<Vec<i64>>,
    pub words: Words,
}

/// Strings in one buffer, each found by its end (a string apiece would cost an
/// allocation per token).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pieces {
    text: String,
    ends: Vec<u32>,
}

impl Pieces {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub fn get(&self, k: usize) -> &str {
        let start = if k == 0 { 0 } else { self.ends[k - 1] as usize };
        &self.text[start..self.ends[k] as usize]
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).map(|k| self.get(k))
    }

    /// The first `n` strings.
    pub fn prefix(&self, n: usize) -> Pieces {
        let end = if n == 0 { 0 } else { self.ends[n - 1] as usize };
        Pieces { text: self.text[..end].to_string(), ends: self.ends[..n].to_vec() }
    }

    fn push(&mut self, piece: &str) -> Option<()> {
        self.text.push_str(piece);
        self.ends.push(u32::try_from(self.text.len()).ok()?);
        Some(())
    }
}

/// The kept training words, their text in one buffer (a string apiece would be most of
/// a model's allocations).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Words {
    pub text: String,
    /// Where each word ends in `text` (bytes), and its count.
    pub ends: Vec<(u32, u64)>,
}

impl Words {
    pub fn iter(&self) -> impl Iterator<Item = (&str, u64)> + '_ {
        let mut start = 0;
        self.ends.iter().map(move |&(end, count)| {
            let word = &self.text[start..end as usize];
            start = end as usize;
            (word, count)
        })
    }
}

/// The index of the item after the value that starts at `at`.
pub fn skip(items: &[Item], at: usize) -> usize {
    let (mut pending, mut i) = (1usize, at);
    while pending > 0 {
        match items[i] {
            Item::Array(n) => pending += n as usize,
            Item::Object(n) => pending += 2 * n as usize,
            _ => {}
        }
        pending -= 1;
        i += 1;
    }
    i
}

/// The lists of a parsed model file and the item positions of its other members' keys
/// (each key followed by its value), or None (see the module's rule).
pub fn read(parsed: &Parsed) -> Option<(ModelLists, Vec<usize>)> {
    let Some(&Item::Object(n)) = parsed.items.first() else { return None };
    let mut values: [Option<usize>; 5] = [None; 5];
    let mut rest = Vec::new();
    let mut at = 1;
    for _ in 0..n {
        let Item::Str(s, e) = parsed.items[at] else { return None };
        match LIST_KEYS.iter().position(|k| *k == parsed.str(s, e)) {
            Some(k) => values[k] = Some(at + 1),
            None => rest.push(at),
        }
        at = skip(&parsed.items, at + 1);
    }
    let (alphabet, merges) = (values[0]?, values[1]?);
    // The words are checked beside the rest: they depend on nothing else.
    let (lists, words) = rayon::join(
        || {
            let mut builder = ListsBuilder::default();
            read_alphabet(parsed, alphabet, &mut builder)?;
            read_merges(parsed, merges, &mut builder)?;
            let mut lists = builder.finish();
            lists.ids = optional_ints(parsed, values[2], i64::MIN)?;
            lists.final_counts = optional_ints(parsed, values[3], 0)?;
            Some(lists)
        },
        || values[4].map_or(Some(Words::default()), |at| read_words(parsed, at)),
    );
    let mut lists = lists?;
    lists.words = words?;
    Some((lists, rest))
}

fn hash(piece: &str) -> u64 {
    FxBuildHasher.hash_one(piece)
}

/// The ordinary token `piece`, looked up in `index` (ids into `pieces`).
fn find(index: &HashTable<u32>, pieces: &Pieces, piece: &str) -> Option<u32> {
    index.find(hash(piece), |&k| pieces.get(k as usize) == piece).copied()
}

/// Add the last of `pieces` to `index`.
fn add_last(index: &mut HashTable<u32>, pieces: &Pieces) {
    let k = pieces.len() - 1;
    index.insert_unique(hash(pieces.get(k)), k as u32, |&j| hash(pieces.get(j as usize)));
}

/// Builds a model's lists item by item under the model file's rules (see the module's
/// rule): the file's reader and a training's result both go through it, so a trained model
/// the engine holds is one the file would give back.
#[derive(Default)]
pub struct ListsBuilder {
    lists: ModelLists,
    index: HashTable<u32>,
    /// The merge that defined each token (None: the alphabet).
    origin: Vec<Option<(u32, u32)>>,
    /// Pairs listed as redundant merges (their result existed before): each only once.
    redundant: FxHashSet<(u32, u32)>,
    joined: String,
}

impl ListsBuilder {
    /// The next base symbol: non-empty and not seen before (else None).
    pub fn symbol(&mut self, sym: &str) -> Option<()> {
        if sym.is_empty() || self.find(sym).is_some() || !self.lists.merges.is_empty() {
            return None;
        }
        self.push(sym)?;
        self.origin.push(None);
        self.lists.alphabet_len += 1;
        Some(())
    }

    /// The next merge: both sides known tokens, the pair listed once (else None).
    pub fn merge(&mut self, left: &str, right: &str, count: Option<u64>) -> Option<()> {
        let (l, r) = (self.find(left)?, self.find(right)?);
        let mut joined = std::mem::take(&mut self.joined);
        joined.clear();
        joined.push_str(left);
        joined.push_str(right);
        let result = match self.find(&joined) {
            Some(id) => {
                if self.origin[id as usize] == Some((l, r)) || !self.redundant.insert((l, r)) {
                    return None; // the merge is listed twice
                }
                id
            }
            None => {
                self.push(&joined)?;
                self.origin.push(Some((l, r)));
                (self.lists.ordinary.len() - 1) as u32
            }
        };
        self.joined = joined;
        self.lists.merges.push((l, r, result));
        self.lists.counts.push(count);
        Some(())
    }

    /// The index of an ordinary token in defining order.
    pub fn find(&self, piece: &str) -> Option<u32> {
        find(&self.index, &self.lists.ordinary, piece)
    }

    pub fn reserve_merges(&mut self, n: usize) {
        self.lists.merges.reserve(n);
        self.lists.counts.reserve(n);
    }

    pub fn lists(&self) -> &ModelLists {
        &self.lists
    }

    pub fn finish(self) -> ModelLists {
        self.lists
    }

    fn push(&mut self, piece: &str) -> Option<()> {
        self.lists.ordinary.push(piece)?;
        add_last(&mut self.index, &self.lists.ordinary);
        Some(())
    }
}

fn read_alphabet(p: &Parsed, at: usize, b: &mut ListsBuilder) -> Option<()> {
    let Item::Array(n) = p.items[at] else { return None };
    for k in 0..n as usize {
        let Item::Str(s, e) = p.items[at + 1 + k] else { return None };
        b.symbol(p.str(s, e))?;
    }
    Some(())
}

fn read_merges(p: &Parsed, at: usize, b: &mut ListsBuilder) -> Option<()> {
    let Item::Array(n) = p.items[at] else { return None };
    b.reserve_merges(n as usize);
    let mut i = at + 1;
    for _ in 0..n {
        let Item::Array(3) = p.items[i] else { return None };
        let (Item::Str(ls, le), Item::Str(rs, re)) = (p.items[i + 1], p.items[i + 2]) else { return None };
        let count = match p.items[i + 3] {
            Item::Null => None,
            Item::Int(c) if c >= 0 => Some(c as u64),
            _ => return None,
        };
        i += 4;
        b.merge(p.str(ls, le), p.str(rs, re), count)?;
    }
    Some(())
}

/// A list of whole numbers at least `minimum` (absent or null: None); anything else: fail.
fn optional_ints(p: &Parsed, at: Option<usize>, minimum: i64) -> Option<Option<Vec<i64>>> {
    let Some(at) = at else { return Some(None) };
    match p.items[at] {
        Item::Null => Some(None),
        Item::Array(n) => {
            let mut out = Vec::with_capacity(n as usize);
            for k in 0..n as usize {
                let Item::Int(v) = p.items[at + 1 + k] else { return None };
                if v < minimum {
                    return None;
                }
                out.push(v);
            }
            Some(Some(out))
        }
        _ => None,
    }
}

fn read_words(p: &Parsed, at: usize) -> Option<Words> {
    let Item::Array(n) = p.items[at] else { return None };
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    seen.reserve(n as usize);
    let mut words = Words { text: String::new(), ends: Vec::with_capacity(n as usize) };
    let mut i = at + 1;
    for _ in 0..n {
        let (Item::Array(2), Item::Str(s, e), Item::Int(count)) = (p.items[i], p.items[i + 1], p.items[i + 2]) else {
            return None;
        };
        i += 3;
        let word = p.str(s, e);
        if word.is_empty() || count < 1 || !seen.insert(word) {
            return None;
        }
        words.text.push_str(word);
        words.ends.push((u32::try_from(words.text.len()).ok()?, count as u64));
    }
    Some(words)
}

/// The vocabulary of a model: its lists with the special tokens placed at their ids.
/// Every token's piece by id, and the look-up of a piece's id, are built when first
/// asked for (the tokenizer builds its own tables).
#[derive(Debug, Clone)]
pub struct Vocabulary {
    pub lists: ModelLists,
    /// Special tokens (id, piece).
    pub specials: Vec<(u32, String)>,
    /// The id of each ordinary token (index into `lists.ordinary`).
    pub ordinary_ids: Vec<u32>,
    pieces: OnceLock<Vec<String>>,
    index: OnceLock<FxHashMap<String, u32>>,
}

impl Vocabulary {
    /// Place the special tokens and check the lists that depend on them (explicit ids,
    /// final counts), as `validate` and `BPEModel.pieces` do; None where they would fail.
    pub fn new(lists: ModelLists, specials: Vec<(u32, String)>) -> Option<Self> {
        let ordinary = lists.ordinary.len();
        let size = ordinary + specials.len();
        let mut special_ids = FxHashSet::default();
        let mut special_pieces = FxHashSet::default();
        for (id, piece) in &specials {
            if *id as usize >= size || !special_ids.insert(*id) || !special_pieces.insert(piece.as_str()) {
                return None;
            }
        }
        if !specials.is_empty() && lists.ordinary.iter().any(|p| special_pieces.contains(p)) {
            return None; // a special token equals an ordinary one
        }
        let ordinary_ids: Vec<u32> = match &lists.ids {
            Some(ids) => {
                if ids.len() != ordinary {
                    return None;
                }
                let mut taken = special_ids.clone();
                for &i in ids {
                    if i < 0 || i as usize >= size || !taken.insert(i as u32) {
                        return None;
                    }
                }
                ids.iter().map(|&i| i as u32).collect()
            }
            None => {
                // In id order, each special lands at its id; the others fill the gaps.
                let mut out = Vec::with_capacity(ordinary);
                let mut next = 0u32;
                for _ in 0..ordinary {
                    while special_ids.contains(&next) {
                        next += 1;
                    }
                    out.push(next);
                    next += 1;
                }
                out
            }
        };
        if lists.final_counts.as_ref().is_some_and(|counts| counts.len() != size) {
            return None;
        }
        Some(Vocabulary { lists, specials, ordinary_ids, pieces: OnceLock::new(), index: OnceLock::new() })
    }

    pub fn size(&self) -> usize {
        self.lists.ordinary.len() + self.specials.len()
    }

    /// Every token's piece, by id.
    pub fn pieces(&self) -> &[String] {
        self.pieces.get_or_init(|| self.pieces_by_id())
    }

    /// Every token's piece, by id: a new list (what an encoder takes).
    pub fn pieces_by_id(&self) -> Vec<String> {
        if let Some(pieces) = self.pieces.get() {
            return pieces.clone();
        }
        let mut pieces = vec![String::new(); self.size()];
        for (id, piece) in &self.specials {
            pieces[*id as usize] = piece.clone();
        }
        for (piece, &id) in self.lists.ordinary.iter().zip(&self.ordinary_ids) {
            pieces[id as usize] = piece.to_string();
        }
        pieces
    }

    /// The id of a piece (special tokens too).
    pub fn piece_to_id(&self, piece: &str) -> Option<u32> {
        let index = self.index.get_or_init(|| {
            let specials = self.specials.iter().map(|(id, p)| (p.clone(), *id));
            let ordinary = self.lists.ordinary.iter().map(str::to_string).zip(self.ordinary_ids.iter().copied());
            specials.chain(ordinary).collect()
        });
        index.get(piece).copied()
    }

    /// Each merge's (left, right, result) as vocabulary ids, in rank order.
    pub fn merge_ids(&self) -> Vec<(u32, u32, u32)> {
        let id = |k: u32| self.ordinary_ids[k as usize];
        self.lists.merges.iter().map(|&(l, r, m)| (id(l), id(r), id(m))).collect()
    }

    /// Each token's kind and creating merge (see `crate::origins`).
    pub fn origins(&self) -> Origins {
        let specials: Vec<u32> = self.specials.iter().map(|s| s.0).collect();
        let base = &self.ordinary_ids[..self.lists.alphabet_len];
        origins(self.size(), &self.merge_ids(), &self.lists.counts, base, &specials)
    }

    /// How many ordinary tokens the first `merges` merges define (with the alphabet).
    pub fn ordinary_at(&self, merges: usize) -> usize {
        let made = self.lists.merges[..merges].iter().map(|m| m.2 as usize + 1).max().unwrap_or(0);
        made.max(self.lists.alphabet_len)
    }

    /// The model cut to its first `merges` merges, with the special tokens given (their
    /// ids in the smaller vocabulary); None for a model with explicit ids.
    pub fn truncated(&self, merges: usize, specials: Vec<(u32, String)>) -> Option<Self> {
        if self.lists.ids.is_some() || merges > self.lists.merges.len() {
            return None;
        }
        let lists = &self.lists;
        let cut = ModelLists {
            alphabet_len: lists.alphabet_len,
            ordinary: lists.ordinary.prefix(self.ordinary_at(merges)),
            merges: lists.merges[..merges].to_vec(),
            counts: lists.counts[..merges].to_vec(),
            ids: None,
            final_counts: None,
            words: lists.words.clone(),
        };
        Vocabulary::new(cut, specials)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    fn lists(text: &str) -> Option<ModelLists> {
        read(&parse(text)?).map(|(l, _)| l)
    }

    #[test]
    fn reads_the_lists_and_numbers_tokens_in_defining_order() {
        let text = r#"{"format": "x", "alphabet": ["a", "b", "bb"], "merges": [["a", "b", 5], ["ab", "b", null], ["a", "bb", 1]], "words": [["ab", 3]]}"#;
        let (l, rest) = read(&parse(text).unwrap()).unwrap();
        assert_eq!(l.ordinary.iter().collect::<Vec<_>>(), ["a", "b", "bb", "ab", "abb"]);
        assert_eq!(l.merges, [(0, 1, 3), (3, 1, 4), (0, 2, 4)]);
        assert_eq!(l.counts, [Some(5), None, Some(1)]);
        assert_eq!(l.words.iter().collect::<Vec<_>>(), [("ab", 3)]);
        assert_eq!(rest, [1]); // the "format" key
    }

    #[test]
    fn anything_doubtful_is_left_to_python() {
        for bad in [
            r#"{"alphabet": ["a", "a"], "merges": []}"#,
            r#"{"alphabet": [""], "merges": []}"#,
            r#"{"alphabet": ["a"], "merges": [["a", "b", 1]]}"#,
            r#"{"alphabet": ["a"], "merges": [["a", "a", 1], ["a", "a", 1]]}"#,
            r#"{"alphabet": ["a", "aa"], "merges": [["a", "a", 1], ["a", "a", 1]]}"#,
            r#"{"alphabet": ["a"], "merges": [["a", "a", -1]]}"#,
            r#"{"alphabet": ["a"], "merges": [["a", "a", 1.0]]}"#,
            r#"{"alphabet": ["a"], "merges": [["a", "a"]]}"#,
            r#"{"alphabet": ["a"]}"#,
            r#"{"alphabet": ["a"], "merges": [], "words": null}"#,
            r#"{"alphabet": ["a"], "merges": [], "words": [["a", 0]]}"#,
            r#"{"alphabet": ["a"], "merges": [], "words": [["a", 1], ["a", 2]]}"#,
            r#"{"alphabet": ["a"], "merges": [], "ids": [true]}"#,
            r#"[]"#,
        ] {
            assert!(lists(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn a_redundant_merge_may_appear_once() {
        let l = lists(r#"{"alphabet": ["a", "aa"], "merges": [["a", "a", 1]]}"#).unwrap();
        assert_eq!(l.merges, [(0, 0, 1)]);
    }

    #[test]
    fn specials_take_their_ids_and_explicit_ids_are_checked() {
        let l = lists(r#"{"alphabet": ["a", "b"], "merges": [["a", "b", 1]]}"#).unwrap();
        let v = Vocabulary::new(l.clone(), vec![(1, "<s>".into())]).unwrap();
        assert_eq!(v.pieces(), ["a", "<s>", "b", "ab"]);
        assert_eq!(v.merge_ids(), [(0, 2, 3)]);
        assert!(Vocabulary::new(l.clone(), vec![(4, "<s>".into())]).is_none());
        assert!(Vocabulary::new(l.clone(), vec![(0, "a".into())]).is_none());
        assert_eq!((v.piece_to_id("<s>"), v.piece_to_id("ab"), v.piece_to_id("x")), (Some(1), Some(3), None));
        let mut explicit = l.clone();
        explicit.ids = Some(vec![2, 1, 0]);
        assert_eq!(Vocabulary::new(explicit.clone(), vec![]).unwrap().pieces(), ["ab", "b", "a"]);
        explicit.ids = Some(vec![2, 2, 0]);
        assert!(Vocabulary::new(explicit, vec![]).is_none());
    }

    #[test]
    fn truncation_keeps_a_prefix() {
        let l = lists(r#"{"alphabet": ["a", "b"], "merges": [["a", "b", 1], ["ab", "b", 1]]}"#).unwrap();
        let v = Vocabulary::new(l, vec![]).unwrap();
        let cut = v.truncated(1, vec![]).unwrap();
        assert_eq!(cut.pieces(), ["a", "b", "ab"]);
        assert_eq!(v.truncated(0, vec![]).unwrap().pieces(), ["a", "b"]);
    }
}

//! JSON parsed without the GIL, for model files: the values Python's `json.loads` gives,
//! or nothing when this parser does not take the text.
//!
//! Python's parser holds the GIL for the whole text: ~90 ms for a 100,000-token model's
//! 4 MB, while the GUI thread waits. This one parses the text with the GIL released;
//! the Python objects are then built from the [`Parsed`] items (see `python::json`). It
//! takes only what it is sure to read as `json.loads` does, and answers `None` otherwise:
//! invalid JSON, a duplicate key, `NaN` or `Infinity`, an unpaired surrogate escape, an
//! integer beyond 64 bits, a float that overflows, nesting deeper than [`MAX_DEPTH`]. The
//! caller then runs Python's parser, whose errors (line and column) the user sees.
//!
//! The values are kept flat and small (16 bytes each, every string in one buffer): they
//! live beside the Python objects built from them, and as a tree of Rust values they
//! raised the peak memory of loading a model from 17 to 24 times the file's size.

use rustc_hash::FxHashSet;

/// Deeper nesting is left to Python's parser (and its recursion limit).
pub const MAX_DEPTH: usize = 200;

/// One value, in the text's order: an array is followed by its items, an object by its
/// members (key, value, key, value, ...).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Item {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// `Parsed::strings[start..end]`.
    Str(u32, u32),
    /// How many items follow.
    Array(u32),
    /// How many members (key and value) follow; keys are `Str`, in the text's order.
    Object(u32),
}

/// A text's values ([`Item`]s) and the text of its strings, escapes decoded.
#[derive(Debug, Default)]
pub struct Parsed {
    pub items: Vec<Item>,
    pub strings: String,
}

impl Parsed {
    pub fn str(&self, start: u32, end: u32) -> &str {
        &self.strings[start as usize..end as usize]
    }
}

/// The JSON value `text` holds (whitespace around it allowed), if this parser takes it.
pub fn parse(text: &str) -> Option<Parsed> {
    let mut p = Parser { text, b: text.as_bytes(), at: 0, out: Parsed::default() };
    p.space();
    p.value(0)?;
    p.space();
    (p.at == p.b.len()).then_some(p.out)
}

struct Parser<'a> {
    text: &'a str,
    b: &'a [u8],
    at: usize,
    out: Parsed,
}

impl Parser<'_> {
    fn space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.at) {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.b.get(self.at) == Some(&c)).then(|| self.at += 1)
    }

    fn literal(&mut self, word: &[u8], item: Item) -> Option<()> {
        self.b[self.at..].starts_with(word).then(|| {
            self.at += word.len();
            self.out.items.push(item);
        })
    }

    fn value(&mut self, depth: usize) -> Option<()> {
        match *self.b.get(self.at)? {
            b'{' => self.object(depth + 1),
            b'[' => self.array(depth + 1),
            b'"' => {
                let (start, end) = self.string()?;
                self.out.items.push(Item::Str(start, end));
                Some(())
            }
            b't' => self.literal(b"true", Item::Bool(true)),
            b'f' => self.literal(b"false", Item::Bool(false)),
            b'n' => self.literal(b"null", Item::Null),
            b'-' | b'0'..=b'9' => {
                let item = self.number()?;
                self.out.items.push(item);
                Some(())
            }
            _ => None,
        }
    }

    /// How many items of an array or members of an object (after its opening bracket)
    /// `one` reads, each, up to `close`.
    fn items(&mut self, close: u8, mut one: impl FnMut(&mut Self) -> Option<()>) -> Option<u32> {
        self.at += 1;
        self.space();
        if self.eat(close).is_some() {
            return Some(0);
        }
        let mut n: u32 = 0;
        loop {
            self.space();
            one(self)?;
            n = n.checked_add(1)?;
            self.space();
            if self.eat(b',').is_none() {
                self.eat(close)?;
                return Some(n);
            }
        }
    }

    fn array(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        let slot = self.out.items.len();
        self.out.items.push(Item::Array(0));
        let n = self.items(b']', |p| p.value(depth))?;
        self.out.items[slot] = Item::Array(n);
        Some(())
    }

    fn object(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        let slot = self.out.items.len();
        self.out.items.push(Item::Object(0));
        let mut keys: Vec<(u32, u32)> = Vec::new();
        let n = self.items(b'}', |p| {
            if p.b.get(p.at) != Some(&b'"') {
                return None;
            }
            let key = p.string()?;
            p.out.items.push(Item::Str(key.0, key.1));
            keys.push(key);
            p.space();
            p.eat(b':')?;
            p.space();
            p.value(depth)
        })?;
        // A duplicate is left to Python's parser, which names it.
        let mut seen = FxHashSet::default();
        if !keys.iter().all(|&(start, end)| seen.insert(self.out.str(start, end))) {
            return None;
        }
        self.out.items[slot] = Item::Object(n);
        Some(())
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while self.b.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        self.at - start
    }

    /// JSON's number grammar; an integer as Python's `int`, anything with a fraction or
    /// an exponent as its `float` (Rust's parsing rounds correctly, as Python's does).
    fn number(&mut self) -> Option<Item> {
        let start = self.at;
        let _ = self.eat(b'-');
        match self.b.get(self.at) {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return None,
        }
        let mut float = false;
        if self.eat(b'.').is_some() {
            float = true;
            if self.digits() == 0 {
                return None;
            }
        }
        if let Some(b'e' | b'E') = self.b.get(self.at) {
            float = true;
            self.at += 1;
            if let Some(b'+' | b'-') = self.b.get(self.at) {
                self.at += 1;
            }
            if self.digits() == 0 {
                return None;
            }
        }
        // ASCII by construction.
        let text = std::str::from_utf8(&self.b[start..self.at]).ok()?;
        if float {
            let x: f64 = text.parse().ok()?;
            x.is_finite().then_some(Item::Float(x))
        } else {
            text.parse().ok().map(Item::Int) // beyond 64 bits: Python's parser
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.b.get(self.at..self.at + 4)?;
        self.at += 4;
        let text = std::str::from_utf8(digits).ok()?;
        if !text.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(text, 16).ok()
    }

    /// A string's text, escapes decoded, appended to `out.strings`: where it is there.
    fn string(&mut self) -> Option<(u32, u32)> {
        self.at += 1; // the opening quote
        let start = u32::try_from(self.out.strings.len()).ok()?;
        loop {
            let run = self.at;
            while let Some(&c) = self.b.get(self.at) {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.at += 1;
            }
            // A run stops only at ASCII bytes: whole characters of the text.
            self.out.strings.push_str(self.text.get(run..self.at)?);
            match *self.b.get(self.at)? {
                b'"' => {
                    self.at += 1;
                    return Some((start, u32::try_from(self.out.strings.len()).ok()?));
                }
                b'\\' => {
                    self.at += 1;
                    let escape = *self.b.get(self.at)?;
                    self.at += 1;
                    let c = match escape {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => return None,
                    };
                    self.out.strings.push(c);
                }
                _ => return None, // a control character: Python's parser refuses it
            }
        }
    }

    /// After `\u`: the character, a surrogate pair's as one; an unpaired surrogate (which
    /// Python keeps in its string, and Rust's cannot hold) is left to Python's parser.
    fn unicode_escape(&mut self) -> Option<char> {
        let first = self.hex4()?;
        if (0xD800..0xDC00).contains(&first) {
            if self.b.get(self.at..self.at + 2)? != b"\\u" {
                return None;
            }
            self.at += 2;
            let second = self.hex4()?;
            if !(0xDC00..0xE000).contains(&second) {
                return None;
            }
            return char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00));
        }
        char::from_u32(first) // None for a lone low surrogate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    enum Value {
        Null,
        Bool(bool),
        Int(i64),
        Float(f64),
        Str(String),
        Array(Vec<Value>),
        Object(Vec<(String, Value)>),
    }

    /// The parsed items as a tree, for comparing.
    fn tree(p: &Parsed, at: &mut usize) -> Value {
        let item = p.items[*at];
        *at += 1;
        match item {
            Item::Null => Value::Null,
            Item::Bool(b) => Value::Bool(b),
            Item::Int(i) => Value::Int(i),
            Item::Float(x) => Value::Float(x),
            Item::Str(start, end) => Value::Str(p.str(start, end).into()),
            Item::Array(n) => Value::Array((0..n).map(|_| tree(p, at)).collect()),
            Item::Object(n) => Value::Object(
                (0..n)
                    .map(|_| {
                        let Value::Str(key) = tree(p, at) else { panic!("a key that is not a string") };
                        (key, tree(p, at))
                    })
                    .collect(),
            ),
        }
    }

    fn parse(text: &str) -> Option<Value> {
        let parsed = super::parse(text)?;
        let mut at = 0;
        let value = tree(&parsed, &mut at);
        assert_eq!(at, parsed.items.len());
        Some(value)
    }

    fn s(x: &str) -> Value {
        Value::Str(x.into())
    }

    #[test]
    fn values_as_python_reads_them() {
        let v = parse(r#" {"a": [1, -2, 3.5, 1e2, -0, true, false, null], "b": {"c": "x\"\\\/\n\u00e9\ud83d\ude00"}} "#);
        assert_eq!(
            v,
            Some(Value::Object(vec![
                (
                    "a".into(),
                    Value::Array(vec![
                        Value::Int(1),
                        Value::Int(-2),
                        Value::Float(3.5),
                        Value::Float(100.0),
                        Value::Int(0),
                        Value::Bool(true),
                        Value::Bool(false),
                        Value::Null
                    ])
                ),
                ("b".into(), Value::Object(vec![("c".into(), s("x\"\\/\né😀"))])),
            ]))
        );
        assert_eq!(parse("[]"), Some(Value::Array(vec![])));
        assert_eq!(parse("{}"), Some(Value::Object(vec![])));
        assert_eq!(parse("\"日本\""), Some(s("日本")));
        assert_eq!(parse("9223372036854775807"), Some(Value::Int(i64::MAX)));
    }

    #[test]
    fn what_it_leaves_to_python() {
        for text in [
            "",
            "[1,]",
            "{\"a\": 1,}",
            "[1 2]",
            "{\"a\": 1, \"a\": 2}",
            "NaN",
            "[Infinity]",
            "[-Infinity]",
            "1e400",
            "9223372036854775808",
            "01",
            "1.",
            ".5",
            "1e",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "\"\\ud800\\u0041\"",
            "\"a\tb\"",
            "\"\\x\"",
            "\"abc",
            "[1] [2]",
            "tru",
            "{1: 2}",
        ] {
            assert_eq!(parse(text), None, "{text:?}");
        }
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        assert_eq!(parse(&deep), None);
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(parse(&ok).is_some());
    }
}

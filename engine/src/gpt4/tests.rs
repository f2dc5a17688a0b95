//! Golden splits, each as Python's `regex.findall` gives it for tiktoken's pattern.

use super::*;

fn whole(pattern: Gpt4Pattern, text: &str) -> Vec<String> {
    let mut out = vec![];
    split_gpt4(pattern, text, false, &mut |t| out.push(t.to_string()));
    out
}

fn lines(pattern: Gpt4Pattern, text: &str) -> Vec<String> {
    let mut out = vec![];
    split_gpt4(pattern, text, true, &mut |t| out.push(t.to_string()));
    out
}

/// (text, cl100k_base's pre-tokens, o200k_base's pre-tokens)
const GOLDEN: &[(&str, &[&str], &[&str])] = &[
    (
        "it's IT'S we'll they've I'D 'then",
        &["it", "'s", " IT", "'S", " we", "'ll", " they", "'ve", " I", "'D", " '", "then"],
        &["it's", " IT'S", " we'll", " they've", " I'D", " '", "then"],
    ),
    (
        "1 12 123 1234 12345",
        &["1", " ", "12", " ", "123", " ", "123", "4", " ", "123", "45"],
        &["1", " ", "12", " ", "123", " ", "123", "4", " ", "123", "45"],
    ),
    ("a\r\nb\r\n", &["a", "\r\n", "b", "\r\n"], &["a", "\r\n", "b", "\r\n"]),
    ("a  b   c    ", &["a", " ", " b", "  ", " c", "    "], &["a", " ", " b", "  ", " c", "    "]),
    ("  x", &[" ", " x"], &[" ", " x"]),
    (
        "Hi!!! ...?! (x)",
        &["Hi", "!!!", " ...?!", " (", "x", ")"],
        &["Hi", "!!!", " ...?!", " (", "x", ")"],
    ),
    ("日本語のテキスト。", &["日本語のテキスト", "。"], &["日本語のテキスト", "。"]),
    ("hi 😀👍🏽 there", &["hi", " 😀👍🏽", " there"], &["hi", " 😀👍🏽", " there"]),
    // Combining marks: not letters for cl100k, letters' companions for o200k.
    (
        "cafe\u{301} e\u{301}te\u{301}",
        &["cafe", "\u{301}", " e", "\u{301}te", "\u{301}"],
        &["cafe\u{301}", " e\u{301}te\u{301}"],
    ),
    (
        "HelloWorld helloWorld ABCdef",
        &["HelloWorld", " helloWorld", " ABCdef"],
        &["Hello", "World", " hello", "World", " ABCdef"],
    ),
    ("a\n\n b\n", &["a", "\n\n", " b", "\n"], &["a", "\n\n", " b", "\n"]),
    // o200k takes a slash after punctuation's newlines.
    ("x\n/y !\n/z", &["x", "\n", "/y", " !\n", "/z"], &["x", "\n", "/y", " !\n/", "z"]),
];

#[test]
fn splits_as_tiktoken_patterns_do() {
    for &(text, cl100k, o200k) in GOLDEN {
        assert_eq!(whole(Gpt4Pattern::Cl100k, text), cl100k, "cl100k {text:?}");
        assert_eq!(whole(Gpt4Pattern::O200k, text), o200k, "o200k {text:?}");
        assert_eq!(whole(Gpt4Pattern::Llama3, text), cl100k, "llama3 {text:?}");
    }
}

#[test]
fn llama3_cuts_whitespace_after_the_last_line_break_apart() {
    assert_eq!(whole(Gpt4Pattern::Cl100k, "a\n "), ["a", "\n "]);
    assert_eq!(whole(Gpt4Pattern::Llama3, "a\n "), ["a", "\n", " "]);
    assert_eq!(whole(Gpt4Pattern::Llama3, "a\n b"), whole(Gpt4Pattern::Cl100k, "a\n b"));
}

#[test]
fn training_splits_each_line_on_its_own() {
    // Whole text: "\n\n" is one pre-token; line by line, one per line.
    assert_eq!(whole(Gpt4Pattern::Cl100k, "a\n\nb"), ["a", "\n\n", "b"]);
    assert_eq!(lines(Gpt4Pattern::Cl100k, "a\n\nb"), ["a", "\n", "\n", "b"]);
    assert_eq!(lines(Gpt4Pattern::O200k, "x !\n/z\n"), ["x", " !\n", "/z", "\n"]);
}

#[test]
fn pre_tokens_cover_every_text() {
    let text: String = (0..0x3000u32).step_by(7).filter_map(char::from_u32).collect();
    for pattern in [Gpt4Pattern::Cl100k, Gpt4Pattern::Llama3, Gpt4Pattern::O200k] {
        assert_eq!(whole(pattern, &text).concat(), text);
        assert_eq!(lines(pattern, &text).concat(), text);
    }
}

#[test]
fn long_runs_split_without_failing() {
    let n = 1 << 20;
    let cases = [
        (" ".repeat(n) + "a", 2, 2),
        ("a".repeat(n), 1, 1),
        ("A".repeat(n) + "1", 2, 2),
        ("\n".repeat(n) + "x", 2, 2),
        (" \n".repeat(n / 2) + "x", 2, 2),
        ("!".repeat(n), 1, 1),
        ("1".repeat(n), n.div_ceil(3), n.div_ceil(3)),
        ("\u{3000}".repeat(n) + "x", 2, 2),
        (" ".repeat(n), 1, 1),
    ];
    for (text, cl100k, o200k) in cases {
        for (pattern, want) in [(Gpt4Pattern::Cl100k, cl100k), (Gpt4Pattern::Llama3, cl100k), (Gpt4Pattern::O200k, o200k)] {
            let tokens = whole(pattern, &text);
            assert_eq!(tokens.concat(), text);
            assert_eq!(tokens.len(), want, "{pattern:?} on {:?}…", &text[..3]);
        }
    }
}


#[test]
fn long_whitespace_runs_split_as_the_pattern_says() {
    let n = 1 << 20;
    let spaces = " ".repeat(n);
    let text = format!("{spaces}\n{spaces}x{spaces}\n");
    let short = &spaces[1..];
    // cl100k's `\s++$` keeps the last run whole; o200k's `\s*[\r\n]+` ends at its newline.
    assert_eq!(whole(Gpt4Pattern::Cl100k, &text), [format!("{spaces}\n"), short.into(), " x".into(), format!("{spaces}\n")]);
    assert_eq!(whole(Gpt4Pattern::O200k, &text), [format!("{spaces}\n"), short.into(), " x".into(), format!("{spaces}\n")]);
    let tail = format!("x\n{spaces}");
    assert_eq!(whole(Gpt4Pattern::Cl100k, &tail), ["x".to_string(), format!("\n{spaces}")]);
    assert_eq!(whole(Gpt4Pattern::O200k, &tail), ["x".to_string(), "\n".into(), spaces.clone()]);
    assert_eq!(whole(Gpt4Pattern::Llama3, &tail), ["x".to_string(), "\n".into(), spaces.clone()]);
}

#[test]
fn contractions_fold_case_as_the_regex_does() {
    // U+017F LONG S folds to `s`: `'ſ` is a contraction, as `'S` is.
    assert_eq!(whole(Gpt4Pattern::Cl100k, "it'ſ IT'S"), ["it", "'ſ", " IT", "'S"]);
    assert_eq!(whole(Gpt4Pattern::Llama3, "it'ſ"), ["it", "'ſ"]);
    assert_eq!(whole(Gpt4Pattern::O200k, "it'ſ IT'S"), ["it'ſ", " IT'S"]);
}

#[test]
fn o200k_marks_prefix_a_word_or_start_one() {
    // A mark after punctuation ends a word of its own; before a capital it stands alone.
    assert_eq!(whole(Gpt4Pattern::O200k, "!\u{301}A"), ["!\u{301}", "A"]);
    assert_eq!(whole(Gpt4Pattern::O200k, "\u{301}A"), ["\u{301}", "A"]);
    assert_eq!(whole(Gpt4Pattern::O200k, "!!\u{301}"), ["!!\u{301}"]);
    assert_eq!(whole(Gpt4Pattern::O200k, "日本語ABC"), ["日本語", "ABC"]);
}

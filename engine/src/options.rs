//! The values every option accepts, stated once: each option is an enum whose variants
//! carry the names users write. `NAMES` lists them in documentation order (the first is
//! the default), `parse` reads one, `name` writes one. The Python layer takes its lists
//! from here (`bpe_desktop._engine.OPTION_VALUES`), so the engine, the API, the CLI and
//! the GUI cannot disagree.

use crate::error::{EngineError, Result};

macro_rules! option_values {
    ($(#[$meta:meta])* pub enum $name:ident ($what:literal) { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name { $($variant),+ }

        impl $name {
            /// The option's name, as in error messages and `OPTION_VALUES`.
            pub const OPTION: &'static str = $what;
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            pub fn parse(s: &str) -> Result<Self> {
                match s {
                    $($text => Ok($name::$variant),)+
                    _ => Err(EngineError::Config(format!(
                        "{} must be one of {}; got {s:?}", $what, Self::NAMES.join(", ")
                    ))),
                }
            }
        }
    };
}

option_values! {
    /// Unicode normalization applied before splitting, identically when encoding.
    pub enum Normalization ("normalize") { None => "none", Nfc => "nfc", Nfkc => "nfkc" }
}

option_values! {
    /// How text is cut into words.
    pub enum PreTokenizer ("pretokenizer") {
        Whitespace => "whitespace",
        Space => "space",
        Letters => "letters",
        Gpt2 => "gpt2",
        Gpt4 => "gpt4",
        Llama3 => "llama3",
        Gpt4o => "gpt4o",
        SentencePiece => "sentencepiece",
    }
}

option_values! {
    /// Where a word's boundary is marked.
    pub enum Boundary ("boundary") {
        EowSymbol => "eow-symbol",
        EowSuffix => "eow-suffix",
        BowPrefix => "bow-prefix",
        None => "none",
    }
}

option_values! {
    /// Which pair wins when counts are equal.
    pub enum Ties ("ties") {
        FirstSeen => "first-seen",
        Lexicographic => "lexicographic",
        Codepoint => "codepoint",
    }
}

option_values! {
    /// How parity-aware training compares the languages' development texts: their tokens
    /// (the texts say the same, so their token counts are comparable), or tokens per
    /// character.
    pub enum ParityMeasure ("parity_measure") { Tokens => "tokens", TokensPerCharacter => "tokens-per-character" }
}

option_values! {
    /// What a special token is for.
    pub enum SpecialRole ("role") { Pad => "pad", Unk => "unk", Bos => "bos", Eos => "eos", User => "user" }
}

option_values! {
    /// The stages of a training run, in order.
    pub enum Stage ("stage") { Reading => "reading", Counting => "counting", Merging => "merging", Done => "done" }
}

impl PreTokenizer {
    /// GPT-2's and the GPT-4 patterns: words of bytes, written with GPT-2's byte characters.
    pub fn byte_level(self) -> bool {
        matches!(self, Self::Gpt2 | Self::Gpt4 | Self::Llama3 | Self::Gpt4o)
    }
}

/// Every option's values, for front ends: (option, names in order).
pub fn all_option_values() -> Vec<(&'static str, &'static [&'static str])> {
    vec![
        (Normalization::OPTION, Normalization::NAMES),
        (PreTokenizer::OPTION, PreTokenizer::NAMES),
        (Boundary::OPTION, Boundary::NAMES),
        (Ties::OPTION, Ties::NAMES),
        (ParityMeasure::OPTION, ParityMeasure::NAMES),
        (SpecialRole::OPTION, SpecialRole::NAMES),
        (Stage::OPTION, Stage::NAMES),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &t in Ties::ALL {
            assert_eq!(Ties::parse(t.name()).unwrap(), t);
        }
        for &b in Boundary::ALL {
            assert_eq!(Boundary::parse(b.name()).unwrap(), b);
        }
        assert_eq!(Stage::NAMES, &["reading", "counting", "merging", "done"]);
    }

    #[test]
    fn unknown_value_names_option_and_choices() {
        let err = Ties::parse("random").unwrap_err().to_string();
        assert!(err.contains("ties must be one of first-seen, lexicographic, codepoint"), "{err}");
    }
}

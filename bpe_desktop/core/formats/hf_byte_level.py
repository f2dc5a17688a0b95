"""The byte-level pre-tokenizers in a Hugging Face ``tokenizer.json``, both ways.

GPT-2's regex is ByteLevel's own (``use_regex: true``). GPT-4's, Llama 3's and GPT-4o's
are written as GPT-4-style files (Llama 3's among them) write them: a ``Split`` with the regex,
``behavior: Isolated`` (each match is a word, nothing between is dropped), then a
``ByteLevel`` that only maps bytes (``use_regex: false``). Such a pair reads back exactly
when its regex is one of BPE Desktop's as written here, character for character; another
regex (tiktoken's cl100k_base ``pat_str`` verbatim among them: HF reads its digits
differently) is approximated by GPT-2's, with a note.
"""

from __future__ import annotations

from typing import Any, Callable

from bpe_desktop.core.options import PRETOKENIZER_PATTERNS

#: Each regex as HF's regex engine (Oniguruma) reads it as intended: there ``{1,3}+`` is
#: not possessive but a repetition of ``{1,3}`` (a whole run of digits). Possessive or
#: not, the last item of an alternative matches the same.
SPLIT_PATTERNS = {name: PRETOKENIZER_PATTERNS[name].replace(r"\p{N}{1,3}+", r"\p{N}{1,3}")
                  for name in PRETOKENIZER_PATTERNS if name != "gpt2"}
#: The pre-tokenizer whose regex this is, for those a ``Split`` carries.
_SPLIT_PRETOKENIZERS = {pattern: name for name, pattern in SPLIT_PATTERNS.items()}


def _byte_level(use_regex: bool) -> dict[str, Any]:
    return {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
            "use_regex": use_regex}


def pre_tokenizer(pretokenizer: str) -> dict[str, Any]:
    """The ``pre_tokenizer`` of a byte-level model."""
    if pretokenizer == "gpt2":
        return _byte_level(True)
    split = {"type": "Split", "pattern": {"Regex": SPLIT_PATTERNS[pretokenizer]},
             "behavior": "Isolated", "invert": False}
    return {"type": "Sequence", "pretokenizers": [split, _byte_level(False)]}


def read_split_byte_level(steps: list[tuple[dict, str]],
                          approximate: Callable[[str], None]) -> str | None:
    """``gpt4``, ``llama3`` or ``gpt4o`` for ``Split`` + ``ByteLevel`` steps with their regex (None for
    other steps); differences that change the words are passed to ``approximate``."""
    if [s.get("type") for s, _ in steps] != ["Split", "ByteLevel"]:
        return None
    (split, _), (byte_level, _) = steps
    pattern = split.get("pattern")
    regex = pattern.get("Regex") if isinstance(pattern, dict) else None
    name = _SPLIT_PRETOKENIZERS.get(regex) if isinstance(regex, str) else None
    if name is None or split.get("behavior") != "Isolated" or split.get("invert"):
        return None
    if byte_level.get("add_prefix_space"):
        approximate("no space is added before the first word here (the source's ByteLevel "
                    "adds one)")
    if byte_level.get("use_regex", True):
        approximate("words are not split again with GPT-2's pattern here (the source's "
                    "ByteLevel does, after its Split)")
    return name

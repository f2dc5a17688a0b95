"""Protected strings: text that is always one token, never split and never joined.

Rules (the same in training and encoding, and those of Hugging Face tokenizers' added
tokens with ``normalized: false``):

* occurrences are found in the raw text, before normalization and pre-tokenization:
  at each position the longest protected string that starts there, leftmost first;
* each occurrence is one token; the text between occurrences is encoded as if it were
  a text of its own (so an occurrence also ends the word before it and starts a new
  one after it) — no merge can split a protected string or join across it;
* protected strings take the ids right after the special tokens, in the order given,
  as the first entries of the model's alphabet (they are base symbols no merge makes).
"""

from __future__ import annotations

import os
import re
from typing import Iterable, Sequence

from bpe_desktop.core.errors import ConfigError, CorpusError


def read_protected(path: str | os.PathLike) -> tuple[str, ...]:
    """One protected string a line (the line break removed, nothing else; blank lines
    are skipped). A file that is not UTF-8 is an error naming file and line."""
    from bpe_desktop.core.text_files import read_text_bytes

    name = os.fspath(path)
    try:
        data = read_text_bytes(path)
    except OSError as exc:
        raise CorpusError(f"{name}: cannot read the protected strings: {exc.strerror or exc}",
                          path=name, reason="unreadable") from None
    out: list[str] = []
    for number, raw in enumerate(data.split(b"\n"), 1):
        try:
            line = raw.decode("utf-8-sig" if number == 1 else "utf-8").removesuffix("\r")
        except UnicodeDecodeError as exc:
            raise CorpusError(f"{name} line {number}: not UTF-8 text ({exc.reason})",
                              path=name, line=number, reason="not-utf8") from None
        if line.strip():
            out.append(line)
    return tuple(dict.fromkeys(out))


def check_protected(config) -> None:
    """The ``protected`` option's rules (called by TrainConfig)."""
    strings = config.protected
    if not isinstance(strings, tuple) or not all(isinstance(s, str) for s in strings):
        raise ConfigError(f"protected must be a list of strings; got {strings!r}")
    seen: set[str] = set()
    specials = {t.piece for t in config.special_tokens}
    for s in strings:
        if not s.strip():
            raise ConfigError(f"protected string {s!r} is empty or only whitespace")
        if "\n" in s or "\r" in s:
            raise ConfigError(f"protected string {s!r} contains a line break (one a line)")
        if s in seen:
            raise ConfigError(f"protected string {s!r} is listed twice")
        if s in specials:
            raise ConfigError(f"protected string {s!r} is also a special token")
        if config.separator and config.separator in s:
            raise ConfigError(f"separator {config.separator!r} occurs in the protected "
                              f"string {s!r}: it would be removed from it, so the string "
                              "could never be found in the corpus")
        seen.add(s)


class Protector:
    """Finds protected strings in text (longest first, leftmost)."""

    def __init__(self, strings: Sequence[str]) -> None:
        self.strings = tuple(strings)
        # At one position a regex alternation takes the first alternative that matches:
        # longest first makes it the longest match.
        ordered = sorted(self.strings, key=lambda s: (-len(s), s))
        self._pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None

    def split(self, text: str) -> list[tuple[str, bool]]:
        """``text`` as consecutive (part, is_protected) pairs; empty parts are left out."""
        if self._pattern is None:
            return [(text, False)] if text else []
        out: list[tuple[str, bool]] = []
        start = 0
        for m in self._pattern.finditer(text):
            if m.start() > start:
                out.append((text[start:m.start()], False))
            out.append((m.group(), True))
            start = m.end()
        if start < len(text):
            out.append((text[start:], False))
        return out

    def count_and_cut(self, text: str, counts: dict[str, int]) -> str:
        """``text`` with every occurrence replaced by a line break (which ends a word in
        every pre-tokenizer), adding the occurrences to ``counts``."""
        if self._pattern is None:
            return text

        def cut(m: re.Match) -> str:
            counts[m.group()] = counts.get(m.group(), 0) + 1
            return "\n"

        return self._pattern.sub(cut, text)

    def cut_words(self, items: Iterable[tuple[str, int]],
                  counts: dict[str, int]) -> list[tuple[str, int]]:
        """A word-count table with each word cut at its occurrences (the parts counted
        as words, in first-seen order), adding the occurrences to ``counts``."""
        out: dict[str, int] = {}
        for word, n in items:
            for part, protected in self.split(word):
                if protected:
                    counts[part] = counts.get(part, 0) + n
                else:
                    out[part] = out.get(part, 0) + n
        return list(out.items())

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

Models with the ``sentencepiece`` pre-tokenizer encode as sentencepiece itself does with
``user_defined_symbols`` (so that its library gives the same ids): the text is read as
sentencepiece reads it (spaces and line breaks at the ends dropped, runs of them made one
space, ``▁`` before the text and for each space), the protected strings are found in that, and the
rest is cut before each ``▁``: a ``▁`` right before a protected string is a token of
its own, and the text right after one (no ``▁``) is encoded without a word-start
marker. Training cuts the corpus as above (every occurrence ends a word).
"""

from __future__ import annotations

import os
import re
from typing import Iterable, Sequence

from bpe_desktop.core.errors import ConfigError, CorpusError

BOW = "\u2581"
#: The command line's flag for protected strings typed inline (``--protect`` reads files):
#: the command that reproduces a run from the window, whose strings are in no file, uses it.
PROTECT_STRING_FLAG = "--protect-string"
#: sentencepiece's words inside a stretch of its text: a ▁ and what follows up to the
#: next ▁, a lone ▁, or text without one (right after a protected string).
_SP_WORDS = re.compile(f"{BOW}[^{BOW}]+|{BOW}|[^{BOW}]+")


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
        if config.pretokenizer == "sentencepiece" and any(c.isspace() for c in s):
            raise ConfigError(f"protected string {s!r} contains whitespace, which the "
                              "sentencepiece pre-tokenizer reads as ▁ before it looks for "
                              "protected strings, so it would never be found")
        if config.separator and config.separator in s:
            raise ConfigError(f"separator {config.separator!r} occurs in the protected "
                              f"string {s!r}: it would be removed from it, so the string "
                              "could never be found in the corpus")
        seen.add(s)


def unfound_protected(model) -> tuple[str, ...]:
    """The model's protected strings its training corpus never held (their tokens' final
    count is 0: every occurrence is one token). Such a string is likely a typo, a space
    too many or another case than the text's, and its place in the vocabulary is lost."""
    counts = model.final_counts
    if not model.config.protected or counts is None:
        return ()
    return tuple(s for s in model.config.protected if counts[model.piece_to_id(s)] == 0)


def unfound_warning(strings: Sequence[str]) -> str | None:
    """The warning naming :func:`unfound_protected`'s strings (None for none)."""
    if not strings:
        return None
    if len(strings) == 1:
        return (f"the protected string {strings[0]!r} never occurs in the corpus, so its "
                "token is never used (check spelling, case and spaces)")
    return (f"{len(strings):,} protected strings never occur in the corpus, so their tokens "
            f"are never used: {', '.join(map(repr, strings))} (check spelling, case and "
            "spaces)")


def check_found_in_tables(strings: Sequence[str], words: Iterable[str],
                          tables: Sequence[str]) -> None:
    """A protected string with whitespace that no word of the word-count ``tables``
    contains is an error: the words of a table made by ``bpe-desktop count`` (or any
    tool that cuts at whitespace) have none, so the string could never be a token and
    would only take a place in the vocabulary."""
    spaced = [s for s in strings if any(c.isspace() for c in s)]
    if not spaced:
        return
    for word in words:
        spaced = [s for s in spaced if s not in word]
        if not spaced:
            return
    raise ConfigError(f"{', '.join(tables)}: the protected string {spaced[0]!r} contains "
                      "whitespace, and no word of the word-count table does (its words are "
                      "cut at whitespace), so it could never be found: protect it when "
                      "training on the running text, or leave it out")


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

    def sentencepiece_parts(self, text: str) -> list[tuple[str, str]]:
        """``text`` as sentencepiece reads it (see the module notes), as (part, kind)
        pairs; kind: "protected", "word" (``▁`` and a word), "marker" (a lone ``▁``) or
        "bare" (text without the ``▁``)."""
        # Line breaks separate words as spaces do (the pre-tokenizer's rule), so a text
        # encoded line by line gives the ids of the whole text.
        trimmed = re.sub("[ \n\r]+", " ", text).strip(" ")
        if not trimmed:
            return []
        out: list[tuple[str, str]] = []
        for part, protected in self.split(BOW + trimmed.replace(" ", BOW)):
            if protected:
                out.append((part, "protected"))
                continue
            for word in _SP_WORDS.findall(part):
                out.append((word, "marker" if word == BOW else
                            "word" if word[0] == BOW else "bare"))
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


def bare_word_ids(word: str, model, unk_id: int | None, *, greedy: bool = False) -> list[int]:
    """The ids of ``word`` encoded without a word-start marker (sentencepiece's text right
    after a protected string): the model's merges by rank, each applied everywhere left to
    right (or, ``greedy``, the longest token from the left); characters outside the
    vocabulary are the unknown token, one per run when the model fuses them."""
    from bpe_desktop.core.errors import EncodeError

    ids = model.piece_ids
    if greedy:
        symbols: list[str | None] = []
        i, longest = 0, max(map(len, ids))
        while i < len(word):
            size = next((n for n in range(min(longest, len(word) - i), 0, -1)
                         if word[i:i + n] in ids), 0)
            symbols.append(word[i:i + size] if size else None)
            i += size or 1
    else:
        ranks = model._cache.get("merge_ranks")
        if ranks is None:
            ranks = model._cache["merge_ranks"] = {
                (m.left, m.right): r for r, m in reversed(list(enumerate(model.merges)))}
        symbols = [c if c in ids else None for c in word]
        while True:
            found = [(ranks[pair], pair) for pair in zip(symbols, symbols[1:]) if pair in ranks]
            if not found:
                break
            left, right = min(found)[1]
            merged: list[str | None] = []
            k = 0
            while k < len(symbols):
                if k + 1 < len(symbols) and symbols[k] == left and symbols[k + 1] == right:
                    merged.append(left + right)
                    k += 2
                else:
                    merged.append(symbols[k])
                    k += 1
            symbols = merged
    out: list[int] = []
    for s in symbols:
        if s is not None:
            out.append(ids[s])
        elif unk_id is None:
            raise EncodeError(f"{word!r} has a character outside the vocabulary and the "
                              "model has no unknown token")
        elif not (model.config.fuse_unk and out and out[-1] == unk_id):
            out.append(unk_id)
    return out

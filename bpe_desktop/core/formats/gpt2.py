"""GPT-2 style ``vocab.json`` + ``merges.txt``, as ``tokenizers``' ``model.save`` writes them.

``vocab.json`` maps every token (special tokens included) to its id, compactly, in id
order; ``merges.txt`` is ``#version: 0.2`` then one ``left right`` line per merge. The
pair is read by ``GPT2TokenizerFast(vocab_file, merges_file)``,
``ByteLevelBPETokenizer(vocab, merges)`` or ``models.BPE.from_file`` plus a
``ByteLevel`` pre-tokenizer, so only byte-level models (the gpt2 preset) fit.

Where the files go (``path``):

* an existing folder, or a path ending in a separator (the folder is created):
  ``FOLDER/vocab.json`` and ``FOLDER/merges.txt``;
* a path whose name ends in ``vocab.json`` or ``merges.txt``: that file and its partner
  beside it (``x/my-vocab.json`` pairs with ``x/my-merges.txt``);
* anything else is a prefix, as ``model.save(folder, prefix)``: ``PREFIX-vocab.json``
  and ``PREFIX-merges.txt``.

Importing takes the same kinds of path.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from bpe_desktop.core.config import TrainConfig
from bpe_desktop.core.model import BPEModel
from bpe_desktop.core.pieces import CHAR_BYTES
from bpe_desktop.core.errors import OutputError
from bpe_desktop.core.formats import _common
from bpe_desktop.core.safe_write import output_target

LABEL = "GPT-2 vocab.json + merges.txt"
HEADER = "#version: 0.2"
WHAT = "GPT-2 vocab.json + merges.txt files"
EXPORT_OPTIONS: tuple[str, ...] = ()


def file_pair(path: str | os.PathLike) -> tuple[Path, Path]:
    """(vocab.json, merges.txt) for a folder, a file of the pair, or a prefix."""
    text = os.fspath(path)
    p = Path(text)
    if p.is_dir() or text.endswith((os.sep, "/")):
        return p / "vocab.json", p / "merges.txt"
    for own, partner in (("vocab.json", "merges.txt"), ("merges.txt", "vocab.json")):
        if p.name.endswith(own):
            other = p.with_name(p.name[: -len(own)] + partner)
            return (p, other) if own == "vocab.json" else (other, p)
    return p.with_name(p.name + "-vocab.json"), p.with_name(p.name + "-merges.txt")


# -- export -----------------------------------------------------------------------------


def problem(model: BPEModel) -> str | None:
    from bpe_desktop.core.formats import hf

    return (_common.byte_level_problem(model, WHAT)
            or pattern_problem(model)
            or _common.byte_tokens_problem(model, WHAT)
            or _common.normalization_problem(model, WHAT)
            or hf.problem(model))


def pattern_problem(model: BPEModel) -> str | None:
    """The files hold no pattern: every reader splits text with GPT-2's. (Extending or
    trimming keeps the pre-tokenizer, so this is known before the work.)"""
    if model.config.pretokenizer == "gpt2":
        return None
    return (f"{WHAT} hold no splitting pattern and are read with GPT-2's, but this model "
            f"splits with the {model.config.pretokenizer} pre-tokenizer's; export as Hugging "
            "Face tokenizer.json or tiktoken ranks, which record it")


def vocab_text(model: BPEModel) -> str:
    # Compact and in id order, as tokenizers' BPE.save writes it.
    vocab = {piece: i for i, piece in enumerate(model.pieces)}
    return json.dumps(vocab, ensure_ascii=False, separators=(",", ":"))


def merges_text(model: BPEModel) -> str:
    return "".join([HEADER + "\n"] + [f"{m.left} {m.right}\n" for m in model.merges])


def export(model: BPEModel, path: str | os.PathLike) -> list[Path]:
    if output_target(path).kind == "stream":
        raise OutputError(f"{os.fspath(path)}: is a stream, but GPT-2 files are two "
                          "(vocab.json and merges.txt); give a folder or a file name",
                          path=os.fspath(path))
    vocab, merges = file_pair(path)
    if os.fspath(path).endswith((os.sep, "/")) and not vocab.parent.exists():
        vocab.parent.mkdir()
    return _common.write_set([(vocab, vocab_text(model).encode("utf-8")),
                              (merges, merges_text(model).encode("utf-8"))])


# -- import -----------------------------------------------------------------------------


def load(path: str | os.PathLike) -> BPEModel:
    vocab_path, merges_path = file_pair(path)
    for p in (vocab_path, merges_path):
        if not p.is_file():
            raise _common.import_error(p, None, "not found (GPT-2 files come in pairs: "
                                       "vocab.json and merges.txt)")
    _common.check_set([vocab_path, merges_path])
    vocab = _read_vocab(vocab_path)
    merges = _read_merges(merges_path, vocab)
    # Special tokens (<|endoftext|>) are the entries that are neither a byte nor made by
    # a merge: GPT-2 files do not mark them otherwise.
    made = {left + right for left, right in merges}
    specials = [_common.special(t, i) for t, i in vocab.items()
                if t not in made and (len(t) > 1 or t not in CHAR_BYTES)]
    config = TrainConfig.preset("gpt2", merges=len(merges),
                                special_tokens=_common.unique_roles(specials))
    return _common.build_model(vocab_path, config=config, merges=merges, vocab=vocab,
                               sources=[vocab_path, merges_path], label=LABEL,
                               remarks=_specials_note(specials))


#: More inferred special tokens than any tokenizer declares: merged tokens whose merges
#: are missing (GPT-2 has one, <|endoftext|>; RoBERTa five).
_MANY_SPECIALS = 100


def _specials_note(specials: list) -> list[str]:
    """Say which entries were read as special tokens: a merges.txt cut short at a line
    end still reads, but leaves the tokens of its missing merges unmade."""
    if not specials:
        return []
    shown = ", ".join(repr(t.piece) for t in specials[:3])
    entries = "1 vocab.json entry is" if len(specials) == 1 else \
        f"{len(specials):,} vocab.json entries are"
    note = (f"{entries} neither a byte nor made by a merge, read as special tokens "
            f"({shown}{', …' if len(specials) > 3 else ''})")
    if len(specials) > _MANY_SPECIALS:
        note += "; so many suggest that merges.txt was cut short"
    return [note]


def _read_vocab(path: Path) -> dict[str, int]:
    data = _common.read_json(path)
    if not isinstance(data, dict):
        raise _common.import_error(path, None, "expected a JSON object of token: id, found "
                                   f"{_common.json_kind(data)}")
    seen: dict[int, str] = {}
    for token, i in data.items():
        where = _common.quoted(token)
        _common.check_token(path, where, token)
        _common.check_id(path, where, i)
        if i in seen:
            raise _common.import_error(path, where, f"id {i} is also the id of {seen[i]!r}")
        seen[i] = token
    return data


def _read_merges(path: Path, vocab: dict[str, int]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    seen: dict[tuple[str, str], int] = {}
    for number, line in enumerate(_common.read_text(path).split("\n"), 1):
        line = line.removesuffix("\r")
        if not line or (number == 1 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        where = f"line {number}"
        if len(parts) != 2 or not all(parts):
            raise _common.import_error(path, where, f"{line!r} is not \"left right\" (two "
                                       "tokens and one space)")
        left, right = parts
        for side in (left, right, left + right):
            if side not in vocab:
                raise _common.import_error(path, where, f"{side!r} is not in the "
                                           "vocabulary (vocab.json)")
        if (left, right) in seen:
            raise _common.import_error(path, where, f"the merge {line!r} is listed twice "
                                       f"(also line {seen[(left, right)]})")
        seen[(left, right)] = number
        out.append((left, right))
    return out

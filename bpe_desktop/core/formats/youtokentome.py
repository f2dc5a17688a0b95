"""YouTokenToMe model files (``yttm.BPE.train`` writes them, ``yttm.BPE(path)`` reads them).

A text file of numbers, one record a line (``BPEState::dump`` in YouTokenToMe's
utils.cpp)::

    n_chars n_rules
    codepoint id          (n_chars lines: the alphabet, ▁ = 9601 among them)
    left_id right_id id   (n_rules lines: the merges in rank order, each a new token)
    unk_id pad_id bos_id eos_id      (-1 for a role the model does not have)

Export writes BPE Desktop's ids, so ``yttm.BPE`` returns the same ids; characters are
listed by id (YouTokenToMe itself lists them in hash-map order, which carries no
meaning; an import keeps the ids, not that order).

What YouTokenToMe's encoder does (``BaseEncoder::encode_sentence``): words are runs of
characters other than ASCII white space (space, tab, ``\\n \\v \\f \\r``) and ``▁``; each
starts with a ``▁`` symbol; a run of characters outside the alphabet is one unknown
token that never merges; merges apply lowest rule first, leftmost first. That is BPE
Desktop's ``bow-prefix`` encoding, so the models it reproduces are:

* boundary ``bow-prefix`` with pre-tokenizer ``sentencepiece``, ``whitespace`` or
  ``space`` (not ``letters``, which makes punctuation words of its own), no
  normalization or lowercasing, every alphabet symbol one character, ``▁`` among them;
* special tokens with the roles unk (required: YouTokenToMe always has one), pad, bos
  and eos only. YouTokenToMe names them ``<UNK>``, ``<PAD>``, ``<BOS>``, ``<EOS>``
  whatever they are called here; the ids are kept;
* no merge whose token already existed (each YouTokenToMe rule makes a new id).

Differences that lie outside the file: YouTokenToMe fuses a run of unknown characters
into one unknown token (BPE Desktop emits one per character; ``verify_export`` fuses
them before comparing); ``▁`` in the text separates words there, where for BPE
Desktop it is the ``▁`` symbol inside a word (the same pieces unless the training text
itself held ``▁``, so that merges join it to what precedes it); and the three
pre-tokenizers split at slightly different white space (``whitespace`` also at
non-ASCII spaces such as U+00A0 and U+3000, ``sentencepiece`` not at tabs, ``space``
not at tabs but at U+2028). On text whose only white space is spaces and line breaks
the segmentations are identical.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from bpe_desktop.core.config import BOW, SpecialToken, TrainConfig
from bpe_desktop.core.model import BPEModel
from bpe_desktop.core.formats import _common

LABEL = "YouTokenToMe model"
WHAT = "YouTokenToMe models"
EXPORT_OPTIONS: tuple[str, ...] = ()
#: The roles YouTokenToMe has, in the order of the file's last line, with its names.
ROLES = ("unk", "pad", "bos", "eos")
PIECE_OF_ROLE = {"unk": "<UNK>", "pad": "<PAD>", "bos": "<BOS>", "eos": "<EOS>"}
PRETOKENIZERS = ("sentencepiece", "whitespace", "space")
#: The largest Unicode code point.
MAX_CODEPOINT = 0x10FFFF
_INTEGER = re.compile(r"-?[0-9]{1,12}")


def problem(model: BPEModel) -> str | None:
    cfg = model.config
    if cfg.boundary != "bow-prefix":
        return (f"YouTokenToMe starts every word with a ▁ symbol, but this model uses "
                f"boundary '{cfg.boundary}'; train with boundary 'bow-prefix' (the "
                "sentencepiece preset)")
    if cfg.pretokenizer not in PRETOKENIZERS:
        return (f"YouTokenToMe cuts text into words at white space only, but this model's "
                f"pre-tokenizer '{cfg.pretokenizer}' also makes punctuation words of its "
                "own; train with pre-tokenizer 'sentencepiece' (the sentencepiece preset) "
                "or 'whitespace'")
    found = _common.normalization_problem(model, WHAT)
    if found:
        return found
    long_symbol = next((s for s in model.alphabet if len(s) != 1), None)
    if long_symbol is not None:
        return (f"YouTokenToMe's alphabet is single characters, but this model's alphabet "
                f"holds the symbol {long_symbol!r}; train without multi-character initial "
                "symbols")
    if BOW not in model.alphabet:
        return ("YouTokenToMe needs the word-start symbol ▁ in the alphabet, but this model "
                "has none (it was trained on no words); train on a non-empty corpus")
    roles = {t.role: t for t in cfg.special_tokens}
    other = next((t for t in cfg.special_tokens if t.role not in ROLES), None)
    if other is not None:
        return (f"YouTokenToMe has only the special tokens unk, pad, bos and eos, but this "
                f"model has {other.piece!r} (role {other.role}); train without "
                "user-defined special tokens")
    if "unk" not in roles:
        return ("YouTokenToMe always has an unknown token, but this model has none; train "
                "with an unk special token (the sentencepiece preset has one)")
    redundant = _common.redundant_merges(model)
    if redundant:
        rank, m = redundant[0]
        return (f"each YouTokenToMe rule makes a new token id, but "
                f"{_common.describe_merge(rank, m)} makes a token that already exists; "
                f"train with {_common.stop_before(rank, model)}")
    return None


def model_text(model: BPEModel) -> str:
    ids = model.piece_ids
    lines = [f"{len(model.alphabet)} {len(model.merges)}\n"]
    lines += [f"{ord(c)} {ids[c]}\n" for c in sorted(model.alphabet, key=ids.__getitem__)]
    lines += [f"{ids[m.left]} {ids[m.right]} {ids[m.result]}\n" for m in model.merges]
    special = {t.role: t.id for t in model.config.special_tokens}
    lines.append(" ".join(str(special.get(role, -1)) for role in ROLES) + "\n")
    return "".join(lines)


def export(model: BPEModel, path: str | os.PathLike) -> list[Path]:
    return _common.write_files([(Path(path), model_text(model).encode("utf-8"))])


def load(path: str | os.PathLike) -> BPEModel:
    lines = _common.read_text(path).split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline

    def numbers(index: int, count: int, what: str) -> list[int]:
        where = f"line {index + 1}"
        if index >= len(lines):
            raise _common.import_error(path, where, f"the file ends where {what} was "
                                       "expected (it is truncated)")
        parts = lines[index].strip().split(" ")
        if len(parts) != count or not all(_INTEGER.fullmatch(p) for p in parts):
            raise _common.import_error(path, where, f"{lines[index]!r} is not {what}")
        return [int(p) for p in parts]

    n_chars, n_rules = numbers(0, 2, "\"n_chars n_rules\" (two whole numbers)")
    if n_chars < 0 or n_rules < 0:
        raise _common.import_error(path, "line 1", "the counts must not be negative")
    if len(lines) != 1 + n_chars + n_rules + 1:
        raise _common.import_error(path, None, f"line 1 announces {n_chars} characters and "
                                   f"{n_rules} rules, so the file must have "
                                   f"{n_chars + n_rules + 2} lines, but it has {len(lines)}")
    token_of: dict[int, str] = {}
    line_of: dict[int, int] = {}

    def claim(id: int, token: str, index: int) -> None:
        where = f"line {index + 1}"
        _common.check_id(path, where, id)
        if id in token_of:
            raise _common.import_error(path, where, f"the id {id} is used twice (also line "
                                       f"{line_of[id]})")
        token_of[id] = token
        line_of[id] = index + 1

    for index in range(1, 1 + n_chars):
        codepoint, id = numbers(index, 2, "\"codepoint id\"")
        if not 0 <= codepoint <= MAX_CODEPOINT or 0xD800 <= codepoint <= 0xDFFF:
            raise _common.import_error(path, f"line {index + 1}", f"{codepoint} is not a "
                                       "Unicode character")
        claim(id, chr(codepoint), index)
    chars = dict(token_of)
    if BOW not in chars.values():
        raise _common.import_error(path, None, "the alphabet lacks ▁ (9601), the word-start "
                                   "symbol YouTokenToMe requires")
    merges: list[tuple[str, str]] = []
    made: dict[str, int] = {}
    for index in range(1 + n_chars, 1 + n_chars + n_rules):
        left, right, id = numbers(index, 3, "a rule \"left_id right_id new_id\"")
        for side in (left, right):
            if side not in token_of:
                raise _common.import_error(path, f"line {index + 1}", f"the id {side} is "
                                           "neither a character nor made by an earlier rule")
        token = token_of[left] + token_of[right]
        if token in made:
            raise _common.import_error(path, f"line {index + 1}", f"the token "
                                       f"{_common.quoted(token)} is made twice (also line "
                                       f"{made[token]})")
        claim(id, token, index)
        made[token] = index + 1
        merges.append((token_of[left], token_of[right]))
    roles = numbers(len(lines) - 1, 4, "\"unk_id pad_id bos_id eos_id\"")
    taken = set(token_of.values())
    specials = []
    for role, id in zip(ROLES, roles):
        if id == -1:
            continue
        piece = _common.free_piece(PIECE_OF_ROLE[role], taken)
        claim(id, piece, len(lines) - 1)
        specials.append(SpecialToken(piece, id, role))
    vocab = {token: id for id, token in token_of.items()}
    config = TrainConfig(pretokenizer="whitespace", boundary="bow-prefix", ties="codepoint",
                         min_frequency=1, merges=len(merges), fuse_unk=True,  # as it encodes
                         special_tokens=tuple(sorted(specials, key=lambda t: t.id)))
    notes = ["YouTokenToMe splits words at ASCII white space and at ▁; BPE Desktop's "
             "whitespace pre-tokenizer at all Unicode white space"]
    return _common.build_model(path, config=config, merges=merges, vocab=vocab,
                               alphabet=chars.values(), notes=notes, label=LABEL)

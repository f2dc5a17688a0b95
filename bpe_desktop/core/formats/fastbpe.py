"""fastBPE codes: one ``left right count`` merge per line, no header.

This is what ``fast learnbpe`` writes (XLM, fairseq): ``</w>`` is glued to a word's last
character (BPE Desktop's ``eow-suffix``) and the third column is the pair's count when
it was merged. There is no header: fastBPE would read ``#version: 0.2`` as a merge.

* Export writes the counts the model has; a model without counts (an import from a
  format that has none) gets two columns, which fastBPE's reader accepts, and a merge
  whose count alone is unknown gets ``0``, as ``learnbpe`` writes for merges it could not
  make. With ``vocab=True`` the vocabulary file ``PATH.vocab`` is written beside the
  codes, as ``fast getvocab`` writes it: ``token count`` per line, with ``@@`` after
  tokens that do not end a word and ``</w>`` dropped from those that do. Every token is
  listed, so fastBPE's vocabulary restriction changes nothing; the count is the pair's
  count at the merge that made the token, ``0`` for alphabet symbols and unknown counts.
* Import reads two- or three-column codes; counts are kept when present.

fastBPE applies merges exactly as BPE Desktop encodes (the lowest-ranked pair, every
occurrence left to right, then look again). What it does differently lies outside
the file:

* it splits words at U+0020 only (``whitespace`` models also split at tabs and other
  white space, ``space`` models at line-separator characters such as U+2028; the
  ``space`` pre-tokenizer, the subword-nmt preset, agrees on everything else);
* a character it has no merge for passes through as itself where BPE Desktop emits
  ``<unk>``: the same segment boundaries, a different token.
"""

from __future__ import annotations

import os
from pathlib import Path

from bpe_desktop.core.config import EOW, MAX_COUNT, SpecialToken, TrainConfig
from bpe_desktop.core.model import BPEModel, Merge
from bpe_desktop.core.formats import _common, tiktoken_ranks

LABEL = "fastBPE codes"
WHAT = "fastBPE codes"
EXPORT_OPTIONS: tuple[str, ...] = ("vocab",)
#: The vocabulary file written beside the codes: ``PATH`` + this.
VOCAB_SUFFIX = ".vocab"
#: fastBPE's mark after a segment that does not end its word.
CONTINUES = "@@"


def problem(model: BPEModel, vocab: bool = False) -> str | None:
    cfg = model.config
    if cfg.boundary != "eow-suffix":
        return (f"fastBPE codes glue </w> to the last character of each word, but this "
                f"model uses boundary '{cfg.boundary}'; train with boundary 'eow-suffix' "
                "(the subword-nmt preset)")
    found = (_common.space_words_problem(model, "fastBPE")
             or _common.normalization_problem(model, WHAT)
             or _common.code_break_problem(model, "fastBPE codes"))
    if found:
        return found
    redundant = _common.redundant_merges(model)
    if redundant:
        rank, m = redundant[0]
        return (f"fastBPE's reader requires every merged token to be made by one merge only "
                f"(its applybpe aborts otherwise), but {_common.describe_merge(rank, m)} "
                f"makes a token that already exists; train with "
                f"{_common.stop_before(rank, model)}, or export as subword-nmt codes")
    if vocab:
        seen: dict[str, str] = {}
        for piece in _ordinary_pieces(model):
            entry = vocab_entry(piece)
            if entry in seen:
                return (f"in a fastBPE vocabulary the tokens {seen[entry]!r} and {piece!r} "
                        f"would both be written {entry!r}; export the codes without the "
                        "vocabulary")
            seen[entry] = piece
    return None


def _ordinary_pieces(model: BPEModel) -> list[str]:
    specials = {t.piece for t in model.config.special_tokens}
    return [p for p in model.pieces if p not in specials]


def vocab_entry(piece: str) -> str:
    """How ``fast getvocab`` writes a token: ``</w>`` dropped at a word's end, else ``@@``."""
    return piece[:-len(EOW)] if piece.endswith(EOW) else piece + CONTINUES


def codes_text(model: BPEModel) -> str:
    if all(m.count is None for m in model.merges):
        return "".join(f"{m.left} {m.right}\n" for m in model.merges)
    return "".join(f"{m.left} {m.right} {m.count or 0}\n" for m in model.merges)


def vocab_text(model: BPEModel) -> str:
    counts = {}
    for m in model.merges:
        counts.setdefault(m.result, m.count)
    alphabet = set(model.alphabet)
    lines = []
    for piece in _ordinary_pieces(model):
        count = None if piece in alphabet else counts.get(piece)
        lines.append(f"{vocab_entry(piece)} {count or 0}\n")
    return "".join(lines)


def vocab_path(codes_path: str | os.PathLike) -> Path:
    return Path(os.fspath(codes_path) + VOCAB_SUFFIX)


def export(model: BPEModel, path: str | os.PathLike, vocab: bool = False) -> list[Path]:
    files = [(Path(path), codes_text(model).encode("utf-8"))]
    if vocab:
        files.append((vocab_path(path), vocab_text(model).encode("utf-8")))
    return _common.write_set(files)


def load(path: str | os.PathLike) -> BPEModel:
    lines = _common.read_text(path).split("\n")
    merges: list[tuple[str, str]] = []
    counts: list[int | None] = []
    seen: dict[tuple[str, str], int] = {}
    made: dict[str, int] = {}
    for number, line in enumerate(lines, 1):
        if not line and number == len(lines):
            continue  # the final newline
        if number == 1 and line.startswith("#version:"):
            raise _common.import_error(path, "line 1", f"{line!r}: fastBPE codes have no "
                                       "header (fastBPE would read it as a merge); this looks "
                                       "like subword-nmt codes: import them as subword-nmt")
        if line.endswith("\r"):
            raise _common.import_error(path, f"line {number}", "ends with a carriage return "
                                       "(Windows line ends): fastBPE would read it as part "
                                       "of the last field; convert the file to LF line ends")
        parts = line.split(" ")
        if len(parts) not in (2, 3) or not all(parts):
            raise _common.import_error(path, f"line {number}", f"{line!r} is not one merge "
                                       "\"left right count\" or \"left right\"")
        if len(parts) == 3:
            if not parts[2].isascii() or not parts[2].isdigit() or int(parts[2]) > MAX_COUNT:
                raise _common.import_error(path, f"line {number}", f"the count {parts[2]!r} "
                                           f"is not a whole number from 0 to {MAX_COUNT}")
            counts.append(int(parts[2]))
        else:
            counts.append(None)
        if number > 1 and (counts[-1] is None) != (counts[0] is None):
            raise _common.import_error(path, f"line {number}", "some lines have a count and "
                                       "others do not; use one layout throughout")
        pair = (parts[0], parts[1])
        for where, previous in ((seen, pair), (made, pair[0] + pair[1])):
            if previous in where:
                raise _common.import_error(path, f"line {number}", f"{line!r} repeats line "
                                           f"{where[previous]} (fastBPE requires each merge "
                                           "and each merged token once)")
        seen[pair] = number
        made[pair[0] + pair[1]] = number
        merges.append(pair)
    if counts and counts[0] is None and tiktoken_ranks.looks_like_ranks(merges):
        raise _common.import_error(path, None, tiktoken_ranks.NOT_CODES)
    tokens = {side for pair in merges for side in pair} | set(made)
    unk = _common.free_piece("<unk>", tokens)
    remarks = ["the codes carry no counts"] if counts and counts[0] is None else []
    notes = _common.unknown_token_notes(unk, "fastBPE")
    config = TrainConfig.preset("subword-nmt", merges=len(merges), min_frequency=1,
                                special_tokens=(SpecialToken(unk, 0, "unk"),))
    model = _common.build_model(path, config=config, merges=merges, notes=notes,
                                remarks=remarks, label=LABEL)
    if counts and counts[0] is not None:
        model = BPEModel(config=model.config, alphabet=model.alphabet,
                         merges=tuple(Merge(m.left, m.right, c)
                                      for m, c in zip(model.merges, counts)),
                         corpus=model.corpus, description=model.description)
    return model

"""subword-nmt BPE codes: a version header, then one ``left right`` merge per line.

* ``#version: 0.2`` for ``eow-suffix`` models: ``</w>`` is glued to a word's last
  character, as subword-nmt's own ``learn_bpe`` writes.
* ``#version: 0.1`` for ``eow-symbol`` models (the seeds' layout): ``</w>`` is a symbol
  after the word, and merges such as ``s </w>`` attach it.

``subword_nmt.apply_bpe`` applies merges exactly as BPE Desktop encodes (the lowest-
ranked pair, every occurrence left to right, then look again), so every merge list
is expressible. What apply_bpe does differently lies outside the file:

* it splits words at U+0020 only (``whitespace`` models also split at tabs and other
  white space; the ``space`` pre-tokenizer, the subword-nmt preset, is identical);
* a character it has no merge for passes through as itself where BPE Desktop emits
  ``<unk>``: the same segment boundaries, a different token.

Counts are never written: ``apply_bpe`` rejects a third column.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from bpe_desktop.core.config import EOW, SpecialToken, TrainConfig
from bpe_desktop.core.model import BPEModel
from bpe_desktop.core.formats import _common, tiktoken_ranks

LABEL = "subword-nmt codes"
WHAT = "subword-nmt codes"
VERSIONS = {"eow-suffix": "0.2", "eow-symbol": "0.1"}
EXPORT_OPTIONS: tuple[str, ...] = ()


def problem(model: BPEModel) -> str | None:
    cfg = model.config
    if cfg.boundary not in VERSIONS:
        return (f"subword-nmt codes mark the end of each word with </w>, but this model "
                f"uses boundary '{cfg.boundary}'; train with boundary 'eow-suffix' (the "
                "subword-nmt preset, codes v0.2) or 'eow-symbol' (codes v0.1)")
    found = (_common.space_words_problem(model, "subword-nmt's apply_bpe")
             or _common.normalization_problem(model, WHAT))
    if found:
        return found
    if not model.merges:
        return ("subword-nmt's apply_bpe cannot read codes without a single merge (it "
                "takes the empty file for a malformed line); train at least one merge")
    return _common.code_break_problem(model, "subword-nmt codes")


def codes_text(model: BPEModel) -> str:
    header = f"#version: {VERSIONS[model.config.boundary]}\n"
    return header + "".join(f"{m.left} {m.right}\n" for m in model.merges)


def export(model: BPEModel, path: str | os.PathLike) -> list[Path]:
    return _common.write_files([(Path(path), codes_text(model).encode("utf-8"))])


def load(path: str | os.PathLike) -> BPEModel:
    lines = _common.read_text(path).split("\n")
    version = "0.1"  # apply_bpe: no header means the original format
    start = 0
    if lines and lines[0].startswith("#version:"):
        version = _version(lines[0])
        if version not in ("0.1", "0.2"):
            raise _common.import_error(path, "line 1", f"{lines[0]!r}: only versions 0.1 "
                                       "and 0.2 of the codes format exist")
        start = 1
    merges: list[tuple[str, str]] = []
    seen: dict[tuple[str, str], int] = {}
    for number, line in enumerate(lines[start:], start + 1):
        line = line.strip("\r\n ")
        if not line:
            if number == len(lines):
                continue  # the final newline
            raise _common.import_error(path, f"line {number}", "an empty line; each line "
                                       "must be one merge \"left right\"")
        parts = line.split(" ")
        if len(parts) != 2 or not all(parts):
            extra = (" (a count column, as fastBPE writes, is not part of subword-nmt codes)"
                     if len(parts) == 3 and parts[2].isdigit() else "")
            raise _common.import_error(path, f"line {number}", f"{line!r} is not one merge "
                                       f"\"left right\"{extra}")
        pair = (parts[0], parts[1])
        if pair in seen:
            raise _common.import_error(path, f"line {number}", f"the merge {line!r} is "
                                       f"listed twice (also line {seen[pair]})")
        seen[pair] = number
        merges.append(pair)
    if not merges:  # as the export refuses to write one
        raise _common.import_error(path, None, "holds no merges: subword-nmt's apply_bpe "
                                   "cannot read codes without a single merge (it takes the "
                                   "file for malformed), so these are not codes")
    if version == "0.1" and tiktoken_ranks.looks_like_ranks(merges):
        raise _common.import_error(path, None, tiktoken_ranks.NOT_CODES)
    if version == "0.2" and _looks_like_gpt2(merges):
        raise _common.import_error(path, None, f"no merge holds {EOW}, which codes of "
                                   "version 0.2 end words with, and words start with Ġ (a "
                                   "space in GPT-2's byte characters): this is a GPT-2 "
                                   "merges.txt; import it with its vocab.json as gpt2")
    boundary = "eow-suffix" if version == "0.2" else "eow-symbol"
    # The codes have no unknown token; BPE Desktop's must not be one of their tokens.
    tokens = {side for pair in merges for side in pair} | {a + b for a, b in merges}
    unk = _common.free_piece("<unk>", tokens)
    notes = _common.unknown_token_notes(unk, "subword-nmt")
    config = TrainConfig.preset("subword-nmt", merges=len(merges), boundary=boundary,
                                min_frequency=1, special_tokens=(SpecialToken(unk, 0, "unk"),))
    return _common.build_model(path, config=config, merges=merges,
                               alphabet=[EOW] if boundary == "eow-symbol" else [],
                               notes=notes, remarks=[f"codes version {version}"],
                               label=LABEL)


def _looks_like_gpt2(merges: list[tuple[str, str]]) -> bool:
    """GPT-2's merges.txt has the same header and layout, but byte-level tokens: a space
    is part of the next word (Ġ) and nothing marks a word's end."""
    return not any(EOW in left + right for left, right in merges) and \
        any(left.startswith("Ġ") for left, _ in merges)


def _version(header: str) -> str:
    """apply_bpe's reading of ``#version: 0.2`` (trailing ``.0`` parts dropped)."""
    words = header.split()
    return re.sub(r"(\.0+)*$", "", words[-1]) if len(words) > 1 else ""

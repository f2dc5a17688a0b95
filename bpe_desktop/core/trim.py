"""Trim a vocabulary to what a target text needs, with an exact old-id -> new-id map.

Kept: every token the model produces on the target text, every token a merge that makes a
kept token is built from (recursively), and optionally every alphabet symbol (protected
strings among them) and the special tokens.
Byte-level models keep all 256 bytes always (their encoder spells any text in them), and
so do models with byte fallback their 256 byte tokens <0x00> ... <0xFF>. A merge is kept
when its two parts and its result are kept. Merges the target text never
applies are dropped; BPE picks the lowest-ranked pair present, so a dropped merge,
never chosen on this text, changes nothing: the trimmed model segments the target
text identically. :func:`trim` checks that by re-encoding it and mapping the ids back,
and refuses (ConfigError) should it ever differ.

New ids keep the old order (kept tokens, specials included, renumbered 0..n-1), so an
embedding matrix is trimmed by taking the rows of the kept old ids in order.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bpe_desktop.core.csv_rows import CsvRows
from bpe_desktop.core.errors import ConfigError
from bpe_desktop.core.formats import _common
from bpe_desktop.core.model import BPEModel


@dataclass(frozen=True)
class TrimResult:
    model: BPEModel
    #: Old id -> new id, for every kept token, in old-id order.
    id_map: dict[int, int]
    #: Tokens the target text produced (distinct).
    used: int
    #: The untrimmed model's vocabulary size.
    source_size: int

    @property
    def dropped(self) -> int:
        return self.source_size - len(self.id_map)


def trim(model: BPEModel, texts: Sequence[str], *, keep_alphabet: bool = True,
         keep_specials: bool = True) -> TrimResult:
    """``model`` with only the tokens ``texts`` need (see the module's rules)."""
    texts = [t for t in texts if t]
    if not any(t.strip() for t in texts):  # spaces alone: no word would keep a merge
        raise ConfigError("the target text is empty (nothing but spaces and line breaks): "
                          "there is nothing to keep")
    tok = model.tokenizer()
    before = tok.encode_batch(texts)
    used = set()
    for ids in before:
        used.update(ids.tolist())
    pieces = model.pieces
    special_ids = {t.id for t in model.config.special_tokens}
    needed = {pieces[i] for i in used if i not in special_ids}
    if keep_alphabet or model.config.byte_level:
        needed.update(model.alphabet)
    # Byte fallback spells any character in the 256 byte tokens (base symbols or reserved
    # specials): without all of them sentencepiece refuses the file, HF gives <unk>.
    fallback = set(_common.BYTE_PIECES) if model.config.byte_fallback else set()
    needed.update(fallback & set(model.alphabet))
    # Every merge that makes a needed token: a model converted from sentencepiece makes
    # one token by several merges ('▁t' + 'he', '▁th' + 'e'), and the text may use any.
    made_by: dict[str, list[str]] = {}
    for m in model.merges:
        made_by.setdefault(m.result, []).extend((m.left, m.right))
    stack = list(needed)
    while stack:
        for part in made_by.get(stack.pop(), ()):
            if part not in needed:
                needed.add(part)
                stack.append(part)
    kept_specials = [t for t in model.config.special_tokens
                     if keep_specials or t.id in used or t.piece in fallback]
    kept_ids = sorted({model.piece_ids[p] for p in needed} | {t.id for t in kept_specials})
    id_map = {old: new for new, old in enumerate(kept_ids)}
    merges = tuple(m for m in model.merges
                   if m.left in needed and m.right in needed and m.result in needed)
    alphabet = tuple(p for p in model.alphabet if p in needed)
    ordinary = dict.fromkeys(alphabet)
    ordinary.update(dict.fromkeys(m.result for m in merges))
    specials = tuple(dataclasses.replace(t, id=id_map[t.id]) for t in kept_specials)
    # A protected string is an alphabet symbol: one the target never uses goes with it.
    protected = tuple(p for p in model.config.protected if p in needed)
    config = model.config.replace(special_tokens=specials, merges=len(merges),
                                  vocab_size=None, protected=protected)
    trimmed = dataclasses.replace(
        model, config=config, alphabet=alphabet, merges=merges, final_counts=None,
        ids=tuple(id_map[model.piece_ids[p]] for p in ordinary),
        description=(model.description + f" Trimmed to {len(kept_ids):,} tokens.").strip())
    _check_identical(trimmed, texts, before, kept_ids)
    return TrimResult(trimmed, id_map, len(used), model.vocab_size)


def _check_identical(trimmed: BPEModel, texts, before, kept_ids: list[int]) -> None:
    after = trimmed.tokenizer().encode_batch(texts)
    for number, (old, new) in enumerate(zip(before, after), 1):
        back = [kept_ids[i] for i in new.tolist()]
        if back != old.tolist():
            raise ConfigError(f"the trimmed model segments line {number} of the target "
                              "text differently; it was not written (please report this)")


def id_map_json(result: TrimResult) -> bytes:
    """``{"old_id": new_id, ...}`` for every kept token."""
    return (json.dumps({str(k): v for k, v in result.id_map.items()}, indent=0) + "\n"
            ).encode("utf-8")


def id_map_csv(result: TrimResult) -> bytes:
    """``old_id,new_id,piece`` per kept token, with a header row."""
    out = io.StringIO(newline="")
    writer = CsvRows(out)
    writer.writerow(("old_id", "new_id", "piece"))
    pieces = result.model.pieces
    for old, new in result.id_map.items():
        writer.writerow((old, new, pieces[new]))
    return out.getvalue().encode("utf-8")


def id_map_paths(path: str | os.PathLike) -> tuple:
    """(JSON, CSV) files of the id map named ``path``: ``path`` is the JSON, or the CSV
    when it ends in ``.csv``, and the other form goes beside it."""
    path = Path(path)
    if path.suffix.lower() == ".csv":
        return path.with_suffix(".json"), path
    return path, path.with_suffix(".csv")


def id_map_clash(id_map: str | os.PathLike, model_files: Sequence[str | os.PathLike],
                 inputs: Sequence[str | os.PathLike]) -> str | None:
    """Why the id map's files at ``id_map`` cannot be written (one of them would replace a
    file the trimmed model is written to, or an input), or None."""
    def same(a, b) -> bool:
        return os.path.realpath(a) == os.path.realpath(b)

    for path in id_map_paths(id_map):
        if any(same(path, written) for written in model_files):
            return f"{path}: the id map would overwrite the trimmed model; give it another name"
        if any(same(path, read) for read in inputs):
            return f"{path}: the id map would overwrite an input of the trim; give it another name"
    return None


def write_id_map(result: TrimResult, path: str | os.PathLike) -> list:
    """The map as JSON and CSV at :func:`id_map_paths`, each written atomically (the file
    ``path`` names first)."""
    json_path, csv_path = id_map_paths(path)
    files = [(json_path, id_map_json(result)), (csv_path, id_map_csv(result))]
    return _common.write_files(files if json_path == Path(path) else files[::-1])

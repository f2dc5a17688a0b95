"""tiktoken "mergeable ranks": ``base64(token bytes) rank`` per line, in rank order.

A rank is the token's merge priority; BPE Desktop writes each token's id, so ranks are
ids: the 256 single bytes first (in the model's alphabet order), then merged tokens in
merge order, with the special tokens' ids left out (tiktoken takes those separately).
The file holds neither the splitting pattern nor the special tokens, so a small JSON
file is written beside it, ``PATH.json``::

    {"name": ..., "pat_str": the pre-tokenizer's regex, "special_tokens": {piece: id},
     "explicit_n_vocab": ..., "mergeable_ranks": "FILE NAME"}

which gives ``tiktoken.Encoding(name, pat_str=..., mergeable_ranks=
load_tiktoken_bpe(path), special_tokens=..., explicit_n_vocab=...)``.

Only byte-level models (the gpt2, gpt4, llama3 and gpt4o pre-tokenizers) fit: tiktoken
works on bytes and needs all 256 of them. Ranks whose ``pat_str`` is GPT-2's, GPT-4's
(cl100k_base), Llama 3's or GPT-4o's (o200k_base), character for character, import
exactly with that pre-tokenizer; another pattern, or none (no settings file), is
approximated by GPT-2's, with a note. tiktoken identifies a merge by the token it makes, so a merge whose token
already existed cannot be written. BPE Desktop reads CRLF line ends as LF; tiktoken
encodes text as given.

Beware ``load_tiktoken_bpe(path)``: it caches local files too, by path, in
``$TMPDIR/data-gym-cache``; after re-exporting to the same path pass
``expected_hash=<sha256 of the file>`` (or set ``TIKTOKEN_CACHE_DIR=""``).
"""

from __future__ import annotations

import base64
import binascii
import itertools
import json
import os
from pathlib import Path
from typing import Any

from bpe_desktop.core.config import SpecialToken, TrainConfig
from bpe_desktop.core.model import BPEModel
from bpe_desktop.core.options import PRETOKENIZER_PATTERNS
from bpe_desktop.core.pieces import BYTE_CHARS, CHAR_BYTES
from bpe_desktop.core.formats import _common

LABEL = "tiktoken ranks"
WHAT = "tiktoken ranks"
EXPORT_OPTIONS = ("sidecar",)

#: GPT-2's pattern: what BPE Desktop's gpt2 pre-tokenizer implements (tiktoken's "gpt2").
GPT2_PATTERN = PRETOKENIZER_PATTERNS["gpt2"]
#: The byte-level pre-tokenizer of each ``pat_str`` BPE Desktop runs exactly.
_PRETOKENIZER_OF_PATTERN = {pattern: name for name, pattern in PRETOKENIZER_PATTERNS.items()}


def settings_path(path: str | os.PathLike) -> Path:
    """The JSON file beside the ranks file: pattern and special tokens."""
    p = Path(path)
    return p.with_name(p.name + ".json")


def problem(model: BPEModel, *, sidecar: bool = True) -> str | None:
    # (Writing the settings file or not changes nothing about which models fit.)
    found = (_common.byte_level_problem(model, WHAT)
             or _common.byte_tokens_problem(model, WHAT)
             or _common.normalization_problem(model, WHAT))
    if found:
        return found
    redundant = _common.redundant_merges(model)
    if redundant:
        rank, m = redundant[0]
        return (f"{_common.describe_merge(rank, m)} makes a token that already existed; "
                "tiktoken ranks each token once, so it would apply this merge at the earlier "
                "one's priority and could segment differently; train with "
                f"{_common.stop_before(rank, model)} to stop before it")
    if model.ids is not None:
        ids = model.piece_ids
        merged = [ids[p] for p in model._ordinary_pieces[len(model.alphabet):]]
        if any(a > b for a, b in itertools.pairwise(merged)):
            return ("a tiktoken rank is both a token's id and its merge priority, and this "
                    "model keeps its source's ids, which are not in merge order; export "
                    "it to a format with separate merges (hf, gpt2) instead")
    return None


def token_bytes(piece: str) -> bytes:
    return bytes(CHAR_BYTES[c] for c in piece)


def ranks_text(model: BPEModel) -> str:
    specials = {t.id for t in model.config.special_tokens}
    return "".join(
        f"{base64.b64encode(token_bytes(piece)).decode('ascii')} {i}\n"
        for i, piece in enumerate(model.pieces) if i not in specials
    )


def settings(model: BPEModel, ranks_name: str) -> dict[str, Any]:
    return {
        "name": Path(ranks_name).stem,
        "pat_str": PRETOKENIZER_PATTERNS[model.config.pretokenizer],
        "special_tokens": {t.piece: t.id for t in
                           sorted(model.config.special_tokens, key=lambda t: t.id)},
        "explicit_n_vocab": model.vocab_size,
        "mergeable_ranks": ranks_name,
    }


def export(model: BPEModel, path: str | os.PathLike, *, sidecar: bool = True) -> list[Path]:
    files = [(Path(path), ranks_text(model).encode("ascii"))]
    if sidecar:
        text = json.dumps(settings(model, Path(path).name), ensure_ascii=False, indent=1)
        files.append((settings_path(path), (text + "\n").encode("utf-8")))
    return _common.write_set(files)


# -- import -----------------------------------------------------------------------------


def load(path: str | os.PathLike, *, pattern: str | None = None,
         special_tokens: dict[str, int] | None = None) -> BPEModel:
    """Read a ranks file; pattern and special tokens from ``PATH.json`` unless given."""
    _common.check_set([path, settings_path(path)])  # a ranks file and another's settings
    side = _read_settings(path)
    pattern = pattern if pattern is not None else side.get("pat_str")
    specials_raw = special_tokens if special_tokens is not None else side.get("special_tokens", {})
    notes = []
    pretokenizer = _pretokenizer_of(pattern)
    if pretokenizer is None:
        notes.append(_OTHER_PATTERN)
    elif pattern is None:
        notes.append(_no_pattern(path))
    vocab: dict[str, int] = {}
    seen_ranks: dict[int, int] = {}  # rank -> line
    text = _common.read_bytes(path)
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        where = f"line {number}"
        if len(parts) != 2:
            raise _common.import_error(path, where, "expected \"base64-token rank\"")
        try:
            token = base64.b64decode(parts[0], validate=True)
            rank = int(parts[1])
        except (binascii.Error, ValueError):
            raise _common.import_error(path, where, "expected \"base64-token rank\" (the "
                                       "token in base64, the rank a whole number)") from None
        if not token:
            raise _common.import_error(path, where, "the token is empty")
        if not 0 <= rank <= _common.MAX_ID:
            raise _common.import_error(path, where, f"the rank {rank} is out of range (0 to "
                                       f"{_common.MAX_ID})")
        if rank in seen_ranks:
            raise _common.import_error(path, where, f"rank {rank} is also on line "
                                       f"{seen_ranks[rank]}")
        chars = "".join(BYTE_CHARS[b] for b in token)
        if chars in vocab:
            raise _common.import_error(path, where, f"the token {token!r} is listed twice")
        seen_ranks[rank] = number
        vocab[chars] = rank
    if not vocab:
        raise _common.import_error(path, None, "no tokens: not a tiktoken ranks file")
    missing = [b for b in range(256) if BYTE_CHARS[b] not in vocab]
    remarks = []  # the source cannot encode these either
    if missing:
        remarks.append(f"{len(missing)} single bytes have no rank (first: 0x{missing[0]:02X}); "
                     "text containing them cannot be encoded without an unknown token")
    ranked = sorted((t for t in vocab if len(t) > 1), key=vocab.__getitem__)
    merges, unreachable = _common.merges_from_ranked_vocab(ranked, vocab)
    if unreachable:
        remarks.append(f"{len(unreachable):,} tokens cannot be formed by merging (first: "
                     f"{token_bytes(unreachable[0])!r}) and are alphabet symbols here")
    specials = _specials(path, specials_raw or {}, vocab,
                         from_settings=special_tokens is None)
    for t in specials:
        vocab[t.piece] = t.id
    if special_tokens is None:
        _check_token_count(path, side, ranks=len(vocab) - len(specials), total=len(vocab))
    config = TrainConfig.preset(pretokenizer or "gpt2", merges=len(merges),
                                special_tokens=_common.unique_roles(specials))
    sources = [path] + ([settings_path(path)] if side else [])
    return _common.build_model(path, config=config, merges=merges, vocab=vocab,
                               alphabet=[c for c in BYTE_CHARS if c in vocab] + unreachable,
                               sources=sources, notes=notes, remarks=remarks,
                               label=LABEL)


def looks_like_ranks(pairs: list[tuple[str, str]]) -> bool:
    """Whether two-column lines read as merges are a ranks file: base64 tokens ranked 0,
    1, 2, … in order, a right-hand side no BPE codes ever have line after line."""
    for rank, (token, right) in enumerate(pairs):
        if right != str(rank):
            return False
        try:
            base64.b64decode(token, validate=True)
        except (binascii.Error, ValueError):
            return False
    return bool(pairs)


NOT_CODES = ("holds \"base64-token rank\" lines, ranked 0, 1, 2, … in order: these are "
              "tiktoken ranks, not BPE codes; import them as tiktoken")


def _specials(path: str | os.PathLike, raw: Any, vocab: dict[str, int], *,
              from_settings: bool) -> list[SpecialToken]:
    """The special tokens ``{piece: id}`` of the settings file (or the option), checked."""
    source = settings_path(path) if from_settings else path
    field = "special_tokens" if from_settings else "the special_tokens option"
    if not isinstance(raw, dict):
        raise _common.import_error(source, field, "expected {piece: id}")
    out: list[SpecialToken] = []
    piece_of: dict[int, str] = {}
    for piece, i in raw.items():
        where = f"{field}[{_common.quoted(piece)}]" if isinstance(piece, str) else field
        _common.check_token(source, where, piece)
        _common.check_id(source, where, i)
        if piece in vocab:
            raise _common.import_error(source, where, f"the special token {piece!r} is also "
                                       f"an ordinary token of {Path(path).name} (rank "
                                       f"{vocab[piece]})")
        if i in piece_of:
            raise _common.import_error(source, where, f"id {i} is also the id of the "
                                       f"special token {piece_of[i]!r}")
        piece_of[i] = piece
        out.append(_common.special(piece, i))
    return out


def _check_token_count(path: str | os.PathLike, side: dict[str, Any], *, ranks: int,
                       total: int) -> None:
    """The settings' ``explicit_n_vocab`` against the ranks and specials read: ranks cut
    short at a line end (copied without their checksum list) differ only there, and
    tiktoken itself refuses such a pair."""
    expected = side.get("explicit_n_vocab")
    if expected is None:
        return
    source = settings_path(path)
    if isinstance(expected, bool) or not isinstance(expected, int):
        raise _common.import_error(source, "explicit_n_vocab", "expected a whole number")
    if expected != total:
        raise _common.import_error(
            source, "explicit_n_vocab",
            f"says {expected:,} tokens, but {Path(path).name} has {ranks:,} ranks and there "
            f"are {total - ranks:,} special tokens: the ranks file is cut short or damaged, "
            "or the two files come from different tokenizers")


_OTHER_PATTERN = "text is split with GPT-2's pattern here, not the source's pat_str"


def _pretokenizer_of(pattern: Any) -> str | None:
    """The pre-tokenizer of a ``pat_str`` (no pattern: GPT-2's); None for another one."""
    if pattern is None:
        return "gpt2"
    return _PRETOKENIZER_OF_PATTERN.get(pattern) if isinstance(pattern, str) else None


def _no_pattern(path: str | os.PathLike) -> str:
    # tiktoken's own files (cl100k_base.tiktoken, Llama 3's tokenizer.model) come bare:
    # their pattern is in the code that loads them, so GPT-2's is only an assumption.
    return (f"no {settings_path(path).name} gives its \"pat_str\": text is split with "
            "GPT-2's pattern here, which may not be the tokenizer's (GPT-4's, Llama 3's and "
            "GPT-4o's are others; write the pattern there as \"pat_str\")")


def check_adaptable(path: str | os.PathLike) -> None:
    """Extending or trimming must cut text as the ranks' own pattern does (and writing
    back keeps it), so ranks whose settings name another pattern than the ones BPE
    Desktop splits with (GPT-2's, GPT-4's, Llama 3's, GPT-4o's), or name none, are
    refused."""
    pattern = _read_settings(path).get("pat_str")
    if pattern is None:
        raise _common.not_adaptable(path, [_no_pattern(path)])
    if _pretokenizer_of(pattern) is None:
        raise _common.not_adaptable(settings_path(path), [_OTHER_PATTERN])


def _read_settings(path: str | os.PathLike) -> dict[str, Any]:
    side = settings_path(path)
    if not side.is_file():
        return {}
    data = _common.read_json(side)
    if not isinstance(data, dict):
        raise _common.import_error(side, None, "expected a JSON object, found "
                                   f"{_common.json_kind(data)}")
    if "pat_str" in data and not isinstance(data["pat_str"], str):
        raise _common.import_error(side, "pat_str", "expected a string")
    if not isinstance(data.get("special_tokens", {}), dict):
        raise _common.import_error(side, "special_tokens", "expected {piece: id}")
    return data

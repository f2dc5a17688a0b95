"""Hugging Face ``tokenizer.json``: a BPE model plus the pipeline that reproduces ours.

What is written, per training option:

* pre-tokenizer ``whitespace``: ``WhitespaceSplit``; ``space``: a ``Split`` at U+0020 and
  the line breaks ``str.splitlines`` knows; ``letters``: a ``Split`` that keeps runs of
  letters and marks and single other characters; ``sentencepiece``: a ``Split`` at
  spaces and line breaks; ``gpt2``: ``ByteLevel`` (GPT-2's regex, no prefix space) with
  a ``Replace`` of CRLF by LF, as BPE Desktop reads text; ``gpt4`` / ``llama3`` / ``gpt4o``: the same
  with a ``Split`` by the regex first and a ``ByteLevel`` without its own (as Llama 3's
  file; see ``hf_byte_level``);
* boundary ``eow-suffix``: ``end_of_word_suffix: "</w>"`` and a ``BPEDecoder``;
  ``bow-prefix``: a ``Metaspace`` pre-tokenizer adding ``▁`` to every word;
  ``none``: nothing (``Fuse`` decoder). ``eow-symbol`` (``</w>`` as a symbol of its own)
  has no counterpart: HF always glues the suffix to the last character;
* byte fallback: ``byte_fallback: true`` and a ``ByteFallback`` decoder before the
  boundary's (with ``eow-suffix``: ``Fuse`` and two ``Replace`` steps instead of
  ``BPEDecoder``, so that an unseen word's bytes, its ``</w>`` among them, decode with
  their spaces);
* normalization and lowercasing: ``NFC`` / ``NFKC`` and ``Lowercase`` normalizers;
* special tokens: in ``added_tokens`` (special) and in the vocabulary with their ids;
* protected strings: in ``added_tokens`` with ``special: false`` and ``normalized: false``
  (HF then finds them in the raw text, longest first, and pre-tokenizes the text between
  them on its own, as BPE Desktop does) and in the vocabulary; imported back as
  protected strings;
  the ``unk`` one is the model's ``unk_token``; ``fuse_unk`` is the model's option
  (one unknown token per run of unknown characters, or one per character).

Known differences that no file setting removes (documented, not refused): HF finds
special tokens spelled out in the input text (``<s>``), which BPE Desktop encodes as
ordinary characters; HF lowercases Σ to σ everywhere, BPE Desktop to ς at a word's end;
a model without an unknown token: HF leaves out a character outside the vocabulary, which
BPE Desktop refuses to encode (:func:`notes`, shown with the export).

The layout is what ``tokenizers`` itself writes (``Tokenizer.save``, pretty), so a file
re-saved by ``tokenizers`` is unchanged. Merges are ``[left, right]`` pairs; the legacy
``"left right"`` strings are an option when no merged token contains a space.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from bpe_desktop.core.config import BOW, EOW, SpecialToken, TrainConfig
from bpe_desktop.core.model import BPEModel
from bpe_desktop.core.formats import _common, hf_byte_level

LABEL = "Hugging Face tokenizer.json"

#: ``space``: U+0020 and every line break of ``str.splitlines`` (subword-nmt's reader).
SPACE_SPLIT = r"[ \n\r\x0B\x0C\x1C\x1D\x1E\x{85}\x{2028}\x{2029}]+"
#: ``letters``: runs of letters with their marks, or one other non-space character.
LETTERS_KEEP = r"[\p{Alphabetic}\p{M}]+|[^\p{White_Space}\p{Alphabetic}\p{M}]"
#: ``sentencepiece``: words are separated by spaces and line breaks.
SENTENCEPIECE_SPLIT = r"[ \n\r]+"

#: ``dropout``: the BPE-dropout probability written into the model (None or 0: none).
EXPORT_OPTIONS = ("legacy_merges", "dropout")

_kind = _common.json_kind


# -- export -----------------------------------------------------------------------------


def notes(model: BPEModel) -> list[str]:
    """What the file does differently from BPE Desktop, though it was written."""
    cfg = model.config
    if cfg.byte_level or cfg.special("unk") is not None or \
            (cfg.byte_fallback and _common.byte_pieces_in(model) == 256):
        return []
    # tokenizers' BPE without unk_token skips such a character; ours raises EncodeError.
    return ["this model has no unknown token, so Hugging Face leaves out a character "
            "outside the vocabulary without a trace, where BPE Desktop refuses to encode "
            "the text; train with an <unk> special token to keep such characters visible"]


def problem(model: BPEModel, *, legacy_merges: bool = False,
            dropout: float | None = None) -> str | None:
    cfg = model.config
    if dropout is not None and (isinstance(dropout, bool) or not isinstance(dropout, (int, float))
                                or not 0.0 <= dropout <= 1.0):
        return f"the dropout must be a number from 0 to 1; got {dropout!r}"
    if cfg.boundary == "eow-symbol":
        return ("tokenizer.json cannot hold a separate end-of-word symbol: Hugging Face "
                "glues </w> to the last character of a word (end_of_word_suffix), while "
                "this model was trained with boundary 'eow-symbol'; train with boundary "
                "'eow-suffix' (the subword-nmt preset), or export subword-nmt codes "
                "(v0.1 keeps </w> as a symbol)")
    if cfg.byte_level and cfg.boundary != "none":
        return ("a byte-level tokenizer.json has no word-boundary marker, but this model "
                f"uses boundary '{cfg.boundary}'; train with the gpt2 preset (boundary none)")
    clash = _common.merge_order_problem(model)
    if clash is not None:
        rank, m = clash
        return (f"{_common.describe_merge(rank, m)} makes a token that earlier merges "
                "already use, so Hugging Face's encoder (which looks for a better pair after "
                "every single merge) could segment some words differently from BPE "
                "Desktop's (which applies each merge everywhere first); train with "
                f"{_common.stop_before(rank, model)} to stop before it")
    if legacy_merges:
        spaced = next((m for m in model.merges if " " in m.left or " " in m.right), None)
        if spaced is not None:
            return (f"legacy \"left right\" merges cannot hold the token {spaced.left!r} "
                    f"or {spaced.right!r}, which contains a space; export the pair form "
                    "(the default)")
    return None


def tokenizer_dict(model: BPEModel, *, legacy_merges: bool = False,
                   dropout: float | None = None) -> dict[str, Any]:
    """The ``tokenizer.json`` object, keys in the order ``tokenizers`` writes them."""
    cfg = model.config
    # Byte tokens that training reserved as special tokens stay out of added_tokens: HF
    # would find "<0x41>" typed in the text; in the vocabulary, byte_fallback finds them.
    bytes_in_vocab = set(_common.BYTE_PIECES) if cfg.byte_fallback else set()
    specials = sorted((t for t in cfg.special_tokens if t.piece not in bytes_in_vocab),
                      key=lambda t: t.id)
    unk = cfg.special("unk")
    ids = model.piece_ids
    merges: list[Any] = [
        f"{m.left} {m.right}" if legacy_merges else [m.left, m.right] for m in model.merges
    ]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": t.id, "content": t.piece, "single_word": False, "lstrip": False,
             "rstrip": False, "normalized": False, "special": True}
            for t in specials
        ] + [
            # Protected strings: found in the raw text before the normalizer, as ours.
            {"id": ids[piece], "content": piece, "single_word": False, "lstrip": False,
             "rstrip": False, "normalized": False, "special": False}
            for piece in cfg.protected
        ],
        "normalizer": _normalizer(cfg),
        "pre_tokenizer": _pre_tokenizer(cfg),
        "post_processor": None,
        "decoder": _decoder(cfg),
        "model": {
            "type": "BPE",
            "dropout": float(dropout) if dropout else None,
            "unk_token": unk.piece if unk is not None else None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": EOW if cfg.boundary == "eow-suffix" else None,
            "fuse_unk": cfg.fuse_unk,
            "byte_fallback": cfg.byte_fallback,
            "ignore_merges": False,
            "vocab": {piece: i for i, piece in enumerate(model.pieces)},
            "merges": merges,
        },
    }


def dumps(model: BPEModel, *, legacy_merges: bool = False,
          dropout: float | None = None) -> str:
    # indent=2 and ", "/": " as serde_json's pretty printer; no final newline, as it.
    return json.dumps(tokenizer_dict(model, legacy_merges=legacy_merges, dropout=dropout),
                      ensure_ascii=False, indent=2)


def export(model: BPEModel, path: str | os.PathLike, *, legacy_merges: bool = False,
           dropout: float | None = None) -> list[Path]:
    return _common.write_files([(Path(path), dumps(model, legacy_merges=legacy_merges,
                                                   dropout=dropout).encode("utf-8"))])


def _normalizer(cfg: TrainConfig) -> dict[str, Any] | None:
    steps: list[dict[str, Any]] = []
    if cfg.byte_level:
        # BPE Desktop reads CRLF as LF; bytes would show the difference.
        steps.append({"type": "Replace", "pattern": {"String": "\r\n"}, "content": "\n"})
    if cfg.normalize != "none":
        steps.append({"type": cfg.normalize.upper()})
    if cfg.lowercase:
        steps.append({"type": "Lowercase"})
    if not steps:
        return None
    return steps[0] if len(steps) == 1 else {"type": "Sequence", "normalizers": steps}


def _split(pattern: str, *, invert: bool = False) -> dict[str, Any]:
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Removed",
            "invert": invert}


def _pre_tokenizer(cfg: TrainConfig) -> dict[str, Any]:
    if cfg.byte_level:
        return hf_byte_level.pre_tokenizer(cfg.pretokenizer)
    words = {
        "whitespace": {"type": "WhitespaceSplit"},
        "space": _split(SPACE_SPLIT),
        "letters": _split(LETTERS_KEEP, invert=True),
        "sentencepiece": _split(SENTENCEPIECE_SPLIT),
    }[cfg.pretokenizer]
    if cfg.boundary != "bow-prefix":
        return words
    # Metaspace after the split: each word (without spaces) gets its leading ▁.
    marker = {"type": "Metaspace", "replacement": BOW, "prepend_scheme": "always",
              "split": False}
    return {"type": "Sequence", "pretokenizers": [words, marker]}


def _decoder(cfg: TrainConfig) -> dict[str, Any]:
    base = _word_decoder(cfg)
    if not cfg.byte_fallback or cfg.byte_level:
        return base
    fallback = {"type": "ByteFallback"}  # <0xNN> tokens back to their characters
    if cfg.boundary != "eow-suffix":
        return {"type": "Sequence", "decoders": [fallback, base]}
    # An unseen word's bytes include those of its glued </w>, and ByteFallback fuses a
    # run of byte tokens into one token: BPEDecoder would drop every </w> inside the run
    # when it is the last token. So fuse everything, drop the final </w>, and read the
    # others as spaces (Strip would drop the trailing one, but panics on empty text).
    return {"type": "Sequence", "decoders": [
        fallback, {"type": "Fuse"},
        {"type": "Replace", "pattern": {"Regex": f"{EOW}$"}, "content": ""},
        {"type": "Replace", "pattern": {"String": EOW}, "content": " "}]}


def _word_decoder(cfg: TrainConfig) -> dict[str, Any]:
    if cfg.byte_level:
        return {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                "use_regex": True}
    if cfg.boundary == "eow-suffix":
        return {"type": "BPEDecoder", "suffix": EOW}
    if cfg.boundary == "bow-prefix":
        return {"type": "Metaspace", "replacement": BOW, "prepend_scheme": "always",
                "split": True}
    return {"type": "Fuse"}


# -- import -----------------------------------------------------------------------------


class _Reader:
    """Walks the parsed JSON, naming the field (a JSON path) in every error."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = path
        self.notes: list[str] = []
        #: The notes on text rules the import only approximates (a pre-tokenizer or a
        #: normalizer BPE Desktop does not have): words are then cut differently.
        self.approximations: list[str] = []
        #: Non-special added tokens of the vocabulary that no merge makes.
        self.protected: list[str] = []

    def approximate(self, note: str) -> None:
        self.notes.append(note)
        self.approximations.append(note)

    def fail(self, where: str | None, problem: str) -> Exception:
        return _common.import_error(self.path, where, problem)

    def obj(self, value: Any, where: str) -> dict:
        if not isinstance(value, dict):
            raise self.fail(where, f"expected an object, found {_kind(value)}")
        return value


def tokenizer_json_path(path: str | os.PathLike) -> Path:
    """The ``tokenizer.json`` that ``path`` names: the file, or the one in a transformers
    folder."""
    path = Path(path)
    return path / "tokenizer.json" if path.is_dir() else path


def load(path: str | os.PathLike) -> BPEModel:
    path = tokenizer_json_path(path)
    data = _common.read_json(path)
    r = _Reader(path)
    root = r.obj(data, "the file")
    if "model" not in root:
        raise r.fail(None, "not a tokenizer.json: there is no \"model\" key")
    model = r.obj(root["model"], "model")
    kind = model.get("type", "BPE" if "merges" in model else None)
    if kind != "BPE":
        raise r.fail("model.type", f"the model is {kind!r}, not BPE; only BPE tokenizers "
                     "can be imported")
    if model.get("continuing_subword_prefix"):
        raise r.fail("model.continuing_subword_prefix",
                     f"{model['continuing_subword_prefix']!r}: BPE Desktop has no "
                     "continuing-subword prefix (only </w> suffixes and ▁ prefixes)")
    suffix = model.get("end_of_word_suffix")
    if suffix not in (None, "", EOW):
        raise r.fail("model.end_of_word_suffix", f"{suffix!r}: BPE Desktop's end-of-word "
                     f"marker is {EOW!r}")
    vocab = _vocab(r, model)
    merges = _merges(r, model, vocab)
    specials = _specials(r, root, model, vocab, merges)
    pretokenizer, boundary, normalize, lowercase = _text_rules(r, root, vocab)
    if suffix == EOW:
        if boundary == "bow-prefix":
            raise r.fail("model.end_of_word_suffix", "a tokenizer with both a ▁ prefix "
                         "and a </w> suffix is not supported")
        boundary = "eow-suffix"
    protected = tuple(sorted(dict.fromkeys(r.protected), key=vocab.__getitem__))
    if protected and pretokenizer == "sentencepiece":
        # BPE Desktop reads protected strings in such models as sentencepiece does.
        r.notes.append("the added tokens " + ", ".join(map(repr, protected)) + " are "
                       "ordinary tokens here (not found in the text as a whole)")
        protected = ()
    for key, note in (("dropout", "BPE-dropout is not applied"),
                      ("ignore_merges", "words found in the vocabulary are still split by "
                                        "the merges here (ignore_merges is not supported)")):
        if model.get(key):
            r.notes.append(note)
    config = TrainConfig(
        merges=len(merges), min_frequency=1, pretokenizer=pretokenizer, boundary=boundary,
        ties="codepoint", normalize=normalize, lowercase=lowercase,
        special_tokens=_common.unique_roles(specials), fuse_unk=_fuse_unk(r, model),
        byte_fallback=model.get("byte_fallback") is True,
        protected=protected,
    )
    return _common.build_model(path, config=config, merges=merges, vocab=vocab,
                               notes=r.notes, label=LABEL)


def check_adaptable(path: str | os.PathLike) -> None:
    """Extending or trimming the ``tokenizer.json`` at ``path`` must cut text exactly as
    it does (and writing back keeps its own pre-tokenizer and normalizer), so one whose
    pre-tokenizer or normalizer the import only approximates is refused: its new merges
    would be learned on, and its kept tokens chosen by, other words than it makes."""
    path = tokenizer_json_path(path)
    r = _Reader(path)
    root = r.obj(_common.read_json(path), "the file")
    model = root.get("model")
    vocab = model.get("vocab") if isinstance(model, dict) else None
    _text_rules(r, root, vocab if isinstance(vocab, dict) else {})
    if r.approximations:
        raise _common.not_adaptable(path, r.approximations)


def _fuse_unk(r: _Reader, model: dict) -> bool:
    value = model.get("fuse_unk", False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise r.fail("model.fuse_unk", f"expected true or false, found {_kind(value)}")
    return value


def _vocab(r: _Reader, model: dict) -> dict[str, int]:
    raw = r.obj(model.get("vocab"), "model.vocab")
    seen: dict[int, str] = {}
    for token, i in raw.items():
        where = f"model.vocab[{_common.quoted(token)}]"
        _common.check_token(r.path, where, token)
        _common.check_id(r.path, where, i)
        if i in seen:
            raise r.fail(where, f"id {i} is also the id of {seen[i]!r}")
        seen[i] = token
    return dict(raw)


def _merges(r: _Reader, model: dict, vocab: dict[str, int]) -> list[tuple[str, str]]:
    raw = model.get("merges", [])
    if not isinstance(raw, list):
        raise r.fail("model.merges", f"expected a list, found {_kind(raw)}")
    out: list[tuple[str, str]] = []
    seen: dict[tuple[str, str], int] = {}
    for i, item in enumerate(raw):
        where = f"model.merges[{i}]"
        if isinstance(item, str):
            parts = item.split(" ")
            if len(parts) != 2 or not all(parts):
                raise r.fail(where, f"{item!r} is not \"left right\" (two tokens and one "
                             "space)")
        elif isinstance(item, list) and len(item) == 2 and all(isinstance(s, str) for s in item):
            parts = item
        else:
            raise r.fail(where, f"expected [left, right] or \"left right\", found "
                         f"{_kind(item)}")
        left, right = parts
        for j, side in enumerate(parts):
            if side not in vocab:
                raise r.fail(f"{where}[{j}]" if isinstance(item, list) else where,
                             f"{side!r} is not in model.vocab")
        if left + right not in vocab:
            raise r.fail(where, f"the merged token {left + right!r} is not in model.vocab")
        if (left, right) in seen:
            raise r.fail(where, f"the merge {left!r} + {right!r} is listed twice (also "
                         f"model.merges[{seen[(left, right)]}])")
        seen[(left, right)] = i
        out.append((left, right))
    return out


def _specials(r: _Reader, root: dict, model: dict, vocab: dict[str, int],
              merges: list[tuple[str, str]]) -> list[SpecialToken]:
    out: dict[str, SpecialToken] = {}
    unk = model.get("unk_token")
    if unk is not None and not isinstance(unk, str):
        raise r.fail("model.unk_token", f"expected a string or null, found {_kind(unk)}")
    added = root.get("added_tokens") or []
    if not isinstance(added, list):
        raise r.fail("added_tokens", f"expected a list, found {_kind(added)}")
    made = {left + right: i for i, (left, right) in enumerate(merges)}
    id_of: dict[int, str] = {}  # special id -> where it was given
    vocab_ids = set(vocab.values())
    for i, item in enumerate(added):
        where = f"added_tokens[{i}]"
        item = r.obj(item, where)
        piece = _common.check_token(r.path, f"{where}.content", item.get("content"))
        tid = _common.check_id(r.path, f"{where}.id", item.get("id"))
        if piece in vocab and vocab[piece] != tid:
            raise r.fail(f"{where}.id", f"{piece!r} has id {tid} here but "
                         f"{vocab[piece]} in model.vocab")
        if not item.get("special", False) and piece not in vocab and piece not in made \
                and tid not in vocab_ids:
            # tokenizer.add_tokens() lists a new token here only: HF finds it in the text
            # and never splits it, which is what a protected string does.
            vocab[piece] = tid
            vocab_ids.add(tid)
        if not item.get("special", False) and piece in vocab:
            # Found in the text, never split: a protected string; also when merges make it
            # (HF still finds it in the text before its merges run).
            r.protected.append(piece)
            if item.get("normalized", True) and root.get("normalizer"):
                r.notes.append(f"the added token {piece!r} is found in the raw text "
                               "here (the source looks for it in normalized text)")
            flags = [f for f in ("lstrip", "rstrip", "single_word") if item.get(f)]
            if flags:
                r.notes.append(f"the added token {piece!r} is found in the text here "
                               f"without its {'/'.join(flags)} rule")
            continue
        if piece in made:
            raise r.fail(f"{where}.content", f"the special token {piece!r} is also made by "
                         f"model.merges[{made[piece]}]; BPE Desktop keeps special tokens "
                         "apart from merged ones")
        if tid in id_of and id_of[tid] != piece:
            raise r.fail(f"{where}.id", f"id {tid} is also the id of the added token "
                         f"{id_of[tid]!r}")
        if not item.get("special", False):
            r.notes.append(f"the added token {piece!r} is kept as a special token (HF "
                           "matches it in the text; BPE Desktop does not)")
        id_of[tid] = piece
        out[piece] = _common.special(piece, tid, "unk" if piece == unk else None)
    if unk and unk not in out:
        if unk not in vocab:
            raise r.fail("model.unk_token", f"{unk!r} is not in model.vocab")
        if unk in made:
            raise r.fail("model.unk_token", f"the unknown token {unk!r} is also made by "
                         f"model.merges[{made[unk]}]")
        if vocab[unk] in id_of:
            raise r.fail("model.unk_token", f"{unk!r} has id {vocab[unk]}, also the id of "
                         f"the added token {id_of[vocab[unk]]!r}")
        out[unk] = _common.special(unk, vocab[unk], "unk")
    return list(out.values())


def _flatten(r: _Reader, node: Any, where: str, key: str = "pretokenizers",
             depth: int = 0) -> list[tuple[dict, str]]:
    """The steps of a pre-tokenizer (or, with ``key="normalizers"``, a normalizer),
    nested ``Sequence`` steps flattened, each with its JSON path."""
    if node is None:
        return []
    node = r.obj(node, where)
    if node.get("type") != "Sequence":
        return [(node, where)]
    if depth >= _common.MAX_NESTING:
        raise r.fail(where.split(".")[0], f"Sequence steps are nested more than "
                     f"{_common.MAX_NESTING} deep")
    items = node.get(key)
    if not isinstance(items, list):
        raise r.fail(f"{where}.{key}", f"expected a list, found {_kind(items)}")
    out = []
    for i, item in enumerate(items):
        out.extend(_flatten(r, item, f"{where}.{key}[{i}]", key, depth + 1))
    return out


def _text_rules(r: _Reader, root: dict, vocab: dict) -> tuple[str, str, str, bool]:
    """(pretokenizer, boundary, normalize, lowercase) of the tokenizer's pre-tokenizer and
    normalizer; approximations become notes."""
    pre_tokenizer, normalizer = root.get("pre_tokenizer"), root.get("normalizer")
    if pre_tokenizer is None and _marks_words_like_metaspace(r, normalizer):
        # Llama 2's form (transformers' older conversion): the normalizer puts ▁ before
        # the text and for each space, and nothing splits: a Metaspace that does not split.
        pre_tokenizer = {"type": "Metaspace", "replacement": BOW, "split": False,
                         "prepend_scheme": "always"}
        normalizer = None
    pretokenizer, boundary = _read_pre_tokenizer(r, pre_tokenizer, vocab)
    return (pretokenizer, boundary, *_read_normalizer(r, normalizer))


def _marks_words_like_metaspace(r: _Reader, normalizer: Any) -> bool:
    steps = [step for step, _ in _flatten(r, normalizer, "normalizer", "normalizers")]
    return len(steps) == 2 and steps[0] == {"type": "Prepend", "prepend": BOW} and \
        steps[1] == {"type": "Replace", "pattern": {"String": " "}, "content": BOW}


def _read_pre_tokenizer(r: _Reader, node: Any, vocab: dict) -> tuple[str, str]:
    """(pretokenizer, boundary) for the HF pre-tokenizer; approximations become notes."""
    steps = _flatten(r, node, "pre_tokenizer")
    boundary = "none"
    if steps and steps[-1][0].get("type") == "Metaspace":
        meta, where = steps.pop()
        if meta.get("replacement", BOW) != BOW:
            raise r.fail(f"{where}.replacement", f"{meta.get('replacement')!r}: BPE Desktop's "
                         f"word-start marker is {BOW!r}")
        scheme = meta.get("prepend_scheme", "always")
        if scheme == "never" or meta.get("add_prefix_space") is False:
            r.approximate("every word gets ▁ here, also the first, where the source's "
                          "Metaspace prepends none")
        elif scheme != "always":  # "first": differs only right after an added token
            r.notes.append("every word gets ▁ here, also where the source's Metaspace "
                           "did not prepend it")
        boundary = "bow-prefix"
        if meta.get("split") is False:
            across = next((t for t in vocab if BOW in t.lstrip(BOW)), None)
            if across is not None:  # a merge crossed a word break, e.g. 's' + '▁the'
                r.approximate(f"words are cut apart here, where the source's Metaspace "
                              f"(split: false) keeps them together and has tokens across "
                              f"them, e.g. {across!r}")
        if not steps:
            # Metaspace alone splits at each space: every space of a run, and one at either
            # end of the text, is a ▁ of its own there. A note, not an approximation that
            # stops extend and trim: words of single-spaced text, which they learn from and
            # report on, are cut alike.
            r.notes.append("words are also split at line breaks here, and a run of spaces "
                          "(or spaces at the start or end of a text) is one word break, "
                          "where the source's Metaspace gives each space its own ▁")
            return "sentencepiece", boundary
    split_byte_level = hf_byte_level.read_split_byte_level(steps, r.approximate)
    if split_byte_level is not None and boundary == "none":
        return split_byte_level, boundary
    kinds = [s.get("type") for s, _ in steps]
    if kinds == ["ByteLevel"]:
        step, where = steps[0]
        if step.get("add_prefix_space"):
            r.approximate("no space is added before the first word here (the source's "
                          "ByteLevel adds one)")
        if step.get("use_regex") is False:
            r.approximate("text is split with GPT-2's pattern here (the source's ByteLevel "
                          "does not split)")
        if boundary != "none":
            raise r.fail(where, "a byte-level tokenizer with a ▁ marker is not supported")
        return "gpt2", boundary
    if kinds == ["WhitespaceSplit"]:
        return "whitespace", boundary
    if kinds == ["Split"]:
        step, where = steps[0]
        pattern = step.get("pattern")
        if not isinstance(pattern, dict):
            raise r.fail(f"{where}.pattern", "expected {\"Regex\": ...} or "
                         f"{{\"String\": ...}}, found {_kind(pattern)}")
        pattern = pattern.get("Regex")
        invert = bool(step.get("invert"))
        behavior = step.get("behavior")
        if behavior == "Removed" and not invert:
            if pattern == SPACE_SPLIT:
                return "space", boundary
            if pattern == SENTENCEPIECE_SPLIT and boundary == "bow-prefix":
                return "sentencepiece", boundary
        if behavior == "Removed" and invert and pattern == LETTERS_KEEP:
            return "letters", boundary
    described = " + ".join(str(k) for k in kinds) or "none"
    if "ByteLevel" in kinds and boundary == "none":  # e.g. a Split with another regex
        r.approximate(f"the source's pre-tokenizer ({described}) is approximated by GPT-2's "
                      "byte-level pattern")
        return "gpt2", boundary
    if kinds and kinds[0] in ("Whitespace", "BertPreTokenizer"):
        r.approximate(f"the source's pre-tokenizer ({described}) is approximated by "
                      "'letters' (runs of letters; every other character alone)")
        return "letters", boundary
    if boundary == "bow-prefix":
        r.approximate(f"the source's pre-tokenizer ({described}) is approximated by "
                      "'sentencepiece' (words between spaces and line breaks)")
        return "sentencepiece", boundary
    r.approximate(f"the source's pre-tokenizer ({described}) is approximated by "
                  "'whitespace' (words between white space)")
    return "whitespace", boundary


def _read_normalizer(r: _Reader, node: Any) -> tuple[str, bool]:
    normalize, lowercase = "none", False
    for step, where in _flatten(r, node, "normalizer", "normalizers"):
        kind = step.get("type")
        if kind in ("NFC", "NFKC"):
            normalize = kind.lower()
        elif kind == "Lowercase":
            lowercase = True
        elif kind == "Replace" and step.get("pattern") == {"String": "\r\n"} \
                and step.get("content") == "\n":
            pass  # BPE Desktop reads CRLF as LF anyway
        else:
            r.approximate(f"the normalizer {kind} ({where}) is not applied")
    return normalize, lowercase

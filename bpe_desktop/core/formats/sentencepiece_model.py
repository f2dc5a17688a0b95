"""sentencepiece ``.model``: a ``ModelProto`` (protobuf, proto2) of a BPE model.

The file lists every piece in id order with a score and a type; sentencepiece's BPE
encoder repeatedly joins the adjacent pair whose concatenation is the piece with the
highest score (leftmost first). Scores are therefore ``-k`` for the k-th merged token
(merge order), then lower scores for the alphabet (never formed by a merge), and 0
for special tokens: ``unk`` is UNKNOWN, the others CONTROL (never read from text, as
in BPE Desktop); protected strings are USER_DEFINED (found in the text, never split).
``trainer_spec`` names the model type (BPE), the size and the special
tokens' ids and pieces, and the unknown token's piece as the text it decodes to
(``unk_surface``, as BPE Desktop decodes it; sentencepiece's default is `` ⁇ ``);
``normalizer_spec`` is ``identity`` with sentencepiece's default whitespace handling
(a ``▁`` before the first word, runs of spaces collapsed), which is what the
sentencepiece pre-tokenizer does.

Only ``bow-prefix`` models with the sentencepiece pre-tokenizer, no normalization and
an unknown token fit. A merge whose token already existed cannot be written (a piece
has one score). sentencepiece fuses a run of unknown characters into one ``<unk>``: the
model must have ``fuse_unk`` on (the sentencepiece preset does; imports set it).

An imported model keeps the source's ids (the model's explicit ``ids``); scores follow
merge order, not ids, so an export of it gives the source's ids and order of merging.

The protobuf is written and read by hand (:mod:`._protowire`), so neither export nor
import needs the ``protobuf`` package; the bytes equal what ``sentencepiece_model_pb2``
would serialize for the same fields.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from bpe_desktop.core.config import BOW, TrainConfig
from bpe_desktop.core.model import BPEModel
from bpe_desktop.core.formats import _common
from bpe_desktop.core.formats import _protowire as pw

LABEL = "sentencepiece model"
WHAT = "a sentencepiece model"
EXPORT_OPTIONS: tuple[str, ...] = ()

# ModelProto.SentencePiece.Type
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
BPE_TYPE = 2  # TrainerSpec.ModelType
# Field numbers (sentencepiece_model.proto).
MODEL_PIECES, MODEL_TRAINER, MODEL_NORMALIZER = 1, 2, 3
PIECE_TEXT, PIECE_SCORE, PIECE_TYPE = 1, 2, 3
TRAINER_MODEL_TYPE, TRAINER_VOCAB_SIZE, TRAINER_WS_SUFFIX = 3, 4, 24
TRAINER_BYTE_FALLBACK = 35
TRAINER_IDS = {"unk": 40, "bos": 41, "eos": 42, "pad": 43}
TRAINER_UNK_SURFACE = 44
TRAINER_PIECES = {"unk": 45, "bos": 46, "eos": 47, "pad": 48}
TRAINER_ID_DEFAULTS = {"unk": 0, "bos": 1, "eos": 2, "pad": -1}
NORM_NAME, NORM_CHARSMAP, NORM_DUMMY_PREFIX, NORM_REMOVE_SPACES, NORM_ESCAPE = 1, 2, 3, 4, 5

#: Names of the TrainerSpec fields read here, for error messages.
_TRAINER_FIELDS = {TRAINER_MODEL_TYPE: "model_type", TRAINER_VOCAB_SIZE: "vocab_size",
                   TRAINER_WS_SUFFIX: "treat_whitespace_as_suffix",
                   TRAINER_BYTE_FALLBACK: "byte_fallback",
                   **{f: f"{role}_id" for role, f in TRAINER_IDS.items()}}
#: Names of a piece's fields, for error messages.
_PIECE_FIELDS = {PIECE_TEXT: ".piece", PIECE_SCORE: ".score", PIECE_TYPE: ".type"}

#: Scores are float32: consecutive whole numbers are exact up to 2**24.
MAX_PIECES = 2**24


def problem(model: BPEModel) -> str | None:
    cfg = model.config
    if cfg.boundary != "bow-prefix" or cfg.pretokenizer != "sentencepiece":
        return ("sentencepiece marks the start of each word with ▁ and splits words at "
                f"spaces, but this model uses pre-tokenizer '{cfg.pretokenizer}' with "
                f"boundary '{cfg.boundary}'; train with the sentencepiece preset "
                "(pre-tokenizer sentencepiece, boundary bow-prefix)")
    found = _common.normalization_problem(model, "this sentencepiece export")
    if found:
        return found
    every_byte = cfg.byte_fallback and _common.byte_pieces_in(model) == 256
    if not cfg.fuse_unk and not every_byte:  # with every byte piece nothing is unknown
        return ("sentencepiece makes one <unk> of a run of unknown characters, and this "
                "model makes one per character; turn on fuse_unk (one unknown token per "
                "run of unknown characters, as the sentencepiece preset does)")
    if cfg.special("unk") is None:
        return ("a sentencepiece model needs an unknown token, and this model has none; "
                "add a special token with role unk (the sentencepiece preset has <unk>)")
    redundant = _common.redundant_merges(model)
    if redundant:
        rank, m = redundant[0]
        return (f"{_common.describe_merge(rank, m)} makes a token that already existed; "
                "sentencepiece gives each piece one score, so it would apply this merge at "
                f"the earlier one's priority and could segment differently; train with "
                f"{_common.stop_before(rank, model)} to stop before it")
    if cfg.byte_fallback and 0 < _common.byte_pieces_in(model) < 256:
        return (f"sentencepiece's byte fallback needs all 256 byte pieces <0x00> ... <0xFF>, "
                f"and this model has {_common.byte_pieces_in(model)}; export as Hugging Face "
                "tokenizer.json, which falls back to bytes where it has them")
    if model.vocab_size > MAX_PIECES:
        return (f"sentencepiece scores are 32-bit floats, exact for at most {MAX_PIECES:,} "
                f"pieces; this model has {model.vocab_size:,}")
    return None


# -- export -----------------------------------------------------------------------------


def scores(model: BPEModel) -> list[float]:
    """Per id: 0 for specials, -k for the k-th merged token (in merge order, whatever
    its id), then the alphabet below in id order."""
    specials = {t.id for t in model.config.special_tokens}
    alphabet = set(model.alphabet)
    ids = model.piece_ids
    merged = [ids[p] for p in model._ordinary_pieces if p not in alphabet]
    out = [0.0] * model.vocab_size
    for k, i in enumerate(merged):
        out[i] = float(-k)
    k = len(merged)
    for i, p in enumerate(model.pieces):
        if i not in specials and p in alphabet:
            out[i] = float(-k)
            k += 1
    return out


def model_proto(model: BPEModel) -> bytes:
    cfg = model.config
    roles = {t.id: t.role for t in cfg.special_tokens}
    protected = {model.piece_ids[p] for p in cfg.protected}
    # All 256 (problem() refused fewer): sentencepiece's own byte pieces.
    byte_fallback = cfg.byte_fallback and _common.byte_pieces_in(model) == 256
    byte_ids = {model.piece_ids[p] for p in _common.BYTE_PIECES} if byte_fallback else set()
    out = bytearray()
    for i, (piece, score) in enumerate(zip(model.pieces, scores(model))):
        body = pw.str_field(PIECE_TEXT, piece) + pw.float_field(PIECE_SCORE, score)
        role = roles.get(i)
        if i in byte_ids:  # also when training reserved them as special tokens
            body += pw.int_field(PIECE_TYPE, BYTE)
        elif role is not None:
            body += pw.int_field(PIECE_TYPE, UNKNOWN if role == "unk" else CONTROL)
        elif i in protected:  # found in the text, never split (user_defined_symbols)
            body += pw.int_field(PIECE_TYPE, USER_DEFINED)
        out += pw.bytes_field(MODEL_PIECES, body)
    trainer = pw.int_field(TRAINER_MODEL_TYPE, BPE_TYPE) + pw.int_field(TRAINER_VOCAB_SIZE,
                                                                          model.vocab_size)
    for role in ("unk", "bos", "eos", "pad"):
        tok = cfg.special(role)
        trainer += pw.int_field(TRAINER_IDS[role], tok.id if tok else -1)
    unk = cfg.special("unk")
    if unk is not None:  # decode an unknown token as BPE Desktop does, not as " ⁇ "
        trainer += pw.str_field(TRAINER_UNK_SURFACE, unk.piece)
    for role in ("unk", "bos", "eos", "pad"):
        tok = cfg.special(role)
        if tok is not None:
            trainer += pw.str_field(TRAINER_PIECES[role], tok.piece)
    if byte_fallback:
        trainer += pw.int_field(TRAINER_BYTE_FALLBACK, 1)
    out += pw.bytes_field(MODEL_TRAINER, trainer)
    normalizer = (pw.str_field(NORM_NAME, "identity") + pw.bytes_field(NORM_CHARSMAP, b"")
                  + pw.int_field(NORM_DUMMY_PREFIX, 1) + pw.int_field(NORM_REMOVE_SPACES, 1)
                  + pw.int_field(NORM_ESCAPE, 1))
    out += pw.bytes_field(MODEL_NORMALIZER, normalizer)
    return bytes(out)


def export(model: BPEModel, path: str | os.PathLike) -> list[Path]:
    return _common.write_files([(Path(path), model_proto(model))])


# -- import -----------------------------------------------------------------------------


def read_proto(path: str | os.PathLike, data: bytes) -> dict[str, Any]:
    """The fields an import needs: pieces ``(piece, score, type)``, trainer and normalizer."""
    pieces: list[tuple[str, float, int]] = []
    trainer: dict[int, Any] = {}
    normalizer: dict[int, Any] = {}
    present: set[str] = set()
    context = ""  # the field being read, for errors: "pieces[3].score"
    try:
        for field, _, value, at in pw.fields(data):
            if field == MODEL_PIECES:
                context = f"pieces[{len(pieces)}]"
                piece, score, kind = None, 0.0, NORMAL
                for f, _, v, a in pw.fields(pw.as_bytes(value, at), at):
                    context = f"pieces[{len(pieces)}]" + _PIECE_FIELDS.get(f, "")
                    if f == PIECE_TEXT:
                        piece = pw.as_str(v, a)
                    elif f == PIECE_SCORE:
                        score = pw.as_float(v, a)
                    elif f == PIECE_TYPE:
                        kind = pw.as_int32(v, a)
                if not piece:
                    raise _common.import_error(path, f"pieces[{len(pieces)}]",
                                               "a piece without text")
                pieces.append((piece, score, kind))
            elif field in (MODEL_TRAINER, MODEL_NORMALIZER):
                context = "trainer_spec" if field == MODEL_TRAINER else "normalizer_spec"
                present.add(context)
                into = trainer if field == MODEL_TRAINER else normalizer
                for f, _, v, a in pw.fields(pw.as_bytes(value, at), at):
                    into[f] = (v, a)
            context = ""
    except pw.WireError as exc:
        where = f"{context}, byte offset {exc.offset}" if context else f"byte offset {exc.offset}"
        raise _common.import_error(path, where, f"not a sentencepiece model: {exc}") from None
    return {"pieces": pieces, "trainer": trainer, "normalizer": normalizer,
            "present": present}


def load(path: str | os.PathLike) -> BPEModel:
    proto = read_proto(path, _common.read_bytes(path))
    pieces, trainer, normalizer = proto["pieces"], proto["trainer"], proto["normalizer"]
    if not pieces:
        raise _common.import_error(path, None, "not a sentencepiece model: it has no pieces")
    if "trainer_spec" not in proto["present"]:
        # A cut just after a piece parses; the trainer's defaults would read as unigram.
        raise _common.import_error(path, None, f"the file is truncated: it ends after "
                                   f"{len(pieces):,} pieces, without the trainer_spec "
                                   "that follows them in every sentencepiece model")

    def trainer_int(field: int, default: int) -> int:
        if field not in trainer:
            return default
        value, at = trainer[field]
        try:
            return pw.as_int32(value, at)
        except pw.WireError as exc:
            name = _TRAINER_FIELDS.get(field, f"field {field}")
            raise _common.import_error(path, f"trainer_spec.{name}", str(exc)) from None

    model_type = trainer_int(TRAINER_MODEL_TYPE, 1)
    if model_type != BPE_TYPE:
        kind = {1: "unigram", 3: "word", 4: "char"}.get(model_type, str(model_type))
        raise _common.import_error(path, "trainer_spec.model_type", f"a {kind} model; only "
                                   "BPE models have merges to import")
    if trainer_int(TRAINER_WS_SUFFIX, 0):
        raise _common.import_error(path, "trainer_spec.treat_whitespace_as_suffix",
                                   "▁ as a word suffix is not supported (BPE Desktop's ▁ "
                                   "starts a word)")
    notes: list[str] = []
    role_of_id = {trainer_int(TRAINER_IDS[r], TRAINER_ID_DEFAULTS[r]): r
                  for r in ("unk", "bos", "eos", "pad")}
    specials = []
    ranked: list[tuple[float, int, str]] = []  # merged-piece candidates: (-score, id, piece)
    alphabet: list[str] = []
    protected: list[str] = []
    seen: dict[str, int] = {}
    for i, (piece, score, kind) in enumerate(pieces):
        if piece in seen:
            raise _common.import_error(path, f"pieces[{i}]", f"the piece {piece!r} is listed "
                                       f"twice (also pieces[{seen[piece]}])")
        seen[piece] = i
        if kind == UNKNOWN:
            specials.append(_common.special(piece, i, "unk"))
        elif kind == USER_DEFINED and not any(c.isspace() for c in piece):
            protected.append(piece)  # found in the text, never split
        elif kind in (CONTROL, USER_DEFINED):
            role = role_of_id.get(i) if kind == CONTROL else None
            specials.append(_common.special(piece, i, role if role != "unk" else None))
            if kind == USER_DEFINED:
                notes.append(f"the user-defined piece {piece!r} is a special token here "
                             "(sentencepiece finds it in the text)")
        elif kind == BYTE:
            alphabet.append(piece)
        elif len(piece) == 1:
            alphabet.append(piece)
        else:
            if kind == UNUSED:
                notes.append(f"the unused piece {piece!r} is an ordinary token here")
            ranked.append((-score, i, piece))
    byte_fallback = bool(trainer_int(TRAINER_BYTE_FALLBACK, 0))
    if BOW not in seen:
        alphabet.append(BOW)
    ranked.sort()
    rank_of = {piece: r for r, (_, _, piece) in enumerate(ranked)}
    merges, unreachable = _common.merges_from_ranked_vocab([p for _, _, p in ranked], rank_of)
    remarks = []  # the source never forms these pieces from text either
    if unreachable:
        remarks.append(f"{len(unreachable):,} pieces cannot be formed by merging (first: "
                     f"{unreachable[0]!r}) and are alphabet symbols here")
    normalize, lowercase = _read_normalizer(path, normalizer, notes)
    config = TrainConfig.preset("sentencepiece", merges=len(merges), normalize=normalize,
                                lowercase=lowercase, protected=tuple(protected),
                                byte_fallback=byte_fallback,
                                special_tokens=_common.unique_roles(specials))
    vocab = {piece: i for i, (piece, _, _) in enumerate(pieces)}
    return _common.build_model(path, config=config, merges=merges, vocab=vocab,
                               alphabet=alphabet + unreachable, notes=notes,
                               remarks=remarks, label=LABEL)


def check_adaptable(path: str | os.PathLike) -> None:
    """Extending or trimming the ``.model`` at ``path`` must cut text exactly as it does,
    so one whose normalizer the import approximates in a way that changes the words (no
    ▁ before the first word, runs of spaces kept, a normalization not applied) is
    refused. ``nmt_nfkc`` read as NFKC is not: it is sentencepiece's default and differs
    from NFKC only in rare characters."""
    proto = read_proto(path, _common.read_bytes(path))
    approximations: list[str] = []
    _read_normalizer(path, proto["normalizer"], [], approximations)
    if approximations:
        raise _common.not_adaptable(path, approximations)


def _read_normalizer(path: str | os.PathLike, normalizer: dict[int, Any],
                     notes: list[str], approximations: list[str] | None = None
                     ) -> tuple[str, bool]:
    """(normalize, lowercase) for the normalizer spec; approximations become notes (and
    ``approximations`` those that change the words)."""
    def approximate(note: str) -> None:
        notes.append(note)
        if approximations is not None:
            approximations.append(note)

    def flag(field: int) -> bool:
        return bool(normalizer.get(field, (1, 0))[0])  # these flags default to true

    name = ""
    if NORM_NAME in normalizer:
        value, at = normalizer[NORM_NAME]
        try:
            name = pw.as_str(value, at)
        except pw.WireError as exc:
            raise _common.import_error(path, "normalizer_spec.name", str(exc)) from None
    charsmap = normalizer.get(NORM_CHARSMAP, (b"", 0))[0]
    if not flag(NORM_DUMMY_PREFIX):
        approximate("the first word gets a ▁ here (the source adds none)")
    if not flag(NORM_REMOVE_SPACES):
        approximate("runs of spaces are collapsed here (the source keeps them)")
    if name in ("identity", "") and not charsmap:
        return "none", False
    if name.startswith(("nmt_nfkc", "nfkc")):
        folded = name.endswith("_cf")
        notes.append(f"the source's normalization {name!r} is approximated by NFKC"
                     + (" and lowercasing" if folded else ""))
        return "nfkc", folded
    approximate(f"the source's normalization {name!r} is not applied")
    return "none", False

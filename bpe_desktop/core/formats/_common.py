"""What the format modules share: atomic writing, the checks exporters make, and
building a :class:`BPEModel` from an imported vocabulary and merge list."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any, Container, Iterable, Mapping, Sequence

from bpe_desktop.core import model_file as _model_file
from bpe_desktop.core import model_file_checks as _checks
from bpe_desktop.core.config import BYTE_PIECES  # noqa: F401 (the formats' name for it)
from bpe_desktop.core.safe_write import check_set, write_files, write_set  # noqa: F401
from bpe_desktop.core.config import MAX_VOCAB, SpecialToken, TrainConfig
from bpe_desktop.core.errors import ConfigError, ModelFileError
from bpe_desktop.core.model import BPEModel, CorpusFile, CorpusInfo, Merge, explicit_ids_problem
from bpe_desktop.core.pieces import CHAR_BYTES

#: Roles of special pieces known by name (imports; formats other than sentencepiece
#: do not record roles).
ROLE_OF_PIECE = {
    "<unk>": "unk", "[UNK]": "unk", "<pad>": "pad", "[PAD]": "pad",
    "<s>": "bos", "<bos>": "bos", "[BOS]": "bos", "</s>": "eos", "<eos>": "eos",
    "[EOS]": "eos",
}

_SURROGATE = re.compile("[\ud800-\udfff]")


# -- writing: write_files (each file atomically, or one streamed), write_set (files that
# belong together, with their checksum list) and check_set come from core.safe_write ----


# -- facts about a model that decide what a format can hold -------------------------------


def redundant_merges(model: BPEModel) -> list[tuple[int, Merge]]:
    """Merges whose result was already a token (an alphabet symbol or an earlier result).

    The engine keeps such a merge as a second rule for the same token; formats that
    identify a merge by the token it makes (sentencepiece, tiktoken) cannot.
    """
    # Each merge that is not redundant adds one ordinary piece (a cached list): when they
    # all did, there is none, and no pass over every merge (which the export checks
    # would otherwise make three times) is needed.
    if len(model._ordinary_pieces) - len(model.alphabet) == len(model.merges):
        return []
    defined = set(model.alphabet)
    out = []
    for rank, m in enumerate(model.merges):
        if m.result in defined:
            out.append((rank, m))
        defined.add(m.result)
    return out


def merge_order_problem(model: BPEModel) -> tuple[int, Merge] | None:
    """The first merge after which Hugging Face's encoder may order merges unlike ours.

    Both encoders apply the lowest-ranked pair first. Ours merges every occurrence of it
    before looking again; HF's heap looks again after each occurrence. The two agree
    unless a merge makes a token that an *earlier* rule uses, which only a redundant
    merge (its token existed before) can do.
    """
    redundant = redundant_merges(model)
    if not redundant:
        return None
    first_use: dict[str, int] = {}
    for rank, m in enumerate(model.merges):
        first_use.setdefault(m.left, rank)
        first_use.setdefault(m.right, rank)
    for rank, m in redundant:
        if first_use.get(m.result, rank) < rank:
            return rank, m
    return None


def stop_before(rank: int, model: BPEModel) -> str:
    """Training settings that end before merge ``rank`` (for refusal messages)."""
    ordinary = len(set(model.alphabet) | {m.result for m in model.merges[:rank]})
    size = ordinary + len(model.config.special_tokens)
    return f"merges={rank} or vocab_size={size}"


def describe_merge(rank: int, merge: Merge) -> str:
    return f"merge {rank} ({merge.left!r} + {merge.right!r} = {merge.result!r})"


#: Characters that end a line or a field in the readers of space-separated codes
#: (subword-nmt's apply_bpe, fastBPE's), or separate their words.
_CODE_BREAKS = (" ", "\n", "\r")


def space_words_problem(model: BPEModel, reader: str) -> str | None:
    """Codes applied by a ``reader`` that finds words at spaces only: the model must
    have cut its words there too."""
    pretokenizer = model.config.pretokenizer
    if pretokenizer in ("space", "whitespace"):
        return None
    return (f"{reader} splits text into words at spaces only, but this model's "
            f"pre-tokenizer '{pretokenizer}' cuts words differently, so the codes would be "
            "applied to other words; train with pre-tokenizer 'space' (the subword-nmt "
            "preset) or 'whitespace'")


def code_break_problem(model: BPEModel, what: str) -> str | None:
    """A merge token holding a space or a line break, which codes of one merge a line,
    tokens separated by a space, cannot write."""
    for rank, m in enumerate(model.merges):
        for side in (m.left, m.right):
            if any(c in side for c in _CODE_BREAKS):
                return (f"{what} separate tokens with a space and merges with a line "
                        f"break, so merge {rank}'s token {side!r} cannot be written; train "
                        "with pre-tokenizer 'space' or 'whitespace'")
    return None


def normalization_problem(model: BPEModel, what: str) -> str | None:
    cfg = model.config
    steps = []
    if cfg.normalize != "none":
        steps.append(f"{cfg.normalize.upper()} normalization")
    if cfg.lowercase:
        steps.append("lowercasing")
    if not steps:
        return None
    if cfg.protected and cfg.pretokenizer == "sentencepiece":
        # tokenizer.json refuses these protected strings; never send the user there.
        other = (" (Hugging Face tokenizer.json stores a normalizer, but not the protected "
                 "strings of a model that reads text as sentencepiece does)")
    else:
        other = ", or export as Hugging Face tokenizer.json, which stores the normalizer"
    return (f"{what} cannot record text normalization, and this model applies "
            f"{' and '.join(steps)} before splitting, so the file would segment raw text "
            f"differently; train with normalize 'none' and lowercase off{other}")


def byte_level_problem(model: BPEModel, what: str) -> str | None:
    """None for a GPT-2-style byte-level model without word markers."""
    cfg = model.config
    if not cfg.byte_level:
        return (f"{what} hold a byte-level tokenizer (every token a sequence of bytes, "
                f"written with GPT-2's byte characters), but this model is "
                f"character-level (pre-tokenizer '{cfg.pretokenizer}'); train with the "
                "gpt2 preset (pre-tokenizer gpt2, boundary none)")
    if cfg.boundary != "none":
        return (f"{what} have no word-boundary marker, but this byte-level model uses "
                f"boundary '{cfg.boundary}'; train with the gpt2 preset (boundary none)")
    alphabet = set(model.alphabet)
    missing = [c for c in CHAR_BYTES if c not in alphabet]
    if missing:
        return (f"{what} need all 256 bytes in the vocabulary, but "
                f"{len(missing)} are missing (first: byte 0x{CHAR_BYTES[missing[0]]:02X}); "
                "train with the gpt2 preset, which always includes them")
    return None


#: Pieces whose characters are gathered in one call (byte_tokens_problem). One such call
#: keeps the GIL, and the export menus' checks run in a worker as a model is shown: small
#: calls keep the GUI thread's waits short at the same total time.
_CHAR_SLICE = 200


def byte_tokens_problem(model: BPEModel, what: str) -> str | None:
    """Every ordinary token of a byte-level model must be a string of byte characters."""
    piece = _first_non_byte_token(model)
    if piece is None:
        return None
    return (f"{what} store tokens as bytes, but the token {piece!r} is not made of "
            "GPT-2 byte characters; train with the gpt2 preset")


#: Where a model keeps its first token that is not made of byte characters (BPEModel._cache;
#: a model never changes, and the GPT-2 and tiktoken checks both ask for it).
_NON_BYTE_TOKEN_KEY = "formats.first_non_byte_token"


def _first_non_byte_token(model: BPEModel) -> str | None:
    cache = model._cache
    if _NON_BYTE_TOKEN_KEY not in cache:
        cache[_NON_BYTE_TOKEN_KEY] = _find_non_byte_token(model)
    return cache[_NON_BYTE_TOKEN_KEY]


def _find_non_byte_token(model: BPEModel) -> str | None:
    specials = {t.piece for t in model.config.special_tokens}
    # The characters of a few hundred pieces at a time (one short C call each) show
    # whether any piece needs looking at, instead of a Python test per character.
    pieces = model.pieces
    used: set[str] = set()
    for start in range(0, len(pieces), _CHAR_SLICE):
        used.update(*(p for p in pieces[start:start + _CHAR_SLICE] if p not in specials))
    if used.issubset(CHAR_BYTES):
        return None
    for piece in pieces:
        if piece not in specials and any(c not in CHAR_BYTES for c in piece):
            return piece
    return None


# -- importing --------------------------------------------------------------------------


#: The largest id a token may have (ids are 32-bit in the engine).
MAX_ID = MAX_VOCAB - 1

#: Sequence pre-tokenizers or normalizers nested deeper than this are refused (real
#: files nest one or two levels; this keeps reading them far from Python's recursion limit).
MAX_NESTING = 64


def byte_pieces_in(model: BPEModel) -> int:
    """How many of the 256 byte-fallback pieces ``model``'s vocabulary has."""
    ids = model.piece_ids
    return sum(1 for p in BYTE_PIECES if p in ids)


def import_error(path: str | os.PathLike, where: str | None, problem: str) -> ModelFileError:
    """A :class:`ModelFileError` whose message reads ``FILE: WHERE: PROBLEM``."""
    name = os.fspath(path)
    prefix = "".join(f"{p}: " for p in (name, where) if p)
    return ModelFileError(prefix + problem, path=name, where=where)


def not_adaptable(path: str | os.PathLike, approximations: Sequence[str]) -> ModelFileError:
    """The error for a tokenizer whose import only approximates how it cuts text, which
    extending or trimming needs exactly."""
    return import_error(path, None, f"{'; '.join(approximations)}, so BPE Desktop cannot "
                        "cut text into words exactly as this tokenizer does; extending or "
                        "trimming it would learn or keep tokens for other words than the "
                        "tokenizer makes")


def quoted(token: str) -> str:
    """A token as a JSON string for a message or a JSON path, lone surrogates escaped."""
    return _checks._quoted(token)


def read_bytes(path: str | os.PathLike, *, limit: int = _model_file.MAX_FILE_SIZE) -> bytes:
    """A whole file; OSError as usual when unreadable.

    Files above ``limit``, or too large for the free memory once parsed (as for model
    files, :data:`~bpe_desktop.core.model_file.LOAD_MEMORY_PER_BYTE`), are refused.
    """
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > limit:
            raise import_error(path, None, f"the file is {size:,} bytes, more than the "
                               f"{limit:,} an import may have; refusing to read it")
        _model_file._check_memory(os.fspath(path), size)
        return fh.read()


def read_text(path: str | os.PathLike) -> str:
    """A UTF-8 text file (a BOM is dropped); invalid UTF-8 is an error naming the line."""
    raw = read_bytes(path)
    bom = 3 if raw.startswith(b"\xef\xbb\xbf") else 0
    try:
        return str(memoryview(raw)[bom:], "utf-8")
    except UnicodeDecodeError as exc:
        at = exc.start + bom
        line = raw.count(b"\n", 0, at) + 1
        raise import_error(path, f"line {line}", f"not valid UTF-8 (byte "
                           f"0x{raw[at]:02x} at offset {at})") from None


def read_json(path: str | os.PathLike) -> Any:
    """A UTF-8 JSON file, parsed; every way it can be malformed is an import error."""
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        problem = f"not valid JSON: {exc.msg}"
        if not text.strip():
            problem = "the file is empty" if not text else "the file holds only white space"
        elif exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string"):
            problem = f"the file is truncated: the JSON ends before it is complete ({exc.msg})"
        raise import_error(path, f"line {exc.lineno} column {exc.colno}", problem) from None
    except RecursionError:
        raise import_error(path, None, "the JSON is nested too deeply to be read") from None
    except ValueError as exc:
        raise import_error(path, None, _model_file.json_value_problem(exc)) from None


def check_token(path: str | os.PathLike, where: str, token: Any) -> str:
    """``token`` if it can be a token (a non-empty string of Unicode characters)."""
    if not isinstance(token, str):
        raise import_error(path, where, f"expected a token (a string), found "
                           f"{json_kind(token)}")
    if not token:
        raise import_error(path, where, "the empty string is not a token")
    bad = _SURROGATE.search(token)
    if bad:
        raise import_error(path, where, f"contains U+{ord(bad.group()):04X}, a lone "
                           "surrogate that is not a Unicode character")
    return token


def check_id(path: str | os.PathLike, where: str, value: Any) -> int:
    """``value`` if it can be a token id: a whole number from 0 to :data:`MAX_ID`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise import_error(path, where, f"expected an id (a whole number >= 0), found "
                           f"{json_kind(value)}")
    if not 0 <= value <= MAX_ID:
        raise import_error(path, where, f"the id {value} is out of range (0 to {MAX_ID})")
    return value


def json_kind(value: Any) -> str:
    """What a parsed JSON value is, for messages ("a string", "null", ...)."""
    return _checks._kind(value)


def source_info(paths: Iterable[str | os.PathLike]) -> CorpusInfo:
    """Provenance of an imported model: the files it came from, with checksums."""
    files = []
    for p in paths:
        data = read_bytes(p)
        files.append(CorpusFile(path=os.path.abspath(os.fspath(p)), size=len(data),
                                sha256=hashlib.sha256(data).hexdigest()))
    return CorpusInfo(kind="imported", files=tuple(files))


def special(piece: str, id: int, role: str | None = None) -> SpecialToken:
    """A special token; the caller has checked the piece and id (check_token, check_id)."""
    return SpecialToken(piece, id, role or ROLE_OF_PIECE.get(piece, "user"))


def free_piece(preferred: str, taken: Container[str]) -> str:
    """``preferred``, or it in more angle brackets until no token of the source is it.

    For the unknown token of formats without one (subword-nmt codes), whose merges may
    make the text ``<unk>`` itself (corpora such as the Penn Treebank contain it).
    """
    piece = preferred
    while piece in taken:
        piece = f"<{piece}>"
    return piece


def unknown_token_notes(unk: str, tool: str) -> list[str]:
    """What an import of codes (no unknown token, no alphabet) tells about characters.

    Codes list merges only: the model's alphabet is the characters some merge has, and
    any other character encodes as the unknown token, whereas ``tool`` passes it
    through as a piece of its own. Exports stay exactly the codes, so the difference
    is said rather than hidden.
    """
    notes = [f"a character that is in no merge encodes as {unk!r} here, whereas {tool} "
             "passes it through unchanged"]
    if unk != "<unk>":
        notes.append(f"the unknown token is {unk!r} here, as the codes make '<unk>' an "
                     "ordinary token")
    return notes


def unique_roles(specials: Sequence[SpecialToken]) -> tuple[SpecialToken, ...]:
    """Specials with each role (other than user) on one token only, as TrainConfig wants."""
    seen: set[str] = set()
    out = []
    for t in sorted(specials, key=lambda t: t.id):
        role = t.role
        if role != "user" and role in seen:
            role = "user"
        seen.add(role)
        out.append(SpecialToken(t.piece, t.id, role))
    return tuple(out)


def build_model(
    path: str | os.PathLike,
    *,
    config: TrainConfig,
    merges: Sequence[tuple[str, str]],
    vocab: Mapping[str, int] | None = None,
    alphabet: Iterable[str] = (),
    sources: Sequence[str | os.PathLike] = (),
    notes: Sequence[str] = (),
    remarks: Sequence[str] = (),
    label: str,
) -> BPEModel:
    """An imported model: the merges in order, the alphabet inferred, ids kept if possible.

    ``vocab`` (token -> id, specials included) fixes the order of the alphabet and says
    whether the source's ids survive; without it the alphabet is ``alphabet`` plus every
    merge side that no earlier merge makes, in code-point order. Tokens of ``vocab``
    that no merge makes are alphabet symbols (the engine never builds multi-character
    symbols from text, as the peers do not). The model's description lists ``remarks``
    (facts of the import that leave how text encodes alone), ``notes`` (where the model
    encodes text otherwise than the source: kept as its ``approximations``, which
    evaluation and comparison warn with) and any id renumbering.
    """
    specials = {t.piece for t in config.special_tokens}
    # A protected string is an alphabet symbol, also when merges make it as well (a token
    # added to a tokenizer.json that its merges also spell).
    protected = set(config.protected)
    made: set[str] = set()
    used_before_made: set[str] = set()
    for left, right in merges:
        used_before_made.update(side for side in (left, right) if side not in made)
        made.add(left + right)
    if vocab is not None:
        base = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])
                if t not in specials
                and (t not in made or t in used_before_made or t in protected)]
        known = set(base)
        symbols = base + sorted((set(alphabet) | used_before_made) - known)
    else:
        symbols = sorted(set(alphabet) | used_before_made)
    symbols = [s for s in dict.fromkeys(symbols) if s not in specials]
    model = BPEModel(config=config, alphabet=tuple(symbols),
                     merges=tuple(Merge(l, r, None) for l, r in merges),
                     corpus=dataclasses.replace(source_info(sources or [path]),
                                                approximations=tuple(notes)))
    all_notes = [*remarks, *notes]
    specials_moved = False
    try:
        pieces = model.pieces
    except ConfigError:
        specials_moved = True
        # Special ids beyond the vocabulary (the source's ids had gaps): put them last.
        size = len(model._ordinary_pieces) + len(config.special_tokens)
        moved = tuple(SpecialToken(t.piece, size - len(config.special_tokens) + i, t.role)
                      for i, t in enumerate(sorted(config.special_tokens, key=lambda t: t.id)))
        model = BPEModel(config=config.replace(special_tokens=moved), alphabet=model.alphabet,
                         merges=model.merges, corpus=model.corpus)
        pieces = model.pieces
    explicit = None
    if vocab is not None:
        moved_ids = sum(1 for i, p in enumerate(pieces) if vocab.get(p, i) != i)
        if moved_ids:
            explicit = None if specials_moved else source_ids(model, vocab)
            if explicit is None:
                all_notes.append(f"{moved_ids:,} token ids differ from the source's (its "
                                 "ids are not 0 to the vocabulary size - 1, each once)")
    description = f"Imported from {os.path.basename(os.fspath(path))} ({label})."
    if all_notes:
        description += " " + " ".join(n if n.endswith(".") else n + "." for n in all_notes)
    model = BPEModel(config=model.config, alphabet=model.alphabet, merges=model.merges,
                     corpus=model.corpus, description=description, ids=explicit)
    found = _model_file.model_problem(model)  # the model file's own validation
    if found is not None:
        where, problem = found
        shown = f" (at {where} of the converted model)" if where else ""
        raise import_error(path, None, f"cannot be converted into a BPE Desktop model: "
                           f"{problem}{shown}")
    return model


def source_ids(model: BPEModel, vocab: Mapping[str, int]) -> tuple[int, ...] | None:
    """The source's id of each ordinary token (the model's ``ids``), or None when the
    source's ids cannot number this model (a token without one, gaps). The special
    tokens keep the ids the caller gave them (the source's)."""
    ordinary = model._ordinary_pieces
    if any(p not in vocab for p in ordinary):
        return None
    ids = tuple(vocab[p] for p in ordinary)
    specials = [t.id for t in model.config.special_tokens]
    if explicit_ids_problem(ids, len(ordinary), specials) is not None:
        return None
    return ids


def merges_from_ranked_vocab(
    ranked: Sequence[str], rank_of: Mapping[str, int],
) -> tuple[list[tuple[str, str]], list[str]]:
    """Recover merge rules from a vocabulary ordered by merge priority.

    For vocabulary-based encoders (sentencepiece, tiktoken) a token is made from the
    two parts that encoding its own symbols with the higher-priority tokens leaves.
    ``ranked`` lists the multi-symbol tokens by priority; their symbols are characters
    (``str``). Returns the merges and the tokens that no merge can make (they become
    alphabet symbols).
    """
    merges: list[tuple[str, str]] = []
    unreachable: list[str] = []
    for token in ranked:
        own = rank_of[token]
        parts = list(token)
        while len(parts) > 1:
            best = None
            for i in range(len(parts) - 1):
                r = rank_of.get(parts[i] + parts[i + 1])
                if r is not None and r < own and (best is None or r < best[0]):
                    best = (r, i)
            if best is None:
                break
            i = best[1]
            parts[i:i + 2] = [parts[i] + parts[i + 1]]
        if len(parts) == 2:
            merges.append((parts[0], parts[1]))
        else:
            unreachable.append(token)
    return merges, unreachable

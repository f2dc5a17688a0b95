"""Write an extended or trimmed model back: in its source's format, in any other format
that can express it, and for Hugging Face also as a transformers folder.

A sentencepiece source is written back by appending the new pieces to the source's own
``ModelProto``: its normalizer (e.g. ``nmt_nfkc``), trainer spec and user-defined
symbols stay byte for byte, which BPE Desktop's own sentencepiece export cannot
express. Protobuf reads a repeated field's entries in the order they appear wherever
they are in the message, so the appended pieces take the ids after the source's. Each
new merged piece scores below every existing piece, in merge order (sentencepiece
joins the pair whose concatenation has the highest score); a new character is a normal
piece below those. A ``tokenizer.json`` source is patched likewise, keeping its
post-processor, normalizer, decoder and added tokens' flags (:mod:`bpe_desktop.core.hf_patch`).

A transformers folder holds ``tokenizer.json``, ``tokenizer_config.json`` (the class
``PreTrainedTokenizerFast`` and each special token's role) and
``special_tokens_map.json``, which ``transformers.AutoTokenizer.from_pretrained``
reads offline.
"""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path

from bpe_desktop.core.errors import ExportError
from bpe_desktop.core.formats import FORMATS, _common, export_model, export_problem
from bpe_desktop.core.formats import _protowire as pw
from bpe_desktop.core.formats import sentencepiece_model as spm
from bpe_desktop.core.hf_patch import patched_tokenizer_json
from bpe_desktop.core.model import BPEModel
from bpe_desktop.core.model_file import save_model

#: Output formats besides the interchange formats: our model JSON, a transformers folder.
OWN_FORMAT = "model"
TRANSFORMERS_FOLDER = "transformers"
#: The files a transformers folder is written as.
FOLDER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")
#: transformers' names of the special-token roles.
_ROLE_KEYS = {"unk": "unk_token", "bos": "bos_token", "eos": "eos_token",
              "pad": "pad_token", "mask": "mask_token"}


def output_formats() -> tuple[str, ...]:
    return (OWN_FORMAT, *FORMATS, TRANSFORMERS_FOLDER)


def format_label(fmt: str) -> str:
    """A format as the user reads it in a menu ("Hugging Face tokenizer.json"), not its key."""
    if fmt == OWN_FORMAT:
        return "BPE Desktop model"
    if fmt == TRANSFORMERS_FOLDER:
        return "transformers folder (AutoTokenizer)"
    return FORMATS[fmt].label.replace("&", "").rstrip("…")


#: The formats whose source file an adapted model is written back into (patched), which
#: can hold what a new export of that format could not (the source's own merges).
REWRITTEN_FORMATS = ("hf", "sentencepiece")


def fitting_formats(model: BPEModel, source_format: str | None = None) -> tuple[str, ...]:
    """The formats that can express ``model`` (ours and transformers' included), and the
    format of the file it was adapted from (``source_format``) when that file is
    rewritten."""
    fitting = [f for f in FORMATS if export_problem(model, f) is None
               or f == source_format and f in REWRITTEN_FORMATS]
    if "hf" in fitting:
        fitting.append(TRANSFORMERS_FOLDER)
    return (OWN_FORMAT, *fitting)


def model_files(fmt: str, path: str | os.PathLike, **options) -> list[Path]:
    """The files :func:`write_model` (or an export with ``options``) writes for ``fmt`` at
    ``path``."""
    if fmt == OWN_FORMAT:
        return [Path(path)]
    if fmt == TRANSFORMERS_FOLDER:
        return [Path(path) / name for name in FOLDER_FILES]
    from bpe_desktop.core.formats import export_files

    return export_files(fmt, path, **options)


def write_model(model: BPEModel, fmt: str, path: str | os.PathLike, *,
                source: BPEModel | None = None,
                source_path: str | os.PathLike | None = None,
                source_format: str | None = None) -> list[Path]:
    """Write ``model`` as ``fmt`` at ``path``; the files written (each atomically).

    ``source``, ``source_path`` and ``source_format`` (``fmt`` when None): the model it
    was extended or trimmed from, its file and that file's format. A sentencepiece
    ``.model`` or a ``tokenizer.json`` (also for a transformers folder) written in its
    own format is then rewritten in place of a new export (see the module's notes and
    :mod:`bpe_desktop.core.hf_patch`).
    """
    source_format = source_format or fmt
    if source_path is not None and source_format == "hf" \
            and fmt in ("hf", TRANSFORMERS_FOLDER):
        from bpe_desktop.core.formats.hf import check_adaptable

        check_adaptable(source_path)
        patched = patched_tokenizer_json(model, source_path)
        if fmt == TRANSFORMERS_FOLDER:
            return write_transformers_folder(model, path, tokenizer_json=patched,
                                             source_folder=source_path)
        return _common.write_files([(Path(path), patched)])
    if source_path is not None and source_format == "tiktoken":
        from bpe_desktop.core.formats.tiktoken_ranks import check_adaptable

        check_adaptable(source_path)  # a trim chose its tokens by GPT-2's pattern
    if fmt == OWN_FORMAT:
        save_model(model, path)
        return [Path(path)]
    if fmt == TRANSFORMERS_FOLDER:
        return write_transformers_folder(model, path)
    if fmt == "sentencepiece" and source_format == fmt and source is not None \
            and source_path is not None:
        kept = _kept_source_ids(model, source)
        if kept is not None:
            from bpe_desktop.core.formats.sentencepiece_model import check_adaptable

            check_adaptable(source_path)
            data = _rewritten_proto(model, source, source_path, kept)
            return _common.write_files([(Path(path), data)])
    return export_model(model, fmt, path)


def _kept_source_ids(model: BPEModel, source: BPEModel) -> list[int] | None:
    """The source ids of ``model``'s first tokens when ``model`` is ``source`` with
    tokens dropped (keeping their order and the specials' ids) and then new ones
    appended; None when it is not."""
    have = source.piece_ids
    kept = []
    for piece in model.pieces:
        if piece not in have:
            break
        kept.append(have[piece])
    if kept != sorted(kept) or any(p in have for p in model.pieces[len(kept):]):
        return None
    if any(t.piece in have and t.id != have[t.piece] for t in model.config.special_tokens):
        return None  # the trainer spec names the specials' ids
    return kept


def _rewritten_proto(model: BPEModel, source: BPEModel, source_path,
                     kept: list[int]) -> bytes:
    data = Path(source_path).read_bytes()
    proto = spm.read_proto(source_path, data)
    if len(proto["pieces"]) != source.vocab_size:
        raise ExportError(f"{source_path}: has {len(proto['pieces']):,} pieces, but the "
                          f"model read from it {source.vocab_size:,}; write it as a new "
                          "sentencepiece model instead")
    keep = set(kept)
    out = bytearray()
    index = 0
    for field, _, value, _ in pw.fields(data):  # every ModelProto field is a message
        if field == spm.MODEL_PIECES:
            index += 1
            if index - 1 not in keep:
                continue
        out += pw.bytes_field(field, value)
    lowest = min((score for _, score, _ in proto["pieces"]), default=0.0)
    alphabet = set(model.alphabet)
    reserved = {t.piece for t in model.config.special_tokens}  # new ones: named ids' gaps
    added = model.pieces[len(kept):]
    merged = [p for p in added if p not in alphabet and p not in reserved]
    characters = [p for p in added if p in alphabet]
    score = {p: lowest - 1 - k for k, p in enumerate(merged)}
    score.update({p: lowest - 1 - len(merged) - k for k, p in enumerate(characters)})
    for piece in added:
        if piece in reserved:  # a control piece: never produced, never found in text
            body = pw.str_field(spm.PIECE_TEXT, piece) + pw.float_field(spm.PIECE_SCORE, 0.0) \
                + pw.int_field(spm.PIECE_TYPE, spm.CONTROL)
        else:
            body = pw.str_field(spm.PIECE_TEXT, piece) \
                + pw.float_field(spm.PIECE_SCORE, float(score[piece]))
        out += pw.bytes_field(spm.MODEL_PIECES, body)
    return bytes(out)


def write_transformers_folder(model: BPEModel, folder: str | os.PathLike, *,
                              tokenizer_json: bytes | None = None,
                              source_folder: str | os.PathLike | None = None) -> list[Path]:
    """``tokenizer.json`` (exported, or ``tokenizer_json`` when given: a patched source)
    and transformers' two settings files in ``folder``; those of ``source_folder`` (a
    transformers folder the model was adapted from) when it has them."""
    # A patched source keeps the source's own merges and text rules, as the tokenizer.json
    # written back does; only a new export must be one HF encodes as BPE Desktop does.
    why = export_problem(model, "hf") if tokenizer_json is None else None
    if why:
        raise ExportError(f"cannot write a transformers folder: {why}")
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ExportError(f"{folder}: is a file; a transformers folder needs a folder")
    kept = _source_settings(model, Path(source_folder), folder) \
        if source_folder is not None and Path(source_folder).is_dir() else None
    folder.mkdir(parents=True, exist_ok=True)
    if tokenizer_json is None:
        paths = export_model(model, "hf", folder / "tokenizer.json")
    else:
        paths = _common.write_files([(folder / "tokenizer.json", tokenizer_json)])
    if kept is not None:
        return paths + _common.write_files(kept)
    roles = {_ROLE_KEYS[t.role]: t.piece for t in model.config.special_tokens
             if t.role in _ROLE_KEYS}
    others = [t.piece for t in model.config.special_tokens if t.role not in _ROLE_KEYS]
    special_map = dict(roles, **({"additional_special_tokens": others} if others else {}))
    config = {"tokenizer_class": "PreTrainedTokenizerFast",
              "clean_up_tokenization_spaces": False, **special_map,
              "added_tokens_decoder": {
                  str(t.id): {"content": t.piece, "lstrip": False, "rstrip": False,
                              "normalized": False, "single_word": False, "special": True}
                  for t in sorted(model.config.special_tokens, key=lambda t: t.id)}}
    files = [(folder / "tokenizer_config.json", _json(config)),
             (folder / "special_tokens_map.json", _json(special_map))]
    return paths + _common.write_files(files)


#: What a transformers folder holds besides tokenizer.json that adaptation keeps as it is
#: (tokens are named by their text there, so they stay right when ids change).
_KEPT_FILES = ("special_tokens_map.json", "chat_template.jinja", "chat_template.json")


def _source_settings(model: BPEModel, source: Path, folder: Path
                     ) -> list[tuple[Path, bytes]] | None:
    """The source folder's settings for ``folder``: its tokenizer_config.json (the ids of
    ``added_tokens_decoder`` following their tokens; model_max_length, the chat template
    and the special tokens' roles kept), special_tokens_map.json and chat template; None
    when it has no tokenizer_config.json. A role naming a token the model no longer has
    (a trim dropped it) is an ExportError, nothing written."""
    config_path = source / "tokenizer_config.json"
    if not config_path.is_file():
        return None
    config = _common.read_json(config_path)
    if not isinstance(config, dict):
        raise ExportError(f"{config_path}: is not a JSON object")
    ids = model.piece_ids
    files = []
    for name in _KEPT_FILES:
        if (source / name).is_file():
            files.append((folder / name, (source / name).read_bytes()))
    special_map = source / "special_tokens_map.json"
    for where in (config_path, special_map):
        settings = config if where == config_path else (
            _common.read_json(where) if where.is_file() else {})
        for key, piece in _named_tokens(settings):
            if piece not in ids:
                raise ExportError(f"{where}: {key} names the token {piece!r}, which the "
                                  "model no longer has; keep the special tokens (do not "
                                  "drop them)")
    decoder = config.get("added_tokens_decoder")
    if isinstance(decoder, dict):
        config["added_tokens_decoder"] = {
            str(ids[entry["content"]]): entry for entry in decoder.values()
            if isinstance(entry, dict) and entry.get("content") in ids}
    return [(folder / "tokenizer_config.json", _json(config)), *files]


def _named_tokens(settings: object):
    """(key, token) for each token transformers' settings name by role (``eos_token``,
    ``additional_special_tokens``, ...), written as text or as {"content": text}."""
    for key, value in settings.items() if isinstance(settings, dict) else ():
        if key.endswith("_token") or key == "additional_special_tokens":
            for token in value if isinstance(value, list) else [value]:
                piece = token.get("content") if isinstance(token, dict) else token
                if isinstance(piece, str):
                    yield key, piece


def _json(value: object) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def verify_transformers_folder(model: BPEModel, folder: str | os.PathLike, lines):
    """Load ``folder`` with ``transformers.AutoTokenizer`` (offline) and compare its ids
    on each line with ``model``'s, and its decoding of them (as verify_export: not of a
    line with the unknown token): a :class:`Verification` (library ``transformers``).
    ExportError when transformers is not installed or cannot load the folder."""
    from bpe_desktop.core.formats.verify import Verification

    try:  # by name: the desktop bundle, which never verifies, must not pull it in
        transformers = importlib.import_module("transformers")
    except ImportError:
        raise ExportError("verifying a transformers folder needs the transformers "
                          "package (pip install transformers)") from None
    try:
        peer = transformers.AutoTokenizer.from_pretrained(os.fspath(folder),
                                                          local_files_only=True)
    except Exception as exc:  # transformers raises many kinds; all mean "cannot load"
        raise ExportError(f"transformers {transformers.__version__} could not load "
                          f"{folder}: {exc}") from None
    tok = model.tokenizer()
    unk = model.config.special("unk")
    lines = [line.rstrip("\n") for line in lines]
    agreed, first, decoded = 0, None, None
    for number, line in enumerate(lines, 1):
        ours = list(tok.encode(line))
        theirs = list(peer(line, add_special_tokens=False)["input_ids"])
        if ours != theirs:
            if first is None:
                first = (line, list(map(str, ours)), list(map(str, theirs)))
        elif (unk is None or unk.id not in ours) and tok.decode(ours) != (
                text := peer.decode(theirs, skip_special_tokens=False)):
            if decoded is None:
                decoded = (number, tok.decode(ours), text)
        else:
            agreed += 1
    return Verification(TRANSFORMERS_FOLDER, len(lines), agreed, "transformers",
                        transformers.__version__, first, first_decode_difference=decoded)

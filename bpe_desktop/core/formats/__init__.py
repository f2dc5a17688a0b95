"""Interchange formats: export a model for other tools, import theirs, verify, recount.

::

    from bpe_desktop.core.formats import FORMATS, export_problem, export_model, verify_export

    why = export_problem(model, "sentencepiece")      # None, or why not and what would do
    paths = export_model(model, "sentencepiece", "m.model")
    notes = export_notes(model, "sentencepiece")      # what the file does differently
    print(verify_export(model, "sentencepiece", paths, lines).summary())
    other = import_model("hf", "tokenizer.json")      # a BPEModel, counts unknown
    other = recount(other, Corpus.from_files(["corpus.txt"]))

=================  ======================================  ==============================
name               what                                    models that fit
=================  ======================================  ==============================
``hf``             Hugging Face ``tokenizer.json``         all but ``eow-symbol``
``gpt2``           ``vocab.json`` + ``merges.txt``         byte-level (gpt2 preset)
``subword-nmt``    codes v0.2 / v0.1                       ``eow-suffix`` / ``eow-symbol``
``sentencepiece``  ``.model`` (BPE)                        sentencepiece preset
``tiktoken``       ranks file (+ ``.json`` settings)       byte-level, all four patterns
``fastbpe``        fastBPE codes (+ ``.vocab``)            ``eow-suffix``
``youtokentome``   YouTokenToMe model                      ``bow-prefix`` (unk, pad, bos, eos)
``vocab``          ``piece<TAB>id<TAB>count`` list         all (export only)
=================  ======================================  ==============================

Within those, a model with a redundant merge (one whose token already existed) is
refused where the peer would apply it differently or cannot read it: always for
sentencepiece, tiktoken, fastBPE and YouTokenToMe, and for tokenizer.json / GPT-2 files
when an earlier merge uses that token.

Every file is written atomically (a temporary file, fsynced, then renamed), so a failed
export leaves earlier files as they were; the files of gpt2, tiktoken and fastbpe come
with their checksum list ``FIRST.sha256``, checked on import, so that a set left mixed by
an interrupted export is refused (:mod:`bpe_desktop.core.safe_write`). A single file
may be written to a stream (``-``: standard output). A format that cannot express a model's
conventions is refused with :class:`ExportError`, never written approximately: see
:func:`export_problem`. Each format module's docstring lists exactly what is written and
the differences that lie outside any file (for example how a peer treats text that
spells a special token).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from bpe_desktop.core.errors import ConfigError, ExportError, ModelFileError
from bpe_desktop.core.model import BPEModel
from bpe_desktop.core.formats import (
    fastbpe,
    gpt2,
    hf,
    sentencepiece_model,
    subword_nmt,
    tiktoken_ranks,
    vocab_list,
    youtokentome,
)
from bpe_desktop.core.formats._common import byte_pieces_in, import_error
from bpe_desktop.core.formats.recount import recount
from bpe_desktop.core.formats.verify import Verification, verify_export


@dataclass(frozen=True)
class FormatInfo:
    """How a format appears in menus and file dialogs.

    ``writes_folder``: the format is more than one file. Its path may name a folder
    (the files get their usual names), one of the files, or a prefix; see
    :mod:`.gpt2`. ``peer``: the Python package that reads the format, used by
    :func:`verify_export`; None when there is none. ``optional_file``: an export option
    that writes one more file, and the yes/no question the application asks about it.
    """

    name: str
    label: str
    file_filter: str
    default_name: str
    writes_folder: bool
    can_import: bool
    peer: str | None
    optional_file: tuple[str, str] | None = None


FORMATS: dict[str, FormatInfo] = {
    "hf": FormatInfo("hf", "Hugging Face tokenizer.json…", "Tokenizer JSON (*.json)",
                     "tokenizer.json", False, True, "tokenizers"),
    "gpt2": FormatInfo("gpt2", "GPT-2 vocab.json + merges.txt…",
                       "GPT-2 vocabulary (*vocab.json)", "vocab.json", True, True,
                       "tokenizers"),
    "subword-nmt": FormatInfo("subword-nmt", "subword-nmt codes…",
                              "BPE codes (*.codes *.txt)", "bpe.codes", False, True,
                              "subword_nmt"),
    "sentencepiece": FormatInfo("sentencepiece", "sentencepiece model…",
                                "sentencepiece model (*.model)", "tokenizer.model", False,
                                True, "sentencepiece"),
    "tiktoken": FormatInfo("tiktoken", "tiktoken ranks…", "tiktoken ranks (*.tiktoken)",
                           "tokenizer.tiktoken", False, True, "tiktoken"),
    "fastbpe": FormatInfo("fastbpe", "fastBPE codes…", "fastBPE codes (*.codes *.txt *)",
                          "codes", False, True, "fastBPE",
                          ("vocab", "Also write the vocabulary file (PATH.vocab: token and "
                                    "count per line, as fastBPE's getvocab writes it)?")),
    "youtokentome": FormatInfo("youtokentome", "YouTokenToMe model…",
                               "YouTokenToMe model (*.model *.yttm)", "yttm.model", False,
                               True, "youtokentome"),
    "vocab": FormatInfo("vocab", "Vocabulary list (TSV)…",
                        "Tab-separated values (*.tsv *.txt)", "vocab.tsv", False, False, None),
}

_MODULES: dict[str, ModuleType] = {
    "hf": hf,
    "gpt2": gpt2,
    "subword-nmt": subword_nmt,
    "sentencepiece": sentencepiece_model,
    "tiktoken": tiktoken_ranks,
    "fastbpe": fastbpe,
    "youtokentome": youtokentome,
    "vocab": vocab_list,
}


def _module(fmt: str) -> ModuleType:
    try:
        return _MODULES[fmt]
    except (KeyError, TypeError):
        raise ExportError(f"unknown format {fmt!r}; choose one of "
                          f"{', '.join(FORMATS)}") from None


def _export_options(fmt: str, options: dict[str, Any]) -> dict[str, Any]:
    allowed = _module(fmt).EXPORT_OPTIONS
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        offered = ", ".join(allowed) or "none"
        raise ExportError(f"the {fmt} export has no option {unknown[0]!r} (options: "
                          f"{offered})")
    return options


def export_problem(model: BPEModel, fmt: str, **options: Any) -> str | None:
    """Why ``model`` cannot be exported as ``fmt`` and which settings would allow it.

    None when it can. The text is a complete clause, ready to follow "Cannot export: ".
    """
    return _protected_problem(model, fmt) or _byte_fallback_problem(model, fmt) or \
        _module(fmt).problem(model, **_export_options(fmt, options))


def _byte_fallback_problem(model: BPEModel, fmt: str) -> str | None:
    """Byte fallback travels only in Hugging Face and sentencepiece files; elsewhere the
    library would give the unknown token where this model gives byte tokens."""
    if not model.config.byte_fallback or fmt in ("hf", "sentencepiece") \
            or model.config.byte_level or byte_pieces_in(model) == 0:
        return None
    return ("this model spells unknown characters in byte tokens <0x00> ... <0xFF> (byte "
            "fallback), which this format has no setting for; export as Hugging Face "
            "tokenizer.json or sentencepiece model")


def _protected_problem(model: BPEModel, fmt: str) -> str | None:
    """Protected strings travel as Hugging Face added tokens (not special) or as
    sentencepiece user-defined pieces; each library finds them as this model does only
    for its own way of marking words (see bpe_desktop.core.protected)."""
    if not model.config.protected:
        return None
    sentencepiece = model.config.pretokenizer == "sentencepiece"
    if fmt == ("sentencepiece" if sentencepiece else "hf"):
        return None
    # The format that keeps them may refuse the model for another reason: then say that,
    # rather than send the user there (sentencepiece records no normalization).
    keeper = _module("sentencepiece" if sentencepiece else "hf").problem(model)
    if fmt == "hf" and sentencepiece:
        return ("this model has protected strings and reads text as sentencepiece does "
                "(a ▁ before a protected string is a token of its own, the text right after "
                "one has no ▁); Hugging Face finds added tokens before its Metaspace step, "
                "which then gives every piece between them a ▁, so the ids would differ; "
                + ("export as a sentencepiece model, which keeps them as user-defined pieces"
                   if keeper is None else "a sentencepiece model keeps them as user-defined "
                   f"pieces, but {keeper}"))
    if fmt == "sentencepiece":
        return ("this model has protected strings, and sentencepiece finds user-defined "
                "pieces in its ▁-marked text, which only models with the sentencepiece "
                "pre-tokenizer read that way; export as Hugging Face tokenizer.json, which "
                "keeps them as added tokens")
    target = "a sentencepiece model" if sentencepiece else "Hugging Face tokenizer.json"
    where = f"export as {target}, which keeps them" if keeper is None else \
        f"{target} keeps them, but {keeper}"
    return ("this model has protected strings, which this format has no place for (its "
            f"encoder would split them); {where}")


def export_notes(model: BPEModel, fmt: str) -> list[str]:
    """What a written ``fmt`` file of ``model`` does differently from BPE Desktop on text
    the model does not cover (each a complete clause); empty when nothing. Shown with the
    export, which is still written: on every text BPE Desktop encodes, the ids agree."""
    return list(getattr(_module(fmt), "notes", lambda _: [])(model))


def export_model(model: BPEModel, fmt: str, path: str | os.PathLike, **options: Any
                 ) -> list[Path]:
    """Write ``model`` as ``fmt`` at ``path``; the files written (each atomically).

    Options: ``legacy_merges=True`` (hf: ``"a b"`` merge strings), ``sidecar=False``
    (tiktoken: no ``.json`` settings file), ``vocab=True`` (fastbpe: also ``PATH.vocab``).
    Raises :class:`ExportError` when the format cannot express the model (nothing is
    written) and :class:`OSError` naming the file when writing fails.
    """
    module = _module(fmt)
    options = _export_options(fmt, options)
    why = _protected_problem(model, fmt) or _byte_fallback_problem(model, fmt) \
        or module.problem(model, **options)
    if why:
        raise ExportError(f"cannot export as {FORMATS[fmt].label.rstrip('…')}: {why}")
    return module.export(model, path, **options)


def export_files(fmt: str, path: str | os.PathLike, **options: Any) -> list[Path]:
    """The files :func:`export_model` writes for ``path``: GPT-2's pair, tiktoken's
    settings beside the ranks, fastBPE's vocabulary beside the codes (with their options)."""
    from bpe_desktop.core.formats import fastbpe, gpt2, tiktoken_ranks

    if fmt == "gpt2":
        return list(gpt2.file_pair(path))
    files = [Path(path)]
    if fmt == "tiktoken" and options.get("sidecar", True):
        files.append(tiktoken_ranks.settings_path(path))
    if fmt == "fastbpe" and options.get("vocab", False):
        files.append(fastbpe.vocab_path(path))
    return files


def import_files(fmt: str, path: str | os.PathLike) -> list[Path]:
    """The files :func:`import_model` reads for ``path``: GPT-2's pair (of a folder, a
    file of it or a prefix), the ranks and tiktoken's settings beside them, a
    transformers folder's ``tokenizer.json``, or the file itself."""
    from bpe_desktop.core.formats import gpt2, tiktoken_ranks

    if fmt == "gpt2":
        return list(gpt2.file_pair(path))
    if fmt == "tiktoken":
        return [Path(path), tiktoken_ranks.settings_path(path)]
    if fmt == "hf" and os.path.isdir(path):
        return [Path(path) / "tokenizer.json"]
    return [Path(path)]


def import_model(fmt: str, path: str | os.PathLike, **options: Any) -> BPEModel:
    """Read a tokenizer written by another tool as a :class:`BPEModel` (counts unknown).

    ``path`` is the file (gpt2: the folder, either file or the prefix). Options:
    ``pattern=`` and ``special_tokens=`` for tiktoken files without their ``.json``
    settings. What the source does that BPE Desktop does not is listed in the model's
    description. Raises :class:`ModelFileError` naming the file and the line or field,
    and :class:`OSError` when a file cannot be read.
    """
    info = FORMATS.get(fmt) if isinstance(fmt, str) else None
    if info is None:
        raise ModelFileError(f"unknown format {fmt!r}; choose one of "
                             f"{', '.join(n for n, f in FORMATS.items() if f.can_import)}")
    if not info.can_import:
        raise ModelFileError(f"{info.label.rstrip('…')} cannot be imported: it has no "
                             "merges")
    module = _module(fmt)
    allowed = {"tiktoken": ("pattern", "special_tokens")}.get(fmt, ())
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ModelFileError(f"the {fmt} import has no option {unknown[0]!r}")
    try:
        return module.load(path, **options)
    except ConfigError as exc:
        # The importers check what they read field by field; should a combination still
        # make settings BPE Desktop refuses, the error names the file all the same.
        raise import_error(path, None, f"cannot be converted into a BPE Desktop model: "
                           f"{exc}") from None


__all__ = [
    "FORMATS", "ExportError", "FormatInfo", "Verification", "export_model",
    "export_notes", "export_problem", "import_model", "recount", "verify_export",
]

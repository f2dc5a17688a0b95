"""Reload an export with the library that reads it and compare segmentations.

Each sample line is encoded by BPE Desktop and by the peer; the line agrees when the
token ids are identical (tokenizer.json, GPT-2 files, sentencepiece, tiktoken all keep
BPE Desktop's ids, and so does a YouTokenToMe model) and the library decodes them to the
text BPE Desktop decodes them to; or, for subword-nmt and fastBPE
codes, which have no ids, when ``apply_bpe`` / ``fastBPE.apply`` cut every word into
the same segments. The peer sees the text as its users would give it: the line itself
(``apply_bpe``: words between spaces, as ``process_line``).

Ids are compared as they are: a model exported to sentencepiece fuses runs of unknown
characters into one ``<unk>`` itself (``fuse_unk``), as sentencepiece does. One peer
convention is allowed for: YouTokenToMe always fuses such a run into one ``<UNK>``, so for
it our ``<unk>`` runs are fused before comparing. A line that
BPE Desktop cannot encode (a character outside the vocabulary and no ``<unk>``)
counts as a disagreement. A trailing line break of a sample line is ignored. A line whose
ids hold the unknown token is compared on its ids only: that token stands for text no
side can give back, and each library writes it its own way (a sentencepiece file made
elsewhere `` ⁇ ``, YouTokenToMe ``<UNK>``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib
import importlib.metadata
import math
import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

from bpe_desktop.core.errors import EncodeError, ExportError
from bpe_desktop.core.model import BPEModel
from bpe_desktop.core.pieces import surface_text

#: Python package -> the distribution whose version is reported.
_DISTRIBUTIONS = {"tokenizers": "tokenizers", "sentencepiece": "sentencepiece",
                  "tiktoken": "tiktoken", "subword_nmt": "subword-nmt",
                  "fastBPE": "fastBPE", "youtokentome": "youtokentome"}


@dataclass(frozen=True)
class Verification:
    """How many sample lines the peer library segmented exactly as BPE Desktop."""

    fmt: str
    lines: int
    agreed: int
    #: The peer's distribution name: tokenizers, sentencepiece, tiktoken, subword-nmt,
    #: fastBPE or youtokentome.
    library: str
    library_version: str
    #: (line, our tokens, the peer's tokens) for the first line that differs.
    first_mismatch: tuple[str, list[str], list[str]] | None
    #: The sample line (1 = first) of ``first_mismatch``.
    first_mismatch_line: int | None = None
    #: (line number, BPE Desktop's text, the library's text) for the first line that
    #: has the same ids but which the library decodes to another text.
    first_decode_difference: tuple[int, str, str] | None = None

    @property
    def differs(self) -> bool:
        """Whether some line got other ids or decodes to another text."""
        return self.first_mismatch is not None or self.first_decode_difference is not None

    def mismatch_text(self) -> str | None:
        """Where the first differing line differs, short whatever the line's length:
        its number, the first token that differs and a few tokens around it (or, when
        the ids agree everywhere, the two decoded texts)."""
        if self.first_mismatch is None:
            if self.first_decode_difference is None:
                return None
            number, ours, theirs = self.first_decode_difference
            return (f"line {number:,} gets the same ids, but BPE Desktop decodes them as"
                    f" {_cut(ours, MISMATCH_LINE_CHARS)!r} and "
                    f"{self.library} as {_cut(theirs, MISMATCH_LINE_CHARS)!r}")
        line, ours, theirs = self.first_mismatch
        k = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b),
                 min(len(ours), len(theirs)))
        start = max(0, k - MISMATCH_CONTEXT)
        where = f"line {self.first_mismatch_line:,}" if self.first_mismatch_line else "a line"
        shown = _cut(line, MISMATCH_LINE_CHARS)
        return (f"{where} ({len(line):,} characters: {shown!r}) differs from token "
                f"{k + 1:,}: BPE Desktop {_window(ours, start, k)} vs {self.library} "
                f"{_window(theirs, start, k)}")

    @property
    def percent(self) -> float:
        """Share of agreeing lines, 0 to 100 (0 for an empty sample)."""
        return 100.0 * self.agreed / self.lines if self.lines else 0.0

    def summary(self) -> str:
        """``verified on 1,000 lines with tokenizers 0.23.3: 100%``.

        The percentage is rounded down, so anything short of full agreement never
        reads as 100%.
        """
        who = f"{self.library} {self.library_version}".strip()
        if not self.lines:
            return f"nothing verified with {who}: the sample has no lines"
        if self.agreed == self.lines:
            share = "100%"
        elif self.agreed == 0:
            share = "0%"
        else:
            share = f"{min(99.9, math.floor(self.percent * 10) / 10):.1f}%"
        return f"verified on {self.lines:,} lines with {who}: {share}"


#: A differing line is shown cut to this many characters, with this many tokens before
#: the first differing one and a few after (a one-line file can be 200 KB).
MISMATCH_LINE_CHARS = 80
MISMATCH_CONTEXT = 3
MISMATCH_TOKEN_CHARS = 40


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _window(tokens: Sequence[str], start: int, k: int) -> str:
    shown = [repr(_cut(t, MISMATCH_TOKEN_CHARS)) for t in tokens[start:k + MISMATCH_CONTEXT + 1]]
    before = "…, " if start else ""
    after = ", …" if len(tokens) > k + MISMATCH_CONTEXT + 1 else ""
    return f"[{before}{', '.join(shown)}{after}]"


def verifiable_format(fmt: str):
    """The :class:`FormatInfo` of ``fmt``; an :class:`ExportError` when no library reads
    it (checked before an export writes anything)."""
    from bpe_desktop.core.formats import FORMATS

    info = FORMATS.get(fmt)
    if info is None:
        raise ExportError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if info.peer is None:
        raise ExportError(f"{info.label.rstrip('…')} has no library that reads it: there is "
                          "nothing to verify")
    return info


def verify_export(model: BPEModel, fmt: str, paths: Sequence[Path], sample: Sequence[str]
                  ) -> Verification:
    """Load ``paths`` (what :func:`export_model` returned) with the peer and compare.

    Raises :class:`ExportError` when the peer library is not installed, when the format
    has no peer (``vocab``), or when the peer cannot read the files.
    """
    info = verifiable_format(fmt)
    try:
        module = importlib.import_module(info.peer)
    except ImportError:
        raise ExportError(missing_peer_message(info.peer)) from None
    version = _version(info.peer, module)
    paths = [Path(p) for p in paths]
    lines = [_strip_break(s) for s in sample]
    try:
        peer = _LOADERS[fmt](model, paths)
        theirs_all = peer.batch(lines)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # tiktoken panics; apply_bpe calls sys.exit on bad codes
        raise _peer_failed(info.peer, version, "read or apply", paths, exc) from None
    if peer.decode is not None:
        peer_decode = peer.decode

        def checked_decode(ids: Tokens) -> str:
            try:
                return peer_decode(ids)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # a decoder that panics (tokenizers' Strip)
                raise _peer_failed(info.peer, version, "decode with", paths, exc) from None

        peer.decode = checked_decode
    ours = _ours_for(fmt, model)
    decode = model.tokenizer().decode
    unk = model.config.special("unk")
    unk_id = unk.id if unk is not None else None
    agreed = 0
    first = first_line = first_decoded = None
    for number, (line, theirs) in enumerate(zip(lines, theirs_all), 1):
        mine = ours(line)
        if mine != theirs:
            if first is None:
                first = (line, peer.show(model, mine), peer.show(model, theirs))
                first_line = number
        elif peer.decode is not None and unk_id not in mine and \
                decode(mine) != (text := peer.decode(theirs)):
            if first_decoded is None:
                first_decoded = (number, decode(mine), text)
        else:
            agreed += 1
    return Verification(fmt=fmt, lines=len(lines), agreed=agreed,
                        library=_DISTRIBUTIONS.get(info.peer, info.peer),
                        library_version=version, first_mismatch=first,
                        first_mismatch_line=first_line,
                        first_decode_difference=first_decoded)


def _peer_failed(package: str, version: str, doing: str, paths: Sequence[Path],
                 exc: BaseException) -> ExportError:
    names = ", ".join(str(p) for p in paths)
    return ExportError(f"{_DISTRIBUTIONS.get(package, package)} {version} could not {doing} "
                       f"{names}: {type(exc).__name__}: {exc}")


def missing_peer_message(package: str) -> str:
    """One sentence: which library is missing and the command that installs it into the
    Python that runs BPE Desktop (the pip name, which may differ from the import name)."""
    dist = _DISTRIBUTIONS.get(package, package)
    return (f"the library {dist} is not installed, so the export was not checked with it; "
            f"install it with: {_this_python()} -m pip install {dist} "
            "(from a clone of BPE Desktop, pip install \".[peers]\" installs every peer)")


def _this_python() -> str:
    """The command that runs this interpreter: ``python3`` when that is what PATH finds."""
    found = shutil.which("python3")
    try:
        if found and os.path.samefile(found, sys.executable):
            return "python3"
    except OSError:
        pass
    return shlex.quote(sys.executable or "python3")


def _strip_break(line: str) -> str:
    if line.endswith("\r\n"):
        return line[:-2]
    return line[:-1] if line.endswith("\n") else line


def _version(package: str, module) -> str:
    found = getattr(module, "__version__", None)
    if found:
        return str(found)
    try:
        return importlib.metadata.version(_DISTRIBUTIONS.get(package, package))
    except importlib.metadata.PackageNotFoundError:
        return ""


# -- the peers --------------------------------------------------------------------------


Tokens = list  # ids (ints) or, for subword-nmt, segment strings


class _Peer:
    """``decode``: ids back to text, for the formats that keep our ids."""

    def __init__(self, encode_batch: Callable[[list[str]], list[Tokens]],
                 show: Callable[[BPEModel, Tokens], list[str]] | None = None,
                 decode: Callable[[Tokens], str] | None = None) -> None:
        self.batch = encode_batch
        self.show = show or _show_ids
        self.decode = decode


def _show_ids(model: BPEModel, tokens: Tokens) -> list[str]:
    out = []
    for t in tokens:
        if isinstance(t, int) and 0 <= t < model.vocab_size:
            out.append(model.pieces[t])
        else:
            out.append(str(t))
    return out


def _show_segments(model: BPEModel, tokens: Tokens) -> list[str]:
    return [str(t) for t in tokens]


def _load_hf(model: BPEModel, paths: list[Path]) -> _Peer:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(paths[0]))
    if tok.model.dropout:  # samples are random: verify the ordinary encoding
        tok.model.dropout = None
    return _Peer(lambda lines: [e.ids for e in tok.encode_batch(lines, add_special_tokens=False)],
                 decode=lambda ids: tok.decode(ids, skip_special_tokens=False))


def _load_gpt2(model: BPEModel, paths: list[Path]) -> _Peer:
    from tokenizers import ByteLevelBPETokenizer

    vocab = next(p for p in paths if p.name.endswith("vocab.json"))
    merges = next(p for p in paths if p.name.endswith("merges.txt"))
    tok = ByteLevelBPETokenizer(str(vocab), str(merges))
    return _Peer(lambda lines: [e.ids for e in tok.encode_batch(lines, add_special_tokens=False)],
                 decode=lambda ids: tok.decode(ids, skip_special_tokens=False))


def _load_sentencepiece(model: BPEModel, paths: list[Path]) -> _Peer:
    import sentencepiece

    sp = sentencepiece.SentencePieceProcessor(model_file=str(paths[0]))
    return _Peer(lambda lines: [list(ids) for ids in sp.encode(lines)], decode=sp.decode)


def _load_tiktoken(model: BPEModel, paths: list[Path]) -> _Peer:
    import json

    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    from bpe_desktop.core.formats import tiktoken_ranks

    ranks_path = next(p for p in paths if not p.name.endswith(".json"))
    settings_path = tiktoken_ranks.settings_path(ranks_path)
    if settings_path in paths:
        settings = json.loads(settings_path.read_text(encoding="utf-8"))
    else:
        settings = tiktoken_ranks.settings(model, ranks_path.name)
    # The hash makes tiktoken re-read a file it cached under the same path before.
    digest = hashlib.sha256(ranks_path.read_bytes()).hexdigest()
    ranks = load_tiktoken_bpe(str(ranks_path), expected_hash=digest)
    enc = tiktoken.Encoding(settings["name"], pat_str=settings["pat_str"],
                            mergeable_ranks=ranks, special_tokens=settings["special_tokens"],
                            explicit_n_vocab=settings.get("explicit_n_vocab"))
    return _Peer(lambda lines: [list(ids) for ids in enc.encode_ordinary_batch(lines)],
                 decode=enc.decode)


def _load_subword_nmt(model: BPEModel, paths: list[Path]) -> _Peer:
    from subword_nmt.apply_bpe import BPE

    with open(paths[0], encoding="utf-8") as codes:
        bpe = BPE(codes)

    def batch(lines: list[str]) -> list[Tokens]:
        # apply_bpe's process_line: words between spaces, "@@" after non-final segments.
        return [bpe.segment_tokens(line.strip("\r\n ").split(" ")) for line in lines]

    return _Peer(batch, _show_segments)


def _load_fastbpe(model: BPEModel, paths: list[Path]) -> _Peer:
    import fastBPE

    codes = next(p for p in paths if not p.name.endswith(".vocab"))
    vocab = next((p for p in paths if p != codes), None)
    with _quiet_stderr():  # its C++ loader reports "Loading codes from ..." on stderr
        bpe = fastBPE.fastBPE(str(codes), str(vocab) if vocab else "")

    def batch(lines: list[str]) -> list[Tokens]:
        return [text.split(" ") if text else [] for text in bpe.apply(lines)]

    return _Peer(batch, _show_segments)


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Silence file descriptor 2 (C++ code writes there directly, past sys.stderr)."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _load_youtokentome(model: BPEModel, paths: list[Path]) -> _Peer:
    import youtokentome

    bpe = youtokentome.BPE(str(paths[0]))
    return _Peer(lambda lines: bpe.encode(lines, output_type=youtokentome.OutputType.ID),
                 decode=lambda ids: bpe.decode([ids])[0])


_LOADERS = {
    "hf": _load_hf,
    "gpt2": _load_gpt2,
    "sentencepiece": _load_sentencepiece,
    "tiktoken": _load_tiktoken,
    "subword-nmt": _load_subword_nmt,
    "fastbpe": _load_fastbpe,
    "youtokentome": _load_youtokentome,
}


# -- our side ---------------------------------------------------------------------------


def _ours_for(fmt: str, model: BPEModel) -> Callable[[str], Tokens]:
    tok = model.tokenizer()
    unk = model.config.special("unk")
    unk_id = unk.id if unk else None

    def ids(line: str) -> Tokens:
        try:
            return tok.encode(line)
        except EncodeError as exc:
            return [f"<cannot encode: {exc}>"]

    if fmt == "youtokentome":
        def fused(line: str) -> Tokens:
            out = ids(line)
            return [t for i, t in enumerate(out) if not (t == unk_id and i and out[i - 1] == t)]
        return fused
    if fmt in ("subword-nmt", "fastbpe"):
        if model.config.fuse_unk:
            # Codes have no unknown token (apply_bpe passes each unknown character
            # through): compare with one <unk> per character, as _segments reads them.
            unfused = dataclasses.replace(model, config=model.config.replace(fuse_unk=False))
            tok = unfused.tokenizer()
        return lambda line: _segments(model, tok, line, unk_id)
    return ids


def _segments(model: BPEModel, tok, line: str, unk_id: int | None) -> Tokens:
    """apply_bpe's (and fastBPE's) output for our encoding: per word, its segments,
    ``@@`` on all but the last.

    An unknown token stands for the one character it replaced (apply_bpe passes such
    characters through); markers have no text and vanish, as in apply_bpe's output.
    """
    try:
        words = tok.encode_words(line)
    except EncodeError as exc:
        return [f"<cannot encode: {exc}>"]
    out: list[str] = []
    for word, ids in words:
        segments: list[str] = []
        at = 0
        for i in ids:
            if i == unk_id:
                text = word[at:at + 1]
            else:
                text = surface_text(model.pieces[i], model.config)
            at += len(text)
            if text:
                segments.append(text)
        out.extend(s + "@@" for s in segments[:-1])
        out.extend(segments[-1:])
    return out


__all__ = ["Verification", "verify_export"]

"""``bpe-desktop encode`` and ``decode``: text to tokens and back, line by line."""

from __future__ import annotations

import argparse
import itertools
import re
import sys
from typing import Iterator

from bpe_desktop.cli._common import (
    EXIT_OK,
    CliError,
    UsageError,
    _lines_with_ends,
    load_model_file,
)
from bpe_desktop.cli.options import add_model_option, probability, whole_number
from bpe_desktop.cli.standard_input import input_name
from bpe_desktop.core.errors import EncodeError
from bpe_desktop.core.tokenizer import MAX_SEED, MODES

#: Lines encoded per engine call.
BATCH_LINES = 10_000


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "encode", help="split text into tokens",
        description="Encode text line by line: one output line per input line, tokens "
        "separated by single spaces.",
    )
    add_model_option(p)
    p.add_argument("--ids", action="store_true", help="print token ids instead of pieces")
    p.add_argument("--mode", choices=MODES, default="merges",
                   help="merges: apply merges by rank (default); greedy: longest match")
    p.add_argument("--dropout", type=probability, default=0.0, metavar="P",
                   help="BPE-dropout: skip each applicable merge with probability P "
                   "(0: ordinary encoding, default; 1: single symbols; merges mode)")
    p.add_argument("--seed", type=whole_number(0, MAX_SEED), metavar="S",
                   help="seed of the dropout sample (line n uses S + n - 1); default: random; "
                   "at P = 0 every seed gives the ordinary encoding")
    p.add_argument("input", nargs="?", default="-", metavar="FILE",
                   help="text to encode, plain or gzip (default: standard input)")
    p.set_defaults(run=cmd_encode)


    # -- decode -------------------------------------------------------------------------
    p = sub.add_parser(
        "decode", help="turn token ids (or pieces) back into text",
        description="Decode lines of token ids separated by white space (or, with --pieces, "
        "the pieces 'encode' writes) to text. Each output line ends as its input line did.",
    )
    add_model_option(p)
    p.add_argument("--pieces", action="store_true",
                   help="the input holds pieces, not ids, separated by single spaces as "
                   "'encode' writes them (a tab is a piece of a model that keeps tabs)")
    p.add_argument("input", nargs="?", default="-", metavar="FILE",
                   help="ids to decode, plain or gzip (default: standard input)")
    p.set_defaults(run=cmd_decode)


def _batches(name: str) -> Iterator[list[tuple[int, str, str]]]:
    """Lines of ``name`` in batches: (number, text, the line break to write after its
    output: the input line's own, so that ``encode | decode`` keeps \\r\\n, \\n or none)."""
    size = BATCH_LINES  # read at each call, so that a test can make batches small
    batch: list[tuple[int, str, str]] = []
    for number, text, end in _lines_with_ends(name):
        batch.append((number, text, end))
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _untranslated_stdout():
    """Standard output writing line breaks as given: each output line ends as its input
    line did, where a text stream would turn "\\n" into the platform's line end."""
    out = sys.stdout
    if hasattr(out, "reconfigure"):
        out.reconfigure(newline="")
    return out


def cmd_encode(args: argparse.Namespace) -> int:
    if args.dropout and args.mode != "merges":
        raise UsageError("--dropout applies to --mode merges only")
    # --seed with P = 0 is ordinary encoding (one sample, whatever the seed): a sweep of P
    # from 0 keeps one command line.
    model = load_model_file(args.model)
    tok = model.tokenizer()
    if args.dropout:
        return _encode_sampled(tok, args)
    # id -> output text, looked up in C (map over the table's __getitem__)
    shown = map(str, range(model.vocab_size)) if args.ids else model.pieces
    table = tuple(shown).__getitem__
    unk = tok.unk_id()
    word_final_unk = not args.ids and model.config.boundary == "eow-suffix" and unk >= 0
    label = input_name(args.input)
    out = _untranslated_stdout()
    for batch in _batches(args.input):
        texts = [text for _, text, _ in batch]
        try:
            encoded = tok.encode_batch_lists(texts, mode=args.mode)
        except EncodeError as exc:
            _encode_error(tok, batch, args.mode, label, exc)
        lines = [" ".join(map(table, ids)) for ids in encoded]
        if word_final_unk:
            # A word-final <unk> hides the word's </w>: show it as <unk></w>.
            for k, ids in enumerate(encoded):
                if unk in ids:
                    lines[k] = " ".join(tok.encode_as_pieces(texts[k], mode=args.mode))
        out.write("".join(line + end for line, (_, _, end) in zip(lines, batch)))
    out.flush()
    return EXIT_OK


def _encode_sampled(tok, args: argparse.Namespace) -> int:
    """BPE-dropout samples, line n drawn from seed S + n - 1 (reproducible per line)."""
    import secrets

    base = args.seed if args.seed is not None else secrets.randbits(64)
    label = input_name(args.input)
    out = _untranslated_stdout()
    for batch in _batches(args.input):
        lines = []
        for number, text, _ in batch:
            seed = (base + number - 1) % (MAX_SEED + 1)
            try:
                if args.ids:
                    lines.append(" ".join(map(str, tok.encode(text, dropout=args.dropout,
                                                              seed=seed))))
                else:
                    lines.append(" ".join(tok.encode_as_pieces(text, dropout=args.dropout,
                                                               seed=seed)))
            except EncodeError as exc:
                raise CliError(f"{label} line {number}: {exc}") from None
        out.write("".join(line + end for line, (_, _, end) in zip(lines, batch)))
    out.flush()
    return EXIT_OK


def _encode_error(tok, batch, mode: str, label: str, exc: EncodeError):
    """Find which line of a failed batch is at fault, and say so."""
    for number, text, _ in batch:
        try:
            tok.encode(text, mode=mode)
        except EncodeError as line_exc:
            raise CliError(f"{label} line {number}: {line_exc}") from None
    raise exc


def cmd_decode(args: argparse.Namespace) -> int:
    model = load_model_file(args.model)
    tok = model.tokenizer()
    label = input_name(args.input)
    out = _untranslated_stdout()
    spaced = sorted((p for p in model.config.protected if " " in p), key=len, reverse=True)
    for batch in _batches(args.input):
        lines = []
        for number, text, _ in batch:
            try:
                if args.pieces:
                    lines.append(tok.decode_pieces([p for _, p in _pieces(text, spaced)]))
                else:
                    lines.append(tok.decode_id_text(text))
            except EncodeError as exc:
                fields = _pieces(text, spaced) if args.pieces else \
                    [(m.start(), m.group()) for m in re.finditer(r"\S+", text)]
                _decode_error(tok, fields, args.pieces, f"{label} line {number}", exc)
        out.write("".join(line + end for line, (_, _, end) in zip(lines, batch)))
    out.flush()
    return EXIT_OK


def _pieces(text: str, spaced: list[str]) -> list[tuple[int, str]]:
    """(column, piece) of a line of ``encode``'s pieces: they are separated by single
    spaces, and no piece holds one but a protected string with a space in it (``spaced``,
    longest first), read as one piece wherever its words stand in a row. A tab or other
    white space is a piece (or part of one) of a model that keeps it in words."""
    fields = text.split(" ")
    columns = list(itertools.accumulate((len(f) + 1 for f in fields), initial=0))
    out: list[tuple[int, str]] = []
    k = 0
    while k < len(fields):
        found = next((p for p in spaced if " ".join(fields[k:k + p.count(" ") + 1]) == p),
                     None)
        width = 1 if found is None else found.count(" ") + 1
        if found is not None or fields[k]:
            out.append((columns[k], found or fields[k]))
        k += width
    return out


def _decode_error(tok, fields: list[tuple[int, str]], pieces: bool, where: str,
                  exc: EncodeError):
    """Name the first field of a line that does not decode, by its place and column: a line
    of ids can be thousands long."""
    kind = "piece" if pieces else "id"
    for place, (column, field) in enumerate(fields, 1):
        try:
            tok.decode_pieces([field]) if pieces else tok.decode_id_text(field)
        except EncodeError as field_exc:
            raise CliError(f"{where}, {kind} {place} (column {column + 1}): "
                           f"{field_exc}") from None
    raise CliError(f"{where}: {exc}") from None

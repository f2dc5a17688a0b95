"""The ``bpe-desktop`` command: train, encode, decode and inspect models from a shell.

Every failure is one line on stderr, ``bpe-desktop: error: ...``, and a non-zero exit
status: 1 for errors, 2 for bad usage, 130 when interrupted (Ctrl-C). Set
``BPE_DESKTOP_DEBUG=1`` to also get the traceback of an unexpected error.
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import sys
import threading
import time
import traceback
import zlib
from types import SimpleNamespace
from typing import IO, Callable, Iterator, Sequence, TextIO

from bpe_desktop import __version__
from bpe_desktop.cli_compare import probability
from bpe_desktop.cli_options import add_train_options, config_from_args, whole_number
from bpe_desktop.core.errors import BpeError, EncodeError, TrainingCancelled
from bpe_desktop.core.eta import StageEta, stage_eta
from bpe_desktop.core.formats import FORMATS
from bpe_desktop.core.model_file import created_time, load_model, save_model
from bpe_desktop.core.tokenizer import MAX_SEED, MODES

PROG = "bpe-desktop"
EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
#: Lines encoded per engine call.
BATCH_LINES = 10_000
ISSUES_HINT = "this is a bug in BPE Desktop; please report it"


class CliError(Exception):
    """A user error found by the command line itself (the message is the whole story)."""


# ---------------------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args_list = list(sys.argv[1:] if argv is None else argv)
    if _wants_desktop_app(parser, args_list):
        from bpe_desktop.app import main as app_main

        return app_main(args_list)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error (already printed)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE if exc.code else EXIT_OK
    try:
        if args.command is None:  # only reachable with options but no command
            parser.print_help()
            return EXIT_OK
        return args.run(args)
    except KeyboardInterrupt:
        _fail("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_ERROR
    except (BpeError, CliError, ValueError) as exc:
        _fail(str(exc))
        return EXIT_ERROR
    except OSError as exc:
        _fail(_os_message(exc))
        return EXIT_ERROR
    except Exception as exc:
        if os.environ.get("BPE_DESKTOP_DEBUG") == "1":
            traceback.print_exc()
        _fail(f"unexpected {type(exc).__name__}: {exc} ({ISSUES_HINT}; "
              "set BPE_DESKTOP_DEBUG=1 for the traceback)")
        return EXIT_ERROR


def _wants_desktop_app(parser: argparse.ArgumentParser, argv: list[str]) -> bool:
    """No command, the application's own options, or a model file to open: the GUI.

    Anything else (a subcommand, --help, a misspelt command) goes to argparse, so a typo
    gets a usage error instead of a window.
    """
    if not argv:
        return True
    first = argv[0]
    if first in _APP_OPTIONS or first.split("=", 1)[0] in _APP_OPTIONS:
        return True
    if first.startswith("-") or first in _commands(parser):
        return False
    return first.endswith(".json") or os.path.isfile(first)


_APP_OPTIONS = ("--smoke-test", "--screenshots", "--appearance")


def _commands(parser: argparse.ArgumentParser) -> set[str]:
    for action in parser._subparsers._group_actions if parser._subparsers else ():
        if isinstance(action, argparse._SubParsersAction):
            return set(action.choices)
    return set()


def _fail(message: str) -> None:
    one_line = " ".join(str(message).split()) or "failed"
    sys.stderr.write(f"{PROG}: error: {one_line}\n")
    sys.stderr.flush()


def _os_message(exc: OSError) -> str:
    if exc.filename is not None and exc.strerror:
        where = f"{exc.filename}"
        if exc.filename2 is not None:
            where += f" -> {exc.filename2}"
        return f"{where}: {exc.strerror}"
    return str(exc)


def _silence_stdout() -> None:
    """After a closed pipe: stop Python complaining when it flushes stdout at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


# ---------------------------------------------------------------------------------------
# Argument parsing
# ---------------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors."""

    def error(self, message: str):  # type: ignore[override]
        hint = f"see '{self.prog} --help'"
        self.exit(EXIT_USAGE, f"{PROG}: error: {message} ({hint})\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Train, inspect and use byte-pair-encoding tokenizers.",
        epilog="Run without a command to start the desktop application.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    # -- train --------------------------------------------------------------------------
    p = sub.add_parser(
        "train", help="learn a BPE model from text files",
        description="Learn a BPE model from text files (plain or .gz) and save it as JSON. "
        "A --preset sets defaults; options given explicitly override them.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="corpus files (UTF-8, may be .gz)")
    p.add_argument("-o", "--output", required=True, metavar="MODEL",
                   help="where to write the model (JSON)")
    p.add_argument("--word-counts", action="store_true",
                   help="the files are word<TAB>count tables, not running text")
    add_train_options(p)
    p.add_argument("--encoding-errors", choices=("strict", "replace"), default="strict",
                   help="invalid UTF-8: stop with an error (strict, default) or use U+FFFD")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress or summary")
    p.set_defaults(run=cmd_train)

    # -- encode -------------------------------------------------------------------------
    p = sub.add_parser(
        "encode", help="split text into tokens",
        description="Encode text line by line: one output line per input line, tokens "
        "separated by single spaces.",
    )
    p.add_argument("-m", "--model", required=True, metavar="MODEL")
    p.add_argument("--ids", action="store_true", help="print token ids instead of pieces")
    p.add_argument("--mode", choices=MODES, default="merges",
                   help="merges: apply merges by rank (default); greedy: longest match")
    p.add_argument("--dropout", type=probability, default=0.0, metavar="P",
                   help="BPE-dropout: skip each applicable merge with probability P "
                   "(0: ordinary encoding, default; 1: single symbols; merges mode)")
    p.add_argument("--seed", type=whole_number(0, MAX_SEED), metavar="S",
                   help="seed of the dropout sample (line n uses S + n - 1); default: random")
    p.add_argument("input", nargs="?", default="-", metavar="FILE",
                   help="text to encode (default: standard input)")
    p.set_defaults(run=cmd_encode)

    # -- decode -------------------------------------------------------------------------
    p = sub.add_parser(
        "decode", help="turn token ids (or pieces) back into text",
        description="Decode lines of whitespace-separated token ids (or pieces) to text.",
    )
    p.add_argument("-m", "--model", required=True, metavar="MODEL")
    p.add_argument("--pieces", action="store_true", help="the input holds pieces, not ids")
    p.add_argument("input", nargs="?", default="-", metavar="FILE",
                   help="ids to decode (default: standard input)")
    p.set_defaults(run=cmd_decode)

    # -- info ---------------------------------------------------------------------------
    p = sub.add_parser(
        "info", help="describe a model",
        description="Summarize a model; with --merges, list its merges instead.",
    )
    p.add_argument("-m", "--model", required=True, metavar="MODEL")
    p.add_argument("--merges", action="store_true",
                   help="print left<TAB>right<TAB>count per merge, in rank order")
    p.set_defaults(run=cmd_info)

    # -- export / import ----------------------------------------------------------------
    p = sub.add_parser(
        "export", help="write a model in another tool's format",
        description="Write a model as a Hugging Face tokenizer.json (hf), GPT-2 vocab.json + "
        "merges.txt (gpt2: -o is a folder, a prefix, or the vocab.json name), subword-nmt "
        "codes, a sentencepiece .model, tiktoken ranks (plus PATH.json with the pattern "
        "and special tokens), fastBPE codes (left right count), a YouTokenToMe model or a "
        "vocabulary list (vocab: piece, id, count). A model whose settings a format "
        "cannot express is refused, with the reason.",
    )
    p.add_argument("-m", "--model", required=True, metavar="MODEL")
    p.add_argument("--format", required=True, choices=tuple(FORMATS), dest="format")
    p.add_argument("-o", "--output", required=True, metavar="PATH", help="where to write")
    p.add_argument("--legacy-merges", action="store_true",
                   help="hf: write merges as \"left right\" strings (for old readers)")
    p.add_argument("--no-settings", action="store_true",
                   help="tiktoken: do not write PATH.json (pattern and special tokens)")
    p.add_argument("--with-vocab", action="store_true",
                   help="fastbpe: also write the vocabulary file PATH.vocab (token count)")
    p.add_argument("--dropout", type=probability, metavar="P",
                   help="hf: write BPE-dropout P into the model (Hugging Face then samples)")
    p.add_argument("--verify", metavar="FILE",
                   help="then load the files with the format's own library and compare its "
                   "segmentation of each line of FILE with this model's (exit 1 on a "
                   "difference)")
    p.add_argument("--verify-lines", type=whole_number(1), metavar="N",
                   help="verify on the first N lines of FILE only")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary")
    p.set_defaults(run=cmd_export)

    p = sub.add_parser(
        "import", help="read another tool's tokenizer as a model",
        description="Read a tokenizer written by another tool (its merges, vocabulary, "
        "special tokens and text settings) and save it as a BPE Desktop model. Formats "
        "store no merge counts; --recount fills them in by replaying the merges over a "
        "corpus.",
    )
    p.add_argument("--format", required=True, dest="format",
                   choices=tuple(n for n, f in FORMATS.items() if f.can_import))
    p.add_argument("path", metavar="PATH",
                   help="the file (gpt2: the folder, either file, or the prefix)")
    p.add_argument("-o", "--output", required=True, metavar="MODEL",
                   help="where to write the model (JSON)")
    p.add_argument("--recount", nargs="+", metavar="CORPUS",
                   help="corpus files (UTF-8, may be .gz) to count the merges on")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress or summary")
    p.set_defaults(run=cmd_import)

    from bpe_desktop.cli_evaluate import add_parser as add_evaluate

    add_evaluate(sub, whole_number)
    from bpe_desktop.cli_compare import add_parser as add_compare

    add_compare(sub)
    return parser


# ---------------------------------------------------------------------------------------
# train
# ---------------------------------------------------------------------------------------


def cmd_train(args: argparse.Namespace) -> int:
    from bpe_desktop.core.training import CancelToken, Corpus, train

    config = config_from_args(args)
    for name in args.files:
        if not os.path.exists(name):
            raise CliError(f"{name}: no such file")
        if os.path.isdir(name):
            raise CliError(f"{name}: is a directory, not a corpus file")
    _check_output(args.output, args.files)
    # Warn (and go on) before a run that may not fit in memory, not an hour into it.
    from bpe_desktop.core.memory import estimate_training_memory

    memory = estimate_training_memory(args.files, config)
    if memory.warning:
        sys.stderr.write(f"{PROG}: warning: {memory.warning}\n")
        sys.stderr.flush()
    corpus = Corpus.from_files(args.files, word_counts=args.word_counts,
                               errors=args.encoding_errors)
    progress = None if args.quiet else ProgressBar(sys.stderr)
    cancel = CancelToken()
    on_progress = progress
    if os.environ.get(HOLD_FOR_CANCEL_ENV) == "1":
        on_progress = _held_until_cancelled(progress, cancel)
    started = time.perf_counter()
    try:
        result = _in_worker(
            lambda: train(corpus, config, on_progress=on_progress, cancel=cancel), cancel)
    except TrainingCancelled:
        _fail("training cancelled; nothing was written")
        return EXIT_INTERRUPTED
    finally:
        if progress:
            progress.clear()
    model = result.model  # type: ignore[attr-defined]
    save_model(model, args.output)
    seconds = time.perf_counter() - started
    if not args.quiet:
        print(f"{len(model.merges):,} merges, vocabulary of {model.vocab_size:,} tokens, "
              f"{seconds:.1f} s; saved {args.output}")
    return EXIT_OK


#: Test hook: training stops at its first merging report until it is cancelled, so a
#: test of Ctrl-C cannot be outrun by a machine fast enough to finish first.
HOLD_FOR_CANCEL_ENV = "BPE_DESKTOP_TEST_HOLD_FOR_CANCEL"


def _held_until_cancelled(progress, cancel):
    def on_progress(p) -> None:
        if progress is not None:
            progress(p)
        if p.stage == "merging":
            while not cancel.cancelled:
                time.sleep(0.01)

    return on_progress


def _wait(finished: threading.Event) -> None:
    # Not Thread.join: on Python 3.11 a join interrupted by Ctrl-C can return while the
    # thread still runs, and exiting then kills the engine mid-call.
    while not finished.wait(0.2):
        pass


def _check_output(output: str, inputs: Sequence[str]) -> None:
    """Fail before training, not after, when the model could not be saved."""
    if os.path.isdir(output):
        raise CliError(f"{output}: is a directory; give a file name for the model")
    directory = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(directory):
        raise CliError(f"{output}: the folder {directory} does not exist")
    if not os.access(directory, os.W_OK):
        raise CliError(f"{output}: the folder {directory} is not writable")
    if os.path.exists(output):
        for name in inputs:
            try:
                if os.path.samefile(name, output):
                    raise CliError(f"{output}: is also a corpus file; refusing to overwrite it")
            except OSError:
                continue


class ProgressBar:
    """Training progress on a stream: a redrawn line on a terminal, else a line now and then.

    Called from the training thread with :class:`~bpe_desktop.core.training.Progress`.
    """

    TTY_INTERVAL = 0.1
    PLAIN_INTERVAL = 5.0

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        try:
            self.tty = stream.isatty()
        except (AttributeError, ValueError):
            self.tty = False
        self._last = 0.0
        self._stage = None
        self._eta = StageEta()
        self._drawn = False
        self._lock = threading.Lock()

    def __call__(self, p) -> None:
        now = time.monotonic()
        new_stage = p.stage != self._stage
        if new_stage:
            self._stage = p.stage
        eta = stage_eta(self._eta, p)
        interval = self.TTY_INTERVAL if self.tty else self.PLAIN_INTERVAL
        if not new_stage and now - self._last < interval:
            return
        self._last = now
        # The last line shows the finished state (100 %, N/N), not the stage's first report.
        line = self.describe(p, eta) if p.stage != "done" else self.describe_finished(p)
        with self._lock:
            try:
                if self.tty:
                    width = shutil.get_terminal_size((80, 24)).columns - 1
                    self.stream.write("\r" + line[:width] + "\x1b[K")
                    self._drawn = True
                else:
                    self.stream.write(f"{PROG}: {line}\n")
                self.stream.flush()
            except (OSError, ValueError):
                pass

    def describe(self, p, eta: float | None = None) -> str:
        parts = [f"{p.stage:<8}"]
        fraction = p.fraction
        if p.stage == "merging":
            target = f"/{p.merges_target:,}" if p.merges_target else ""
            parts.append(f"{p.merges_done:,}{target} merges")
        elif p.bytes_total:
            parts.append(f"{_mb(p.bytes_done)}/{_mb(p.bytes_total)}")
            if p.words:
                parts.append(f"{p.words:,} words")
        if fraction is not None:
            parts.insert(1, _bar(fraction) if self.tty else f"{fraction:4.0%}")
        if p.stage == "merging" and p.pair is not None:
            left, right = p.pair
            parts.append(f"{left!r} + {right!r} ({p.count:,})" if p.count is not None
                         else f"{left!r} + {right!r}")
        parts.append(_clock(p.elapsed))
        if eta is not None and fraction is not None and fraction < 1:
            parts.append(f"ETA {_clock(eta)}")
        return "  ".join(parts)

    def describe_finished(self, p) -> str:
        """The merging stage as it ended: every merge done, whatever the target was."""
        finished = SimpleNamespace(**{**vars(p), "stage": "merging",
                                      "merges_target": p.merges_done})
        finished.fraction = 1.0
        return self.describe(finished)

    def clear(self) -> None:
        with self._lock:
            if self.tty and self._drawn:
                try:
                    self.stream.write("\r\x1b[K")
                    self.stream.flush()
                except (OSError, ValueError):
                    pass
                self._drawn = False


def _bar(fraction: float, width: int = 20) -> str:
    filled = int(round(fraction * width))
    return f"[{'#' * filled}{'.' * (width - filled)}] {fraction:4.0%}"


def _mb(n: int) -> str:
    return f"{n / 1e6:,.1f} MB"


def _clock(seconds: float) -> str:
    seconds = int(max(0, seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02}:{s:02}" if h else f"{m}:{s:02}"


# ---------------------------------------------------------------------------------------
# encode / decode
# ---------------------------------------------------------------------------------------


def _open_input(name: str) -> IO[bytes]:
    if name == "-":
        buffer = getattr(sys.stdin, "buffer", None)
        if buffer is None:  # a text-only stdin (tests): re-encode
            import io

            return io.BytesIO(sys.stdin.read().encode("utf-8"))
        return buffer
    if os.path.isdir(name):
        raise CliError(f"{name}: is a directory")
    if name.endswith(".gz"):
        return gzip.open(name, "rb")
    return open(name, "rb")


def _lines(name: str) -> Iterator[tuple[int, str]]:
    """(line number, text without its line break), decoded as UTF-8."""
    label = "standard input" if name == "-" else name
    stream = _open_input(name)
    try:
        for number, raw in enumerate(stream, 1):
            if raw.endswith(b"\n"):
                raw = raw[:-1]
                if raw.endswith(b"\r"):
                    raw = raw[:-1]
            try:
                yield number, raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise CliError(f"{label} line {number}: not valid UTF-8 "
                               f"(byte 0x{raw[exc.start]:02x} at column {exc.start + 1})"
                               ) from None
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise CliError(f"{label}: not a readable gzip file ({exc})") from None
    finally:
        if stream is not getattr(sys.stdin, "buffer", None):
            stream.close()


def _batches(name: str, size: int = BATCH_LINES) -> Iterator[list[tuple[int, str]]]:
    batch: list[tuple[int, str]] = []
    for item in _lines(name):
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def cmd_encode(args: argparse.Namespace) -> int:
    import numpy as np

    if args.dropout and args.mode != "merges":
        raise CliError("--dropout applies to --mode merges only")
    if args.seed is not None and not args.dropout:
        raise CliError("--seed needs --dropout P (above 0)")
    model = load_model(args.model)
    tok = model.tokenizer()
    if args.dropout:
        return _encode_sampled(tok, args)
    # id -> output text, indexed with each line's id array (faster than a Python loop)
    shown = [str(i) for i in range(model.vocab_size)] if args.ids else model.pieces
    table = np.array(shown, dtype=object)
    label = "standard input" if args.input == "-" else args.input
    out = sys.stdout
    for batch in _batches(args.input):
        texts = [text for _, text in batch]
        try:
            encoded = tok.encode_batch(texts, mode=args.mode)
        except EncodeError as exc:
            _encode_error(tok, batch, args.mode, label, exc)
        lines = [" ".join(table[arr].tolist()) for arr in encoded]
        if not args.ids and model.config.boundary == "eow-suffix" and tok.unk_id() >= 0:
            # A word-final <unk> hides the word's </w>: show it as <unk></w>.
            for k, arr in enumerate(encoded):
                if (arr == tok.unk_id()).any():
                    lines[k] = " ".join(tok.encode_as_pieces(texts[k], mode=args.mode))
        out.write("".join(line + "\n" for line in lines))
    out.flush()
    return EXIT_OK


def _encode_sampled(tok, args: argparse.Namespace) -> int:
    """BPE-dropout samples, line n drawn from seed S + n - 1 (reproducible per line)."""
    import secrets

    base = args.seed if args.seed is not None else secrets.randbits(64)
    label = "standard input" if args.input == "-" else args.input
    out = sys.stdout
    for batch in _batches(args.input):
        lines = []
        for number, text in batch:
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
        out.write("".join(line + "\n" for line in lines))
    out.flush()
    return EXIT_OK


def _encode_error(tok, batch, mode: str, label: str, exc: EncodeError):
    """Find which line of a failed batch is at fault, and say so."""
    for number, text in batch:
        try:
            tok.encode(text, mode=mode)
        except EncodeError as line_exc:
            raise CliError(f"{label} line {number}: {line_exc}") from None
    raise exc


def cmd_decode(args: argparse.Namespace) -> int:
    model = load_model(args.model)
    tok = model.tokenizer()
    label = "standard input" if args.input == "-" else args.input
    out = sys.stdout
    for batch in _batches(args.input):
        lines = []
        for number, text in batch:
            fields = text.split()
            try:
                if args.pieces:
                    lines.append(tok.decode_pieces(fields))
                else:
                    lines.append(tok.decode([_token_id(f) for f in fields]))
            except (EncodeError, CliError) as exc:
                raise CliError(f"{label} line {number}: {exc}") from None
        out.write("".join(line + "\n" for line in lines))
    out.flush()
    return EXIT_OK


def _token_id(text: str) -> int:
    if not text.isascii() or not text.isdigit():
        raise CliError(f"{text!r} is not a token id (a whole number >= 0)")
    return int(text)


# ---------------------------------------------------------------------------------------
# info
# ---------------------------------------------------------------------------------------


def cmd_info(args: argparse.Namespace) -> int:
    model = load_model(args.model)
    out = sys.stdout
    if args.merges:
        out.writelines(
            f"{m.left}\t{m.right}\t{'' if m.count is None else m.count}\n" for m in model.merges
        )
        out.flush()
        return EXIT_OK
    cfg = model.config
    specials = cfg.special_tokens
    merged = model.vocab_size - len(specials) - len(model.alphabet)
    rows = [
        ("model", args.model),
        ("created", created_time(model) or "unknown"),
        ("vocabulary", f"{model.vocab_size:,} tokens ({len(specials):,} special, "
                       f"{len(model.alphabet):,} alphabet, {merged:,} from merges)"),
        ("merges", f"{len(model.merges):,}"),
    ]
    if model.description:
        rows.append(("description", model.description))
    target = (f"vocab_size={cfg.vocab_size}" if cfg.vocab_size is not None else
              f"merges={cfg.merges}" if cfg.merges is not None else "no target (until exhausted)")
    rows.append(("training", f"{target}, min_frequency={cfg.min_frequency}"))
    rows.append(("pre-tokenizer", f"{cfg.pretokenizer}, boundary {cfg.boundary}, "
                                  f"ties {cfg.ties}"))
    rows.append(("text", f"normalize {cfg.normalize}"
                         + (", lowercase" if cfg.lowercase else "")
                         + (f", character coverage {cfg.character_coverage}"
                            if cfg.character_coverage != 1 else "")
                         + (f", initial alphabet {cfg.initial_alphabet!r}"
                            if cfg.initial_alphabet else "")))
    rows.append(("special tokens", ", ".join(f"{t.piece} = {t.id} ({t.role})"
                                             for t in specials) or "none"))
    c = model.corpus
    if c is None:
        rows.append(("corpus", "unknown"))
    else:
        rows.append(("corpus", f"{c.kind}: {c.total_words:,} words ({c.distinct_words:,} "
                               f"distinct), {c.characters:,} characters, "
                               f"{c.unknown_characters:,} unknown"))
        for f in c.files:
            digest = f"sha256 {f.sha256}" if f.sha256 else "no checksum"
            rows.append(("  file", f"{f.path} ({f.size:,} bytes, {digest})"))
    width = max(len(k) for k, _ in rows)
    out.writelines(f"{k + ':':<{width + 1}} {v}\n" for k, v in rows)
    out.flush()
    return EXIT_OK


# ---------------------------------------------------------------------------------------
# export / import
# ---------------------------------------------------------------------------------------


def cmd_export(args: argparse.Namespace) -> int:
    from bpe_desktop.core.formats import export_model, verify_export

    options: dict[str, object] = {}
    if args.legacy_merges:
        if args.format != "hf":
            raise CliError("--legacy-merges is an option of --format hf")
        options["legacy_merges"] = True
    if args.no_settings:
        if args.format != "tiktoken":
            raise CliError("--no-settings is an option of --format tiktoken")
        options["sidecar"] = False
    if args.with_vocab:
        if args.format != "fastbpe":
            raise CliError("--with-vocab is an option of --format fastbpe")
        options["vocab"] = True
    if args.dropout is not None:
        if args.format != "hf":
            raise CliError("--dropout is an option of --format hf")
        options["dropout"] = args.dropout
    if args.verify_lines is not None and args.verify is None:
        raise CliError("--verify-lines needs --verify FILE")
    if os.path.exists(args.output) and os.path.exists(args.model) and \
            os.path.samefile(args.output, args.model):
        raise CliError(f"{args.output}: is the model file itself; refusing to overwrite it")
    model = load_model(args.model)
    sample = None
    if args.verify is not None:  # read before writing: a bad FILE leaves nothing behind
        limit = args.verify_lines
        sample = []
        for number, text in _lines(args.verify):
            if limit is not None and number > limit:
                break
            sample.append(text)
    paths = export_model(model, args.format, args.output, **options)
    if not args.quiet:
        print("wrote " + ", ".join(str(p) for p in paths))
    if sample is not None:
        result = verify_export(model, args.format, paths, sample)
        if result.first_mismatch is not None:
            line, ours, theirs = result.first_mismatch
            raise CliError(f"{result.summary()}; the files were written, but the first line "
                           f"that differs is {line!r}: BPE Desktop {ours} vs "
                           f"{result.library} {theirs}")
        if not args.quiet:
            print(result.summary())
    return EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    from bpe_desktop.core.formats import import_model, recount
    from bpe_desktop.core.training import CancelToken, Corpus

    if not os.path.exists(args.path):
        raise CliError(f"{args.path}: no such file")
    corpus_files = args.recount or []
    for name in corpus_files:
        if not os.path.isfile(name):
            raise CliError(f"{name}: no such corpus file")
    _check_output(args.output, [args.path, *corpus_files])
    model = import_model(args.format, args.path)
    if corpus_files:
        progress = None if args.quiet else ProgressBar(sys.stderr)
        cancel = CancelToken()
        try:
            model = _in_worker(lambda: recount(model, Corpus.from_files(corpus_files),
                                               progress=progress, cancel=cancel), cancel)
        except TrainingCancelled:
            _fail("recounting cancelled; nothing was written")
            return EXIT_INTERRUPTED
        finally:
            if progress:
                progress.clear()
    save_model(model, args.output)
    if not args.quiet:
        counted = " with counts" if corpus_files else ""
        print(f"{len(model.merges):,} merges{counted}, vocabulary of {model.vocab_size:,} "
              f"tokens; saved {args.output}")
        print(model.description)
    return EXIT_OK


def _in_worker(work: Callable[[], object], cancel) -> object:
    """Run ``work`` on a thread so that Ctrl-C stays responsive and cancels it."""
    outcome: dict[str, object] = {}
    finished = threading.Event()

    def run() -> None:
        try:
            outcome["result"] = work()
        except BaseException as exc:  # handed to the main thread
            outcome["error"] = exc
        finally:
            finished.set()

    threading.Thread(target=run, name="bpe-worker", daemon=True).start()
    try:
        _wait(finished)
    except KeyboardInterrupt:
        cancel.cancel()
        try:
            _wait(finished)
        except KeyboardInterrupt:  # a second Ctrl-C: don't wait for the engine
            pass
        raise TrainingCancelled("cancelled") from None
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["result"]


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

"""What every ``bpe-desktop`` command shares: exit statuses, the one-line error, output
checks, reading text input, and running work on a thread that Ctrl-C cancels."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import signal
import sys
import threading
import zlib
from typing import IO, Callable, Iterator, Sequence

from bpe_desktop.core.errors import TrainingCancelled
from bpe_desktop.core.safe_write import output_target
from bpe_desktop.core.text_files import open_text_bytes
from bpe_desktop.launch import EXIT_INTERRUPTED, PROG  # noqa: F401 (re-exported)

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
EXIT_TERMINATED = 128 + 15  # the shell's status of a process ended by SIGTERM
#: A reader that stopped early (``| head -1``): the command stops writing, says nothing
#: and exits with the shell's status of a process killed by SIGPIPE, as GNU tools do
#: (``cat big | head -1`` gives 141), whichever write noticed it: one during the
#: command, or the flush after it. Python ignores SIGPIPE (the write raises instead);
#: restoring the signal's default would also kill Dask's and other sockets' users.
EXIT_BROKEN_PIPE = 128 + 13
ISSUES_HINT = "this is a bug in BPE Desktop; please report it"


class CliError(Exception):
    """A user error found by the command line itself (the message is the whole story)."""


class UsageError(CliError):
    """A wrong command line found after parsing (options that need or exclude each other,
    a wrong number of values): exit status 2, as argparse's own errors."""


def _fail(message: str) -> None:
    from bpe_desktop.cli.standard_input import shown_names

    one_line = " ".join(shown_names(str(message)).split()) or "failed"
    sys.stderr.write(f"{PROG}: error: {one_line}\n")
    sys.stderr.flush()


def print_json(data: object) -> None:
    """What ``--json`` prints: one JSON object, non-ASCII text as it is."""
    json.dump(data, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")


def _os_message(exc: OSError) -> str:
    if exc.filename is not None and exc.strerror:
        where = f"{exc.filename}"
        if exc.filename2 is not None:
            where += f" -> {exc.filename2}"
        return f"{where}: {exc.strerror}"
    return str(exc)


def _silence_stdout() -> None:
    """After a closed pipe: standard output goes to the null device, so that Python's
    flush at exit neither fails nor complains (the Python docs' "Note on SIGPIPE")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _wait(finished: threading.Event) -> None:
    # Not Thread.join: on Python 3.11 a join interrupted by Ctrl-C can return while the
    # thread still runs, and exiting then kills the engine mid-call.
    while not finished.wait(0.2):
        pass


def _check_tokenizer_path(path: str, fmt: str | None) -> None:
    """A tokenizer to read exists: a file, a folder, or (GPT-2) the prefix of
    ``PREFIX-vocab.json`` and ``PREFIX-merges.txt``."""
    from bpe_desktop.core.formats.gpt2 import file_pair

    if not os.path.exists(path) and not (fmt in (None, "gpt2")
                                         and os.path.isfile(file_pair(path)[0])):
        raise CliError(f"{path}: no such file")


def load_model_file(path: str, format_option: str = ""):
    """The BPE Desktop model at ``path``; another tool's tokenizer is refused by its
    format, with how to read it (``format_option``: the command's flag for the format,
    else ``import`` converts it)."""
    from bpe_desktop.core.errors import BpeError, ModelFileError
    from bpe_desktop.core.formats import FORMATS
    from bpe_desktop.core.formats.detect import OWN_FORMAT, detect_format
    from bpe_desktop.core.formats.gpt2 import file_pair
    from bpe_desktop.cli.standard_input import STDIN_NAME, is_copy
    from bpe_desktop.core.model_file import load_model

    try:
        return load_model(path, shown_as=STDIN_NAME if is_copy(path) else None)
    except (ModelFileError, IsADirectoryError) as exc:
        try:
            fmt = detect_format(path)
        except (BpeError, OSError):
            fmt = OWN_FORMAT
        if fmt == OWN_FORMAT:
            raise exc from None
        if os.path.isdir(path) and fmt == "gpt2" and not any(
                p.is_file() for p in file_pair(path)):  # (every folder reads as GPT-2's)
            raise CliError(f"{path}: is a folder, not a model file") from None
        how = (f"give {format_option} {fmt}" if format_option else
               f"convert it first with 'bpe-desktop import --format {fmt}'")
        raise CliError(f"{path}: {FORMATS[fmt].label.rstrip('…')}, not a BPE Desktop "
                       f"model: {how}") from None


def _check_output(output: str, inputs: Sequence[str], what: str = "a corpus file") -> None:
    """Fail before training, not after, when the model could not be saved (``what``:
    the inputs, named in the message when the output is one of them)."""
    if output_target(output).kind == "stream":  # (a special file that is not: refused)
        return
    if os.path.isdir(output):
        raise CliError(f"{output}: is a directory; give a file name for the model")
    directory = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(directory):
        raise CliError(f"{output}: the folder {directory} does not exist")
    if not os.access(directory, os.W_OK):
        raise CliError(f"{output}: the folder {directory} is not writable")
    _refuse_overwriting(output, inputs, what)


def _refuse_overwriting(output: str, inputs: Sequence[str], what: str) -> None:
    """Fail when ``output`` is one of the ``inputs`` (a folder's: any file below it)."""
    if os.path.exists(output):
        for name in _files_below(inputs):
            try:
                if os.path.samefile(name, output):
                    raise CliError(f"{output}: is also {what}; refusing to overwrite it")
            except OSError:
                continue


def _files_below(paths: Sequence[str]) -> Iterator[str]:
    """The files ``paths`` name, a folder's being every file below it (all that a folder
    input may read)."""
    for path in paths:
        if os.path.isdir(path):
            for root, _, names in os.walk(path):
                yield from (os.path.join(root, name) for name in names)
        else:
            yield path


def _report_stream(output: str) -> IO[str]:
    """Where a command's summary goes: standard error when its output is standard
    output (``-o -``, ``/dev/stdout``), so the summary does not mix with the data."""
    target = output_target(output)
    to_stdout = target.path == "-" or target.fd == 1
    return sys.stderr if target.kind == "stream" and to_stdout else sys.stdout


def _without_empty(files: Sequence[str]) -> list[str]:
    """The corpus files with content; a warning names the empty ones skipped (an error
    when every file is empty)."""
    from bpe_desktop.core.text_files import skipped_message, without_empty_files

    kept, skipped = without_empty_files(files)
    if skipped:
        from bpe_desktop.cli.standard_input import shown_names

        sys.stderr.write(f"{PROG}: warning: {shown_names(skipped_message(skipped))}\n")
        sys.stderr.flush()
    return kept


def _in_worker(work: Callable[[], object], cancel) -> object:
    """Run ``work`` on a thread so that Ctrl-C stays responsive: the first Ctrl-C cancels
    it and waits for it to stop, a second one stops waiting.

    While the thread exists, Ctrl-C only cancels (it raises nowhere): a KeyboardInterrupt
    raised in ``Thread.start`` (which waits for the new thread) would end the command with
    the engine still running, and the interpreter's exit then aborts the process."""
    outcome: dict[str, object] = {}
    finished = threading.Event()
    presses: list[int] = []

    def on_sigint(signum, frame) -> None:
        presses.append(signum)
        cancel.cancel()
        if len(presses) > 1:  # a second Ctrl-C: don't wait for the engine
            raise KeyboardInterrupt

    def run() -> None:
        try:
            outcome["result"] = work()
        except BaseException as exc:  # handed to the main thread
            outcome["error"] = exc
        finally:
            finished.set()

    previous, started = None, False
    try:
        # (a Ctrl-C pending while the handler is set is raised first: no thread yet)
        previous = _handle_sigint(on_sigint)
        threading.Thread(target=run, name="bpe-worker", daemon=True).start()
        started = True
        _wait(finished)
    except KeyboardInterrupt:
        cancel.cancel()
        if started and len(presses) < 2:  # (where no handler could be set)
            try:
                _wait(finished)
            except KeyboardInterrupt:
                pass
        raise TrainingCancelled("cancelled") from None
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    if presses:
        raise TrainingCancelled("cancelled")
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["result"]


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[dict[str, bool]]:
    """SIGTERM during the block (``kill``, a job scheduler's or a container's stop) ends
    the command as Ctrl-C does: the work is cancelled and the previous output kept, where
    the default action would kill the process mid-write with no word. Yields a dict whose
    ``"terminated"`` says whether it came, for the exit status and the message."""
    state = {"terminated": False}

    def on_sigterm(signum, frame) -> None:
        state["terminated"] = True
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler) and handler is not signal.default_int_handler:
            handler(signal.SIGINT, frame)  # a worker's Ctrl-C handler: it cancels the work
        else:  # (also where Ctrl-C is ignored: SIGTERM still stops the command)
            raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():
        yield state
        return
    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        yield state
    finally:
        signal.signal(signal.SIGTERM, previous)


def _handle_sigint(handler) -> object | None:
    """Install ``handler`` for Ctrl-C; the handler it replaces, or None where it keeps the
    one it has: off the main thread (no handler can be set there), or where Ctrl-C is
    ignored (a command started in the background with ``&``)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    previous = signal.getsignal(signal.SIGINT)
    if previous in (signal.SIG_IGN, None):
        return None
    signal.signal(signal.SIGINT, handler)
    return previous


def _open_input(name: str) -> IO[bytes]:
    if name == "-":
        from bpe_desktop.cli.standard_input import stdin_text_bytes

        return stdin_text_bytes()
    if os.path.isdir(name):
        raise CliError(f"{name}: is a directory")
    return open_text_bytes(name)  # gzip recognised by its magic bytes, as the engine does


def _lines(name: str) -> Iterator[tuple[int, str]]:
    """(line number, text without its line break), decoded as UTF-8."""
    for number, text, _ in _lines_with_ends(name):
        yield number, text


def _lines_with_ends(name: str) -> Iterator[tuple[int, str, str]]:
    """(line number, text without its line break, that line break: "\\r\\n", "\\n", or ""
    for a last line without one). Output written line for line ends each line as its
    input line ended, so that ``encode | decode`` gives the text back to the byte. A
    byte-order mark before the first line is the encoding's mark, not text, as training
    reads it."""
    from bpe_desktop.cli.standard_input import input_name

    label = input_name(name)
    stream = _open_input(name)
    try:
        for number, raw in enumerate(stream, 1):
            end = ""
            if raw.endswith(b"\n"):
                end = "\r\n" if raw.endswith(b"\r\n") else "\n"
                raw = raw[:-len(end)]
            if number == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            try:
                yield number, raw.decode("utf-8"), end
            except UnicodeDecodeError as exc:
                raise CliError(f"{label} line {number}: not valid UTF-8 "
                               f"(byte 0x{raw[exc.start]:02x} at column {exc.start + 1})"
                               ) from None
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise CliError(f"{label}: not a readable gzip file ({exc})") from None
    finally:
        if stream is not getattr(sys.stdin, "buffer", None):
            stream.close()

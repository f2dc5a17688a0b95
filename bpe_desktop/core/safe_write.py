"""Writing an output so that nothing is lost: atomically to files, streamed to streams.

Every writer of the package (model files, word-count tables, exported formats, tables
and plots of the panels) goes through :func:`write_output`:

* A regular file, or a name that does not exist yet, is written to a temporary file
  beside it (``.NAME.<pid>-<hex>.tmp``), fsynced, and renamed over the target, so a
  reader sees the old file or the new one, never a part. Temporary files left by a
  process that has ended (a kill, a power cut) are removed at the next write to that
  folder (:func:`remove_stale_temps`).
* A stream is written by streaming into it, never renamed over: ``-`` (standard
  output), ``/dev/stdout`` / ``/dev/stderr`` / ``/dev/fd/N`` (the open descriptor
  itself, so ``>> log`` appends), a FIFO or a character device (``/dev/null``).
* Any other special file (a block device, a socket) is refused with
  :class:`~bpe_desktop.core.errors.OutputError`; a folder fails as a rename over it does
  (:class:`IsADirectoryError` naming it).

Several files that belong together (GPT-2's vocab.json + merges.txt, ...) are written
by :func:`write_set`: a checksum list ``FIRST.sha256`` (the ``sha256sum`` format) is
renamed into place before the files, so a kill between two renames leaves files that
disagree with their list, which :func:`check_set` (run by the importers) reports.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import secrets
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Callable, Sequence

from bpe_desktop.core.errors import ModelFileError, OutputError

#: ``-o -``: standard output.
STDOUT = "-"

#: Temporary files of this package: ``.NAME.<pid>-<12 hex>.tmp`` (older versions wrote
#: ``.NAME.<12 hex>.tmp``, without the process id).
_TEMP = re.compile(r"^\..+\.(?:(?P<pid>\d+)-)?[0-9a-f]{12}\.tmp$")
#: Names under which an open file descriptor is reached (``/dev/stdout`` -> 1).
_FD_PATH = re.compile(r"^/(?:dev/fd|proc/(?:self|thread-self|(?P<pid>\d+))/fd)/(?P<fd>\d+)$")
_STD_NAMES = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}

#: The suffix of the checksum list of a set of files (:func:`write_set`).
SET_SUFFIX = ".sha256"


@dataclass(frozen=True)
class Output:
    """Where an output goes: ``kind`` is ``file`` (written atomically at ``real``, the
    target with symlinks resolved) or ``stream`` (``fd`` an open descriptor to write
    to, or None: open ``real``)."""

    path: str
    kind: str
    real: str
    fd: int | None = None


def output_target(path: str | os.PathLike) -> Output:
    """What writing to ``path`` means; :class:`OutputError` for a special file that is
    neither a regular file nor a stream."""
    name = os.fspath(path)
    if name == STDOUT:  # (no descriptor: a replaced sys.stdout, written as it is)
        return Output(name, "stream", name, sys.stdout.fileno() if _has_fd(sys.stdout) else None)
    fd = _descriptor(name)
    if fd is not None:
        return Output(name, "stream", name, fd)
    real = os.path.realpath(name)
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        return Output(name, "file", real)
    except OSError:
        return Output(name, "file", real)  # the write reports it, naming the file
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):  # a folder: the rename says so (OSError)
        return Output(name, "file", real)
    if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
        return Output(name, "stream", real)
    what = ("a block device" if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "not a regular file")
    raise OutputError(f"{name}: is {what}; give the name of a file to write (or '-' for "
                      "standard output)", path=name)


def _has_fd(stream) -> bool:
    try:
        stream.fileno()
        return True
    except (AttributeError, OSError, ValueError):
        return False


def _descriptor(name: str) -> int | None:
    """The open descriptor ``name`` reaches (``/dev/stdout``, ``/dev/fd/3``, a symlink
    to one), None when it names no descriptor of this process."""
    current = os.path.abspath(name)
    for _ in range(40):  # the kernel's own limit on symlink hops
        if current in _STD_NAMES:
            return _STD_NAMES[current]
        match = _FD_PATH.match(current)
        if match:
            pid = match.group("pid")
            return int(match.group("fd")) if pid is None or int(pid) == os.getpid() else None
        try:
            target = os.readlink(current)
        except OSError:  # not a symlink (or gone): an ordinary name
            return None
        current = os.path.normpath(os.path.join(os.path.dirname(current), target))
    return None


def write_output(path: str | os.PathLike, write: Callable[[IO[bytes]], None], *,
                 buffering: int = -1) -> Output:
    """Write to ``path`` with ``write(stream)``: atomically for a file, streamed into a
    stream (see the module docs). OSError names ``path``; a failure leaves a previous
    file as it was and no temporary file behind."""
    target = output_target(path)
    if target.kind == "stream":
        _write_stream(target, write, buffering)
        return target
    name, real = target.path, target.real
    directory = os.path.dirname(real)
    tmp = None
    try:
        tmp, fd = create_temp(directory, os.path.basename(real))
        with os.fdopen(fd, "wb", buffering=buffering) as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        copy_mode(real, tmp)
        os.replace(tmp, real)
        tmp = None
        fsync_dir(directory)
    except OSError as exc:
        raise naming(exc, name) from exc
    finally:
        if tmp is not None:
            _unlink_quietly(tmp)
    return target


def _write_stream(target: Output, write: Callable[[IO[bytes]], None], buffering: int) -> None:
    if target.fd is None and target.path == STDOUT:
        _write_python_stdout(write)
        return
    try:
        if target.fd is not None:
            if target.fd in (1, 2):  # Python's own buffers first, so output keeps its order
                for stream in (sys.stdout, sys.stderr):
                    try:
                        stream.flush()
                    except (OSError, ValueError, AttributeError):
                        pass
            fd = os.dup(target.fd)
        else:  # a FIFO or a device: opened as it is, never truncated or replaced
            fd = os.open(target.real, os.O_WRONLY | getattr(os, "O_BINARY", 0))
        with os.fdopen(fd, "wb", buffering=buffering) as fh:
            write(fh)
            fh.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise naming(exc, target.path) from exc


def _write_python_stdout(write: Callable[[IO[bytes]], None]) -> None:
    """``-`` when sys.stdout is not a file (an embedding application, a test's capture)."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is not None:
        write(buffer)
        buffer.flush()
        return
    data = io.BytesIO()
    write(data)
    sys.stdout.write(data.getvalue().decode("utf-8", "replace"))
    sys.stdout.flush()


def write_set(files: Sequence[tuple[Path, bytes]]) -> list[Path]:
    """Write files that belong together, with their checksum list ``FIRST.sha256``.

    Every temporary file (the list's too) is written and fsynced before any rename; the
    list is renamed first. A failure while writing leaves every previous file as it
    was; a kill between renames leaves files that :func:`check_set` finds mismatched.
    A single file going to a stream is streamed (no list: a stream holds one file).
    """
    if len(files) == 1 and output_target(files[0][0]).kind == "stream":
        write_output(files[0][0], lambda fh: fh.write(files[0][1]))
        return [Path(files[0][0])]
    for path, _ in files:
        if output_target(path).kind != "stream":
            continue
        raise OutputError(f"{path}: is a stream, but this format writes {len(files)} files "
                          f"({', '.join(Path(p).name for p, _ in files)}); give a file "
                          "or folder name", path=os.fspath(path))
    listing = "".join(f"{hashlib.sha256(data).hexdigest()}  {Path(p).name}\n"
                      for p, data in files)
    first = Path(files[0][0])
    manifest = (first.with_name(first.name + SET_SUFFIX), listing.encode("utf-8"))
    write_files([manifest, *files])
    return [Path(p) for p, _ in files]


def write_files(files: Sequence[tuple[Path, bytes]]) -> list[Path]:
    """Write each ``(path, data)``, all temporary files first, then the renames in order
    (a full disk leaves every previous file as it was). One file may be a stream."""
    if len(files) == 1:
        write_output(files[0][0], lambda fh: fh.write(files[0][1]))
        return [Path(files[0][0])]
    pending: list[tuple[str, str, str]] = []  # (target as given, real target, temp)
    try:
        for path, data in files:
            target = output_target(path)
            if target.kind != "file":
                raise OutputError(f"{target.path}: is a stream; only a single file can be "
                                  "written to one", path=target.path)
            try:
                tmp, fd = create_temp(os.path.dirname(target.real),
                                      os.path.basename(target.real))
            except OSError as exc:
                raise naming(exc, target.path) from exc
            pending.append((target.path, target.real, tmp))
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                    fh.flush()
                    os.fsync(fh.fileno())
            except OSError as exc:
                raise naming(exc, target.path) from exc
            copy_mode(target.real, tmp)
        while pending:
            name, real, tmp = pending[0]
            try:
                os.replace(tmp, real)
            except OSError as exc:
                raise naming(exc, name) from exc
            pending.pop(0)
            fsync_dir(os.path.dirname(real))
    finally:
        for _, _, tmp in pending:
            _unlink_quietly(tmp)
    return [Path(p) for p, _ in files]


def check_set(paths: Sequence[str | os.PathLike]) -> None:
    """Refuse files of a set that disagree with the checksum list written with them.

    No list (files exported by another tool or an older version): nothing to check.
    """
    first = Path(paths[0])
    listing_path = first.with_name(first.name + SET_SUFFIX)
    try:
        listing = listing_path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return
    except (OSError, UnicodeDecodeError):
        listing = ""
    expected: dict[str, str] = {}
    for line in listing.splitlines():
        digest, _, name = line.partition("  ")
        if len(digest) == 64 and name:
            expected[name] = digest
    for path in map(Path, paths):
        want = expected.get(path.name)
        if want is None:
            if path.exists() and expected:
                # (a set written without this file, e.g. tiktoken ranks without settings,
                # beside an older export's copy of it)
                raise ModelFileError(
                    f"{path}: not listed in {listing_path.name}: it was not written with "
                    f"{first.name} (it is left from another export); delete it, or delete "
                    f"{listing_path.name} to read the files as they are",
                    path=os.fspath(path))
            continue
        try:
            with open(path, "rb") as fh:
                got = hashlib.file_digest(fh, "sha256").hexdigest()
        except FileNotFoundError:
            continue  # the reader says what it misses
        if got != want:
            others = ", ".join(sorted(n for n in expected if n != path.name)) or "the others"
            raise ModelFileError(
                f"{path}: does not match {listing_path.name}, the checksums written with "
                f"it: it and {others} come from different exports (one was interrupted "
                "or a file was replaced); export again, or delete "
                f"{listing_path.name} to read the files as they are",
                path=os.fspath(path))


# -- temporary files ----------------------------------------------------------------------


def create_temp(directory: str, base: str) -> tuple[str, int]:
    """A new file beside the target (mode 0666 less the umask, like a plain open),
    named after this process; stale temporary files in ``directory`` go first."""
    remove_stale_temps(directory)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        name = os.path.join(directory, f".{base}.{os.getpid()}-{secrets.token_hex(6)}.tmp")
        try:
            return name, os.open(name, flags, 0o666)
        except FileExistsError:
            continue
    raise FileExistsError(f"could not create a temporary file in {directory}")


def remove_stale_temps(directory: str | os.PathLike) -> int:
    """Remove this package's temporary files in ``directory`` whose writer has ended;
    how many went. A file names its process; one that names none (older versions) is
    stale once it is older than this process (a write in progress keeps it newer)."""
    removed = 0
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        match = _TEMP.match(entry.name)
        if not match:
            continue
        try:
            modified = entry.stat(follow_symlinks=False).st_mtime
        except OSError:
            continue
        pid = match.group("pid")
        if pid is not None:
            stale = not process_alive(int(pid), since=modified)
        else:
            started = process_start_time(os.getpid())
            stale = started is not None and modified < started
        if stale:
            try:
                os.unlink(entry.path)
                removed += 1
            except OSError:
                pass
    return removed


def process_alive(pid: int, *, since: float | None = None) -> bool:
    """Whether process ``pid`` runs (and, with ``since``, started no later than that
    time: a later process got a reused id). Unknown counts as alive."""
    if pid == os.getpid():
        return True
    if pid <= 0 or os.name != "posix":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # alive, another user's
        pass
    if since is None:
        return True
    started = process_start_time(pid)
    return started is None or started <= since + 1.0


def process_start_time(pid: int) -> float | None:
    """When ``pid`` started (seconds since the epoch), where /proc tells (Linux)."""
    try:
        stat_text = Path(f"/proc/{pid}/stat").read_text()
        boot = next(int(line.split()[1]) for line in
                    Path("/proc/stat").read_text().splitlines() if line.startswith("btime "))
        ticks = int(stat_text[stat_text.rindex(")") + 2:].split()[19])  # field 22: starttime
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


# -- the pieces of an atomic replace ------------------------------------------------------


def copy_mode(target: str, tmp: str) -> None:
    """Replacing a file keeps its permissions."""
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return
    try:
        os.chmod(tmp, mode & 0o7777)
    except OSError:
        pass


def fsync_dir(directory: str) -> None:
    """Make the rename itself durable (POSIX; a no-op where directories can't be opened)."""
    if os.name != "posix":
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def naming(exc: OSError, target: str) -> OSError:
    """``exc`` as the same OSError type, its message naming the target file."""
    if exc.filename == target:
        return exc
    try:
        if exc.errno is not None and exc.strerror:
            new = type(exc)(exc.errno, exc.strerror, target)
        else:
            new = type(exc)(f"cannot write {target}: {exc}")
    except Exception:  # an OSError subclass with an unusual constructor
        return exc
    return new


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


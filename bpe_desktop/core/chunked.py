"""Long work cut into chunks, for jobs that run beside a GUI thread (Qt-free).

Python code in a worker thread still holds the GIL while it runs: the GUI thread only gets
it back when the worker lets go, which CPython forces once per switch interval (5 ms by
default, 0.2 ms in the application: ``bpe_desktop.app``) and only between bytecodes — a
single long C call (``sorted``, ``str.join``, ``np.fromiter`` over 100,000 items, an
engine call that keeps the GIL) blocks the GUI for its whole length.
So background jobs cut such calls into chunks of a few thousand items (:func:`map_chunked`).
Jobs that make a Python object per item of a user's text (the Encode/Decode panel's
pieces of a 1 MB text, not the model: the model's columns are the engine's arrays) and
the release thread also call a :class:`Breather` between chunks: every couple of
milliseconds it sleeps a fraction of a millisecond, which hands the GIL to a waiting GUI
thread at once, and it stops the job when a newer request has superseded it.

While the GUI thread itself runs Python (a slot, a paint that calls into Python), the two
threads share the GIL turn by turn, a switch interval each: a 10 ms pass of the GUI took
16 ms beside a busy job. So a job that lost a quarter or more of the time since its last
breath (it waited for the GIL, or for a core) steps aside for four times as long as it
waited, at most :data:`MAX_STEP_ASIDE`: the GUI's pass then took 12 ms, and the job did
28 % less work only while the GUI was that busy (``benchmarks/bench_gil_sharing.py``, a GUI
thread busy half of the time).

The other long hold is the cyclic garbage collector: a full pass over a process holding a
100,000-token model takes 100–300 ms, and a job that creates and drops hundreds of
thousands of short-lived objects (the engine's per-word results) triggers such passes
again and again, because the collections it triggers promote whatever is alive at that
moment. :func:`collector_paused` switches automatic collection off for the length of
such a job; its objects are freed by reference counting as before.

The window runs such jobs in worker threads (:mod:`bpe_desktop.ui.common.background`).
"""

from __future__ import annotations

import contextlib
import gc
import threading
import time
from typing import Callable, Iterable, Iterator, Sequence, TypeVar

from bpe_desktop.core.model import BPEModel
from bpe_desktop.core.tokenizer import Tokenizer

T = TypeVar("T")
R = TypeVar("R")

#: Items handled between two breaths: a few thousand short Python calls, about 1 ms.
CHUNK = 2000


class Superseded(Exception):
    """Raised inside a job whose result is no longer wanted (the worker reports it as
    cancelled, so nothing reaches the GUI)."""


#: The longest a job steps aside for a busy GUI thread at one breath (seconds).
MAX_STEP_ASIDE = 0.005


class Breather:
    """Call it often from a background job: it lets the GUI thread have the GIL every
    ``hold`` seconds (for up to ``step_aside`` seconds when the job had to wait for it,
    see the module's comment) and raises :class:`Superseded` once the job was cancelled.
    ``clock``, ``cpu_clock`` and ``sleep`` are for tests."""

    def __init__(self, cancel=None, *, hold: float = 0.002, pause: float = 0.0002,
                 step_aside: float = MAX_STEP_ASIDE,
                 clock: Callable[[], float] = time.perf_counter,
                 cpu_clock: Callable[[], float] = time.thread_time,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self._cancel = cancel
        self._hold = hold
        self._pause = pause
        self._step_aside = step_aside
        self._clock, self._cpu_clock, self._sleep = clock, cpu_clock, sleep
        self._last = clock()
        self._last_cpu = cpu_clock()

    def __call__(self) -> None:
        if self._cancel is not None and self._cancel.cancelled:
            raise Superseded
        elapsed = self._clock() - self._last
        if elapsed >= self._hold:
            waited = elapsed - (self._cpu_clock() - self._last_cpu)
            # (releases the GIL: a waiting GUI thread takes it now)
            self._sleep(max(self._pause, min(self._step_aside, 4 * waited))
                        if waited >= elapsed / 4 else self._pause)
            self._last = self._clock()
            self._last_cpu = self._cpu_clock()


def no_breath() -> None:
    """The breather of work done inline on the GUI thread: nothing to hand over."""


def map_chunked(fn: Callable[[T], R], items: Sequence[T], size: int = CHUNK) -> list[R]:
    """``list(map(fn, items))``, a C call per chunk of ``size`` items: between two, the
    interpreter may hand the GIL to another thread (one call over all would keep it)."""
    out: list[R] = []
    for start in range(0, len(items), size):
        out.extend(map(fn, items[start:start + size]))
    return out


def chunks(items: Sequence[T], size: int = CHUNK) -> Iterable[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


_collector_lock = threading.Lock()
_collector_users = 0
_collector_was_enabled = False


def collection_paused() -> bool:
    """Whether a job is inside :func:`collector_paused` now (a collector that runs
    collections itself, such as the GUI's, waits too)."""
    return _collector_users > 0


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No automatic cyclic garbage collection while any caller is inside (across threads);
    then it is as it was before the first one entered."""
    global _collector_users, _collector_was_enabled
    with _collector_lock:
        if _collector_users == 0:
            _collector_was_enabled = gc.isenabled()
            gc.disable()
        _collector_users += 1
    try:
        yield
    finally:
        with _collector_lock:
            _collector_users -= 1
            if _collector_users == 0 and _collector_was_enabled:
                gc.enable()


_tokenizer_lock = threading.Lock()


def shared_tokenizer(model: BPEModel) -> Tokenizer:
    """``model.tokenizer()``, built once even when two panels' workers ask at the same time
    (the engine builds it holding the GIL: doing it twice doubles the GUI's wait).

    Only for worker threads: the GUI thread would block here while a worker builds it.
    """
    with _tokenizer_lock:
        return model.tokenizer()


#: Models up to this size (see :func:`model_work`) are prepared at once on the GUI thread
#: (about 15 ms at most), larger ones in a worker thread.
INLINE_WORK = 2000


def model_work(model: BPEModel | None, *, words: bool = True) -> int:
    """A rough size of what a panel prepares for ``model``: its symbols and merges, and
    (``words``) the training words it keeps."""
    if model is None:
        return 0
    return len(model.alphabet) + model.merge_count + (model.word_count if words else 0)

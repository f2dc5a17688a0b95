"""Models freed on a background thread, a slice at a time (Qt-free).

An engine-held model is a few Python objects, but what the window built to show it is
not: the vocabulary table's texts (readable pieces, surface texts, the filter's joined and
case-folded lines), the pieces and training words a panel asked for, a model made in
Python's merges. For a 100,000-token model that is ~500,000 objects, whose deallocation
holds the GIL for tens of milliseconds in whichever thread drops the last reference:
usually the GUI thread, when the open model is replaced (the GUI latency benchmark's
phase that opens a 100,000-token model file over another stalls longer without this
thread). So the window hands each model, and each table, it stops using to :func:`retire`. A daemon thread keeps the model until nothing else refers to it, then
copies its large containers into lists, drops the model, and frees those lists from the end
:data:`SLICE` objects at a time, letting go of the GIL between slices.

It never changes what anyone else can see: it only holds references and drops them in a
chosen order. If another reference remains after :data:`WAIT_FOR_OWNERS` seconds (say a
panel keeps the model, or a reference cycle holds it), the thread just drops its own.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from bpe_desktop.core.chunked import Breather

#: Objects freed between two breaths: ~0.2 ms of deallocation.
SLICE = 2000
#: How long a retired model is kept waiting for its other owners to let go (seconds).
WAIT_FOR_OWNERS = 60.0
#: How often held models are looked at (seconds).
POLL = 0.25
#: Containers with fewer items are freed whole.
_SMALL = 64
#: ``sys.getrefcount`` of an item of a list, read straight from the list: the list's
#: reference and the call's argument.
_ONLY_IN_LIST = 2


def _parts(value: Any) -> list[list] | None:
    """``value``'s items as lists that keep them alive, if it is a container. Small ones
    too: a parsed model file is a dict of a dozen keys whose values hold everything."""
    if isinstance(value, (tuple, list, set, frozenset)):
        return [list(value)] if value else None
    if isinstance(value, dict):
        return [list(value), list(value.values())] if value else None
    return None


def _fields(obj: Any) -> list[list]:
    """An object's attributes (its dataclass fields and cached properties), as one list."""
    attrs = getattr(obj, "__dict__", None)
    return [list(attrs.values())] if attrs else []


def free_in_slices(objects: list, breathe: Callable[[], None], depth: int = 4) -> None:
    """Empty ``objects`` (a list only the caller holds) from the end, :data:`SLICE` items
    at a time, breathing after each slice. In a short list (an object's attributes, a
    small container's items), an item held by nothing else is taken apart first (a
    container into lists of its items, another object into its attributes), down to
    ``depth`` levels, so that what a model holds is freed in slices too. For data only:
    an object that must be freed on its own thread (a Qt object) does not belong here."""
    if len(objects) <= _SMALL:
        while objects:
            parts = None
            if depth > 0 and sys.getrefcount(objects[-1]) == _ONLY_IN_LIST:
                parts = _parts(objects[-1])
                if parts is None and not isinstance(objects[-1], type):
                    parts = _fields(objects[-1])
            del objects[-1]  # what it held lives on in `parts`
            for part in parts or ():
                free_in_slices(part, breathe, depth - 1)
        breathe()
        return
    while objects:
        del objects[-SLICE:]
        breathe()


def free_gradually(objects: list) -> None:
    """:func:`free_in_slices` on this thread, letting go of the GIL for 0.2 ms after each
    millisecond: for large temporary tables a job is done with (when they go out of scope
    at once, freeing them holds the GIL for 10-20 ms at 100,000 tokens)."""
    free_in_slices(objects, Breather(hold=0.001, pause=0.0002))


class _Releaser:
    """The daemon thread and the models it holds (see the module's comment)."""

    def __init__(self, wait_for_owners: float = WAIT_FOR_OWNERS, poll: float = POLL) -> None:
        self._wait = wait_for_owners
        self._poll = poll
        self._lock = threading.Lock()
        self._held: list[list] = []  # [model, deadline]
        self._wake = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._thread: threading.Thread | None = None

    def retire(self, model: Any) -> None:
        with self._lock:
            self._held.append([model, time.monotonic() + self._wait])
            self._idle.clear()
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="bpe-release", daemon=True)
                self._thread.start()
        self._wake.set()

    def wait_idle(self, timeout: float) -> bool:
        """Whether every retired model was freed or let go of within ``timeout`` seconds."""
        return self._idle.wait(timeout)

    def _run(self) -> None:
        while True:
            for entry in self._due():
                objects = [entry.pop(0)]  # the model, now only in `objects`
                # Half of each millisecond at most: freeing can wait, the GUI cannot.
                free_in_slices(objects, Breather(hold=0.001, pause=0.0005))
            with self._lock:
                empty = not self._held
                if empty:
                    self._idle.set()
            # A retire() since the check has set the event: the wait then returns at once.
            self._wake.wait(None if empty else self._poll)
            self._wake.clear()

    def _due(self) -> list[list]:
        """Take out the held models nothing else refers to, and those waited for long
        enough (their entries, to free; a model still shared is then merely let go of)."""
        now = time.monotonic()
        with self._lock:
            due = [e for e in self._held
                   if sys.getrefcount(e[0]) == _ONLY_IN_LIST or now >= e[1]]
            self._held = [e for e in self._held if all(e is not d for d in due)]
        return due


_releaser = _Releaser()


def retire(model: Any) -> None:
    """Free ``model`` on a background thread once nothing else refers to it (see the
    module's comment). Its cached tokenizer, which refers back to it, is let go first."""
    release_tokenizer = getattr(model, "release_tokenizer", None)
    if release_tokenizer is not None:
        release_tokenizer()
    _releaser.retire(model)

"""How the desktop application's threads share the cores (Linux; elsewhere nothing).

Two rules keep the GUI thread prompt while work runs beside it:

* **The engine's own threads run below the GUI thread** (:data:`ENGINE_NICENESS` nice
  steps): its worker pools and corpus reader keep every core busy while a model trains,
  and at the same priority the GUI thread would wake up late, waiting for a core.
  Threads that run Python are *not* lowered, jobs included: a lowered thread that holds
  the GIL waits for a core while the GUI thread waits for the GIL (behind a training job
  building its model's tables, or counting a corpus's lines).
* **The GUI thread asks for a short slice** (``sched_setattr``'s ``sched_runtime``, for
  normal threads since Linux 6.12). The kernel's EEVDF scheduler lets the thread on a core
  finish the slice it was given (0.7-3 ms) before a thread that wakes up runs there; a
  thread with a shorter slice than the running one takes the core as soon as it wakes.
  Asking needs no privilege and leaves the thread's share of the CPU as it was. Threads
  the GUI thread starts keep the normal slice (``SCHED_FLAG_RESET_ON_FORK``).

Where a call is not available (other systems, older kernels, a sandbox that forbids it)
nothing changes.
"""

from __future__ import annotations

import ctypes
import logging
import os
import platform
import sys
import threading

from bpe_desktop.core import lower_engine_threads

log = logging.getLogger(__name__)

#: How many nice steps the engine's threads run below the GUI thread.
ENGINE_NICENESS = 10

#: The slice the GUI thread asks for, in nanoseconds: the kernel's shortest (0.1 ms).
GUI_SLICE_NS = 100_000

#: ``sched_setattr`` and ``sched_getattr`` system call numbers by machine.
_SYSCALLS = {"x86_64": (314, 315), "aarch64": (274, 275)}
_RESET_ON_FORK = 0x01  # SCHED_FLAG_RESET_ON_FORK


class _SchedAttr(ctypes.Structure):
    """``struct sched_attr`` (linux/sched/types.h)."""

    _fields_ = [
        ("size", ctypes.c_uint32), ("sched_policy", ctypes.c_uint32),
        ("sched_flags", ctypes.c_uint64), ("sched_nice", ctypes.c_int32),
        ("sched_priority", ctypes.c_uint32), ("sched_runtime", ctypes.c_uint64),
        ("sched_deadline", ctypes.c_uint64), ("sched_period", ctypes.c_uint64),
        ("util_min", ctypes.c_uint32), ("util_max", ctypes.c_uint32),
    ]


def _this_threads_attributes():
    """(libc, the ``sched_setattr`` number, this thread's ``sched_attr``), or None where
    the calls are not available."""
    numbers = _SYSCALLS.get(platform.machine())
    if not sys.platform.startswith("linux") or numbers is None:
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    set_call, get_call = numbers
    attr = _SchedAttr()
    if libc.syscall(get_call, 0, ctypes.byref(attr), ctypes.sizeof(attr), 0) != 0:
        return None
    return libc, set_call, attr


def this_threads_slice_ns() -> int | None:
    """The calling thread's slice in ns as the kernel reports it (None: not available)."""
    found = _this_threads_attributes()
    return None if found is None else int(found[2].sched_runtime)


def favour_this_thread(slice_ns: int = GUI_SLICE_NS) -> bool:
    """Ask for a short slice for the calling thread (see the module's comment); whether
    the kernel took it. Its policy, niceness and share of the CPU stay as they were."""
    found = _this_threads_attributes()
    if found is None:
        return False
    libc, set_call, attr = found
    if attr.sched_policy != 0:  # SCHED_OTHER only: another policy was someone's choice
        return False
    attr.size = ctypes.sizeof(attr)
    attr.sched_flags = _RESET_ON_FORK
    attr.sched_runtime = slice_ns
    if libc.syscall(set_call, 0, ctypes.byref(attr), 0) != 0:
        log.debug("could not shorten the GUI thread's slice: errno %d", ctypes.get_errno())
        return False
    # Kernels before 6.12 accept the call but ignore the slice of a normal thread.
    return this_threads_slice_ns() == slice_ns


def lower_this_thread(steps: int) -> bool:
    """Run the calling thread ``steps`` nice steps lower from now on (Linux); whether it
    took. Only for a thread that ends with its job and spends it in one long call that
    lets the GIL go (SQLite's check of every page of a project): lowered, a thread that
    holds the GIL would keep the GUI thread waiting while it waits for a core."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + steps)
    except OSError as exc:
        log.debug("could not lower the thread: %s", exc)
        return False
    return True


def prioritise_gui_thread() -> None:
    """Both rules of the module's comment, called once on the GUI thread at start-up."""
    favour_this_thread()
    lower_engine_threads(ENGINE_NICENESS)

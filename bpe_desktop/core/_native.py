"""Access to the compiled engine, with its panics turned into ordinary errors."""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any, Callable

from bpe_desktop.core.errors import EngineError


@functools.cache
def engine() -> ModuleType:
    try:
        from bpe_desktop import _engine
    except ImportError as exc:  # a broken install, not a user error
        raise EngineError(
            "the BPE engine (bpe_desktop._engine) is not built; reinstall with "
            f"'pip install .' ({exc})"
        ) from exc
    return _engine


def call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call into the engine; a Rust panic (a bug) becomes an EngineError.

    The engine already converts panics itself (every entry point catches them); this is
    the second line of defence, should an extension built without that guard be loaded.
    """
    try:
        return fn(*args, **kwargs)
    except BaseException as exc:  # PanicException derives from BaseException
        if type(exc).__name__ == "PanicException":
            raise EngineError(f"internal engine error: {exc}") from None
        raise


def lower_engine_threads(steps: int) -> int:
    """From now on, the threads the engine starts (its worker pools, its corpus reader) run
    ``steps`` nice steps (0 to 19) below the thread that starts them, on Linux; 0 (the
    default) leaves them as that thread is. Threads that run Python are never lowered: a
    lowered thread holding the GIL would keep every other thread waiting while it waits
    for a core. Returns the steps before; ConfigError for a step outside 0 to 19."""
    return call(engine().lower_engine_threads, steps)

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

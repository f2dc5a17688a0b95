"""The error types of the core: every failure a user can cause is one of these.

All derive from :class:`BpeError`, so a front end can catch that one type, show
``str(error)`` (always a complete sentence naming what and where) and keep running.
"""

from __future__ import annotations


class BpeError(Exception):
    """Base class of every error the core raises on bad input or a stopped job."""


class ConfigError(BpeError, ValueError):
    """A training or encoding option is out of range or inconsistent with another.

    ``options``: the training options (TrainConfig fields) the message names, each written
    as its command-line flag (:func:`~bpe_desktop.core.options.option_flag`), so that the
    Training panel can name them by its own labels instead
    (:func:`~bpe_desktop.views.option_messages.form_message`).
    """

    def __init__(self, message: str, *, options: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.options = options


class CorpusError(BpeError):
    """A corpus could not be read: missing, unreadable, not UTF-8, binary, empty.

    ``path`` and ``offset`` (a byte offset into the file, or a 1-based line number for
    word-count tables, see ``line``) say where, when known. ``reason`` names the problem
    for front ends (missing, empty, binary, not-utf8, ...; see
    ``training.REPLACEABLE_REASONS`` for those that ``errors="replace"`` gets past).
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        offset: int | None = None,
        line: int | None = None,
        reason: str | None = None,
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.path = path
        self.offset = offset
        self.line = line


class ModelFileError(BpeError, ValueError):
    """A model file is malformed; the message names the field (a JSON path) or line."""

    def __init__(self, message: str, *, path: str | None = None, where: str | None = None):
        super().__init__(message)
        self.path = path
        self.where = where


class ExportError(BpeError):
    """A model cannot be written in (or verified with) an interchange format.

    The message says why and, where training settings would help, which ones.
    """


class OutputError(BpeError):
    """An output cannot be written safely there: a special file that is not a stream,
    or a stream given to a format of several files. ``path`` names it."""

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.path = path


class TrainingCancelled(BpeError):
    """Training was stopped on request; no model was produced."""


class EncodeError(BpeError, ValueError):
    """Text or ids cannot be converted with this model (e.g. an unknown id)."""


class EngineError(BpeError):
    """An internal engine failure (a bug): reported, never a crash."""

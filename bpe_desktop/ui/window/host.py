"""What the window's helpers may use of the main window.

The import/export menus and crash recovery act on the open model and talk to the user,
but they do not reach into the panels: the main window offers them this small interface
(the model's document, the unsaved-work question, a status line, whether training runs
or background work, the vocabulary table's export) and nothing else, so a panel can change without them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PySide6.QtWidgets import QStatusBar

    from bpe_desktop.ui.window.autosave import Autosave
    from bpe_desktop.ui.window.document import ModelDocument


class WindowHost(Protocol):
    """The main window as its helpers see it (it is also their dialogs' parent widget)."""

    document: ModelDocument
    autosave: Autosave
    BEFORE_IMPORTING: str
    BEFORE_RECOVERING: str

    def maybe_save(self, before: str) -> bool:
        """Offer to save unsaved work before ``before`` happens; False: the user cancelled."""

    def is_training(self) -> bool:
        """Whether a training run is under way (its result would replace the model)."""

    def background_busy(self) -> bool:
        """Whether the panels are still taking the model over in the background, or work
        that could wait runs (the autosave, the export checks): more work that can wait,
        waits (see :class:`~bpe_desktop.ui.common.background.WhenIdle`)."""

    def export_vocabulary_table(self, path: str) -> None:
        """Write the vocabulary table's visible rows as CSV (raises OSError)."""

    def statusBar(self) -> QStatusBar:  # noqa: N802 (Qt's name)
        ...

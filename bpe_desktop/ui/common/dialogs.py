"""Every dialog the application opens, in one module.

Widgets call these functions through the module (``dialogs.ask_open_paths(...)``), so
tests can replace them with ``monkeypatch`` and never block on a modal window.
Error boxes are window-modal but non-blocking (``open()``), so a failing background job
never stalls the event loop.
"""

from __future__ import annotations

import logging
from typing import Callable

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from bpe_desktop.ui.common.settings import Settings
from bpe_desktop.views.write_errors import write_failure

log = logging.getLogger(__name__)

#: Message boxes currently shown (kept referenced so they are not garbage-collected).
open_boxes: list[QMessageBox] = []


def show_error(parent: QWidget | None, title: str, message: str,
               details: str | None = None) -> QMessageBox:
    """A non-blocking error box; ``details`` (e.g. a traceback) sits behind a button."""
    log.warning("%s: %s", title, message)
    box = QMessageBox(QMessageBox.Icon.Warning, title, message, QMessageBox.StandardButton.Ok,
                      parent)
    box.setObjectName("errorBox")
    if details:
        box.setDetailedText(details)
    _show(box)
    return box


def show_info(parent: QWidget | None, title: str, message: str) -> QMessageBox:
    box = QMessageBox(QMessageBox.Icon.Information, title, message,
                      QMessageBox.StandardButton.Ok, parent)
    _show(box)
    return box


def _show(box: QMessageBox) -> None:
    open_boxes.append(box)
    box.finished.connect(lambda _result, b=box: open_boxes.remove(b) if b in open_boxes else None)
    box.open()


def ask_save_changes(parent: QWidget | None, what: str, before: str) -> str:
    """Ask before discarding unsaved work: returns "save", "discard" or "cancel".

    ``before`` says what is about to happen, completing "Save it before …?" (e.g.
    "training a new one replaces it").
    """
    answer = QMessageBox.question(
        parent, "Unsaved model",
        f"{what} has not been saved. Save it before {before}?",
        QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
        | QMessageBox.StandardButton.Cancel,
        QMessageBox.StandardButton.Save,
    )
    return {QMessageBox.StandardButton.Save: "save",
            QMessageBox.StandardButton.Discard: "discard"}.get(answer, "cancel")


def ask_yes_no(parent: QWidget | None, title: str, question: str) -> bool:
    answer = QMessageBox.question(parent, title, question)
    return answer == QMessageBox.StandardButton.Yes


def ask_action(parent: QWidget | None, title: str, message: str, action: str) -> bool:
    """Offer one way forward (a button labelled ``action``) or Cancel; True if taken."""
    box = QMessageBox(QMessageBox.Icon.Question, title, message,
                      QMessageBox.StandardButton.Cancel, parent)
    button = box.addButton(action, QMessageBox.ButtonRole.AcceptRole)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    return box.clickedButton() is button


def ask_open_paths(parent: QWidget | None, title: str, kind: str, filters: str,
                   *, multiple: bool = False) -> list[str]:
    """File chooser starting in the last folder used for ``kind``; [] if cancelled."""
    settings = Settings()
    start = settings.last_folder(kind)
    if multiple:
        paths, _ = QFileDialog.getOpenFileNames(parent, title, start, filters)
    else:
        path, _ = QFileDialog.getOpenFileName(parent, title, start, filters)
        paths = [path] if path else []
    if paths:
        settings.set_last_folder(kind, paths[0])
    return paths


def ask_folder(parent: QWidget | None, title: str, kind: str) -> str | None:
    settings = Settings()
    folder = QFileDialog.getExistingDirectory(parent, title, settings.last_folder(kind))
    if folder:
        settings.set_last_folder(kind, folder)
    return folder or None


def ask_save_path(parent: QWidget | None, title: str, kind: str, filters: str,
                  suggested_name: str = "") -> str | None:
    """Save-as chooser; adds the filter's extension when the user typed none."""
    settings = Settings()
    start = settings.last_folder(kind)
    if suggested_name:
        start = f"{start}/{suggested_name}"
    path, chosen = QFileDialog.getSaveFileName(parent, title, start, filters)
    if not path:
        return None
    ext = _extension(chosen or filters)
    if ext and "." not in path.rsplit("/", 1)[-1]:
        path += ext
    settings.set_last_folder(kind, path)
    return path


def export_to_chosen_file(parent: QWidget | None, title: str, filters: str,
                          suggested_name: str, write: Callable[[str], object]) -> str | None:
    """Ask where to export, then ``write(path)``. A write that fails is named in words
    ("Export failed") and, being atomic, leaves any earlier file as it was. The path
    written, or None when the user cancelled or the write failed."""
    path = ask_save_path(parent, title, "export", filters, suggested_name)
    if not path:
        return None
    try:
        write(path)
    except (OSError, ValueError) as exc:
        show_error(parent, "Export failed", write_failure(path, exc))
        return None
    return path


def _extension(filter_text: str) -> str:
    """'CSV files (*.csv)' -> '.csv' (first pattern of the first filter)."""
    start = filter_text.find("(*.")
    if start < 0:
        return ""
    end = start + 3
    while end < len(filter_text) and filter_text[end] not in " ;)":
        end += 1
    return filter_text[start + 2:end]

"""The Run menu's submenus: every button of every panel, found in the menus too.

Each entry stands for one button: triggering it shows the button's panel and clicks the
button (so it does exactly what the click does, dialogs and all), and it is enabled
exactly when the button is, and shown (Qt says which changed: no polling). A button's
own shortcut (Ctrl+Enter on Evaluate) is shown beside the entry, not given to it: one
key with two owners would do nothing.

Not mirrored: each panel's Train / Evaluate-style Cancel (Run ▸ Cancel, Esc, stops the
job of the panel in view) and the small "…" buttons inside the Training options (they
belong to their field, as its text box does).
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QAbstractButton, QMenu, QToolButton, QWidget


class _FollowButton(QObject):
    """Keeps ``action`` enabled when ``button`` is enabled and not hidden."""

    _EVENTS = (QEvent.Type.EnabledChange, QEvent.Type.ShowToParent, QEvent.Type.HideToParent)

    def __init__(self, button: QAbstractButton, action: QAction) -> None:
        super().__init__(action)
        self.button, self.action = button, action
        button.installEventFilter(self)
        self.update()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt override)
        if event.type() in self._EVENTS:
            self.update()
        return False

    def update(self) -> None:
        self.action.setEnabled(self.button.isEnabled() and not self.button.isHidden())


def with_letter(label: str, taken: set[str]) -> str:
    """``label`` with an access letter no other entry of its menu has: a word's first
    letter if one is free, else any free letter, else none (the entry is still reached
    with the arrow keys)."""
    starts = [i for i, ch in enumerate(label) if ch.isalpha() and (i == 0 or label[i - 1] == " ")]
    rest = [i for i, ch in enumerate(label) if ch.isalnum() and i not in starts]
    for i in starts + rest:
        if label[i].lower() not in taken:
            taken.add(label[i].lower())
            return f"{label[:i]}&{label[i:]}"
    return label


def shortcut_text(button: QAbstractButton, shortcut: str = "") -> str:
    """The key shown beside an entry: ``shortcut``, else the button's own (not its
    Alt+letter)."""
    key = QKeySequence(shortcut) if shortcut else button.shortcut()
    text = key.toString(QKeySequence.SequenceFormat.NativeText)
    return "" if not text or (not shortcut and "&" in button.text()) else text


class PanelMenu:
    """One panel's submenu; :meth:`add` an entry per button."""

    def __init__(self, parent: QMenu, title: str, show_panel: Callable[[], None]) -> None:
        self.menu = parent.addMenu(title)
        self._show_panel = show_panel
        self._letters: set[str] = set()
        #: Each entry with the button it stands for (the tests go through them all).
        self.entries: list[tuple[QAction, QAbstractButton]] = []

    def add(self, label: str, button: QAbstractButton, shortcut: str = "") -> QAction:
        text = with_letter(label, self._letters)
        if isinstance(button, QToolButton) and button.menu() is not None:
            sub = self.menu.addMenu(text)  # a button that opens a menu: the same actions
            sub.addActions(button.menu().actions())
            action = sub.menuAction()
        else:
            key = shortcut_text(button, shortcut)
            action = self.menu.addAction(f"{text}\t{key}" if key else text)
            action.triggered.connect(lambda _=False: self._click(button))
        if button.toolTip():
            action.setStatusTip(button.toolTip())
        _FollowButton(button, action)
        self.entries.append((action, button))
        return action

    def _click(self, button: QAbstractButton) -> None:
        self._show_panel()
        button.click()  # (a disabled button ignores it, as a disabled entry cannot)

    def separator(self) -> None:
        self.menu.addSeparator()


def build_panel_menus(window, run_menu: QMenu) -> dict[str, PanelMenu]:
    """A submenu of ``run_menu`` for each panel of ``window``, by panel name."""

    def panel_menu(title: str, panel: QWidget) -> PanelMenu:
        return PanelMenu(run_menu, title, lambda: window.tabs.setCurrentWidget(panel))

    menus = {}
    t = window.training
    m = menus["training"] = panel_menu("T&raining", t)
    m.add("Add corpus files…", t.add_files_button)
    m.add("Add corpus folder…", t.add_folder_button)
    m.add("Remove corpus files", t.remove_button)
    m.add("Examples", t.examples_button)
    m.separator()
    m.add("Choose the tokenizer to start from…", t.start_from.choose_button)
    m.add("Held-out texts for the report…", t.start_from.held_out_button)
    m.separator()
    m.add("Segmentation…", t.segmentation_button)
    m.add("Compare with plain BPE", t.compare_plain_button)

    v = window.vocab
    m = menus["vocabulary"] = panel_menu("&Vocabulary", v)
    m.add("Export table…", v.export_table_button)
    m.add("Export plot…", v.export_plot_button)

    c = window.codec
    m = menus["codec"] = panel_menu("&Encode / Decode", c)
    m.add("Open text…", c.open_button)
    m.add("Copy ids", c.copy_button)
    m.add("Edit ids in decoder", c.to_decoder_button)
    m.add("Decode", c.decode_button)
    m.separator()
    m.add("Step-through: reset", c.reset_button)
    m.add("Step-through: back", c.back_button)
    m.add("Step-through: next step", c.step_button)
    m.add("Step-through: all steps", c.end_button)
    m.separator()
    m.add("BPE-dropout: resample", c.dropout_box.resample_button)
    m.add("BPE-dropout: export…", c.dropout_box.export_button)

    e = window.evaluate
    m = menus["evaluate"] = panel_menu("Eva&luate", e)
    m.add("Evaluate", e.evaluate_button)
    m.add("Compare with unconstrained", e.unconstrained_button)
    m.add("Use this size", e.use_size_button)
    m.separator()
    for files, what in ((e.gold_files, "gold segmentations"), (e.text_files, "texts"),
                        (e.parallel_files, "translations")):
        m.add(f"Add {what}…", files.add_button)
        m.add(f"Remove {what}", files.remove_button)
    m.add("Add a character mapping", e.character_map.add_button)
    m.add("Remove character mappings", e.character_map.remove_button)
    m.separator()
    for which, label in (("summary", "morphology"), ("text", "text"), ("words", "words"),
                         ("parity", "parity"), ("sizes", "vocabulary sizes")):
        m.add(f"Export {label} table…", e.csv_buttons[which])
    m.add("Export parity plot…", e.plot_buttons["parity"])
    m.add("Export vocabulary-size plot…", e.plot_buttons["sizes"])

    p = window.compare
    m = menus["compare"] = panel_menu("C&ompare", p)
    m.add("Compare", p.compare_button)
    m.separator()
    m.add("Add current model", p.add_current_button)
    m.add("Add model file…", p.add_file_button)
    m.add("Import a tokenizer…", p.import_button)
    m.add("Plain vs parity-aware", p.plain_button)
    m.add("Remove tokenizer", p.remove_button)
    m.add("Open text file…", p.open_text_button)
    m.add("Use typed text", p.clear_file_button)
    m.separator()
    m.add("Export overlap table…", p.export_button)
    m.add("Export language costs…", p.languages.export_button)

    h = window.history
    m = menus["history"] = panel_menu("&History", h)
    m.add("Open model", h.open_button)
    m.add("Re-run", h.rerun_button)
    m.add("Copy as command", h.copy_button)
    m.add("Compare", h.compare_button)
    m.add("Export report…", h.report_button)
    m.add("Language…", h.language_button)
    m.add("Delete", h.delete_button, QKeySequence(QKeySequence.StandardKey.Delete).toString())
    m.add("Undo delete", h.undo_button, QKeySequence(QKeySequence.StandardKey.Undo).toString())
    return menus

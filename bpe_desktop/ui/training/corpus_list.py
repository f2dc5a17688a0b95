"""The corpus list of the Training panel: files added by button or drag and drop.

Sizes are shown at once; line counts — or, for word-count tables, their distinct words
and total count — are computed in a background job (a large compressed corpus can take
seconds) and filled in as they arrive.

A multilingual corpus labels each file with its language (guessed from the file or
folder name, or for a word-count table the label ``count`` wrote into it; editable) and
optionally a weight; files of one language are trained as one.
After a multilingual run, each language's share of the running words before and after
balancing is shown.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QBrush, QColor, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTreeWidget, QTreeWidgetItem

from bpe_desktop.core.counting import count_lines, table_language, table_stats
from bpe_desktop.core.errors import ConfigError, CorpusError
from bpe_desktop.core.formatting import format_bytes
from bpe_desktop.core.languages import check_code, language_key, language_of
from bpe_desktop.ui.common.workers import JobRunner

#: Role of a row's problem (why training would refuse the file), None when there is none.
PROBLEM_ROLE = Qt.ItemDataRole.UserRole + 1
#: Role of the language the row was given automatically (the name's guess or the table's
#: label), to tell it from one the user typed.
GUESS_ROLE = Qt.ItemDataRole.UserRole + 2
#: How a refused file's row names its problem (CorpusError.reason -> cell text).
PROBLEM_LABELS = {"binary": "binary", "other-encoding": "not UTF-8", "missing": "missing",
                  "empty": "empty"}
PROBLEM_COLOR = "#d62828"
#: An empty file is skipped when training (and only a corpus of empty files refused).
SKIPPED_COLOR = "#808080"

# Files taken from a dropped folder; anything else there (images, archives) is skipped.
TEXT_SUFFIXES = {".txt", ".text", ".gz", ".tsv", ".tok", ".raw", ".md", ".csv", ".conllu", ""}


def files_in(paths: list[str]) -> tuple[list[str], int]:
    """Expand folders (recursively, text-like files only); returns (files, skipped)."""
    out, skipped = [], 0
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, names in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(names):
                    if name.startswith("."):
                        continue
                    if Path(name).suffix.lower() in TEXT_SUFFIXES:
                        out.append(os.path.join(root, name))
                    else:
                        skipped += 1
        else:
            out.append(p)
    return out, skipped


#: Columns: file, size, lines, language, weight, share.
LANGUAGE_COLUMN, WEIGHT_COLUMN, SHARE_COLUMN = 3, 4, 5
EDITABLE_COLUMNS = (LANGUAGE_COLUMN, WEIGHT_COLUMN)


class CorpusList(QTreeWidget):
    """File, size, line count, language, weight and share of each corpus file; accepts
    dropped files and folders."""

    changed = Signal()
    #: A status text for the log (e.g. "3 files added, 2 skipped").
    message = Signal(str)
    #: A file's line count or table statistics arrived.
    stats_changed = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._tables = False
        self.setHeaderLabels(["File", "Size", "Lines", "Language", "Weight", "Share"])
        header_item = self.headerItem()
        header_item.setToolTip(LANGUAGE_COLUMN, "The file's language (double-click to edit; "
                               "empty: one corpus, not multilingual)")
        header_item.setToolTip(WEIGHT_COLUMN, "The language's relative share after "
                               "balancing (double-click to edit; empty: as it is)")
        header_item.setToolTip(SHARE_COLUMN, "The language's share of the running words, "
                               "before → after balancing (after a multilingual run)")
        self.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                             | QAbstractItemView.EditTrigger.EditKeyPressed)
        self.setRootIsDecorated(False)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setAcceptDrops(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DropOnly)
        header = self.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        for column in range(2, SHARE_COLUMN + 1):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.setToolTip("Text files to learn from (UTF-8, plain or .gz). Drop files or "
                        "folders here.")
        self._line_counter = JobRunner(self, min_interval=0.0)
        self._line_counter.progressed.connect(self._on_lines_counted)
        self._line_counter.failed.connect(self._on_count_failed)
        self._line_counter.stopped.connect(self._count_pending_lines)
        #: Files whose count by the running job describes them as they were (found
        #: missing or restored since): its result for them is dropped.
        self._stale_counts: set[str] = set()

    # -- contents -------------------------------------------------------------------------

    def paths(self) -> list[str]:
        return [self.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole)
                for i in range(self.topLevelItemCount())]

    def labelled_paths(self) -> list[tuple[str, str]]:
        """(path, language) of each file, '' for a file without a language; a single
        labelled language included (it trains as plain files but is still that language)."""
        return [(item.data(0, Qt.ItemDataRole.UserRole), item.text(LANGUAGE_COLUMN).strip())
                for item in map(self.topLevelItem, range(self.topLevelItemCount()))]

    def total_size(self) -> int:
        return sum(self.topLevelItem(i).data(1, Qt.ItemDataRole.UserRole) or 0
                   for i in range(self.topLevelItemCount()))

    def add_paths(self, paths: list[str]) -> int:
        """Add files (folders are expanded); returns how many were new."""
        files, skipped = files_in([os.path.abspath(p) for p in paths])
        known = set(self.paths())
        added = 0
        for path in files:
            if path in known:
                continue
            known.add(path)
            self.addTopLevelItem(self._item(path))
            added += 1
        if added or skipped:
            note = f", {skipped} non-text file(s) skipped" if skipped else ""
            self.message.emit(f"{added} corpus file(s) added{note}")
        if added:
            self.changed.emit()
            self._count_pending_lines()
        return added

    def missing_paths(self) -> list[str]:
        """Files that no longer exist (deleted or moved after being added); their rows
        say so."""
        missing, restored = [], False
        for i in range(self.topLevelItemCount()):
            item = self.topLevelItem(i)
            path = item.data(0, Qt.ItemDataRole.UserRole)
            if not os.path.isfile(path):
                missing.append(path)
                self._forget_count(path)
                item.setText(1, "missing")
                item.setText(2, "")
                item.setToolTip(1, "The file no longer exists")
                item.setData(1, Qt.ItemDataRole.UserRole, None)
            elif item.text(1) == "missing":  # restored: what it holds now is counted
                self._forget_count(path)
                self._show_size(item, path)
                item.setText(2, "…")
                item.setData(2, Qt.ItemDataRole.UserRole, None)
                restored = True
        if restored:
            self._count_pending_lines()
        return missing

    def problems(self) -> list[tuple[str, str]]:
        """(path, why) of the files training would refuse (binary, not UTF-8, ...); empty
        files are skipped, not refused."""
        out = []
        for i in range(self.topLevelItemCount()):
            item = self.topLevelItem(i)
            why = item.data(0, PROBLEM_ROLE)
            if why:
                out.append((item.data(0, Qt.ItemDataRole.UserRole), why))
        return out

    def refusal(self) -> tuple[str, str] | None:
        """Why the list cannot be trained on, as (title, message) for an error dialog;
        None when it can. Missing and unusable files are marked in their rows."""
        if not self.topLevelItemCount():
            return ("No corpus", "Add at least one corpus file to train on "
                    "(or choose one of the Examples).")
        missing = self.missing_paths()
        if missing:
            names = "\n".join(missing[:10]) + ("\n…" if len(missing) > 10 else "")
            return ("Corpus file missing",
                    f"{len(missing)} corpus file(s) no longer exist:\n{names}\n\n"
                    "Restore them, or remove them from the list, and train again.")
        problems = self.problems()
        if problems:
            shown = "\n".join(why for _, why in problems[:5]) + \
                ("\n…" if len(problems) > 5 else "")
            return ("Corpus file unusable",
                    f"{len(problems)} corpus file(s) cannot be trained on:\n{shown}"
                    "\n\nRemove them from the list (marked in red) and train again.")
        return None

    def set_word_counts(self, tables: bool) -> None:
        """Show lines (running text) or, for word-count tables, distinct words and total
        count in the third column; recounted in the background."""
        if tables == self._tables:
            return
        self._tables = tables
        self.headerItem().setText(2, "Words / total" if tables else "Lines")
        self._line_counter.cancel()
        for i in range(self.topLevelItemCount()):
            item = self.topLevelItem(i)
            if item.data(2, Qt.ItemDataRole.UserRole) != -1 or item.text(2) != "":
                item.setText(2, "…")
                item.setToolTip(2, "")
                item.setData(2, Qt.ItemDataRole.UserRole, None)
        self._count_pending_lines()

    def remove_selected(self) -> None:
        for item in self.selectedItems():
            self.takeTopLevelItem(self.indexOfTopLevelItem(item))
        self.changed.emit()

    def clear_files(self) -> None:
        self.clear()
        self.changed.emit()

    def shutdown(self) -> None:
        self._line_counter.shutdown()

    # -- languages ------------------------------------------------------------------------

    def language_entries(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """``lang`` and ``weight`` entries (CODE=PATH, CODE=W) from the labelled rows; both
        empty when no row has a language. Raises ConfigError naming the file for a row
        without a language among labelled ones, a bad code, or disagreeing weights."""
        rows = [self.topLevelItem(i) for i in range(self.topLevelItemCount())]
        labels = [item.text(LANGUAGE_COLUMN).strip() for item in rows]
        if not any(labels):
            return (), ()
        langs: list[str] = []
        weights: dict[str, str] = {}
        for item, code in zip(rows, labels):
            path = item.data(0, Qt.ItemDataRole.UserRole)
            if not code:
                raise ConfigError(f"{path}: give this file a language too (or clear every "
                                  "language to train on one corpus)")
            code = check_code(code, path)
            langs.append(f"{code}={path}")
            weight = item.text(WEIGHT_COLUMN).strip()
            # one language under two codes (en, eng) is one language with one weight
            key = language_key(code)
            if weight and weights.setdefault(key, (code, weight))[1] != weight:
                raise ConfigError(f"{path}: language {code!r} has the weights "
                                  f"{weights[key][1]} and {weight}; give one")
        return tuple(langs), tuple(f"{code}={w}" for code, w in weights.values())

    def set_languages(self, lang: tuple[str, ...], weight: tuple[str, ...]) -> None:
        """Label the files as a configuration's ``lang`` (CODE=PATH) and ``weight``
        (CODE=W) entries say, and the others not at all (a run trained again)."""
        codes = {os.path.abspath(path): code
                 for code, _, path in (entry.partition("=") for entry in lang)}
        weights = {code: w for code, _, w in (entry.partition("=") for entry in weight)}
        for i in range(self.topLevelItemCount()):
            item = self.topLevelItem(i)
            code = codes.get(os.path.abspath(item.data(0, Qt.ItemDataRole.UserRole)), "")
            item.setText(LANGUAGE_COLUMN, code)
            item.setText(WEIGHT_COLUMN, weights.get(code, ""))

    def show_shares(self, codes, before, after) -> None:
        """Each language's share before → after balancing, on its files' rows."""
        shares = {language_key(code): f"{b:.1%} → {a:.1%}"
                  for code, b, a in zip(codes, before, after)}
        for i in range(self.topLevelItemCount()):
            item = self.topLevelItem(i)
            code = item.text(LANGUAGE_COLUMN).strip()
            item.setText(SHARE_COLUMN, shares.get(language_key(code), "") if code else "")

    def _item(self, path: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem([os.path.basename(path), "", "…", language_of(path), "", ""])
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
        item.setData(LANGUAGE_COLUMN, GUESS_ROLE, item.text(LANGUAGE_COLUMN))
        item.setData(0, Qt.ItemDataRole.UserRole, path)
        item.setToolTip(0, path)
        self._show_size(item, path)
        item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight)
        item.setTextAlignment(2, Qt.AlignmentFlag.AlignRight)
        return item

    @staticmethod
    def _show_size(item: QTreeWidgetItem, path: str) -> None:
        try:
            size = os.path.getsize(path)
            item.setText(1, format_bytes(size))
            item.setToolTip(1, "")
            item.setData(1, Qt.ItemDataRole.UserRole, size)
        except OSError as exc:
            item.setText(1, "missing")
            item.setText(2, "")
            item.setToolTip(1, exc.strerror or str(exc))
            item.setData(2, Qt.ItemDataRole.UserRole, -1)

    # -- line counts, one background job at a time ---------------------------------------------

    def _forget_count(self, path: str) -> None:
        if self._line_counter.running:
            self._stale_counts.add(path)

    @Slot()
    def _count_pending_lines(self) -> None:
        if self._line_counter.running:
            return
        # No job runs: every result of the last one has arrived (they come before it stops).
        self._stale_counts.clear()
        pending = [p for i, p in enumerate(self.paths())
                   if self.topLevelItem(i).data(2, Qt.ItemDataRole.UserRole) is None]
        if not pending:
            return

        tables = self._tables

        def job(report, cancel):
            for path in pending:
                label = ""
                try:
                    lines = table_stats(path, cancel) if tables else count_lines(path, cancel)
                    label = table_language(path) if tables else ""
                except (OSError, EOFError, gzip.BadGzipFile, CorpusError) as exc:
                    lines = exc
                if cancel.cancelled:
                    return None
                report((path, lines, tables, label), force=True)
            return None

        self._line_counter.start(job)

    @Slot(object)
    def _on_lines_counted(self, payload) -> None:
        path, lines, tables, label = payload
        if tables != self._tables or path in self._stale_counts:
            return  # counted for the other kind of file, or the file has changed since
        for i in range(self.topLevelItemCount()):
            item = self.topLevelItem(i)
            if item.data(0, Qt.ItemDataRole.UserRole) != path:
                continue
            problem = None
            empty = (not isinstance(lines, BaseException) and not tables and lines == 0) or \
                getattr(lines, "reason", None) == "empty"
            if empty:  # skipped when training, as the command line does: not a refusal
                problem = ("empty", f"{path} is empty: it is skipped when training")
                item.setData(2, Qt.ItemDataRole.UserRole, 0)
            elif isinstance(lines, BaseException):
                problem = (PROBLEM_LABELS.get(getattr(lines, "reason", None), "unreadable"),
                           str(lines))
                item.setData(2, Qt.ItemDataRole.UserRole, -1)
            elif tables:
                words, total = lines
                item.setText(2, f"{words:,} / {total:,}")
                item.setToolTip(2, f"{words:,} distinct words, {total:,} words in all")
                item.setData(2, Qt.ItemDataRole.UserRole, lines)
                self._take_table_language(item, label)
            else:
                item.setText(2, f"{lines:,}")
                item.setData(2, Qt.ItemDataRole.UserRole, lines)
            self._mark(item, problem, refused=not empty)
            if problem and not empty:
                self.message.emit(f"Cannot train on {problem[1]}")
        self.stats_changed.emit()

    @Slot(object)
    def _on_count_failed(self, error) -> None:
        """A failure no file's problem explains: the files still waiting say so, and are
        not counted again (each failed count would start the next, for ever)."""
        for i in range(self.topLevelItemCount()):
            item = self.topLevelItem(i)
            if item.data(2, Qt.ItemDataRole.UserRole) is None:
                item.setText(2, "?")
                item.setToolTip(2, f"Could not be counted: {error.message}")
                item.setData(2, Qt.ItemDataRole.UserRole, -1)

    @staticmethod
    def _take_table_language(item: QTreeWidgetItem, label: str) -> None:
        """A table's label (written by ``count``) replaces the name's guess, not a
        language the user typed."""
        if not label or item.text(LANGUAGE_COLUMN) != item.data(LANGUAGE_COLUMN, GUESS_ROLE):
            return
        item.setText(LANGUAGE_COLUMN, label)
        item.setData(LANGUAGE_COLUMN, GUESS_ROLE, label)
        item.setToolTip(LANGUAGE_COLUMN, f"The table's language label ({label}), written "
                        "by 'count'; double-click to train it as another language")

    @staticmethod
    def _mark(item: QTreeWidgetItem, problem: tuple[str, str] | None,
              refused: bool = True) -> None:
        """Show a file's problem in its row (red when training would refuse the file, grey
        when it is only skipped; the reason in the tooltip), or none."""
        item.setData(0, PROBLEM_ROLE, problem[1] if problem and refused else None)
        colour = PROBLEM_COLOR if refused else SKIPPED_COLOR
        brush = QBrush(QColor(colour)) if problem else QBrush()
        for column in range(3):
            item.setForeground(column, brush)
        if problem:
            item.setText(2, problem[0])
            item.setToolTip(2, problem[1])
            item.setToolTip(0, f"{item.data(0, Qt.ItemDataRole.UserRole)}\n{problem[1]}")
        else:
            item.setToolTip(0, item.data(0, Qt.ItemDataRole.UserRole))

    def edit(self, index, trigger=None, event=None):  # Qt override
        """Only the language and weight columns are edited; F2 on a row edits its
        language (the keyboard has no other way into the row's cells)."""
        if index.column() not in EDITABLE_COLUMNS:
            if trigger != QAbstractItemView.EditTrigger.EditKeyPressed:
                return False
            index = index.siblingAtColumn(LANGUAGE_COLUMN)
            self.setCurrentIndex(index)
        if trigger is None:
            return super().edit(index)
        return super().edit(index, trigger, event)

    def moveCursor(self, action, modifiers):  # noqa: N802 (Qt override)
        """Tab and the arrow keys go between a row's language and weight."""
        step = {self.CursorAction.MoveNext: 1, self.CursorAction.MoveRight: 1,
                self.CursorAction.MovePrevious: -1, self.CursorAction.MoveLeft: -1}.get(action)
        current = self.currentIndex()
        if step and current.column() + step in EDITABLE_COLUMNS \
                and current.column() in EDITABLE_COLUMNS:
            return current.siblingAtColumn(current.column() + step)
        return super().moveCursor(action, modifiers)

    # -- drag and drop --------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 (Qt override)
        if event.mimeData().hasUrls():
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event) -> None:  # noqa: N802
        if event.mimeData().hasUrls():
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            self.add_paths(paths)
            event.acceptProposedAction()
        else:
            super().dropEvent(event)

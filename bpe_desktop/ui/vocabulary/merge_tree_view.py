"""How the selected token was built (its merge tree) and the training words that use it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTreeWidget, QTreeWidgetItem

from bpe_desktop.core import BPEModel
from bpe_desktop.core.pieces import display_piece, isolated_if_rtl
from bpe_desktop.views.vocab_table import SPECIAL, TokenUsage, VocabColumns
from bpe_desktop.ui.common.plain_copy import copy_without_isolates

#: Trees with more nodes than this open only a few levels deep.
EXPAND_ALL_LIMIT = 200
#: The words list shows at most this many of the most frequent words.
MAX_WORDS = 500
#: Joins the pieces of a segmented word.
SEPARATOR = "·"


def node_text(shown: str, rank: int | None, count: int | None, *, special: bool = False) -> str:
    """``"est</w>  (rank 2, count 9)"``; base symbols and specials say so."""
    if special:
        return f"{shown}  (special token)"
    if rank is None:
        return f"{shown}  (base symbol)"
    return f"{shown}  (rank {rank}, count {'—' if count is None else f'{count:,}'})"


class MergeTreeView(QTreeWidget):
    """The token at the root, the two pieces it was merged from below, down to symbols."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setHeaderLabels(["Merge tree"])
        self.setUniformRowHeights(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        copy_without_isolates(self)

    def show_token(self, model: BPEModel | None, token: int | None, special: bool) -> None:
        self.clear()
        if model is None or token is None:
            return
        piece = model.pieces[token]
        if special:
            shown = isolated_if_rtl(display_piece(piece, model.config))
            root = QTreeWidgetItem([node_text(shown, None, None, special=True)])
            root.setToolTip(0, repr(piece))
            self.addTopLevelItem(root)
            return
        root = self._item(model, model.merge_tree(piece))
        self.addTopLevelItem(root)
        if _size(root) <= EXPAND_ALL_LIMIT:
            self.expandAll()
        else:
            self.expandToDepth(3)

    def _item(self, model: BPEModel, node: dict) -> QTreeWidgetItem:
        shown = isolated_if_rtl(display_piece(node["piece"], model.config))
        item = QTreeWidgetItem([node_text(shown, node["rank"], node["count"])])
        item.setToolTip(0, repr(node["piece"]))
        item.setData(0, Qt.ItemDataRole.UserRole, node["piece"])
        if node["rank"] is None:
            font = item.font(0)
            font.setItalic(True)
            item.setFont(0, font)
        else:
            item.addChildren([self._item(model, node["left"]), self._item(model, node["right"])])
        return item

    def texts(self) -> list[tuple[int, str]]:
        """(depth, text) of every node in display order (for tests and copying)."""
        out: list[tuple[int, str]] = []

        def walk(item: QTreeWidgetItem, depth: int) -> None:
            out.append((depth, item.text(0)))
            for i in range(item.childCount()):
                walk(item.child(i), depth + 1)

        for i in range(self.topLevelItemCount()):
            walk(self.topLevelItem(i), 0)
        return out


def _size(item: QTreeWidgetItem) -> int:
    return 1 + sum(_size(item.child(i)) for i in range(item.childCount()))


class TokenWordsView(QTreeWidget):
    """Training words whose segmentation uses the token, most frequent first."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setHeaderLabels(["Word", "Segmentation", "Count"])
        self.setRootIsDecorated(False)
        self.setUniformRowHeights(True)
        self.header().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.header().setStretchLastSection(False)
        self.total = 0  # words using the token (the list shows at most MAX_WORDS)

    def show_token(self, model: BPEModel | None, columns: VocabColumns | None,
                   usage: TokenUsage | None, token: int | None) -> None:
        self.clear()
        self.total = 0
        if model is None or usage is None or token is None or columns is None:
            return
        if columns.kind[token] == SPECIAL:
            return
        found = usage.words_with(token)
        self.total = len(found)
        cfg = model.config
        items = []
        for w in found[:MAX_WORDS].tolist():
            parts = [columns.display[i] for i in usage.segmentation(w)]
            item = QTreeWidgetItem([display_piece(usage.words[w], cfg), SEPARATOR.join(parts),
                                    f"{int(usage.counts[w]):,}"])
            item.setTextAlignment(2, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            item.setToolTip(0, repr(usage.words[w]))
            items.append(item)
        self.addTopLevelItems(items)
        self.resizeColumnToContents(0)
        self.resizeColumnToContents(2)

    def rows(self) -> list[tuple[str, str, str]]:
        """(word, segmentation, count) texts of the listed words, top to bottom."""
        return [tuple(self.topLevelItem(i).text(c) for c in range(3))
                for i in range(self.topLevelItemCount())]

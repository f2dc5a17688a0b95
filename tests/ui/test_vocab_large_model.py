"""A 100,000-token model held by the engine opens in the Vocabulary tab: the table shows
every token with the merge that created it, sorts and filters, and the model it replaces
is freed."""

from __future__ import annotations

import itertools
import string
import weakref

import pytest
from PySide6.QtCore import Qt

from bpe_desktop.core import BPEModel, Merge, TrainConfig

from bpe_desktop.core import release
from bpe_desktop.core.model_file import dumps, loads
from bpe_desktop.views.vocab_table import COL_LEFT, COL_RANK, COL_RIGHT
from bpe_desktop.ui.vocabulary.panel import VocabPanel

SIZE = 100_000


@pytest.fixture(scope="module")
def big_model() -> BPEModel:
    """Every word over a-z of 2, 3, then 4 letters, each merged from its first letters and
    its last, until the vocabulary has SIZE tokens; read back from its file (the engine's)."""
    letters = string.ascii_lowercase
    words = itertools.chain.from_iterable(
        map("".join, itertools.product(letters, repeat=n)) for n in (2, 3, 4))
    merges = tuple(Merge(w[:-1], w[-1], SIZE - rank)
                   for rank, w in enumerate(itertools.islice(words, SIZE - len(letters))))
    model = BPEModel(TrainConfig(merges=len(merges), special_tokens=()), tuple(letters), merges)
    read = loads(dumps(model).encode("utf-8"))
    assert read.engine_model() is not None and read.vocab_size == SIZE
    return read


def show(qtbot, panel: VocabPanel, model) -> None:
    with qtbot.waitSignal(panel.ready, timeout=120_000):
        panel.set_model(model)


def test_the_table_of_a_100k_token_model_shows_every_token_and_its_merge(qtbot, big_model):
    panel = VocabPanel()
    qtbot.addWidget(panel)
    show(qtbot, panel, big_model)
    table = panel.table_model
    assert table.rowCount() == SIZE
    assert panel.count_label.text() == f"{SIZE:,} of {SIZE:,} tokens"
    last = big_model.piece_to_id("aaaa")  # the first 4-letter word: merge 26 + 676
    columns = table.columns
    assert columns.raw_value(last, COL_RANK) == 26 * 26 + 26 ** 3
    assert (columns.raw_value(last, COL_LEFT), columns.raw_value(last, COL_RIGHT)) == ("aaa", "a")
    table.sort(COL_RANK, Qt.SortOrder.DescendingOrder)
    assert columns.raw_value(int(table.visible_ids()[0]), COL_RANK) == SIZE - 27
    panel.filter_edit.setText("zzz")
    with_zzz = [i for i, p in enumerate(big_model.pieces) if "zzz" in p]
    qtbot.waitUntil(lambda: sorted(table.visible_ids().tolist()) == with_zzz, timeout=30_000)


def test_a_replaced_100k_token_model_is_freed(qtbot, big_model):
    """Nothing of the panel's keeps the model it showed before: retired as the window's
    document retires the model it replaces, it is freed."""
    panel = VocabPanel()
    qtbot.addWidget(panel)
    first = loads(dumps(big_model).encode("utf-8"))
    show(qtbot, panel, first)
    gone = weakref.ref(first)
    show(qtbot, panel, big_model)
    release.retire(first)
    del first
    qtbot.waitUntil(lambda: gone() is None, timeout=30_000)

"""Layout at the default window size: nothing cut off, names told apart, plots readable."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QColor

from bpe_desktop.ui.common import theme
from bpe_desktop.ui.compare.plots import LineTokensScatter
from bpe_desktop.ui.evaluate.file_lists import FileList
from bpe_desktop.ui.evaluate.plots import VocabSizeAxis

pytest_plugins = ["tests.ui.window_fixtures"]


def _training_panel(qtbot):
    from bpe_desktop.ui.training.panel import TrainingPanel

    panel = TrainingPanel()
    qtbot.addWidget(panel)
    panel.resize(1200, 740)  # the window's default size, less menus and status bar
    panel.show()
    qtbot.waitExposed(panel)
    form = panel.options
    return panel, form, form.parentWidget().parentWidget()


def test_the_training_options_are_not_cut_off_at_the_default_size(qtbot):
    panel, form, scroll = _training_panel(qtbot)
    shown = form.parentWidget().width()  # the scroll area's viewport: what is seen
    assert shown >= form.minimumSizeHint().width()
    for widget in (form.fuse_unk, form.preset, form.boundary, form.pretokenizer):
        right = widget.mapTo(form, widget.rect().topRight()).x()
        assert right < shown and widget.width() >= widget.minimumSizeHint().width()
    assert form.fuse_unk.width() >= form.fuse_unk.sizeHint().width()
    assert not scroll.horizontalScrollBar().isVisible()


def test_squeezed_or_with_large_fonts_the_options_scroll_instead_of_being_cut(qtbot):
    """Desktop fonts may be larger than this test machine's."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication, QSplitter

    app = QApplication.instance()
    normal = app.font()
    large = app.font()
    large.setPointSizeF(normal.pointSizeF() * 1.6)
    app.setFont(large)
    try:
        panel, form, scroll = _training_panel(qtbot)
        split = next(s for s in panel.findChildren(QSplitter)
                     if s.orientation() == Qt.Orientation.Horizontal)
        for sizes in (split.sizes(), [200, 1000]):
            split.setSizes(sizes)
            qtbot.wait(20)
            assert form.width() >= form.minimumSizeHint().width()
            if form.parentWidget().width() < form.minimumSizeHint().width():
                assert scroll.horizontalScrollBar().isVisible()
        qtbot.waitUntil(lambda: scroll.horizontalScrollBar().isVisible())
    finally:
        app.setFont(normal)


def test_compare_columns_fit_their_names(window, qtbot, toy_model):
    panel = window.compare
    long_name = "ud_turkish-8000-merges-sennrich.json"
    panel.add_model(long_name, toy_model)
    panel.add_model(long_name, toy_model.truncated(3))
    panel.set_text("lowest newer widest")
    window.resize(1200, 780)
    window.tabs.setCurrentWidget(panel)
    window.show()
    with qtbot.waitSignal(panel.compared, timeout=60_000):
        panel.compare_button.click()
    view = next(v for v in panel.findChildren(type(panel.words_view))
                if v.model() is panel.pair_model)
    first = view.horizontalHeader().sectionSize(0)
    assert first >= view.sizeHintForColumn(0) or first == 420
    assert panel.pair_model.rows[0][0] == f"{long_name} → {long_name} (2)"


def test_gold_paths_are_cut_in_the_middle_with_the_whole_path_in_the_tooltip(qtbot, tmp_path):
    files = FileList("gold_files_layout", "Add", "All files (*)")
    qtbot.addWidget(files)
    paths = []
    for name in ("eng.word.dev.tsv", "eng.word.test.tsv"):
        (tmp_path / name).write_text("a\ta\n", encoding="utf-8")
        paths.append(str(tmp_path / name))
    files.add_paths(paths)
    from PySide6.QtCore import Qt

    assert files.list.textElideMode() == Qt.TextElideMode.ElideMiddle
    # (a horizontal scroll bar would show the paths' beginnings instead of eliding)
    assert files.list.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    assert [files.list.item(i).toolTip() for i in range(2)] == paths


def test_the_scatter_plot_follows_the_light_theme(qtbot):
    theme.apply_appearance("light")
    plot = LineTokensScatter()
    qtbot.addWidget(plot)
    assert plot.backgroundBrush().color() == QColor(theme.plot_colors()["background"])
    assert plot.backgroundBrush().color().lightness() > 200


def test_vocabulary_size_ticks_never_overlap(qtbot):
    axis = VocabSizeAxis("bottom")
    axis.setLogMode(True)
    width = axis.fontMetrics().horizontalAdvance("00,000")
    for low, high, size in ((50, 8000, 250), (50, 8000, 900), (260, 100_000, 180),
                            (100, 120, 300)):
        ticks = axis.fitting_ticks(np.log10(low), np.log10(high), size)
        assert ticks, (low, high, size)
        gaps = np.diff(ticks) * size / (np.log10(high) - np.log10(low))
        assert (gaps >= width).all(), (low, high, size, ticks)
    wide = axis.fitting_ticks(np.log10(50), np.log10(8000), 900)
    assert axis.tickStrings(wide, 1, 1)[:3] == ["50", "100", "200"]


def test_the_window_still_fits_a_1024_pixel_screen(window):
    assert window.minimumSizeHint().width() <= 1024

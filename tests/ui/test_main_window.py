"""The main window: model lifecycle, menus, shortcuts, settings, clean shutdown."""

from __future__ import annotations

import json
import time

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from bpe_desktop.core import Corpus, TrainConfig, load_model, save_model, train
from bpe_desktop.ui.common import theme
from bpe_desktop.ui.common.settings import Settings
from bpe_desktop.ui.common.workers import running_threads
from bpe_desktop.ui.window.main_window import MainWindow
from tests.ui.test_training_panel import big_corpus
from tests.ui.window_helpers import train_toy

#: The ``ui`` (recorded dialogs) and ``window`` fixtures.
pytest_plugins = ["tests.ui.window_fixtures"]


def test_title_and_unsaved_marker_follow_the_model(window, qtbot, ui, tmp_path):
    assert window.windowTitle().startswith("No model")
    assert not window.save_action.isEnabled()
    model = train_toy(window, qtbot)
    assert window.windowTitle() == "Untitled[*] — BPE Desktop"
    assert window.isWindowModified()
    ui.save_path = str(tmp_path / "toy.json")
    window.save_action.trigger()  # Save on an untitled model asks for a name
    assert load_model(ui.save_path).merges == model.merges
    assert window.windowTitle() == "toy.json[*] — BPE Desktop"
    assert not window.isWindowModified()
    assert window.settings.recent_files() == [ui.save_path]


def test_trained_model_reaches_every_panel(window, qtbot):
    model = train_toy(window, qtbot)
    assert window.vocab.model is model if hasattr(window.vocab, "model") else True
    assert window.codec.isEnabled()
    assert "10 merges" in window.model_label.text()


def test_open_via_menu_and_recent_files(window, ui, toy_model, tmp_path):
    path = str(tmp_path / "m.json")
    save_model(toy_model, path)
    ui.open_paths = [path]
    window.open_action.trigger()
    assert window.document.model.merges == toy_model.merges
    assert window.document.path == path and not window.document.dirty
    window._fill_recent_menu()
    texts = [a.text() for a in window.recent_menu.actions()]
    assert texts[0] == "&1 m.json"


def test_opening_a_bad_file_changes_nothing(window, qtbot, ui, tmp_path):
    model = train_toy(window, qtbot)
    bad = tmp_path / "bad.json"
    good = json.loads(open(_saved(model, tmp_path)).read())
    good["merges"][3] = ["zz", "q", 1]
    bad.write_text(json.dumps(good))
    assert window.open_path(str(bad)) is False
    assert window.document.model is model and window.document.dirty
    assert ui.errors and "merges[3]" in ui.errors[0][1]
    assert window.open_path(str(tmp_path / "missing.json")) is False
    assert "missing.json" in ui.errors[1][1]
    assert window.document.model is model


def _saved(model, tmp_path):
    path = str(tmp_path / "saved.json")
    save_model(model, path)
    return path


def test_failed_save_keeps_the_model_unsaved(window, qtbot, ui, tmp_path):
    train_toy(window, qtbot)
    ui.save_path = str(tmp_path / "no-such-folder" / "m.json")
    assert window.save_as() is False
    assert ui.errors[0][0] == "Cannot save model"
    assert window.document.dirty and window.isWindowModified()


def test_closing_with_unsaved_work_asks(window, qtbot, ui, tmp_path):
    train_toy(window, qtbot)
    ui.save_answer = "cancel"
    assert window.close() is False
    assert window.isVisible() and ui.asked_to_save == 1
    ui.save_answer = "save"
    ui.save_path = str(tmp_path / "kept.json")
    assert window.close() is True
    assert load_model(ui.save_path).merges == window.document.model.merges


def test_training_over_an_unsaved_model_asks_first(window, qtbot, ui):
    first = train_toy(window, qtbot)
    ui.save_answer = "cancel"
    assert window.train() is False
    assert ui.asked_to_save == 1 and not window.training.running
    assert window.document.model is first


def test_cancel_keeps_the_previous_model(window, qtbot, ui, tmp_path):
    previous = train_toy(window, qtbot)
    window.document.dirty = False  # pretend it was saved, so training starts without asking
    window.training.corpus.clear_files()
    window.training.corpus.add_paths([big_corpus(tmp_path / "big.txt", 12)])
    window.training.options.word_counts.setChecked(False)
    window.training.options.set_config(TrainConfig(vocab_size=200_000, min_frequency=1,
                                                   threads=1))
    with qtbot.waitSignal(window.training.progressed, timeout=60_000,
                          check_params_cb=lambda u: u.progress.stage == "merging"):
        assert window.train()
    assert window.cancel_action.isEnabled() and not window.train_action.isEnabled()
    with qtbot.waitSignal(window.training.cancelled, timeout=10_000):
        qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert window.document.model is previous
    assert window.train_action.isEnabled() and not window.cancel_action.isEnabled()


def test_failed_training_keeps_the_previous_model(window, qtbot, ui, tmp_path):
    previous = train_toy(window, qtbot)
    window.document.dirty = False
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\n\xff\xfe broken\n")
    window.training.corpus.clear_files()
    window.training.corpus.add_paths([str(bad)])
    window.training.options.word_counts.setChecked(False)
    ui.yes = False  # do not go on with replacement characters
    with qtbot.waitSignal(window.training.failed, timeout=30_000):
        window.train()
    assert window.document.model is previous
    assert "bad.txt" in ui.questions[-1][1]


def test_closing_during_training_cancels_and_leaves_no_thread(qtbot, ui, tmp_path):
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    win.training.corpus.add_paths([big_corpus(tmp_path / "big.txt", 12)])
    win.training.options.set_config(TrainConfig(vocab_size=200_000, min_frequency=1, threads=1))
    with qtbot.waitSignal(win.training.progressed, timeout=60_000):
        assert win.train()
    started = time.monotonic()
    assert win.close() is True
    assert time.monotonic() - started < 5
    assert running_threads() == []
    assert not win.training.running


def test_f5_trains_and_ctrl_f_goes_to_the_filter(window, qtbot):
    window.training.load_example(window.training.example("toy"))
    with qtbot.waitSignal(window.document.model_changed, timeout=30_000):
        qtbot.keyClick(window, Qt.Key.Key_F5)
    assert len(window.document.model.merges) == 10
    window.tabs.setCurrentIndex(window.TRAINING)
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.tabs.currentWidget() is window.vocab
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None)
    assert window.vocab.isAncestorOf(QApplication.focusWidget())


def test_geometry_and_tab_persist(qtbot, ui):
    first = MainWindow()
    qtbot.addWidget(first)
    first.show()
    first.resize(1000, 700)
    saved = first.saveGeometry()
    first.tabs.setCurrentIndex(first.CODEC)
    first.close()
    assert Settings().window_state()[0] == saved
    second = MainWindow()
    qtbot.addWidget(second)
    assert second.tabs.currentIndex() == second.CODEC
    # the offscreen screen is 800 px wide, so Qt clamps the restored width; height is kept
    assert second.height() == 700  # a new window without settings is 780 high
    second.close_discarding()


def test_new_model_clears_after_asking(window, qtbot, ui):
    train_toy(window, qtbot)
    ui.save_answer = "discard"
    window.new_action.trigger()
    assert window.document.model is None
    assert window.windowTitle().startswith("No model")


def test_help_quick_start_and_about(window, ui):
    from bpe_desktop.ui.window.help_dialogs import show_quick_start, versions

    dialog = show_quick_start(window)
    assert "Train your first tokenizer" in dialog.browser.toPlainText()
    dialog.close()
    about = next(a for a in _help_menu(window).actions() if a.text() == "&About BPE Desktop")
    about.trigger()
    title, text = ui.infos[0]
    assert title == "About BPE Desktop"
    for name, version in versions().items():
        assert name in text and version in text
    assert versions()["engine"] != "unknown"


def _help_menu(window):
    return next(a for a in window.menuBar().actions() if a.text() == "&Help").menu()


def test_the_help_menu_opens_every_page_the_pages_refer_to(window, qtbot):
    """The pages and tooltips say "Help ▸ Evaluation": each page is an item of the Help menu
    (the menu held only Quick start and About, the other pages only in the help window)."""
    from bpe_desktop.ui.window.help_dialogs import HELP_PAGES, HelpDialog

    items = {a.text(): a for a in _help_menu(window).actions() if a.text()}
    for page, title in HELP_PAGES.items():
        action = items["&Quick start"] if page == "quickstart.md" else items[title]
        action.trigger()
        dialog = next(w for w in window.findChildren(HelpDialog) if w.isVisible())
        qtbot.waitUntil(lambda: dialog.current_page() == page)
        assert dialog.browser.toPlainText().startswith(title)
        dialog.close()


def test_dark_mode_colours_window_and_plots(window):
    try:
        window.set_appearance("dark")
        assert theme.is_dark()
        assert QApplication.palette().color(QPalette.ColorRole.Window).lightness() < 100
        assert window.training.plot.backgroundBrush().color().lightness() < 100
        window.set_appearance("light")
        assert not theme.is_dark()
        assert window.training.plot.backgroundBrush().color().lightness() > 200
    finally:
        window.set_appearance("system")


def test_first_run_loads_the_example(window):
    window.first_run_hint()
    assert window.training.corpus.paths()[0].endswith("botchan.txt")
    window.training.corpus.clear_files()
    window.first_run_hint()  # only once
    assert window.training.corpus.paths() == []


def test_engine_merges_through_the_whole_window(window, qtbot):
    """Training via the window on botchan equals the engine called directly."""
    from tests.shared_data import corpus_path

    botchan = str(corpus_path("botchan.txt"))
    window.training.corpus.add_paths([botchan])
    window.training.options.set_config(TrainConfig.preset("gpt2", vocab_size=1000))
    with qtbot.waitSignal(window.document.model_changed, timeout=60_000):
        window.train()
    expected = train(Corpus.from_files([botchan]), TrainConfig.preset("gpt2", vocab_size=1000))
    assert window.document.model.merges == expected.model.merges


def test_each_menu_s_mnemonics_are_its_own(window):
    """A letter shared by two entries of one menu only moves between them (Alt+F, P
    would not start New project)."""

    def letters(actions) -> list[str]:
        texts = [a.text() for a in actions if "&" in a.text().replace("&&", "")]
        return [t[t.index("&") + 1].lower() for t in texts]

    bar = window.menuBar()
    assert len(set(letters(bar.actions()))) == len(bar.actions())
    entries = list(bar.actions())
    while entries:  # each menu and submenu (Run ▸ Evaluate)
        entry = entries.pop()
        menu = entry.menu()
        menu.aboutToShow.emit()  # (menus filled on demand)
        found = letters(menu.actions())
        assert len(found) == len(set(found)), (entry.text(), [a.text() for a in menu.actions()])
        entries += [a for a in menu.actions() if a.menu() is not None]


def test_alt_and_a_letter_opens_each_menu_and_each_panel(window, qtbot):
    """No panel and no field takes a menu's letter: Alt+E and Alt+V went to the Encode /
    Decode and Vocabulary panels, and on the Training panel Alt+F, Alt+E, Alt+R and Alt+H
    went to its fields (most frequent words, separator, knockout rounds, threads)."""

    def alt(text: str) -> None:
        letter = text[text.index("&") + 1].lower()
        qtbot.keyClick(QApplication.focusWidget(), letter, Qt.KeyboardModifier.AltModifier)

    window.tabs.setCurrentWidget(window.vocab)  # (the tab bar takes the focus)
    with qtbot.waitActive(window):
        window.activateWindow()
    for panel in range(window.tabs.count()):
        window.tabs.setCurrentIndex(panel)
        for entry in window.menuBar().actions():
            alt(entry.text())
            qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None)
            assert QApplication.activePopupWidget() is entry.menu(), \
                (window.tabs.tabText(panel), entry.text())
            entry.menu().close()
            qtbot.waitUntil(lambda: QApplication.activePopupWidget() is None)
            window.tabs.setFocus()
    for index in range(window.tabs.count()):
        # from a panel without letters of its own
        start = window.evaluate if window.tabs.widget(index) is window.vocab else window.vocab
        window.tabs.setCurrentWidget(start)
        alt(window.tabs.tabText(index))
        assert window.tabs.currentIndex() == index, window.tabs.tabText(index)


def _access_letter(text: str) -> str | None:
    text = text.replace("&&", "")
    at = text.find("&")
    return text[at + 1].lower() if 0 <= at < len(text) - 1 else None


def _page_access_letters(window, page) -> list[tuple[str, str]]:
    """(text, letter) of each control of ``page`` that Alt+letter reaches: buttons, group
    boxes and labels with a buddy, shown and usable."""
    from PySide6.QtWidgets import QAbstractButton, QGroupBox, QLabel

    out = []
    for kind in (QAbstractButton, QLabel, QGroupBox):
        for w in page.findChildren(kind):
            if not w.isVisibleTo(window) or (isinstance(w, QLabel) and w.buddy() is None):
                continue
            if not w.isEnabled():
                continue  # a disabled control takes no Alt+letter (the locked options)
            text = w.title() if isinstance(w, QGroupBox) else w.text()
            if (letter := _access_letter(text)) is not None:
                out.append((text, letter))
    return out


def _training_states(window):
    """Each state of the Training panel that shows, hides, enables or disables fields:
    every preset, a corpus labelled with languages and the parity-aware options set, then
    Start from an existing tokenizer (its rows shown, the options locked). Yields a name."""
    from bpe_desktop.ui.training.start_from import EXISTING, NEW_VOCABULARY
    from tests.shared_data import DATA_DIR, corpus_path

    panel = window.training
    options = panel.options
    yield "default"
    for index in range(options.preset.count()):
        options.preset.setCurrentIndex(index)
        yield options.preset.currentText()
    panel.corpus.add_paths([str(corpus_path("ud_english.txt")),
                            str(corpus_path("ud_german.txt"))])
    options.temperature.setValue(2.0)
    options.parity_dev.setText(str(DATA_DIR / "udhr"))
    options.parity_dev_documents.setChecked(True)
    panel.language_plot.setVisible(True)  # as during a parity-aware run
    yield "languages and parity"
    panel.start_from.choice.setCurrentText(EXISTING)
    yield EXISTING
    panel.start_from.choice.setCurrentText(NEW_VOCABULARY)
    yield NEW_VOCABULARY


def test_no_two_controls_visible_together_share_an_access_letter(window):
    """Alt+letter reaches one control, else it only moves between those sharing it, in
    an order a keyboard user cannot foresee: in History, Alt+R went to Re-run rather
    than the Training menu; on the Training form three Parity fields shared Alt+Y (also
    the Vocabulary tab's), Preset the Compare tab's P, Threads and kept words Alt+D. The
    menus and the tab bar are shown with every panel, in every state of the Training
    form."""
    from bpe_desktop.ui.training.start_from import EXISTING

    menus = {_access_letter(a.text()): a.text() for a in window.menuBar().actions()}
    tabs = {_access_letter(window.tabs.tabText(i)): window.tabs.tabText(i)
            for i in range(window.tabs.count())}
    assert len(menus) + len(tabs) == len({**menus, **tabs}), (menus, tabs)

    def check(where: str, letters: list[tuple[str, str]]) -> None:
        seen = {**menus, **tabs}
        for text, letter in letters:
            assert letter not in seen, (where, text, seen[letter])
            seen[letter] = text

    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        panel = window.tabs.widget(index)
        if panel is not window.training:
            check(window.tabs.tabText(index), _page_access_letters(window, panel))
            continue
        for state in _training_states(window):
            letters = _page_access_letters(window, panel)
            check(state, letters)
            # the most used fields keep their letters
            assert len(letters) >= (6 if state == EXISTING else 15), (state, letters)

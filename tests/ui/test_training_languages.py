"""The Training panel with a multilingual corpus: languages and weights in the corpus
list, shares before and after balancing, and the per-language curve of parity-aware
training next to the merge-count plot."""

from __future__ import annotations

import shlex

import pytest
from PySide6.QtCore import QCoreApplication

from bpe_desktop.core import TrainConfig
from bpe_desktop.ui.training.corpus_list import LANGUAGE_COLUMN, SHARE_COLUMN, WEIGHT_COLUMN
from bpe_desktop.ui.training.options import PRESET_LABELS
from tests.shared_data import DATA_DIR, corpus_path
from tests.ui.window_helpers import assert_fails_without_a_corpus_question

pytest_plugins = ["tests.ui.window_fixtures"]

FILES = [str(corpus_path(name)) for name in ("ud_english.txt", "ud_german.txt",
                                             "ud_russian.txt")]
DEV = {"en": DATA_DIR / "udhr" / "eng.txt", "de": DATA_DIR / "udhr" / "deu.txt",
       "ru": DATA_DIR / "udhr" / "rus.txt"}


@pytest.fixture
def panel(training_panel):
    return training_panel


def rows(panel):
    return [panel.corpus.topLevelItem(i) for i in range(panel.corpus.topLevelItemCount())]


def test_languages_are_guessed_and_weights_edited(panel):
    panel.corpus.add_paths(FILES)
    assert [item.text(LANGUAGE_COLUMN) for item in rows(panel)] == ["en", "de", "ru"]
    lang, weight = panel.corpus.language_entries()
    assert lang == tuple(f"{code}={path}" for code, path in zip(("en", "de", "ru"), FILES))
    assert weight == ()
    for item, w in zip(rows(panel), ("1", "1", "2")):
        item.setText(WEIGHT_COLUMN, w)
    assert panel.corpus.language_entries()[1] == ("en=1", "de=1", "ru=2")


def test_one_language_labelled_with_both_iso_codes_trains_as_one(panel, qtbot):
    udhr_english = str(DATA_DIR / "udhr" / "eng.txt")
    panel.corpus.add_paths([FILES[0], udhr_english, FILES[1]])
    assert [item.text(LANGUAGE_COLUMN) for item in rows(panel)] == ["en", "eng", "de"]
    rows(panel)[1].setText(LANGUAGE_COLUMN, "ENG")  # language tags ignore case
    for item in rows(panel):
        item.setText(WEIGHT_COLUMN, "1")
    panel.options.set_config(TrainConfig(merges=20))
    with qtbot.waitSignal(panel.trained, timeout=60_000) as blocker:
        assert panel.start()
    assert blocker.args[0].languages.codes == ("en", "de")
    assert blocker.args[0].model.config.weight == ("en=1", "de=1")
    # both English files show English's share: half, as the German file does
    assert [item.text(SHARE_COLUMN).endswith("50.0%") for item in rows(panel)] == [True] * 3


def test_only_language_and_weight_cells_are_editable(panel, qtbot):
    panel.corpus.add_paths(FILES[:1])
    model = panel.corpus.model()
    panel.corpus.show()
    assert not panel.corpus.edit(model.index(0, 0), panel.corpus.EditTrigger.AllEditTriggers,
                                 None)
    assert panel.corpus.edit(model.index(0, LANGUAGE_COLUMN),
                             panel.corpus.EditTrigger.AllEditTriggers, None)


def test_language_and_weight_are_edited_with_the_keyboard(panel, qtbot):
    """F2 on a row edits its language, Tab moves on to its weight."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QLineEdit

    corpus = panel.corpus
    corpus.add_paths(FILES[:2])
    panel.show()
    qtbot.waitExposed(panel)
    corpus.setCurrentItem(rows(panel)[0])

    def type_into_editor(text: str, key: Qt.Key) -> None:
        def editor():
            return next((e for e in corpus.viewport().findChildren(QLineEdit)
                         if e.isVisible()), None)
        qtbot.waitUntil(lambda: editor() is not None)
        editor = editor()
        editor.selectAll()
        qtbot.keyClicks(editor, text)
        qtbot.keyClick(editor, key)
        QCoreApplication.processEvents()  # (the commit is queued)

    qtbot.keyClick(corpus, Qt.Key.Key_F2)
    assert corpus.state() == corpus.State.EditingState
    assert corpus.currentIndex().column() == LANGUAGE_COLUMN
    type_into_editor("eng", Qt.Key.Key_Tab)
    assert corpus.currentIndex().column() == WEIGHT_COLUMN
    type_into_editor("2", Qt.Key.Key_Return)
    assert rows(panel)[0].text(LANGUAGE_COLUMN) == "eng"
    assert rows(panel)[0].text(WEIGHT_COLUMN) == "2"
    assert panel.corpus.language_entries()[1] == ("eng=2",)


def test_a_file_without_a_language_among_labelled_ones_is_refused(panel, errors):
    panel.corpus.add_paths(FILES)
    rows(panel)[1].setText(LANGUAGE_COLUMN, "")
    assert not panel.start()
    assert "ud_german.txt: give this file a language too" in errors[0][1]


def test_parity_aware_training_shows_shares_and_per_language_curves(panel, qtbot):
    panel.corpus.add_paths(FILES)
    rows(panel)[0].setText(WEIGHT_COLUMN, "1")
    rows(panel)[1].setText(WEIGHT_COLUMN, "1")
    rows(panel)[2].setText(WEIGHT_COLUMN, "1")
    panel.options.set_config(TrainConfig(vocab_size=2000))
    panel.options.parity_dev.setText("; ".join(f"{c}={p}" for c, p in DEV.items()))
    panel.options.parity_dev_documents.setChecked(True)
    with qtbot.waitSignal(panel.trained, timeout=120_000) as blocker:
        assert panel.start()
    result = blocker.args[0]
    report = result.languages
    assert report.codes == ("en", "de", "ru")
    assert result.model.config.weight == ("en=1", "de=1", "ru=1")
    assert result.model.config.parity_dev == tuple(f"{c}={p}" for c, p in DEV.items())
    # equal weights: a third each after balancing, shown with the share before
    shares = [item.text(SHARE_COLUMN) for item in rows(panel)]
    assert all(s.endswith("33.3%") for s in shares), shares
    assert shares[0].startswith(f"{report.shares(False)[0]:.1%}")
    assert not panel.language_plot.isHidden()
    # whole documents: each language's tokens for its document, the quantity trained on
    # (the translations' line counts differ)
    assert report.dev_lines == (1, 1, 1)
    assert panel.language_plot.left_label() == "development tokens (whole document)"
    curves = panel.language_plot.curves()
    assert set(curves) == {"en", "de", "ru"}
    for code, (steps, values) in curves.items():
        assert steps == sorted(steps) and values
        # tokens per line fall as merges are learned
        assert values[-1] <= values[0]
    assert "en: share" in panel.log_view.toPlainText()
    # however fast the run, each curve goes from before the first merge to after the last
    for i, code in enumerate(report.codes):
        steps, values = curves[code]
        lines = report.dev_lines[i]
        assert steps[0] == 0 and steps[-1] == result.model.merge_count
        assert values[0] == report.dev_tokens_before[i] / lines
        assert values[-1] == report.dev_tokens_after[i] / lines


def test_every_language_curve_can_be_told_apart_on_either_background(qtbot, monkeypatch):
    """Thirteen languages (eight UDHR translations and five UD treebanks): no two curves
    look alike, and none fades into the light or the dark plot background."""
    from bpe_desktop.ui.common import theme
    from bpe_desktop.ui.training.language_plot import LanguageCurves

    def luminance(hex_colour: str) -> float:
        def channel(c: int) -> float:
            c /= 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
        r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
        return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)

    def contrast(a: str, b: str) -> float:
        light, dark = sorted((luminance(a), luminance(b)), reverse=True)
        return (light + 0.05) / (dark + 0.05)

    plot = LanguageCurves()
    qtbot.addWidget(plot)
    codes = [f"l{i:02d}" for i in range(13)]
    plot.add_point(1, {code: 10.0 + i for i, code in enumerate(codes)})
    qtbot.waitUntil(lambda: len(plot._curves) == 13)
    pens = [plot._curves[code].opts["pen"] for code in codes]
    assert len({(p.color().name(), p.style()) for p in pens}) == 13
    for dark in (False, True):
        monkeypatch.setattr(theme, "is_dark", lambda dark=dark: dark)
        background = theme.plot_colors()["background"]
        assert all(contrast(p.color().name(), background) >= 2 for p in pens), background


@pytest.mark.parametrize("label", ["", "en"])  # one language alone trains as its files
def test_a_plain_run_hides_the_language_plot(panel, qtbot, label):
    panel.corpus.add_paths(FILES[:1])
    rows(panel)[0].setText(LANGUAGE_COLUMN, label)
    panel.options.set_config(TrainConfig(merges=50))
    with qtbot.waitSignal(panel.trained, timeout=60_000) as blocker:
        assert panel.start()
    assert blocker.args[0].languages is None
    assert blocker.args[0].model.corpus.files[0].path == FILES[0]
    assert panel.language_plot.isHidden()
    assert rows(panel)[0].text(SHARE_COLUMN) == ""


def test_option_errors_name_the_form_s_fields_not_flags(panel, qtbot, errors):
    """The CLI names an option by its flag; the panel by the label the user sees."""
    panel.corpus.add_paths(FILES[:2])
    panel.options.set_config(TrainConfig(merges=30))
    panel.options.parity_dev.setText("; ".join(f"{c}={DEV[c]}" for c in ("en", "de")))
    for row in rows(panel):
        row.setText(LANGUAGE_COLUMN, "")
    assert not panel.start()  # no file has a language
    assert errors[-1] == ("Invalid training options", "“Parity development set” needs "
                          "languages (each language's files: the Language column of the "
                          "corpus files)")
    for row, code in zip(rows(panel), ("en", "de")):
        row.setText(LANGUAGE_COLUMN, code)
    with qtbot.waitSignal(panel.failed, timeout=60_000):
        assert panel.start()  # UDHR's translations differ in lines
    title, message = errors[-1]
    assert title == "Training failed" and "--" not in message
    assert message.endswith("line-aligned development files need the same number of lines "
                            "(whole parallel documents: “Development files are whole "
                            "parallel documents”)")


@pytest.mark.parametrize("labels", [("en",), ("en", "de")])
def test_history_records_each_corpus_file_s_language(window, qtbot, labels):
    """One labelled language trains as its files; History still records its language."""
    from tests.ui.test_history_panel import settle

    panel = window.training
    panel.corpus.add_paths(FILES[:len(labels)])
    for row, label in zip(rows(panel), labels):
        row.setText(LANGUAGE_COLUMN, label)
    panel.options.set_config(TrainConfig(merges=30))
    with qtbot.waitSignal(window.document.model_changed, timeout=60_000):
        assert window.train()
    settle(window, qtbot, 1)
    details = window.projects.project.run_details(window.history.model.run_at(0).id)
    assert [(i.role, i.path, i.language) for i in details.inputs] == \
        [("corpus", path, label) for path, label in zip(FILES, labels)]


def test_after_parity_training_evaluate_has_the_development_set(window, qtbot):
    from bpe_desktop.core.multilingual import train_multilingual

    dev = tuple(f"{c}={p}" for c, p in DEV.items())
    config = TrainConfig(merges=40, lang=tuple(f"{c}={p}" for c, p in
                                               zip(("en", "de", "ru"), FILES)),
                         parity_dev=dev, parity_dev_documents=True)
    result = train_multilingual(config)
    window.training.trained.emit(result)
    evaluate = window.evaluate
    assert evaluate.parallel_files.paths() == [str(p) for p in DEV.values()]
    assert evaluate.parity_mode_combo.currentText() == "document"
    assert evaluate.request().parallel_files == [str(p) for p in DEV.values()]


def test_after_parity_training_on_a_folder_evaluate_has_the_training_languages(window):
    """The development folder holds more languages than were trained (fi, fr, ja, tr):
    Evaluate's parity starts from the trained languages' texts."""
    from bpe_desktop.core.multilingual import train_multilingual

    config = TrainConfig(merges=20, lang=tuple(f"{c}={p}" for c, p in
                                               zip(("en", "de", "ru"), FILES)),
                         parity_dev=(str(DATA_DIR / "udhr"),), parity_dev_documents=True)
    window.training.trained.emit(train_multilingual(config))
    assert sorted(window.evaluate.parallel_files.paths()) == sorted(str(p) for p in DEV.values())


def test_the_parity_run_s_curves_and_comparison_go_with_its_model(window, qtbot):
    training = window.training
    training.corpus.add_paths(FILES)
    training.options.set_config(TrainConfig(merges=40))
    training.options.parity_dev.setText("; ".join(f"{c}={p}" for c, p in DEV.items()))
    training.options.parity_dev_documents.setChecked(True)
    with qtbot.waitSignal(window.document.model_changed, timeout=60_000):
        assert window.train()
    assert training.compare_plain_button.isVisibleTo(window)
    assert training.language_plot.isVisibleTo(window)
    window.new_model()  # (the unsaved model is discarded: see window_fixtures)
    assert window.document.model is None
    assert not training.compare_plain_button.isVisibleTo(window)
    assert not training.language_plot.isVisibleTo(window)


def test_word_count_tables_show_and_train_as_their_labelled_language(panel, qtbot, tmp_path):
    from bpe_desktop.core.counting import count_words

    tables = []
    for i, (code, path) in enumerate(zip(("en", "de", "ru"), FILES)):
        tables.append(str(tmp_path / f"counts{i}.tsv"))  # the name names no language
        count_words([path], language=code).save(tables[-1])
    panel.options.word_counts.setChecked(True)
    panel.corpus.add_paths(tables)
    qtbot.waitUntil(lambda: [r.text(LANGUAGE_COLUMN) for r in rows(panel)]
                    == ["en", "de", "ru"], timeout=20_000)
    assert "written by 'count'" in rows(panel)[0].toolTip(LANGUAGE_COLUMN)
    panel.options.set_config(TrainConfig(merges=60))
    panel.options.temperature.setValue(2.0)
    with qtbot.waitSignal(panel.trained, timeout=60_000) as blocker:
        assert panel.start()
    result = blocker.args[0]
    assert result.languages.codes == ("en", "de", "ru")
    assert result.model.config.lang == tuple(f"{c}={t}" for c, t in
                                             zip(("en", "de", "ru"), tables))
    assert all("→" in r.text(SHARE_COLUMN) for r in rows(panel))


def test_a_typed_language_is_kept_over_the_tables_label(panel, qtbot, tmp_path):
    from bpe_desktop.core.counting import count_words

    table = str(tmp_path / "ud_english.tsv")  # the name says en, the label says de
    count_words([FILES[1]], language="de").save(table)
    panel.options.word_counts.setChecked(True)
    panel.corpus.add_paths([table])
    qtbot.waitUntil(lambda: rows(panel)[0].text(2) not in ("", "…"), timeout=20_000)
    assert rows(panel)[0].text(LANGUAGE_COLUMN) == "de"  # the label wins over the name
    panel.corpus.set_word_counts(False)
    rows(panel)[0].setText(LANGUAGE_COLUMN, "nl")  # typed by the user
    panel.corpus.set_word_counts(True)
    qtbot.waitUntil(lambda: rows(panel)[0].text(2) not in ("", "…"), timeout=20_000)
    assert rows(panel)[0].text(LANGUAGE_COLUMN) == "nl"


def test_history_keeps_a_multilingual_run_s_languages_and_reruns_it(window, qtbot):
    """A parity-aware run with weights is recorded (its languages, weights and
    development set), its command gives them back, and Re-run trains it again."""
    from PySide6.QtGui import QGuiApplication

    from bpe_desktop.cli import build_parser
    from bpe_desktop.cli.options import config_from_args
    from tests.ui.test_history_panel import select, settle

    training = window.training
    training.corpus.add_paths(FILES)
    for item, w in zip(rows(training), ("1", "1", "2")):
        item.setText(WEIGHT_COLUMN, w)
    training.options.set_config(TrainConfig(merges=40))
    training.options.parity_dev.setText("; ".join(f"{c}={p}" for c, p in DEV.items()))
    training.options.parity_dev_documents.setChecked(True)
    with qtbot.waitSignal(window.document.model_changed, timeout=60_000):
        assert window.train()
    first = window.document.model
    settle(window, qtbot, 1)
    run = window.history.model.run_at(0)
    details = window.projects.project.run_details(run.id)
    assert details.config["weight"] == ["en=1", "de=1", "ru=2"]
    assert details.config["lang"] == [f"{c}={p}" for c, p in zip(("en", "de", "ru"), FILES)]
    # each input with its language, as the command line records them; the development
    # texts are read too
    assert [(i.role, i.path, i.language) for i in details.inputs] == \
        [("corpus", p, c) for c, p in zip(("en", "de", "ru"), FILES)] + \
        [("dev", str(p), "") for p in DEV.values()]
    select(window, 0)
    window.history.copy_button.click()
    argv = shlex.split(QGuiApplication.clipboard().text())[4:]  # after "cd DIR && bpe-desktop"
    assert argv[0] == "train"
    assert config_from_args(build_parser().parse_args(argv)) == first.config
    for item in rows(training):  # the form changed since: Re-run trains the run recorded
        item.setText(LANGUAGE_COLUMN, "")
        item.setText(WEIGHT_COLUMN, "")
    with qtbot.waitSignal(window.document.model_changed, timeout=60_000):
        window.history.rerun_button.click()
    assert window.document.model.merges == first.merges
    assert [item.text(WEIGHT_COLUMN) for item in rows(training)] == ["1", "1", "2"]


def test_invalid_utf8_in_a_language_continues_with_replacement_when_chosen(
        panel, qtbot, tmp_path, errors, monkeypatch):
    from bpe_desktop.ui.common import dialogs

    english, german = tmp_path / "en.txt", tmp_path / "de.txt"
    english.write_bytes(b"caf\xe9 au lait\n" * 10)
    german.write_text("die neue Welt\n" * 10, encoding="utf-8")
    panel.corpus.add_paths([str(english), str(german)])
    panel.options.set_config(TrainConfig(merges=3))
    asked = []
    monkeypatch.setattr(dialogs, "ask_action", lambda *args: asked.append(True) or True)
    with qtbot.waitSignal(panel.trained, timeout=30_000) as blocker:
        panel.start()
    assert asked == [True]
    assert "\ufffd" in blocker.args[0].model.alphabet
    assert errors == []


def test_rerun_of_a_command_line_training_with_relative_language_paths(
        window, qtbot, tmp_path, monkeypatch):
    """`train --lang en=en.txt --weight …` recorded in another folder: Re-run reads the
    files and weights it named there, so the window trains the same merges."""
    import shutil

    from bpe_desktop.cli import main
    from bpe_desktop.core.model_file import load_model
    from tests.ui.test_history_panel import select, settle

    for code, path in zip(("en", "de"), FILES):
        shutil.copy(path, tmp_path / f"{code}.txt")
    monkeypatch.chdir(tmp_path)
    assert main(["train", "--lang", "en=en.txt", "de=de.txt", "--weight", "en=1", "de=4",
                 "--merges", "40", "-o", "cli.json", "-q", "--project", "p.bpeproj"]) == 0
    monkeypatch.chdir(DATA_DIR)  # the window was started elsewhere
    window.projects.open_project(str(tmp_path / "p.bpeproj"))
    settle(window, qtbot, 1)
    select(window, 0)
    with qtbot.waitSignal(window.document.model_changed, timeout=60_000):
        window.history.rerun_button.click()
    assert window.document.model.merges == load_model(tmp_path / "cli.json").merges
    assert [item.text(WEIGHT_COLUMN) for item in rows(window.training)] == ["1", "4"]


@pytest.mark.parametrize("given_as", ["entries", "folder", "table"])
def test_a_development_file_with_invalid_utf8_is_an_error_naming_it_not_a_corpus_question(
        panel, qtbot, tmp_path, errors, monkeypatch, given_as):
    """Reading the corpus with replacement characters does not read the development texts
    so: offering it would only run the training again into the same error."""
    panel.corpus.add_paths(FILES[:2])
    folder = tmp_path / "dev"
    folder.mkdir()
    english, german = folder / "en.txt", folder / "de.txt"
    english.write_text("the new world\nall people\n", encoding="utf-8")
    german.write_bytes(b"die neue Welt\nalle M\xe4nner\n")
    entries = {"entries": f"en={english}; de={german}", "folder": str(folder)}
    if given_as == "table":
        german = tmp_path / "dev.tsv"
        german.write_bytes(b"en\tde\nthe new world\tdie neue Welt\nall people\talle M\xe4nner\n")
        entries["table"] = str(german)
        line, byte = 3, 18
    else:
        line, byte = 2, 7
    panel.options.set_config(TrainConfig(merges=20))
    panel.options.parity_dev.setText(entries[given_as])
    assert_fails_without_a_corpus_question(
        panel, qtbot, monkeypatch, errors,
        f"{german} line {line}: not valid UTF-8 (byte {byte} of the line); save the file as "
        "UTF-8")


def test_a_preset_keeps_the_languages_options(panel):
    """Balancing and the parity development set describe the corpus, not the tool a
    preset imitates: picking a preset (as `--preset` with them on the command line)
    keeps them."""
    form = panel.options
    dev = "; ".join(f"{code}={path}" for code, path in DEV.items())
    form.temperature.setValue(3.0)
    form.parity_dev.setText(dev)
    form.parity_window.setValue(40)
    for key in ("gpt2", "sentencepiece", "sennrich"):
        form.preset.setCurrentText(next(l for l, k in PRESET_LABELS.items() if k == key))
        assert form.pretokenizer.currentData() == TrainConfig.preset(key).pretokenizer
        assert form.temperature.value() == 3.0 and form.parity_window.value() == 40
        assert form.parity_dev.text() == dev


def test_a_cancelled_run_leaves_the_kept_model_s_language_curves(panel, qtbot):
    """As the merge-count plot does: the curves shown after a cancel are those of the
    model that stays, not the cancelled run's (empty or partial) ones."""
    panel.corpus.add_paths(FILES)
    panel.options.parity_dev.setText("; ".join(f"{c}={p}" for c, p in DEV.items()))
    panel.options.parity_dev_documents.setChecked(True)
    panel.options.stop_value.setValue(2000)
    with qtbot.waitSignal(panel.cancelled, timeout=60_000):
        assert panel.start()
        panel.cancel()
    assert panel.language_plot.isHidden()  # no model: nothing to plot
    panel.options.set_config(TrainConfig(merges=40))
    panel.options.parity_dev.setText("; ".join(f"{c}={p}" for c, p in DEV.items()))
    panel.options.parity_dev_documents.setChecked(True)
    with qtbot.waitSignal(panel.trained, timeout=60_000):
        assert panel.start()
    kept = panel.language_plot.curves()
    assert set(kept) == {"en", "de", "ru"}
    panel.options.stop_value.setValue(60)
    with qtbot.waitSignal(panel.cancelled, timeout=60_000):
        assert panel.start()
        panel.cancel()
    assert not panel.language_plot.isHidden()
    assert panel.language_plot.curves() == kept
    assert panel.language_plot.left_label() == "development tokens (whole document)"

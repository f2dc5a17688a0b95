"""Plain vs parity-aware in one step: from the Compare panel (the open model) or the
Training panel after a parity-aware run, the plain counterpart is trained in the worker
and both are compared on the development set, each language's cost side by side."""

from __future__ import annotations

import dataclasses

import pytest

from bpe_desktop.core import TrainConfig, load_model, save_model
from bpe_desktop.core.comparison.parity_pair import (
    language_costs,
    model_dev_set,
    train_plain_counterpart,
)
from bpe_desktop.core.counting import count_words
from bpe_desktop.core.multilingual import train_multilingual
from bpe_desktop.ui.compare import ComparePanel
from bpe_desktop.ui.compare.languages import PLAIN_NAME
from bpe_desktop.ui.training.corpus_list import LANGUAGE_COLUMN
from tests.shared_data import DATA_DIR, corpus_path, latin1_copies

pytest_plugins = ["tests.ui.window_fixtures"]

UD = {"en": corpus_path("ud_english.txt"), "ru": corpus_path("ud_russian.txt")}
UDHR = {"en": DATA_DIR / "udhr" / "eng.txt", "ru": DATA_DIR / "udhr" / "rus.txt"}


@pytest.fixture(scope="module")
def parity_model():
    config = TrainConfig(vocab_size=500, lang=tuple(f"{c}={p}" for c, p in UD.items()),
                         parity_dev=tuple(f"{c}={p}" for c, p in UDHR.items()),
                         parity_dev_documents=True)
    return train_multilingual(config).model


@pytest.fixture
def panel(qtbot):
    p = ComparePanel()
    qtbot.addWidget(p)
    return p


def cells(panel) -> dict[str, list[str]]:
    m = panel.languages.model
    return {m.rows[r][0]: [m.data(m.index(r, c)) for c in range(1, m.columnCount())]
            for r in range(m.rowCount())}


def test_one_click_trains_plain_and_shows_both_languages_costs(panel, qtbot, parity_model):
    panel.set_model(parity_model, "parity.json")
    assert panel.plain_button.isEnabled()
    with qtbot.waitSignal(panel.compared, timeout=120_000):
        panel.plain_button.click()
        assert not panel.plain_button.isEnabled()  # the worker runs; the GUI goes on
        assert panel.cancel_button.isEnabled()
    assert [s.name for s in panel.sources] == [PLAIN_NAME, "parity"]
    plain = panel.sources[0].model
    assert plain.vocab_size == parity_model.vocab_size and not plain.config.parity_dev
    assert plain.merges == train_plain_counterpart(parity_model).merges
    expected = language_costs([(PLAIN_NAME, plain), ("parity", parity_model)],
                              model_dev_set(parity_model))
    shown = cells(panel)
    for l, code in enumerate(("en", "ru")):
        # a whole document's cost is a count of tokens, written as counts are
        assert shown[code] == [f"{expected.tokens[t][l]:,}" for t in (0, 1)]
        assert "." not in shown[code][0] and "," in shown[code][0]
    assert shown["max/min"] == [f"{expected.max_min(t):.3f}" for t in (0, 1)]
    assert panel.languages.model.headers[1] == f"{PLAIN_NAME}: tokens per document"
    assert panel.results.currentWidget() is panel.languages
    # The text is the development set: comparing again keeps the language costs.
    assert panel.text_edit.toPlainText().splitlines()[0] == \
        UDHR["en"].read_text(encoding="utf-8").splitlines()[0]
    with qtbot.waitSignal(panel.compared, timeout=60_000):
        panel.compare_button.click()
    assert cells(panel) == shown


def test_a_plain_model_offers_no_plain_counterpart(panel, parity_model):
    plain = dataclasses.replace(parity_model, config=parity_model.config.replace(
        parity_dev=(), parity_dev_documents=False))
    panel.set_model(plain, "plain.json")
    assert not panel.plain_button.isEnabled()
    assert not panel.compare_with_plain()
    assert "trained parity-aware" in panel.status_label.text()


def test_a_missing_development_file_is_one_clear_error(panel, qtbot, parity_model, errors,
                                                       tmp_path):
    gone = tmp_path / "gone.txt"
    config = parity_model.config.replace(parity_dev=(f"en={gone}", f"ru={UDHR['ru']}"))
    model = dataclasses.replace(parity_model, config=config)
    with qtbot.waitSignal(panel.runner.stopped, timeout=60_000):
        assert panel.compare_with_plain(model, "broken")
    assert "gone.txt: no such development file" in errors[0][1]
    assert panel.sources == []


def test_after_a_parity_run_from_tables_training_opens_compare_with_both(window, qtbot,
                                                                         tmp_path):
    tables = []
    for code, path in UD.items():
        tables.append(str(tmp_path / f"{code}-counts.tsv"))
        count_words([path], language=code).save(tables[-1])
    training = window.training
    training.options.word_counts.setChecked(True)
    training.corpus.add_paths(tables)
    qtbot.waitUntil(lambda: [training.corpus.topLevelItem(i).text(LANGUAGE_COLUMN)
                             for i in range(2)] == ["en", "ru"], timeout=20_000)
    training.options.set_config(TrainConfig(vocab_size=400))
    training.options.parity_dev.setText("; ".join(f"{c}={p}" for c, p in UDHR.items()))
    training.options.parity_dev_documents.setChecked(True)
    assert training.compare_plain_button.isHidden()
    with qtbot.waitSignal(training.trained, timeout=120_000):
        assert training.start()
    assert not training.compare_plain_button.isHidden()
    with qtbot.waitSignal(window.compare.compared, timeout=120_000):
        training.compare_plain_button.click()
    assert window.tabs.currentWidget() is window.compare
    names = [s.name for s in window.compare.sources]
    assert names == [PLAIN_NAME, "parity-aware BPE"]
    plain = window.compare.sources[0].model
    assert plain.config.lang == window.document.model.config.lang
    assert plain.vocab_size == window.document.model.vocab_size
    assert set(cells(window.compare)) >= {"en", "ru", "max/min", "Gini", "total tokens"}


def test_after_a_parity_run_reading_invalid_utf8_as_replacement_so_does_plain(window, qtbot,
                                                                             tmp_path):
    files = [str(p) for p in latin1_copies(UD, tmp_path, line=3).values()]
    training = window.training
    training.corpus.add_paths(files)
    qtbot.waitUntil(lambda: [training.corpus.topLevelItem(i).text(LANGUAGE_COLUMN)
                             for i in range(2)] == ["en", "ru"], timeout=20_000)
    training.options.set_config(TrainConfig(vocab_size=300))
    training.options.errors.setCurrentIndex(training.options.errors.findData("replace"))
    training.options.parity_dev.setText("; ".join(f"{c}={p}" for c, p in UDHR.items()))
    training.options.parity_dev_documents.setChecked(True)
    with qtbot.waitSignal(training.trained, timeout=120_000):
        assert training.start()
    with qtbot.waitSignal(window.compare.compared, timeout=120_000):
        training.compare_plain_button.click()
    plain = window.compare.sources[0].model
    assert "\ufffd" in plain.alphabet
    assert plain.merges == train_plain_counterpart(window.document.model,
                                                   errors="replace").merges


def test_plain_vs_parity_on_an_opened_model_reads_as_its_file_records(panel, qtbot,
                                                                       tmp_path):
    lang = tuple(f"{c}={p}" for c, p in latin1_copies(UD, tmp_path, line=3).items())
    config = TrainConfig(vocab_size=300, lang=lang, parity_dev_documents=True,
                         parity_dev=tuple(f"{c}={p}" for c, p in UDHR.items()))
    save_model(train_multilingual(config, errors="replace").model, tmp_path / "p.json")
    panel.set_model(load_model(tmp_path / "p.json"), "p.json")  # corpus: "replace"
    with qtbot.waitSignal(panel.compared, timeout=120_000):
        panel.plain_button.click()
    assert "\ufffd" in panel.sources[0].model.alphabet


def test_cancel_keeps_the_panel_as_it_was(panel, qtbot, parity_model):
    panel.set_model(parity_model, "parity.json")
    assert panel.add_current()
    with qtbot.waitSignal(panel.runner.stopped, timeout=60_000):
        assert panel.compare_with_plain()
        panel.cancel_button.click()
    assert [s.name for s in panel.sources] == ["parity"]
    assert panel.comparison is None and panel.parallel is None
    assert "cancelled" in panel.status_label.text()
    assert panel.plain_button.isEnabled()


def test_the_languages_table_exports_the_numbers_it_shows(panel, tmp_path, monkeypatch):
    """Tokens per line by hand: 3 lines; en 3 and 6 tokens, de 4 and 5 under A and B."""
    import csv

    from bpe_desktop.core.comparison.parity_pair import LanguageCosts
    from bpe_desktop.ui.common import dialogs

    costs = LanguageCosts(("en", "de"), ("A", "B"), 3, False, ((3, 4), (6, 5)))
    view = panel.languages
    assert not view.export_button.isEnabled()
    view.show_costs(costs)
    assert cells(panel) == {"en": ["1.00", "2.00"], "de": ["1.33", "1.67"],
                            "max/min": ["1.333", "1.200"], "Gini": ["0.0714", "0.0455"],
                            "total tokens": ["7", "11"]}
    path = tmp_path / "costs.csv"
    monkeypatch.setattr(dialogs, "ask_save_path", lambda *args, **kwargs: str(path))
    view.export_button.click()
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["language", "A: tokens per line", "B: tokens per line"]
    table = {row[0]: [float(v) for v in row[1:]] for row in rows[1:]}
    expected = {"en": [1.0, 2.0], "de": [4 / 3, 5 / 3], "max/min": [4 / 3, 1.2],
                "Gini": [1 / 14, 1 / 22], "total tokens": [7, 11]}
    assert table == {k: pytest.approx(v, rel=1e-15) for k, v in expected.items()}
    # the command line's --json has the same numbers
    json_b = costs.to_json()["tokenizers"][1]
    assert [json_b["cost_per_unit"]["de"], json_b["max_min"], json_b["gini"]] == \
        [table["de"][1], table["max/min"][1], table["Gini"][1]]


def test_the_languages_are_listed_in_the_training_s_order(panel, qtbot, parity_model,
                                                          tmp_path, monkeypatch):
    """Russian trained first, English second, on a development folder (listed
    alphabetically, eng before rus): the table and its CSV list ru, then en."""
    import csv

    from bpe_desktop.ui.common import dialogs

    config = parity_model.config.replace(lang=(f"ru={UD['ru']}", f"en={UD['en']}"),
                                         parity_dev=(str(DATA_DIR / "udhr"),))
    model = dataclasses.replace(parity_model, config=config)
    with qtbot.waitSignal(panel.compared, timeout=120_000):
        assert panel.compare_with_plain(model, "parity")
    assert list(cells(panel))[:2] == ["ru", "en"]
    path = tmp_path / "costs.csv"
    monkeypatch.setattr(dialogs, "ask_save_path", lambda *args, **kwargs: str(path))
    panel.languages.export_button.click()
    with open(path, newline="", encoding="utf-8") as fh:
        assert [row[0] for row in csv.reader(fh)][1:3] == ["ru", "en"]

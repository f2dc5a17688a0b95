"""Save As proposes a name from the corpus and the vocabulary size, in the last-used folder."""

from __future__ import annotations

from PySide6.QtWidgets import QFileDialog

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.ui.common import dialogs
from bpe_desktop.ui.common.settings import Settings
from bpe_desktop.ui.window.document import ModelDocument

pytest_plugins = ["tests.ui.window_fixtures"]


def test_save_as_proposes_corpus_stem_and_vocabulary_size(window, qtbot, ui, tmp_path):
    window.training.load_example(window.training.example("botchan"))
    with qtbot.waitSignal(window.document.model_changed, timeout=60_000):
        assert window.train()
    size = window.document.model.config.vocab_size  # the size asked for
    assert size == 2000
    ui.save_path = None  # cancelled
    assert window.save_as() is False
    assert ui.suggested_names == [f"botchan-{size}.json"]
    # once saved, Save As proposes the file's own name
    ui.save_path = str(tmp_path / "mine.json")
    assert window.save_as() is True
    ui.save_path = None
    window.save_as()
    assert ui.suggested_names[-1] == "mine.json"


def test_names_for_other_corpora(qapp, tmp_path):
    gz = tmp_path / "Wiki dump (en).txt.gz"
    import gzip

    with gzip.open(gz, "wt", encoding="utf-8") as f:
        f.write("low lower lowest newer newest\n" * 5)
    doc = ModelDocument()
    doc.set_trained(train(Corpus.from_files([str(gz)]), TrainConfig(merges=3)))
    # no size asked for (a merge count): the size reached
    assert doc.suggested_file_name() == f"Wikidumpen-{doc.model.vocab_size}.json"
    doc.set_trained(train(Corpus.from_files([str(gz)]), TrainConfig(vocab_size=8000)))
    assert doc.model.vocab_size < 8000
    assert doc.suggested_file_name() == "Wikidumpen-8000.json"
    doc.set_trained(train(Corpus.from_word_counts({"low": 5, "lower": 2}),
                          TrainConfig(merges=2)))
    assert doc.suggested_file_name() == f"model-{doc.model.vocab_size}.json"


def test_the_chooser_starts_in_the_last_used_folder(qapp, monkeypatch, tmp_path):
    folder = tmp_path / "models"
    folder.mkdir()
    Settings().set_last_folder("model", str(folder / "earlier.json"))
    started = []

    def chooser(parent, title, start, filters):
        started.append(start)
        return "", ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", chooser)
    assert dialogs.ask_save_path(None, "Save model as", "model", "*.json",
                                 "botchan-8000.json") is None
    assert started == [f"{folder}/botchan-8000.json"]

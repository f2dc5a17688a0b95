"""Protected strings in the app: typed or loaded in the Training form's constraints
section, trained in the worker, and marked in the Vocabulary browser."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.views.vocab_table import COL_KIND, COL_PIECE
from bpe_desktop.ui.training.options import TrainingOptions
from bpe_desktop.ui.training.panel import TrainingPanel
from bpe_desktop.ui.vocabulary.panel import VocabPanel
from bpe_desktop.ui.vocabulary.table_model import VocabTableModel

TEXT = "I love New York and New Yorkers . C++ and C# here\n" * 5


def test_typed_and_loaded_strings_reach_the_config(qtbot, tmp_path, monkeypatch):
    form = TrainingOptions()
    qtbot.addWidget(form)
    form.protected.setPlainText("New York\n\nC++\nNew York")
    assert form.config().protected == ("New York", "C++")
    listed = tmp_path / "p.txt"
    listed.write_text("e.g.\nC++\n", encoding="utf-8")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(listed), ""))
    form._editors["protected"].row.itemAt(1).widget().click()
    assert form.config().protected == ("New York", "C++", "e.g.")
    warnings = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a: warnings.append(a[2]))
    listed.write_bytes(b"\xff\n")
    form._editors["protected"].row.itemAt(1).widget().click()
    assert "p.txt line 1" in warnings[0]
    assert form.config().protected == ("New York", "C++", "e.g.")  # nothing lost
    form.separator.setText("+")
    try:
        form.config()
    except Exception as exc:  # noqa: BLE001 - the form's own error, shown by the panel
        assert "separator '+' occurs in the protected string 'C++'" in str(exc)
    else:
        raise AssertionError("a separator inside a protected string was accepted")


def test_training_panel_trains_with_protected_strings(qtbot, tmp_path):
    panel = TrainingPanel()
    qtbot.addWidget(panel)
    panel.train_requested.connect(panel.start)
    corpus = tmp_path / "c.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    panel.corpus.add_paths([str(corpus)])
    panel.options.set_config(TrainConfig(merges=15, protected=("New York", "C++")))
    with qtbot.waitSignal(panel.trained, timeout=60_000) as blocker:
        qtbot.mouseClick(panel.train_button, Qt.MouseButton.LeftButton)
    model = blocker.args[0].model
    assert model.pieces[1:3] == ("New York", "C++")
    assert "protected strings ('New York', 'C++')" in panel.log_view.toPlainText()
    assert "never occur" not in panel.log_view.toPlainText()
    panel.options.set_config(TrainConfig(merges=15, protected=("New York", "C+++")))
    with qtbot.waitSignal(panel.trained, timeout=60_000):
        qtbot.mouseClick(panel.train_button, Qt.MouseButton.LeftButton)
    assert "Warning: the protected string 'C+++' never occurs in the corpus, so its token " \
           "is never used (check spelling, case and spaces)." in panel.log_view.toPlainText()
    panel.shutdown()


def test_vocabulary_browser_marks_protected_tokens(qtbot):
    model = train(Corpus.from_texts([TEXT]),
                  TrainConfig(merges=15, protected=("New York", "C++"))).model
    table = VocabTableModel()
    table.set_bpe_model(model)
    kinds = {model.pieces[table.token_id(r)]: table.index(r, COL_KIND).data()
             for r in range(table.rowCount())}
    assert kinds["New York"] == "protected" and kinds["C++"] == "protected"
    assert kinds["<unk>"] == "special" and kinds["e"] == "base"
    row = table.row_of(model.piece_to_id("New York"))
    assert table.index(row, COL_PIECE).data() == "New␣York"  # spaces shown as ␣
    tip = table.index(row, COL_PIECE).data(Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith("Protected string")
    assert table.index(row, COL_PIECE).data(Qt.ItemDataRole.FontRole).italic()

    panel = VocabPanel()
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.ready, timeout=60_000):
        panel.set_model(model)
    assert panel.select_token(model.piece_to_id("C++"))
    assert "protected" in panel.token_label.text()


def test_the_form_remembers_the_strings(qtbot):
    form = TrainingOptions()
    qtbot.addWidget(form)
    form.protected.setPlainText("New York\nC++")
    saved = form.to_dict()
    other = TrainingOptions()
    qtbot.addWidget(other)
    other.from_dict(saved)
    assert other.config().protected == ("New York", "C++")

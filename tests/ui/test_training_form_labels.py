"""The Training panel's form labels: each mnemonic reaches its field (Alt+letter), and a
row that does not apply is hidden with its label."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QFormLayout, QLabel

from bpe_desktop.ui.training.panel import TrainingPanel
from bpe_desktop.ui.training.start_from import EXISTING, NEW_VOCABULARY


@pytest.fixture
def panel(qtbot):
    widget = TrainingPanel()
    qtbot.addWidget(widget)
    widget.show()
    yield widget
    widget.shutdown()


def row_labels(form: QFormLayout) -> list[QLabel]:
    labels = []
    for row in range(form.rowCount()):
        item = form.itemAt(row, QFormLayout.ItemRole.LabelRole)
        if item is not None and isinstance(item.widget(), QLabel):
            labels.append(item.widget())
    return labels


def test_every_mnemonic_of_the_options_form_reaches_its_field(panel):
    labels = [l for l in row_labels(panel.options.layout()) if "&" in l.text()]
    names = {l.text() for l in labels}
    # The rows whose field is a text box with a button (files, protected strings).
    assert {"&Gold boundaries:", "&Protected strings:", "BPE-&knockout gold:",
            "Morfessor &annotations:", "&Parity development set:"} <= names
    no_buddy = [l.text() for l in labels if l.buddy() is None]
    assert no_buddy == []
    protected = next(l for l in labels if l.text() == "&Protected strings:")
    assert protected.buddy() is panel.options.protected


def test_start_from_shows_the_extension_rows_only_when_extending(panel):
    box = panel.start_from
    form = box.layout()

    def texts() -> list[str]:
        return [label.text() for label in row_labels(form) if label.isVisible()]

    assert box.choice.currentText() == NEW_VOCABULARY
    assert texts() == ["Start fr&om:"]
    assert row_labels(form)[0].buddy() is box.choice
    box.choice.setCurrentText(EXISTING)
    assert texts() == ["Start fr&om:", "Tokenizer:", "Learn:", "&Unknown characters:",
                       "New token &ids:", "Report on:"]
    assert box.choose_button.isVisible() and box.stop_value.isVisible()
    box.choice.setCurrentText(NEW_VOCABULARY)
    assert texts() == ["Start fr&om:"]
    assert not box.choose_button.isVisible()


def test_options_no_format_can_hold_say_so(panel):
    """Protected strings with the papers' </w> symbol: no format can be written."""
    panel.options.protected.setPlainText("New York")
    text = panel.options.reach_label.text()
    assert text.startswith("Exports as no other tool's format (saved as a BPE Desktop "
                           "model only); not as: Hugging Face tokenizer.json, ")
    assert "Exports as: ;" not in text


def test_the_export_line_stays_with_language_options(panel):
    """Temperature or a development set need the corpus list's languages to form a
    configuration; the formats a model can be written in are told all the same."""
    options = panel.options
    plain = options.reach_label.text()
    assert plain.startswith("Exports as: ")
    options.temperature.setValue(3.0)
    options.parity_dev.setText("en=dev.en; de=dev.de")
    assert options.reach_label.text() == plain


def test_each_section_heading_covers_only_its_options(panel):
    """The corpus-reading and run options are not under the Languages heading."""
    form = panel.options.layout()
    headings, under = [], {}
    for row in range(form.rowCount()):
        span = form.itemAt(row, QFormLayout.ItemRole.SpanningRole)
        if span is not None and isinstance(span.widget(), QLabel):
            headings.append(span.widget().text())
            continue
        field = form.itemAt(row, QFormLayout.ItemRole.FieldRole)
        if headings and field is not None and field.widget() is not None:
            under[field.widget()] = headings[-1]
    assert headings == ["<b>Linguistic constraints</b>", "<b>Languages</b>",
                        "<b>Reading and running</b>"]
    options = panel.options
    assert under[options.temperature] == under[options.parity_dev_documents] == \
        "<b>Languages</b>"
    for widget in (options.word_counts, options.errors, options.threads):
        assert under[widget] == "<b>Reading and running</b>"

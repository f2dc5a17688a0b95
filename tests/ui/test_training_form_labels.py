"""The Training panel's form labels: each mnemonic reaches its field (Alt+letter), every
field is reached by Tab in the form's order, and a row that does not apply is hidden with
its label."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFormLayout, QLabel, QWidget

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


def test_every_label_of_the_options_form_names_its_field(panel):
    """Its mnemonic (if it has one) reaches the field, and a screen reader tells the field
    by it; the rows whose field is a text box with a button (files, protected strings)
    get no buddy from the layout."""
    labels = [l for l in row_labels(panel.options.layout()) if l.text()]
    names = {l.text() for l in labels}
    assert {"Gold boundaries:", "Protected strings:", "BPE-knockout gold:",
            "Morfessor annotations:", "Parity development set:"} <= names
    no_buddy = [l.text() for l in labels if l.buddy() is None]
    assert no_buddy == []
    protected = next(l for l in labels if l.text() == "Protected strings:")
    assert protected.buddy() is panel.options.protected


def form_fields(form: QFormLayout) -> list[QWidget]:
    """The editors of the form in the order of its rows (of a field with a button, the
    field): every widget Tab should stop at, top to bottom."""
    fields = []
    for row in range(form.rowCount()):
        item = form.itemAt(row, QFormLayout.ItemRole.FieldRole)
        if item is None:
            continue
        widgets = [item.widget()] if item.widget() is not None else [
            item.layout().itemAt(i).widget() for i in range(item.layout().count())]
        fields += [w for w in widgets if w is not None
                   and w.focusPolicy() & Qt.FocusPolicy.TabFocus]
    return fields


@pytest.fixture
def active(panel, qtbot):
    with qtbot.waitActive(panel):
        panel.activateWindow()
    return panel


def owner(widget: QWidget, candidates: list[QWidget]) -> QWidget | None:
    """The candidate that is ``widget`` or holds it (a spin box holds its text field)."""
    while widget is not None and widget not in candidates:
        widget = widget.parentWidget()
    return widget


def tabbed_through(qtbot, fields: list[QWidget]) -> list[QWidget]:
    """The fields Tab reaches from the first, in order, until every one was reached (or
    it went around three times)."""
    fields[0].setFocus()
    reached = [fields[0]]
    for _ in range(3 * len(fields)):  # (a spin box takes two presses: its text, then out)
        if len(reached) == len(fields):
            break
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        field = owner(QApplication.focusWidget(), fields)
        assert field is not None, QApplication.focusWidget()
        if field is not reached[-1]:
            reached.append(field)
            # The options' scroll area follows the focus: the field is on screen.
            assert not field.visibleRegion().isEmpty(), field
    return reached


def test_tab_reaches_every_option_in_the_order_of_the_form_and_shows_it(active, qtbot):
    options = active.options
    fields = form_fields(options.layout())
    assert len(fields) > 30 and options.keep_words in fields
    assert tabbed_through(qtbot, fields) == fields


def test_tab_reaches_the_extension_rows_in_their_order(active, qtbot):
    box = active.start_from
    box.choice.setCurrentText(EXISTING)
    fields = form_fields(box.layout())
    assert fields[0] is box.choice and box.choose_button in fields and len(fields) == 7
    qtbot.waitUntil(lambda: not fields[-1].visibleRegion().isEmpty())  # (laid out)
    assert tabbed_through(qtbot, fields) == fields


#: The fields set for nearly every run; Alt and their letter reaches each, and no other.
MOST_USED = ("preset", "stop", "min_frequency", "pretokenizer", "boundary", "special_tokens",
             "word_counts")


def test_the_most_used_fields_have_a_letter_of_their_own(active, qtbot):
    from PySide6.QtWidgets import QAbstractButton

    options = active.options
    labels = {l.buddy(): l.text() for l in active.findChildren(QLabel)
              if l.buddy() is not None and l.isVisible()}
    texts = {**labels, **{b: b.text() for b in active.findChildren(QAbstractButton)
                          if b.isVisible() and "&" in b.text()}}
    letters = [t[t.index("&") + 1].lower() for t in texts.values() if "&" in t]
    for field in [getattr(options, name) for name in MOST_USED] + [active.start_from.choice]:
        letter = texts[field][texts[field].index("&") + 1].lower()
        assert letters.count(letter) == 1, (texts[field], letter)
        active.log_view.setFocus()
        qtbot.keyClick(QApplication.focusWidget(), letter, Qt.KeyboardModifier.AltModifier)
        assert owner(QApplication.focusWidget(), [field]) is field, texts[field]
    # A check box's own letter ticks it, as a click would.
    qtbot.waitUntil(options.word_counts.isChecked)


def test_start_from_shows_the_extension_rows_only_when_extending(panel):
    box = panel.start_from
    form = box.layout()

    def texts() -> list[str]:
        return [label.text() for label in row_labels(form) if label.isVisible()]

    assert box.choice.currentText() == NEW_VOCABULARY
    assert texts() == ["Start fro&m:"]
    assert row_labels(form)[0].buddy() is box.choice
    box.choice.setCurrentText(EXISTING)
    assert texts() == ["Start fro&m:", "To&kenizer:", "Le&arn:", "&Unknown characters:",
                       "New token &ids:", "Report o&n:"]
    assert box.choose_button.isVisible() and box.stop_value.isVisible()
    box.choice.setCurrentText(NEW_VOCABULARY)
    assert texts() == ["Start fro&m:"]
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

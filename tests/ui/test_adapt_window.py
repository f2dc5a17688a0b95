"""The window after an extension (new tokens marked and filterable in the Vocabulary
browser) and File ▸ Trim vocabulary… (files written in a worker, the target text
segmented as before, the trimmed model current)."""

from __future__ import annotations

import gzip
import json
import os
import shlex
import threading

from bpe_desktop.core import Corpus, TrainConfig, train
from bpe_desktop.core.model_file import save_model
from bpe_desktop.ui.training.start_from import EXISTING, NEW_VOCABULARY
from tests.ui.window_helpers import held_back, train_toy

#: The ``ui`` (recorded dialogs) and ``window`` fixtures.
pytest_plugins = ["tests.ui.window_fixtures"]

ENGLISH = "the lower the newer the lowest the widest " * 20
OTHER = "жаба жало жар жара жаба жало " * 20


def _extend_in_window(window, qtbot, tmp_path):
    source = train(Corpus.from_texts([ENGLISH]),
                   TrainConfig(merges=10, min_frequency=1)).model
    save_model(source, tmp_path / "source.json")
    corpus = tmp_path / "other.txt"
    corpus.write_text(OTHER, encoding="utf-8")
    panel = window.training
    panel.corpus.add_paths([str(corpus)])
    panel.start_from.choice.setCurrentText(EXISTING)
    assert panel.start_from.set_source(str(tmp_path / "source.json"))
    panel.start_from.stop_value.setValue(5)
    with qtbot.waitSignal(window.document.model_changed, timeout=30_000):
        assert window.train()
    return source, window.document.model


def _trim_in(dialog, qtbot, target, tmp_path):
    """Trim in the dialog to ``target``, writing trimmed.json and map.json; the result."""
    dialog.set_targets([str(target)])
    dialog.output.setText(str(tmp_path / "trimmed.json"))
    dialog.id_map.setText(str(tmp_path / "map.json"))
    with qtbot.waitSignal(dialog.trimmed, timeout=60_000) as blocker:
        assert dialog.start()
    return blocker.args[0]


def test_new_tokens_are_marked_and_filterable(window, qtbot, tmp_path, ui):
    source, model = _extend_in_window(window, qtbot, tmp_path)
    vocab = window.vocab
    qtbot.waitUntil(lambda: not vocab.is_loading(), timeout=10_000)
    assert model.vocab_size > source.vocab_size and vocab.new_check.isVisibleTo(vocab)
    vocab.new_check.setChecked(True)
    qtbot.waitUntil(lambda: not vocab.is_filtering(), timeout=10_000)
    shown = sorted(vocab.table_model.visible_ids().tolist())
    assert shown == list(range(source.vocab_size, model.vocab_size))
    assert vocab.is_new(shown[0]) and not vocab.is_new(source.vocab_size - 1)
    train_toy(window, qtbot)  # another model: nothing is new any more
    assert not vocab.new_check.isVisibleTo(vocab) and not vocab.new_check.isChecked()
    assert ui.errors == []


def test_trim_vocabulary_writes_the_model_and_the_map(window, qtbot, tmp_path, ui):
    assert not window.trim_action.isEnabled()
    model = train_toy(window, qtbot)
    assert window.trim_action.isEnabled()
    target = tmp_path / "target.txt"
    target.write_text("low lower\n", encoding="utf-8")
    dialog = window.ask_trim()
    result = _trim_in(dialog, qtbot, target, tmp_path)
    mapping = json.loads((tmp_path / "map.json").read_text(encoding="utf-8"))
    assert {int(k): v for k, v in mapping.items()} == result.id_map
    assert (tmp_path / "map.csv").is_file() and (tmp_path / "trimmed.json").is_file()
    back = {new: old for old, new in result.id_map.items()}
    trimmed = window.document.model
    assert trimmed is result.model and trimmed.vocab_size < model.vocab_size
    assert [back[i] for i in trimmed.tokenizer().encode("low lower")] == \
        list(model.tokenizer().encode("low lower"))
    assert "Kept" in dialog.status.text() and ui.errors == []
    dialog.close()


def test_a_trim_that_drops_the_unknown_token_says_what_tokenizer_json_does(window, qtbot,
                                                                           tmp_path, ui):
    result = train(Corpus.from_texts([ENGLISH]),
                   TrainConfig.preset("subword-nmt", merges=10, min_frequency=1))
    window.document.set_trained(result)
    target = tmp_path / "target.txt"
    target.write_text("the lower\n", encoding="utf-8")
    dialog = window.ask_trim()
    dialog.format.setCurrentIndex(dialog.format.findData("hf"))
    dialog.keep_specials.setChecked(False)  # <unk> is never produced: it goes
    trimmed = _trim_in(dialog, qtbot, target, tmp_path)
    assert "<unk>" not in trimmed.model.pieces
    assert "Note: This model has no unknown token" in dialog.status.text()
    assert ui.errors == []
    dialog.close()


def test_history_records_a_trim_as_the_trim_command_does(window, qtbot, tmp_path, ui):
    from PySide6.QtGui import QGuiApplication

    from tests.ui.test_history_panel import select, settle

    model = train_toy(window, qtbot)
    save_model(model, tmp_path / "toy.json")
    assert window.open_path(str(tmp_path / "toy.json"))
    settle(window, qtbot, 1)
    target = tmp_path / "target.txt"
    target.write_text("low lower\n", encoding="utf-8")
    result = _trim_in(window.ask_trim(), qtbot, target, tmp_path)
    settle(window, qtbot, 2)
    run = window.history.model.run_at(0)
    assert run.kind == "trim"
    details = window.projects.project.run_details(run.id)
    assert details.config == {"format": "model", "out_format": "model",
                              "drop_alphabet": False, "drop_specials": False}
    assert sorted((i.role, os.path.basename(i.path)) for i in details.inputs) == \
        [("model", "toy.json"), ("text", "target.txt")]
    metrics = {m.metric: m.value for m in details.metrics}
    assert metrics["dropped_tokens"] == model.vocab_size - result.model.vocab_size > 0
    assert metrics["vocab_size"] == result.model.vocab_size
    assert details.model_path == str(tmp_path / "trimmed.json")
    select(window, 0)
    window.history.copy_button.click()
    words = shlex.split(QGuiApplication.clipboard().text())
    assert words[4:] == ["trim", "-m", str(tmp_path / "toy.json"), "--format", "model",
                         "--text", str(target), "--id-map", str(tmp_path / "map.json"),
                         "-o", str(tmp_path / "trimmed.json"), "--out-format", "model"]
    assert ui.errors == []


def test_a_trim_of_an_unsaved_model_keeps_the_trimmed_model_in_the_project(window, qtbot,
                                                                          tmp_path, ui):
    from tests.ui.test_history_panel import settle

    train_toy(window, qtbot)
    settle(window, qtbot, 1)
    target = tmp_path / "target.txt"
    target.write_text("low lower\n", encoding="utf-8")
    dialog = window.ask_trim()
    dialog.format.setCurrentIndex(1)  # a peer's format: no model file History could open
    assert dialog.format.currentData() != "model"
    result = _trim_in(dialog, qtbot, target, tmp_path)
    settle(window, qtbot, 2)
    details = window.projects.project.run_details(window.history.model.run_at(0).id)
    assert [i.role for i in details.inputs] == ["text"]  # no file held the model
    assert details.model_path is None and details.has_stored_model
    window.projects.open_model(details.summary.id)
    assert window.document.model.merges == result.model.merges and ui.errors == []


def test_trim_refuses_missing_choices_and_bad_text_writes_nothing(window, qtbot, tmp_path,
                                                                   ui):
    train_toy(window, qtbot)
    dialog = window.ask_trim()
    assert not dialog.start()
    assert ui.errors[-1][0] == "Cannot trim" and "target texts" in ui.errors[-1][1]
    empty = tmp_path / "empty.txt"
    empty.write_text("\n", encoding="utf-8")
    dialog.set_targets([str(empty)])
    dialog.output.setText(str(tmp_path / "t.json"))
    dialog.id_map.setText(str(tmp_path / "m.json"))
    assert dialog.start()
    qtbot.waitUntil(lambda: not dialog.running, timeout=10_000)
    qtbot.waitUntil(lambda: len(ui.errors) == 2, timeout=10_000)
    assert "empty" in ui.errors[-1][1]
    assert not (tmp_path / "t.json").exists() and not (tmp_path / "m.json").exists()
    dialog.close()


def test_trim_reads_gzip_targets_and_names_a_bad_byte_by_file_and_line(window, qtbot,
                                                                        tmp_path, ui):
    model = train_toy(window, qtbot)
    packed = tmp_path / "target.txt.gz"  # the chooser offers .gz, as every text reader
    packed.write_bytes(gzip.compress(b"low lower\n"))
    result = _trim_in(window.ask_trim(), qtbot, packed, tmp_path)
    assert result.source_size == model.vocab_size and ui.errors == []
    trimmed = window.document.model
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"low\nlower caf\xe9\n")
    dialog = window.ask_trim()
    dialog.set_targets([str(bad)])
    dialog.output.setText(str(tmp_path / "again.json"))
    dialog.id_map.setText(str(tmp_path / "again-map.json"))
    assert dialog.start()
    qtbot.waitUntil(lambda: bool(ui.errors), timeout=10_000)
    assert ui.errors == [("Cannot trim", (f"{bad} line 2: not valid UTF-8 (byte 10 of the "
                                          "line); save the file as UTF-8"))]
    assert window.document.model is trimmed
    assert not (tmp_path / "again.json").exists() and not (tmp_path / "again-map.json").exists()
    dialog.close()


def test_closing_the_window_while_it_trims_stops_the_trim_and_writes_nothing(qtbot, ui,
                                                                             tmp_path,
                                                                             monkeypatch):
    from bpe_desktop.ui.window import trim_dialog
    from bpe_desktop.ui.window.main_window import MainWindow

    trimming, go_on = threading.Event(), threading.Event()

    def slow_trim(*args, **kwargs):  # the trim of a large model, still working at close
        trimming.set()
        go_on.wait(10)
        return real_trim(*args, **kwargs)

    real_trim = trim_dialog.trim
    monkeypatch.setattr(trim_dialog, "trim", slow_trim)
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    model = train_toy(window, qtbot)
    target = tmp_path / "target.txt"
    target.write_text("low lower\n", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    dialog = window.ask_trim()
    dialog.set_targets([str(target)])
    dialog.output.setText(str(out / "trimmed.json"))
    dialog.id_map.setText(str(out / "map.json"))
    assert dialog.start()
    assert trimming.wait(10)
    threading.Timer(0.3, go_on.set).start()  # the trim ends while the window closes
    assert window.close_discarding()
    assert not dialog.running  # waited for: no thread outlives the window
    assert list(out.iterdir()) == [] and window.document.model is model


def test_a_trim_ending_after_a_newer_training_leaves_the_new_model_open(window, qtbot, ui,
                                                                         tmp_path, monkeypatch):
    from bpe_desktop.ui.window import trim_dialog

    go_on = held_back(monkeypatch, trim_dialog, "trim")
    train_toy(window, qtbot)
    target = tmp_path / "target.txt"
    target.write_text("low lower\n", encoding="utf-8")
    dialog = window.ask_trim()
    dialog.set_targets([str(target)])
    dialog.output.setText(str(tmp_path / "trimmed.json"))
    dialog.id_map.setText(str(tmp_path / "map.json"))
    assert dialog.start()
    newer = train_toy(window, qtbot)  # trained while the older model is trimmed
    with qtbot.waitSignal(dialog.trimmed, timeout=10_000):
        go_on.set()
    assert window.document.model is newer and window.document.dirty
    assert (tmp_path / "trimmed.json").is_file()
    assert window.statusBar().full_message() == (
        f"The trimmed model is in {tmp_path / 'trimmed.json'}; it was not opened, as another "
        "model has been opened since.")
    dialog.close()


def _trim_dialog_of_import(window, qtbot, tmp_path, source):
    """File ▸ Import of the tokenizer.json ``source``, then File ▸ Trim: the dialog, a
    target text file and its lines."""
    from tests.peer_sources import english_lines

    with qtbot.waitSignal(window.interop.done, timeout=60_000):
        assert window.interop.import_path("hf", str(source))
    target = tmp_path / "target.txt"
    lines = english_lines()[:50]
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return window.ask_trim(), target, lines


def test_trimming_an_imported_tokenizer_json_rewrites_that_file(window, qtbot, tmp_path, ui):
    from tokenizers import Tokenizer

    from tests.peer_sources import roberta_tokenizer_json

    source = roberta_tokenizer_json(tmp_path)
    dialog, target, lines = _trim_dialog_of_import(window, qtbot, tmp_path, source)
    assert dialog.format.currentData() == "hf"  # the source's own format first
    assert dialog.format.currentText() == "Hugging Face tokenizer.json"
    assert dialog.format.itemText(dialog.format.count() - 1) == \
        "transformers folder (AutoTokenizer)"
    result = _trim_in(dialog, qtbot, target, tmp_path)
    written = json.loads((tmp_path / "trimmed.json").read_text(encoding="utf-8"))
    # the post-processor the import cannot express is kept, its ids renumbered
    assert written["post_processor"]["type"] == "TemplateProcessing"
    trimmed, original = Tokenizer.from_file(str(tmp_path / "trimmed.json")), \
        Tokenizer.from_file(str(source))
    back = {new: old for old, new in result.id_map.items()}
    for line in lines[:10]:
        ids = trimmed.encode(line).ids
        assert [back[i] for i in ids] == original.encode(line).ids
        assert trimmed.id_to_token(ids[0]) == "<s>" and trimmed.id_to_token(ids[-1]) == "</s>"
    assert ui.errors == []
    dialog.close()


def test_trimming_an_imported_llama_style_tokenizer_json_offers_its_own_format(
        window, qtbot, tmp_path, ui):
    """Converted from sentencepiece, its merges cannot make a new tokenizer.json, but the
    source file rewritten can be written, in a transformers folder too."""
    from tokenizers import Tokenizer

    from tests.peer_sources import llama_style_tokenizer_json

    source = llama_style_tokenizer_json(tmp_path, legacy=True)
    dialog, target, lines = _trim_dialog_of_import(window, qtbot, tmp_path, source)
    offered = [dialog.format.itemData(i) for i in range(dialog.format.count())]
    assert dialog.format.currentData() == "hf" and "transformers" in offered
    result = _trim_in(dialog, qtbot, target, tmp_path)
    trimmed, original = Tokenizer.from_file(str(tmp_path / "trimmed.json")), \
        Tokenizer.from_file(str(source))
    back = {new: old for old, new in result.id_map.items()}
    for line in lines:
        assert [back[i] for i in trimmed.encode(line).ids] == original.encode(line).ids
    assert ui.errors == []
    dialog.close()


def test_the_trim_dialog_names_the_formats_by_their_labels(window, qtbot):
    train_toy(window, qtbot)
    dialog = window.ask_trim()
    shown = [dialog.format.itemText(i) for i in range(dialog.format.count())]
    assert shown[:2] == ["BPE Desktop model", "subword-nmt codes"]
    assert [dialog.format.itemData(i) for i in range(2)] == ["model", "subword-nmt"]
    dialog.close()


def test_the_trim_dialog_shows_whole_paths(window, qtbot):
    train_toy(window, qtbot)
    dialog = window.ask_trim()
    qtbot.waitExposed(dialog)
    for edit in (dialog.output, dialog.id_map):
        metrics = edit.fontMetrics()
        assert edit.width() >= metrics.horizontalAdvance(edit.placeholderText()) + 12
        edit.setText("/home/linguist/models/trimmed/tokenizer.json")
        assert edit.width() >= metrics.horizontalAdvance(edit.text()) + 12
    dialog.close()


def test_history_records_an_extension_and_reruns_it(window, qtbot, tmp_path, ui):
    from PySide6.QtGui import QGuiApplication

    from tests.ui.test_history_panel import select, settle

    _, extended = _extend_in_window(window, qtbot, tmp_path)
    settle(window, qtbot, 1)
    run = window.history.model.run_at(0)
    assert run.kind == "extend"
    details = window.projects.project.run_details(run.id)
    assert details.config["merges"] == 5 and details.config["unknown"] == "add"
    assert sorted((i.role, os.path.basename(i.path)) for i in details.inputs) == \
        [("corpus", "other.txt"), ("model", "source.json")]
    select(window, 0)
    window.history.copy_button.click()
    words = shlex.split(QGuiApplication.clipboard().text())
    assert words[4:8] == ["extend", "-m", str(tmp_path / "source.json"), "--format"]
    assert words[words.index("--merges") + 1] == "5"
    # Re-run: the same extension again, not a new vocabulary from the form's options
    window.training.start_from.choice.setCurrentText(NEW_VOCABULARY)
    window.training.start_from.stop_value.setValue(2)
    window.training.corpus.clear_files()
    _rerun_gives(window, qtbot, extended, "extend")
    assert ui.errors == []


def test_history_records_the_extensions_held_out_figures_as_the_command_line(
        window, qtbot, tmp_path, ui):
    from tests.ui.test_history_panel import settle

    held = tmp_path / "held.txt"
    held.write_text("жаба жар\n\nthe lower\n", encoding="utf-8")
    window.training.start_from.set_held_out([str(held)])
    source, extended = _extend_in_window(window, qtbot, tmp_path)
    settle(window, qtbot, 1)
    run = window.history.model.run_at(0)
    metrics = {(m.metric, m.source): m.value
               for m in window.projects.project.run_details(run.id).metrics}
    # as `bpe-desktop extend --held-out held.txt --project P` records them: 2 lines (the
    # blank one left out), 4 words, and each model's tokens on them
    before = sum(len(source.tokenizer().encode(line)) for line in ("жаба жар", "the lower"))
    after = sum(len(extended.tokenizer().encode(line)) for line in ("жаба жар", "the lower"))
    assert metrics["new_merges", ""] == 5
    assert (metrics["lines", "held.txt"], metrics["words", "held.txt"]) == (2, 4)
    assert (metrics["tokens_before", "held.txt"], metrics["tokens", "held.txt"]) == \
        (before, after)
    assert metrics["tokens_per_word", "held.txt"] == after / 4
    assert ui.errors == []


def test_rerunning_a_training_while_start_from_extends_trains_anew(window, qtbot, tmp_path,
                                                                    ui):
    from tests.ui.test_history_panel import select, settle

    first = train_toy(window, qtbot)
    settle(window, qtbot, 1)
    save_model(first, tmp_path / "source.json")
    window.training.start_from.choice.setCurrentText(EXISTING)
    assert window.training.start_from.set_source(str(tmp_path / "source.json"))
    select(window, 0)
    _rerun_gives(window, qtbot, first, "train")
    assert ui.errors == []


def _rerun_gives(window, qtbot, model, kind: str) -> None:
    """History's Re-run of the selected run makes ``model`` again, recorded as ``kind``."""
    from tests.ui.test_history_panel import settle

    with qtbot.waitSignal(window.document.model_changed, timeout=30_000):
        window.history.rerun_button.click()
    assert window.document.model.merges == model.merges
    settle(window, qtbot, 2)
    assert window.history.model.run_at(0).kind == kind


def test_the_log_shows_where_a_held_out_line_changed(window, qtbot, tmp_path, ui):
    """A long line whose first tokens are the same: the log shows the difference."""
    held_out = tmp_path / "held_out.txt"
    held_out.write_text(ENGLISH.strip() + " жаба\n", encoding="utf-8")
    window.training.start_from.set_held_out([str(held_out)])
    _extend_in_window(window, qtbot, tmp_path)
    changed = [line for line in window.training.log_view.toPlainText().splitlines()
               if "changed line 1:" in line]
    assert len(changed) == 1 and ui.errors == []
    before, after = changed[0].split("changed line 1: ")[1].split("  ->  ")
    assert before.startswith("… ") and "<unk>" in before
    assert after.startswith("… ") and "ж" in after


def test_the_status_bar_shows_the_extension_summary_not_its_report(window, qtbot, tmp_path,
                                                                   ui):
    """The held-out report is an aligned table and the new characters a detail: they stay
    in the log, and the status bar shows what the extension did."""
    held_out = tmp_path / "held_out.txt"
    held_out.write_text(OTHER + "\n", encoding="utf-8")
    window.training.start_from.set_held_out([str(held_out)])
    _extend_in_window(window, qtbot, tmp_path)
    shown = window.statusBar().full_message()
    assert "\n" not in shown and "before" not in shown
    assert shown.startswith("Extended the tokenizer: 5 new merges, vocabulary ")
    assert shown.endswith("; every existing id kept.")
    assert ui.errors == []


def test_the_trim_dialog_is_one_window_freed_when_closed(window, qtbot, tmp_path, ui):
    from shiboken6 import isValid

    from bpe_desktop.ui.window.trim_dialog import TrimDialog

    train_toy(window, qtbot)
    first = window.ask_trim()
    first.output.setText(str(tmp_path / "t.json"))
    assert window.ask_trim() is first and first.output.text() == str(tmp_path / "t.json")
    target = tmp_path / "target.txt"
    target.write_text("low lower\n", encoding="utf-8")
    _trim_in(first, qtbot, target, tmp_path)  # the trimmed model is now the open one
    second = window.ask_trim()  # for that model: a new dialog replaces the old
    qtbot.waitUntil(lambda: not isValid(first))
    assert second.model is window.document.model
    assert window.findChildren(TrimDialog) == [second]
    second.close()
    qtbot.waitUntil(lambda: not isValid(second))
    assert window.findChildren(TrimDialog) == [] and ui.errors == []


def test_open_model_opens_what_a_trim_wrote_in_another_format(window, qtbot, tmp_path, ui):
    """History's Open model and Compare on trims written as tokenizer.json: one recorded
    by ``trim --project`` (the model kept in the project), one as earlier versions
    recorded it (only the tokenizer.json: read through its importer), and one whose
    file is gone (said so)."""
    from bpe_desktop import cli
    from bpe_desktop.core.formats import import_model
    from bpe_desktop.core.project import Project
    from tests.ui.test_history_panel import select, settle

    source = train(Corpus.from_texts([ENGLISH]), TrainConfig.preset("gpt2", merges=30)).model
    save_model(source, tmp_path / "source.json")
    target = tmp_path / "target.txt"
    target.write_text("the lower the newer\n", encoding="utf-8")
    project = tmp_path / "p.bpeproj"
    trims = []
    for name in ("new", "old", "gone"):
        out = tmp_path / f"{name}.tokenizer.json"
        assert cli.main(["trim", "-m", str(tmp_path / "source.json"), "--text", str(target),
                         "--id-map", str(tmp_path / f"{name}-map.json"), "-o", str(out),
                         "--out-format", "hf", "-q", "--project", str(project)]) == 0
        trims.append(import_model("hf", out))
    with Project(project) as p:  # runs 2 and 3 as an earlier version recorded them
        p.conn.execute("UPDATE models SET path = ?, data = NULL WHERE run_id = 2",
                       (str(tmp_path / "old.tokenizer.json"),))
        p.conn.execute("UPDATE models SET path = ?, data = NULL WHERE run_id = 3",
                       (str(tmp_path / "gone.tokenizer.json"),))
        p.conn.commit()
    os.remove(tmp_path / "gone.tokenizer.json")
    window.projects.open_project(str(project))
    settle(window, qtbot, 3)
    rows = {window.history.model.run_at(r).id: r for r in range(3)}
    for run_id, trimmed in ((1, trims[0]), (2, trims[1])):
        select(window, rows[run_id])
        window.history.open_button.click()
        model = window.document.model
        assert model is not None and window.document.path is None  # shown as imported
        assert [list(model.tokenizer().encode(line)) for line in ENGLISH.split(" the ")] == \
            [list(trimmed.tokenizer().encode(line)) for line in ENGLISH.split(" the ")]
        assert ui.errors == []
    select(window, rows[1], rows[2])
    window.history.compare_button.click()
    assert len(window.compare.sources) == 2 and ui.errors == []
    select(window, rows[3])
    window.history.open_button.click()
    assert ui.errors[-1][0] == "Model not available"
    assert "gone.tokenizer.json" in ui.errors[-1][1] and "gone" in ui.errors[-1][1]


def test_an_extension_reading_invalid_utf8_as_replacement_is_recorded_and_rerun_so(
        window, qtbot, tmp_path, ui):
    from tests.ui.test_history_panel import select, settle

    source = train(Corpus.from_texts([ENGLISH]), TrainConfig(merges=10, min_frequency=1)).model
    save_model(source, tmp_path / "source.json")
    corpus = tmp_path / "bad.txt"
    corpus.write_bytes(OTHER.encode("utf-8") + b"caf\xe9 caf\xe9 caf\xe9\n")
    panel = window.training
    panel.corpus.add_paths([str(corpus)])
    panel.start_from.choice.setCurrentText(EXISTING)
    assert panel.start_from.set_source(str(tmp_path / "source.json"))
    panel.start_from.stop_value.setValue(5)
    options = panel.options.errors
    options.setCurrentIndex(options.findData("replace"))
    with qtbot.waitSignal(window.document.model_changed, timeout=30_000):
        assert window.train()
    first = window.document.model
    assert first.corpus.encoding_errors == "replace"
    settle(window, qtbot, 1)
    details = window.projects.project.run_details(window.history.model.run_at(0).id)
    assert details.config["encoding_errors"] == "replace"
    argv = details.command["argv"]
    assert argv[argv.index("--encoding-errors") + 1] == "replace"
    options.setCurrentIndex(options.findData("strict"))
    select(window, 0)
    with qtbot.waitSignal(window.document.model_changed, timeout=30_000):
        window.history.rerun_button.click()
    assert window.document.model.merges == first.merges and ui.errors == []


def test_trim_refuses_an_id_map_over_the_trimmed_model_or_a_target(window, qtbot, tmp_path,
                                                                   ui):
    train_toy(window, qtbot)
    dialog = window.ask_trim()
    target = tmp_path / "target.txt"
    target.write_text("low lower\n", encoding="utf-8")
    dialog.set_targets([str(target)])
    dialog.output.setText(str(tmp_path / "t.json"))
    for id_map, clash in ((tmp_path / "t.csv", "trimmed model"),  # its JSON is t.json
                          (tmp_path / "t.json", "trimmed model"),
                          (tmp_path / "target.txt", "input")):  # the map's JSON there
        dialog.id_map.setText(str(id_map))
        assert not dialog.start()
        assert ui.errors[-1][0] == "Cannot trim" and clash in ui.errors[-1][1], ui.errors[-1]
    assert not (tmp_path / "t.json").exists() and not (tmp_path / "t.csv").exists()
    assert target.read_text(encoding="utf-8") == "low lower\n"
    dialog.close()

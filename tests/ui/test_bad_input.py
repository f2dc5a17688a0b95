"""Bad input through the window: each case shows a message that says what and
where, and the model that was open stays exactly as it was."""

from __future__ import annotations

import errno
import json
import logging
import os
import sys

import pytest
from PySide6.QtCore import Qt

from bpe_desktop.core import TrainConfig, formats, save_model
from bpe_desktop.ui.training import jobs as training_jobs
from tests.shared_data import corpus_path
from tests.ui.window_helpers import train_toy

#: The ``ui`` (recorded dialogs) and ``window`` fixtures.
pytest_plugins = ["tests.ui.window_fixtures"]


@pytest.fixture
def trained(window, qtbot):
    """A window whose current model is a finished (unsaved) training of the toy example."""
    model = train_toy(window, qtbot)
    qtbot.waitUntil(lambda: not window.autosave.busy, timeout=10_000)
    return model


def assert_unchanged(window, model, *, dirty=True, path=None):
    assert window.document.model is model
    assert window.document.dirty is dirty and window.document.path == path
    assert window.isWindowModified() is dirty


def train_on(window, qtbot, paths, *, word_counts=False, config=None):
    window.training.corpus.clear_files()
    window.training.corpus.add_paths([str(p) for p in paths])
    window.training.options.word_counts.setChecked(word_counts)
    window.training.options.set_config(config or TrainConfig(vocab_size=300))
    return window.train()


# -- corpora ------------------------------------------------------------------------------


def test_non_utf8_corpus_names_file_and_offset_and_can_be_declined(window, qtbot, ui, trained,
                                                                   tmp_path):
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"good words here\ncaf\xe9 au lait\n")
    ui.yes = False
    with qtbot.waitSignal(window.training.failed, timeout=30_000):
        assert train_on(window, qtbot, [bad])
    [(title, text)] = ui.questions
    assert title == "Invalid bytes in the corpus"
    assert str(bad) in text and "byte offset 19" in text
    assert ui.errors == []  # the question said it all
    assert not window.training.running
    assert_unchanged(window, trained)


@pytest.mark.parametrize("content, where", [
    (b"good words here\ncaf\xe9 au lait caf\xe9\n" * 20, "byte offset 19"),
    # a NUL deep inside text is damage, not a sign of a binary file
    (b"good words here\n" * 4000 + b"a stray \x00 in text\n", "byte offset 64008"),
])
def test_bad_bytes_can_be_read_as_replacement_characters(window, qtbot, ui, trained, tmp_path,
                                                         content, where):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(content)
    with qtbot.waitSignal(window.document.model_changed, timeout=30_000):
        assert train_on(window, qtbot, [bad], config=TrainConfig(merges=5))
    [(title, text)] = ui.questions
    assert str(bad) in text and where in text
    assert ui.errors == []
    model = window.document.model
    assert model is not trained and "\ufffd" in model.alphabet
    assert window.document.dirty
    # the choice was for that run only: the form still stops at invalid UTF-8
    assert window.training.options.errors.currentData() == "strict"


def test_binary_files_are_refused(window, qtbot, ui, trained, tmp_path):
    path, expected = tmp_path / "picture.bin", "looks like a binary file"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    window.training.corpus.clear_files()
    window.training.corpus.add_paths([str(path)])
    window.training.options.set_config(TrainConfig(vocab_size=300))
    window.training.options.word_counts.setChecked(False)
    # Train before the list has counted the file: the training engine refuses it itself
    with qtbot.waitSignal(window.training.failed, timeout=30_000):
        assert window.training.start()
    assert str(path) in ui.errors[-1][1] and expected in ui.errors[-1][1]
    assert_unchanged(window, trained)
    assert list(window.training.plot.counts()) == [m.count for m in trained.merges]


@pytest.mark.parametrize("name, content, mark, expected", [
    ("picture.bin", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), "binary",
     "looks like a binary file"),
    ("utf16.txt", "hi there".encode("utf-16-le"), "not UTF-8", "UTF-16"),
])
def test_unusable_corpus_files_are_marked_when_added_and_refused_before_the_save_prompt(
        window, qtbot, ui, trained, tmp_path, name, content, mark, expected):
    good, path = tmp_path / "good.txt", tmp_path / name
    good.write_text("some words here\n", encoding="utf-8")
    path.write_bytes(content)
    corpus = window.training.corpus
    corpus.clear_files()
    window.training.options.word_counts.setChecked(False)  # (the toy example is a table)
    corpus.add_paths([str(good), str(path)])
    qtbot.waitUntil(lambda: corpus.topLevelItem(1).text(2) == mark, timeout=10_000)
    row = corpus.topLevelItem(1)
    assert expected in row.toolTip(2) and row.foreground(0).color().name() == "#d62828"
    assert corpus.topLevelItem(0).text(2) == "1" and corpus.problems()[0][0] == str(path)
    assert window.train() is False
    title, message = ui.errors[-1]
    assert title == "Corpus file unusable" and str(path) in message
    assert str(good) not in message
    assert ui.asked_to_save == 0  # refused before the save prompt
    assert_unchanged(window, trained)


def test_an_empty_file_is_marked_when_added_as_skipped_not_refused(window, qtbot, tmp_path):
    good, empty = tmp_path / "good.txt", tmp_path / "empty.txt"
    good.write_text("some words here\n", encoding="utf-8")
    empty.write_bytes(b"")
    corpus = window.training.corpus
    corpus.clear_files()
    window.training.options.word_counts.setChecked(False)
    corpus.add_paths([str(good), str(empty)])
    qtbot.waitUntil(lambda: corpus.topLevelItem(1).text(2) == "empty", timeout=10_000)
    row = corpus.topLevelItem(1)
    assert "skipped when training" in row.toolTip(2)
    assert row.foreground(0).color().name() != "#d62828"
    assert corpus.problems() == []


def test_a_corpus_of_empty_files_is_refused_before_starting(window, qtbot, ui, trained,
                                                            tmp_path):
    # (an empty file beside others is skipped: tests/ui/test_training_empty_files.py)
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    train_on(window, qtbot, [path])
    assert not window.training.running
    assert ui.questions == []
    assert ui.errors[-1] == ("Empty corpus", f"{path} is empty")
    assert_unchanged(window, trained)


def test_an_empty_corpus_list_is_explained(window, ui, trained):
    window.training.corpus.clear_files()
    assert window.train() is False or not window.training.running
    assert ui.errors[-1][0] == "No corpus"
    assert_unchanged(window, trained)


def test_a_corpus_file_deleted_after_adding_it(window, qtbot, ui, trained, tmp_path):
    kept, gone = tmp_path / "kept.txt", tmp_path / "gone.txt"
    kept.write_text("some words here\n")
    gone.write_text("other words\n")
    window.training.corpus.clear_files()
    window.training.corpus.add_paths([str(kept), str(gone)])
    gone.unlink()
    assert window.train() is False
    title, message = ui.errors[-1]
    assert title == "Corpus file missing" and str(gone) in message and str(kept) not in message
    assert window.training.corpus.topLevelItem(1).text(1) == "missing"
    assert not window.training.running
    assert_unchanged(window, trained)


def test_a_missing_corpus_file_restored_shows_its_size_and_lines_again(
        window, qtbot, ui, trained, tmp_path):
    """As the refusal says: restore it and train again; its row no longer says missing
    but what the file now holds."""
    kept, gone = tmp_path / "kept.txt", tmp_path / "gone.txt"
    kept.write_text("some words here\n")
    gone.write_text("other words\n")
    corpus = window.training.corpus
    corpus.clear_files()
    window.training.options.word_counts.setChecked(False)
    corpus.add_paths([str(kept), str(gone)])
    gone.unlink()
    assert window.train() is False and corpus.topLevelItem(1).text(1) == "missing"
    gone.write_text("other words\nand more words\nthree lines\n")
    with qtbot.waitSignal(window.document.model_changed, timeout=30_000):
        assert window.train()
    row = corpus.topLevelItem(1)
    assert row.text(1) == "39 bytes" and row.toolTip(1) == ""
    qtbot.waitUntil(lambda: row.text(2) == "3", timeout=10_000)
    assert corpus.total_size() == 16 + 39


def test_a_line_count_made_before_a_file_was_restored_is_not_shown_for_it(
        window, qtbot, ui, trained, tmp_path, monkeypatch):
    """The count that started when the file was added finds it gone and reports so only
    after the file is back: that report is about the file as it was, and is dropped."""
    import threading

    from bpe_desktop.ui.training import corpus_list

    kept, gone = tmp_path / "kept.txt", tmp_path / "gone.txt"
    kept.write_text("some words here\n")
    gone.write_text("other words\n")
    release, held = threading.Event(), []
    real_count = corpus_list.count_lines

    def count_lines(path, cancel=None):
        if path == str(gone) and not held:
            held.append(path)
            assert release.wait(30)
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        return real_count(path, cancel)

    monkeypatch.setattr(corpus_list, "count_lines", count_lines)
    corpus = window.training.corpus
    corpus.clear_files()
    window.training.options.word_counts.setChecked(False)
    corpus.add_paths([str(kept), str(gone)])
    qtbot.waitUntil(lambda: held == [str(gone)], timeout=10_000)
    gone.unlink()
    assert window.train() is False and corpus.topLevelItem(1).text(1) == "missing"
    gone.write_text("other words\nand more words\nthree lines\n")
    with qtbot.waitSignal(window.document.model_changed, timeout=30_000):
        assert window.train()
    release.set()  # the count made while it was gone reports now
    row = corpus.topLevelItem(1)
    qtbot.waitUntil(lambda: row.text(2) == "3", timeout=10_000)
    assert row.text(1) == "39 bytes" and corpus.problems() == []


def test_a_corpus_file_that_vanishes_once_training_starts_fails_cleanly(
        window, qtbot, ui, trained, tmp_path, monkeypatch):
    path = tmp_path / "vanishing.txt"
    path.write_text("words words words\n")
    real_train = training_jobs.train

    def train_after_deletion(corpus, config, **kwargs):
        path.unlink()  # after the panel's own check, before the engine opens it
        return real_train(corpus, config, **kwargs)

    monkeypatch.setattr(training_jobs, "train", train_after_deletion)
    with qtbot.waitSignal(window.training.failed, timeout=30_000):
        assert train_on(window, qtbot, [path])
    assert str(path) in ui.errors[-1][1] and "does not exist" in ui.errors[-1][1]
    assert_unchanged(window, trained)


# -- training options ------------------------------------------------------------------------


@pytest.mark.parametrize("setup, expected", [
    (lambda o: o.stop_value.setValue(1), "leaves no room"),
    (lambda o: o.special_tokens.setText("<unk>:x"), "<unk>:x"),
    (lambda o: o.special_tokens.setText("<unk>:0 <pad>:0"), "share id 0"),
    (lambda o: (o.stop_value.setValue(3), o.special_tokens.setText("<unk>:0 <s>:5")),
     "outside a vocabulary of 3"),
])
def test_invalid_options_show_a_message_before_training(window, ui, trained, setup, expected):
    window.training.corpus.add_paths([str(corpus_path("botchan"))])
    window.training.options.word_counts.setChecked(False)
    window.training.options.set_config(TrainConfig(vocab_size=500))
    setup(window.training.options)
    assert window.train() is False
    title, message = ui.errors[-1]
    assert title == "Invalid training options" and expected in message
    assert not window.training.running
    assert_unchanged(window, trained)


def test_a_vocabulary_smaller_than_the_alphabet_is_explained(window, qtbot, ui, trained):
    with qtbot.waitSignal(window.training.failed, timeout=30_000):
        assert train_on(window, qtbot, [corpus_path("botchan")],
                        config=TrainConfig(vocab_size=20))
    title, message = ui.errors[-1]
    assert title == "No merges learned"
    assert "vocabulary size 20 is already reached" in message
    assert "Choose a vocabulary size above" in message and "unchanged" in message
    assert_unchanged(window, trained)


def test_declining_the_memory_warning_keeps_the_model(window, qtbot, ui, trained, monkeypatch):
    from bpe_desktop.core.memory import MemoryEstimate

    warning = "Training on this file needs about 40.0 GB of memory; this computer has 2.0 GB free."
    monkeypatch.setattr(training_jobs, "estimate_training_memory",
                        lambda paths, config: MemoryEstimate(40 << 30, 2 << 30, warning))
    ui.yes = False
    with qtbot.waitSignal(window.training.cancelled, timeout=30_000):
        assert train_on(window, qtbot, [corpus_path("botchan")])
    [(title, text)] = ui.questions
    assert title == "Not enough free memory" and warning in text
    assert_unchanged(window, trained)
    assert window.train_action.isEnabled()


# -- cancelling -------------------------------------------------------------------------------


@pytest.mark.parametrize("stage", ["reading", "counting", "merging"])
def test_cancelling_at_each_stage_keeps_the_last_good_model(window, qtbot, ui, trained,
                                                            monkeypatch, stage):
    """The cancel lands exactly in ``stage``: requested from the worker's own progress
    callback the moment that stage is first reported."""
    real_train = training_jobs.train
    seen = []

    def train_cancelled_in_stage(corpus, config, *, on_progress, cancel):
        def progress(p):
            if p.stage == stage and not cancel.cancelled:
                seen.append(p.stage)
                cancel.cancel()
            on_progress(p)
        return real_train(corpus, config, on_progress=progress, cancel=cancel)

    monkeypatch.setattr(training_jobs, "train", train_cancelled_in_stage)
    with qtbot.waitSignal(window.training.cancelled, timeout=30_000):
        assert train_on(window, qtbot, [corpus_path("botchan")],
                        config=TrainConfig(vocab_size=3000))
    assert seen == [stage]
    assert "Cancelled" in window.training.stage_label.text()
    assert ui.errors == []
    assert_unchanged(window, trained)
    assert window.train_action.isEnabled()
    # the plot shows the current model again, not the cancelled run
    assert list(window.training.plot.counts()) == [m.count for m in trained.merges]


# -- model files ------------------------------------------------------------------------------


def _damage(text: str, how: str) -> str:
    data = json.loads(text)
    if how == "truncated":
        return text[: len(text) // 2]
    if how == "wrong type":
        data["merges"][2] = ["e", 5, 3]
    elif how == "unknown version":
        data["version"] = 99
    elif how == "unknown symbol":
        data["merges"][3] = ["zz", "q", 1]
    elif how == "duplicate merge":
        data["merges"].insert(4, data["merges"][1])
    return json.dumps(data)


@pytest.mark.parametrize("how, expected", [
    ("truncated", "the file is truncated"),
    ("wrong type", "merges[2][1]: expected a string"),
    ("unknown version", "version 99 is newer"),
    ("unknown symbol", "merges[3][0]: 'zz' is not a token defined"),
    ("duplicate merge", "merges[4]: the merge 'es' + 't' is listed twice"),
])
def test_opening_a_bad_model_file_says_what_and_where(window, ui, trained, toy_model, tmp_path,
                                                      how, expected):
    good = tmp_path / "good.json"
    save_model(toy_model, good)
    bad = tmp_path / "bad.json"
    bad.write_text(_damage(good.read_text(encoding="utf-8"), how), encoding="utf-8")
    ui.open_paths = [str(bad)]
    window.open_action.trigger()
    title, message = ui.errors[-1]
    assert title == "Cannot open model"
    assert message.startswith(str(bad)) and expected in message
    assert_unchanged(window, trained)
    assert window.settings.recent_files() == []


# -- import files -----------------------------------------------------------------------------


def _bad_gpt2_folder(folder):
    folder.mkdir()
    (folder / "vocab.json").write_text('{"a": "x"}')
    (folder / "merges.txt").write_text("#version: 0.2\na b\n")
    return folder


@pytest.mark.parametrize("fmt, name, content, expected", [
    ("hf", "tokenizer.json", '{"model": ', "line 1 column 11: the file is truncated"),
    ("hf", "tokenizer.json", '{"model": [}', "line 1 column 12: not valid JSON"),
    ("hf", "tokenizer.json",
     '{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [["a", "zz"]]}}',
     "model.merges[0][1]: 'zz' is not in model.vocab"),
    ("gpt2", "gpt2", None, 'vocab.json: "a": expected an id'),
    ("subword-nmt", "bpe.codes", "#version: 0.2\nthis line has three\n",
     "line 2: 'this line has three' is not one merge"),
    ("sentencepiece", "sp.model", b"\x0f\xff\x00garbage-bytes\x01\x02" * 10,
     "not a sentencepiece model"),
    ("tiktoken", "r.tiktoken", "!!notbase64 0\n", 'line 1: expected "base64-token rank"'),
    ("fastbpe", "codes", "e r</w> 12\nl o many\n", "line 2: the count 'many'"),
    ("youtokentome", "yttm.model", "1 1\n9601 4\n4 9 5\n1 0 2 3\n",
     "line 3: the id 9 is neither a character nor made by an earlier rule"),
    ("hf", "missing.json", None, "No such file or directory"),
    # a file of another kind that reads as the format asked for
    ("subword-nmt", "r.tiktoken", "YQ== 0\nYg== 1\nYWI= 2\n",
     "these are tiktoken ranks, not BPE codes; import them as tiktoken"),
    ("fastbpe", "r.tiktoken", "YQ== 0\nYg== 1\nYWI= 2\n",
     "these are tiktoken ranks, not BPE codes; import them as tiktoken"),
    ("subword-nmt", "merges.txt", "#version: 0.2\nĠ t\nĠt he\n",
     "this is a GPT-2 merges.txt; import it with its vocab.json as gpt2"),
])
def test_importing_a_bad_file_says_what_and_where(window, qtbot, ui, trained, tmp_path, fmt,
                                                  name, content, expected):
    path = tmp_path / name
    if fmt == "gpt2":
        _bad_gpt2_folder(path)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content, encoding="utf-8")
    with qtbot.waitSignal(window.interop.failed, timeout=30_000):
        assert window.interop.import_path(fmt, str(path))
    title, message = ui.errors[-1]
    assert title == "Import failed"
    assert str(path) in message and expected in message and "unchanged" in message
    assert ui.error_details[-1] is None  # a documented error: no traceback to show
    assert_unchanged(window, trained)


def test_every_importable_format_has_a_bad_file_case():
    covered = {"hf", "gpt2", "subword-nmt", "sentencepiece", "tiktoken", "fastbpe",
               "youtokentome"}
    assert covered == {f for f, info in formats.FORMATS.items() if info.can_import}


# -- saving -----------------------------------------------------------------------------------


@pytest.fixture
def saved_then_changed(window, qtbot, trained, toy_model, tmp_path):
    """The window has m.json open, then a changed, unsaved model under the same name."""
    path = tmp_path / "m.json"
    save_model(toy_model, path)
    assert window.open_path(str(path))
    window.document.set_edited(trained)
    return path, path.read_bytes()


def test_disk_full_on_save_keeps_the_previous_file_and_the_model_unsaved(
        window, ui, trained, saved_then_changed):
    path, before = saved_then_changed

    def disk_full(src, dst):
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "replace", disk_full)
        window.save_action.trigger()
    title, message = ui.errors[-1]
    assert title == "Cannot save model"
    assert message.startswith(f"Could not write {path}: No space left on device.")
    assert "earlier file of that name, if any, is unchanged. Free some space" in message
    assert path.read_bytes() == before
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []
    assert_unchanged(window, trained, path=str(path))


def test_permission_denied_on_save_keeps_the_previous_file_and_the_model_unsaved(
        window, ui, trained, saved_then_changed):
    path, before = saved_then_changed
    folder = path.parent
    real_open = os.open

    def refusing_open(name, flags, *args, **kwargs):
        if os.path.dirname(os.path.abspath(name)) == str(folder) and flags & os.O_CREAT:
            raise PermissionError(errno.EACCES, "Permission denied", name)
        return real_open(name, flags, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        if os.geteuid() != 0:
            folder.chmod(0o555)  # a real read-only folder
        else:  # root may write anywhere: the operating system's refusal is simulated
            patch.setattr(os, "open", refusing_open)
        try:
            window.save_action.trigger()
        finally:
            folder.chmod(0o755)
    title, message = ui.errors[-1]
    assert title == "Cannot save model" and "Permission denied" in message
    assert path.read_bytes() == before
    assert_unchanged(window, trained, path=str(path))


# -- the crash guard -----------------------------------------------------------------------------


@pytest.mark.qt_no_exception_capture
def test_an_exception_in_a_slot_is_logged_and_shown_and_the_app_goes_on(window, qtbot, ui,
                                                                         monkeypatch):
    from bpe_desktop.app import install_crash_guard, setup_logging

    root_handlers = list(logging.getLogger().handlers)
    log_path = setup_logging()
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # restored after the test
    install_crash_guard(log_path)

    def broken_focus():
        raise RuntimeError("a bug in a slot")

    monkeypatch.setattr(window.vocab, "focus_filter", broken_focus)
    try:
        qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: len(ui.errors) > 0, timeout=5_000)
    finally:
        for handler in logging.getLogger().handlers:
            if handler not in root_handlers:
                handler.close()
                logging.getLogger().removeHandler(handler)
    title, message = ui.errors[0]
    assert title == "Unexpected error"
    assert "RuntimeError: a bug in a slot" in message and log_path in message
    logged = open(log_path, encoding="utf-8").read()
    assert "a bug in a slot" in logged and "broken_focus" in logged  # with the traceback
    assert window.isVisible()
    model = train_toy(window, qtbot)  # and the application still works
    assert len(model.merges) == 10

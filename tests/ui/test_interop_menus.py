"""File ▸ Export and File ▸ Import through the window, with the peer libraries verifying.

Dialogs are replaced by recorders (tests/ui/window_fixtures.py); every job runs in the
real worker thread and the tests wait on the GUI-thread ``done``/``failed`` signals.
"""

from __future__ import annotations

import csv
import errno
import json
import os
import re
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer

from bpe_desktop.core import (
    Corpus,
    TrainConfig,
    TrainingCancelled,
    formats,
    load_model,
    save_model,
    train,
)
from bpe_desktop.ui.window import interop_menus
from tests.shared_data import corpus_path
from tests.ui.window_helpers import table_rows

VERIFIED = re.compile(r"Verified on ([\d,]+) lines with (\S+) [\d.]+: 100%")

CONFIGS = {
    "subword-nmt": TrainConfig.preset("subword-nmt", vocab_size=1500),
    "gpt2": TrainConfig.preset("gpt2", vocab_size=1000),
    "sentencepiece": TrainConfig.preset("sentencepiece", vocab_size=1500),
    "sennrich": TrainConfig(vocab_size=1500),
}

#: The ``ui`` (recorded dialogs) and ``window`` fixtures.
pytest_plugins = ["tests.ui.window_fixtures"]


@pytest.fixture(scope="module")
def results():
    """Models trained on ud_german (its lines are the verification sample)."""
    corpus = Corpus.from_files([corpus_path("ud_german")])
    return {name: train(corpus, config) for name, config in CONFIGS.items()}


def pairs(model):
    return [(m.left, m.right) for m in model.merges]


def run_job(window, qtbot, start):
    """Start an interop job with ``start()`` and wait for its outcome (GUI thread)."""
    with qtbot.waitSignal(window.interop.runner.stopped, timeout=60_000):
        assert start() is not False
    assert not window.interop.running


def export_via_menu(window, qtbot, ui, fmt, target):
    if formats.FORMATS[fmt].writes_folder:
        ui.folder = str(target)
    else:
        ui.save_path = str(target)
    with qtbot.waitSignal(window.interop.done, timeout=60_000) as blocker:
        window.interop.export_actions[fmt].trigger()
        assert window.interop.running  # the export runs in the background
    return blocker.args[0]


@pytest.mark.parametrize("model_name, fmt, names", [
    ("subword-nmt", "hf", ["tokenizer.json"]),
    ("gpt2", "hf", ["tokenizer.json"]),
    ("gpt2", "gpt2", ["vocab.json", "merges.txt"]),
    ("subword-nmt", "subword-nmt", ["bpe.codes"]),
    ("sennrich", "subword-nmt", ["bpe.codes"]),
    ("sentencepiece", "sentencepiece", ["tokenizer.model"]),
    ("gpt2", "tiktoken", ["tokenizer.tiktoken", "tokenizer.tiktoken.json"]),
    ("subword-nmt", "fastbpe", ["codes", "codes.vocab"]),
    ("sentencepiece", "youtokentome", ["yttm.model"]),
])
def test_export_writes_loads_back_and_is_verified_by_the_peer(window, qtbot, ui, results,
                                                              tmp_path, model_name, fmt, names):
    result = results[model_name]
    window.document.set_trained(result)
    folder = tmp_path / "out"
    folder.mkdir()
    target = folder if formats.FORMATS[fmt].writes_folder else folder / names[0]
    done = export_via_menu(window, qtbot, ui, fmt, target)

    # files that belong together come with their checksum list (FIRST.sha256)
    listing = [names[0] + ".sha256"] if fmt in ("gpt2", "tiktoken", "fastbpe") else []
    assert sorted(p.name for p in folder.iterdir()) == sorted(names + listing)
    assert [Path(p).name for p in done.written] == names
    asked = [q for q in ui.questions
             if q[0] == f"Export {formats.FORMATS[fmt].label.rstrip('…')}"]
    assert len(asked) == (1 if formats.FORMATS[fmt].optional_file else 0)
    back = formats.import_model(fmt, target)
    assert pairs(back) == pairs(result.model)
    specials = {t.id for t in result.model.config.special_tokens}
    if fmt == "youtokentome":  # ids kept; YouTokenToMe names the specials itself
        assert [p for i, p in enumerate(back.pieces) if i not in specials] == [
            p for i, p in enumerate(result.model.pieces) if i not in specials]
    elif fmt not in ("subword-nmt", "fastbpe"):  # codes have no ids; the others keep ours
        assert back.pieces == result.model.pieces
    assert ui.errors == []
    title, text = ui.infos[-1]
    assert title == "Export finished"
    found = VERIFIED.search(text)
    assert found, text
    assert int(found.group(1).replace(",", "")) == interop_menus.VERIFY_LINES
    assert found.group(2) == formats.FORMATS[fmt].peer.replace("_", "-")
    assert str(target if not formats.FORMATS[fmt].writes_folder else folder) in text
    assert window.interop.last_message == text


def test_fastbpe_vocabulary_file_only_when_asked_for(window, qtbot, ui, results, tmp_path):
    window.document.set_trained(results["subword-nmt"])
    ui.yes = False
    folder = tmp_path / "out"
    folder.mkdir()
    done = export_via_menu(window, qtbot, ui, "fastbpe", folder / "codes")
    assert [Path(p).name for p in done.written] == ["codes"]
    assert sorted(p.name for p in folder.iterdir()) == ["codes", "codes.sha256"]
    assert "vocabulary file" in ui.questions[-1][1]
    assert VERIFIED.search(ui.infos[-1][1])


def test_vocabulary_list_and_table_exports(window, qtbot, ui, results, tmp_path):
    model = results["subword-nmt"].model
    window.document.set_trained(results["subword-nmt"])
    qtbot.waitUntil(lambda: table_rows(window) == model.vocab_size, timeout=10_000)
    done = export_via_menu(window, qtbot, ui, "vocab", tmp_path / "vocab.tsv")
    assert done.verification is None  # no library reads a vocabulary list
    lines = (tmp_path / "vocab.tsv").read_text(encoding="utf-8").splitlines()
    assert len(lines) == model.vocab_size
    piece, token_id, count = lines[-1].split("\t")
    assert (piece, int(token_id), int(count)) == (model.pieces[-1], model.vocab_size - 1,
                                                  model.merges[-1].count)
    assert ui.infos[-1] == ("Export finished", f"Exported to {tmp_path / 'vocab.tsv'}.")

    ui.save_path = str(tmp_path / "table.csv")
    window.interop.export_menu.actions()[0].trigger()  # Vocabulary table (CSV)…
    with open(tmp_path / "table.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    assert len(rows) == model.vocab_size + 1  # a header, then every token
    assert rows[0][0].lower() == "id"
    assert {r[1] for r in rows[1:]} >= {model.pieces[-1]}
    assert "table exported" in window.interop.last_message


@pytest.mark.parametrize("model_name, fmt, remedy", [
    ("subword-nmt", "sentencepiece", "sentencepiece preset"),
    ("subword-nmt", "gpt2", "gpt2 preset"),
    ("subword-nmt", "tiktoken", "gpt2 preset"),
    ("sennrich", "hf", "eow-suffix"),
    ("sennrich", "fastbpe", "eow-suffix"),
    ("subword-nmt", "youtokentome", "sentencepiece preset"),
])
def test_a_model_the_format_cannot_hold_is_refused_and_nothing_written(
        window, qtbot, ui, results, tmp_path, model_name, fmt, remedy):
    window.document.set_trained(results[model_name])
    qtbot.waitUntil(lambda: not window.interop.checking_exports)
    ui.save_path = str(tmp_path / "never.out")
    ui.folder = str(tmp_path)
    before = sorted(tmp_path.iterdir())
    # the menu shows it before it is chosen: the entry is disabled, its tooltip says why
    action = window.interop.export_actions[fmt]
    assert not action.isEnabled()
    assert remedy in action.toolTip() and remedy in action.statusTip()
    assert window.interop.export_menu.toolTipsVisible()
    action.trigger()  # a disabled entry does nothing
    assert ui.errors == [] and ui.choosers == []
    window.interop.export(fmt)  # asked for anyway (a script): refused with the reason
    assert not window.interop.running
    assert ui.choosers == []  # refused before asking where to write
    assert sorted(tmp_path.iterdir()) == before
    title, message = ui.errors[0]
    assert title == "Cannot export"
    label = formats.FORMATS[fmt].label.rstrip("…")
    assert message.startswith(f"This model cannot be exported as {label}: ")
    assert remedy in message and "train with" in message
    assert window.interop.export_actions["vocab"].statusTip() == ""
    assert window.interop.export_actions["vocab"].isEnabled()


def test_export_entries_follow_the_model(window, qtbot, results):
    """Each model change re-decides which formats are offered (in a worker)."""
    actions = window.interop.export_actions
    window.document.set_trained(results["sennrich"])  # `</w>` as its own symbol
    qtbot.waitUntil(lambda: not window.interop.checking_exports)
    assert not actions["hf"].isEnabled() and "eow-suffix" in actions["hf"].toolTip()
    assert actions["vocab"].isEnabled()
    window.document.set_trained(results["subword-nmt"])
    qtbot.waitUntil(lambda: not window.interop.checking_exports)
    assert actions["hf"].isEnabled() and actions["hf"].statusTip() == ""
    assert not actions["sentencepiece"].isEnabled()
    for fmt, action in actions.items():
        problem = formats.export_problem(window.document.model, fmt)
        assert action.isEnabled() == (problem is None)


def test_a_model_closed_to_tokenizer_json_by_its_boundary_offers_a_retrain(window, qtbot,
                                                                           results):
    window.document.set_trained(results["subword-nmt"])
    qtbot.waitUntil(lambda: not window.interop.checking_exports)
    assert not window.interop.retrain_hf_action.isVisible()
    window.training.load_example(window.training.example("toy"))
    window.document.set_trained(results["sennrich"])  # `</w>` as its own symbol
    window.document.dirty = False  # (no save prompt in this test)
    qtbot.waitUntil(lambda: not window.interop.checking_exports)
    action = window.interop.retrain_hf_action
    assert action.isVisible() and "eow-suffix" in action.toolTip()
    with qtbot.waitSignal(window.document.model_changed, timeout=60_000):
        action.trigger()
    model = window.document.model
    assert model.config.boundary == "eow-suffix"
    assert model.config.replace(boundary="eow-symbol") == results["sennrich"].model.config
    assert window.training.options.preset.currentText() == "Custom"
    qtbot.waitUntil(lambda: not window.interop.checking_exports)
    assert window.interop.export_actions["hf"].isEnabled()
    assert not action.isVisible()


def test_a_superseded_export_check_never_shows(window, qtbot, results):
    """A model replaced while its formats are being checked: only the newest model's
    verdicts reach the menu, and a model closed meanwhile leaves every entry offered."""
    actions = window.interop.export_actions
    window.document.set_trained(results["subword-nmt"])
    window.document.set_trained(results["sennrich"])  # before the first check ends
    qtbot.waitUntil(lambda: not window.interop.checking_exports)
    for fmt, action in actions.items():
        assert action.isEnabled() == (formats.export_problem(results["sennrich"].model, fmt)
                                      is None)
    assert not actions["hf"].isEnabled()
    window.document.set_trained(results["subword-nmt"])
    window.document.new()
    qtbot.waitUntil(lambda: not window.interop.checking_exports)
    assert all(action.isEnabled() for action in actions.values())


@pytest.mark.parametrize("model_name, fmt", [
    ("subword-nmt", "hf"), ("gpt2", "gpt2"), ("subword-nmt", "subword-nmt"),
    ("sentencepiece", "sentencepiece"), ("gpt2", "tiktoken"), ("subword-nmt", "fastbpe"),
    ("sentencepiece", "youtokentome"),
])
def test_import_opens_the_model_untitled_and_unsaved(window, qtbot, ui, results, tmp_path,
                                                     model_name, fmt):
    model = results[model_name].model
    info = formats.FORMATS[fmt]
    target = tmp_path / ("gpt2" if info.writes_folder else info.default_name)
    if info.writes_folder:
        target.mkdir()
    formats.export_model(model, fmt, target)
    ui.folder, ui.open_paths = str(target), [str(target)]
    label = info.label
    action = next(a for a in window.interop.import_menu.actions() if a.text() == label)
    with qtbot.waitSignal(window.interop.done, timeout=60_000) as blocker:
        action.trigger()
    imported = blocker.args[0].model
    assert window.document.model is imported
    assert pairs(imported) == pairs(model)
    assert window.windowTitle() == "Untitled[*] — BPE Desktop"
    assert window.isWindowModified() and window.document.path is None
    qtbot.waitUntil(lambda: table_rows(window) == imported.vocab_size, timeout=10_000)
    assert f"{imported.vocab_size:,} tokens" in window.model_label.text()
    assert window.codec.isEnabled()
    assert "not saved yet" in window.interop.last_message
    # the import's notes too: codes pass unmerged characters through, BPE Desktop does not
    assert window.interop.last_message.endswith(imported.description)
    assert ("is in no merge encodes as '<unk>'" in imported.description) == \
        (fmt in ("subword-nmt", "fastbpe"))
    assert ui.errors == []


def test_opening_a_tokenizer_json_says_what_it_is_and_offers_the_import(window, qtbot, ui,
                                                                        results, tmp_path):
    model = results["subword-nmt"].model
    path = tmp_path / "tokenizer.json"
    formats.export_model(model, "hf", path)
    ui.yes = False
    assert not window.open_path(str(path))
    (title, text), = ui.questions
    assert "tokenizer.json is a Hugging Face tokenizer.json, not a BPE Desktop model" in text
    assert ui.errors == [] and window.document.model is None
    ui.yes = True
    with qtbot.waitSignal(window.interop.done, timeout=60_000) as blocker:
        window.open_path(str(path))
    assert window.document.model is blocker.args[0].model
    assert pairs(window.document.model) == pairs(model) and window.document.path is None
    # a broken model file is still an error, not a question
    broken = tmp_path / "broken.json"
    broken.write_text('{"version": 2}', encoding="utf-8")
    assert not window.open_path(str(broken))
    assert len(ui.questions) == 2 and ui.errors[-1][0] == "Cannot open model"


def test_import_over_unsaved_work_asks_first(window, qtbot, ui, results, tmp_path):
    window.document.set_trained(results["gpt2"])
    formats.export_model(results["gpt2"].model, "hf", tmp_path / "t.json")
    ui.save_answer = "cancel"
    assert window.interop.import_path("hf", str(tmp_path / "t.json")) is False
    assert ui.asked_to_save == 1 and window.document.model is results["gpt2"].model


def test_recount_on_a_corpus_fills_in_the_counts(window, qtbot, ui, results, tmp_path):
    trained = results["subword-nmt"].model
    formats.export_model(trained, "hf", tmp_path / "t.json")
    run_job(window, qtbot, lambda: window.interop.import_path("hf", str(tmp_path / "t.json")))
    imported = window.document.model
    assert all(m.count is None for m in imported.merges)
    ui.open_paths = [str(corpus_path("ud_german"))]
    with qtbot.waitSignal(window.interop.done, timeout=60_000):
        window.interop.recount_action.trigger()
    recounted = window.document.model
    # replaying the merges on the training corpus gives back the trained counts
    assert [m.count for m in recounted.merges] == [m.count for m in trained.merges]
    assert recounted.corpus.total_words == trained.corpus.total_words
    assert window.document.dirty and "Counts recomputed on 1 file(s)" in \
        window.interop.last_message


def test_recount_keeps_the_file_name_and_marks_it_unsaved(window, qtbot, ui, results,
                                                          tmp_path):
    path = tmp_path / "m.json"
    save_model(results["sennrich"].model, path)
    assert window.open_path(str(path))
    ui.open_paths = [str(corpus_path("ud_german"))]
    with qtbot.waitSignal(window.interop.done, timeout=60_000):
        window.interop.recount_action.trigger()
    assert window.document.path == str(path) and window.document.dirty
    assert window.windowTitle() == "m.json[*] — BPE Desktop"


def test_recount_is_cancelled_with_escape_and_changes_nothing(window, qtbot, ui, results,
                                                               monkeypatch):
    window.document.set_trained(results["sennrich"])
    model = window.document.model
    started = threading.Event()

    def endless_recount(model, corpus, *, progress=None, cancel=None):
        started.set()
        while not cancel.cancelled:
            threading.Event().wait(0.01)
        raise TrainingCancelled("recounting was cancelled")

    monkeypatch.setattr(formats, "recount", endless_recount)
    assert window.interop.recount([str(corpus_path("ud_german"))])
    assert started.wait(10)
    assert window.cancel_action.isEnabled() and not window.train_action.isEnabled()
    assert not window.open_action.isEnabled()
    with qtbot.waitSignal(window.interop.runner.cancelled, timeout=10_000):
        qtbot.keyClick(window, Qt.Key.Key_Escape)
    assert window.document.model is model
    assert window.train_action.isEnabled() and not window.cancel_action.isEnabled()
    assert ui.errors == []


def test_export_runs_in_a_worker_while_the_window_stays_responsive(window, qtbot, ui, results,
                                                                   tmp_path, monkeypatch):
    window.document.set_trained(results["gpt2"])
    real_export = formats.export_model
    gate = threading.Event()
    export_threads = []

    def gated_export(*args, **kwargs):
        export_threads.append(threading.current_thread())
        assert gate.wait(10), "the GUI thread never ran while the export waited"
        return real_export(*args, **kwargs)

    monkeypatch.setattr(formats, "export_model", gated_export)
    ticks = []
    with qtbot.waitSignal(window.interop.done, timeout=60_000):
        assert window.interop.export("hf", str(tmp_path / "t.json"))
        # the GUI thread keeps running timers while the worker waits for this one
        QTimer.singleShot(20, lambda: (ticks.append(threading.current_thread()), gate.set()))
    assert ticks == [threading.main_thread()]
    assert export_threads and export_threads[0] is not threading.main_thread()
    assert (tmp_path / "t.json").exists()


def test_esc_after_the_files_are_written_says_they_are_and_that_the_check_stopped(
        window, qtbot, ui, results, tmp_path, monkeypatch):
    window.document.set_trained(results["gpt2"])
    real_verify = formats.verify_export

    def escaped_while_checking(*args, **kwargs):  # Esc while the peer library checks
        window.interop.cancel()
        return real_verify(*args, **kwargs)

    monkeypatch.setattr(formats, "verify_export", escaped_while_checking)
    target = tmp_path / "t.json"
    with qtbot.waitSignal(window.interop.runner.cancelled, timeout=60_000):
        assert window.interop.export("hf", str(target))
    assert window.interop.last_message == (
        f"Exported to {target}; the check of the export was cancelled.")
    assert window.statusBar().full_message() == window.interop.last_message
    assert len(json.loads(target.read_text(encoding="utf-8"))["model"]["vocab"]) == \
        results["gpt2"].model.vocab_size
    assert ui.errors == [] and ui.infos == []


def test_verification_mismatch_is_shown_as_a_warning(window, qtbot, ui, results, tmp_path,
                                                     monkeypatch):
    window.document.set_trained(results["gpt2"])
    real_export = formats.export_model

    def damaged_export(model, fmt, path, **options):
        written = real_export(model, fmt, path, **options)
        data = json.loads(Path(written[0]).read_text(encoding="utf-8"))
        data["model"]["merges"] = data["model"]["merges"][:50]  # the peer now splits more
        Path(written[0]).write_text(json.dumps(data), encoding="utf-8")
        return written

    monkeypatch.setattr(formats, "export_model", damaged_export)
    run_job(window, qtbot, lambda: window.interop.export("hf", str(tmp_path / "t.json")))
    title, text = ui.errors[-1]
    assert title == "Export differs from BPE Desktop"
    assert "100%" not in text and "First difference" in text


def test_export_without_the_peer_library_says_not_verified(window, qtbot, ui, results,
                                                           tmp_path, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_tiktoken(name, *args, **kwargs):
        if name == "tiktoken" or name.startswith("tiktoken."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    window.document.set_trained(results["gpt2"])
    monkeypatch.setattr(builtins, "__import__", no_tiktoken)
    monkeypatch.setattr("importlib.import_module",
                        lambda name, package=None: no_tiktoken(name, fromlist=["_"]))
    run_job(window, qtbot, lambda: window.interop.export("tiktoken",
                                                         str(tmp_path / "r.tiktoken")))
    assert (tmp_path / "r.tiktoken").exists()
    title, text = ui.infos[-1]
    assert "Not verified:" in text and "tiktoken" in text and "not installed" in text
    # said once, with the command that installs it
    assert text.count("not installed") == 1 and "-m pip install tiktoken" in text
    assert text.lower().count("verif") == 1


def test_sample_lines_come_from_the_corpus_or_the_stored_words(results, tmp_path):
    model = results["sennrich"].model
    lines = interop_menus.sample_lines(model, limit=5)
    with open(corpus_path("ud_german"), encoding="utf-8") as f:
        expected = [line.rstrip("\n") for line in f if line.strip()][:5]
    assert lines == expected
    toy = train(Corpus.from_word_counts([("low", 5), ("lower", 2)]), TrainConfig(merges=3))
    assert interop_menus.sample_lines(toy.model, limit=5) == ["low", "lower"]


def test_a_job_started_while_another_runs_is_refused(window, qtbot, ui, results, tmp_path,
                                                     monkeypatch):
    window.document.set_trained(results["gpt2"])
    gate = threading.Event()
    real_export = formats.export_model
    monkeypatch.setattr(formats, "export_model",
                        lambda *a, **k: (gate.wait(10), real_export(*a, **k))[1])
    with qtbot.waitSignal(window.interop.runner.stopped, timeout=60_000):
        assert window.interop.export("hf", str(tmp_path / "a.json"))
        assert window.interop.export("hf", str(tmp_path / "b.json")) is False
        assert window.interop.import_path("hf", str(tmp_path / "a.json")) is False
        assert window.train() is False
        assert "Wait for the running" in window.statusBar().currentMessage()
        gate.set()
    assert not (tmp_path / "b.json").exists()


def test_opened_model_is_exported_from_its_saved_file(window, qtbot, ui, results, tmp_path):
    """A model opened from disk (not trained in this session) exports and verifies too."""
    path = tmp_path / "m.json"
    save_model(results["sentencepiece"].model, path)
    assert window.open_path(str(path))
    done = export_via_menu(window, qtbot, ui, "sentencepiece", tmp_path / "sp.model")
    assert done.verification.agreed == done.verification.lines == interop_menus.VERIFY_LINES
    assert load_model(path).merges == window.document.model.merges


def test_a_failed_export_keeps_the_earlier_file(window, qtbot, ui, results, tmp_path):
    window.document.set_trained(results["gpt2"])
    qtbot.waitUntil(lambda: not window.autosave.busy, timeout=10_000)
    folder = tmp_path / "out"
    folder.mkdir()
    target = folder / "tokenizer.json"
    target.write_text("earlier contents")

    def disk_full(src, dst):
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "replace", disk_full)
        with qtbot.waitSignal(window.interop.failed, timeout=30_000):
            assert window.interop.export("hf", str(target))
    title, message = ui.errors[-1]
    assert title == "Export failed"
    assert str(target) in message and "No space left on device" in message
    assert message.endswith("Files written before are unchanged (each is replaced whole or "
                            "not at all). Free some space on the disk, or choose another disk.")
    assert target.read_text() == "earlier contents" and ui.infos == []
    assert [p.name for p in folder.iterdir()] == ["tokenizer.json"]  # no temporaries


@pytest.mark.parametrize("fmt", ["sentencepiece", "hf", "youtokentome"])
def test_a_smaller_vocabulary_of_an_extended_model_exports_verified(window, qtbot, ui,
                                                                     tmp_path, fmt):
    """Evaluate's "Use this size" on an extended model (its Cyrillic letters numbered
    after the English merges), cut below the source's merges: saved and exported, the
    library agrees with BPE Desktop on every sample line."""
    from bpe_desktop.core.extend import extend

    english = Corpus.from_files([corpus_path("udhr/eng")])
    source = train(english, TrainConfig.preset("sentencepiece", merges=300)).model
    extended = extend(source, Corpus.from_files([corpus_path("udhr/rus")]), merges=200).model
    window.document.set_imported(extended.truncated(150))  # as Evaluate hands it over
    save_model(window.document.model, tmp_path / "cut.json")
    assert load_model(tmp_path / "cut.json").pieces == window.document.model.pieces
    done = export_via_menu(window, qtbot, ui, fmt, tmp_path / "out")
    assert ui.errors == [] and isinstance(done.verification, formats.Verification)
    assert done.verification.lines > 0
    assert done.verification.agreed == done.verification.lines, \
        done.verification.mismatch_text()
    assert "100%" in ui.infos[-1][1]


def test_an_export_says_where_the_library_drops_what_the_model_cannot_encode(
        window, qtbot, ui, tmp_path):
    """No unknown token: Hugging Face leaves out characters BPE Desktop refuses; the
    export is written and verified, and its report says so."""
    corpus = Corpus.from_files([corpus_path("ud_german")])
    bare = train(corpus, TrainConfig.preset("subword-nmt", vocab_size=600, special_tokens=()))
    window.document.set_trained(bare)
    done = export_via_menu(window, qtbot, ui, "hf", tmp_path / "tokenizer.json")
    assert len(done.notes) == 1 and "no unknown token" in done.notes[0]
    title, text = ui.infos[-1]
    assert title == "Export finished" and VERIFIED.search(text)
    assert "\nNote: This model has no unknown token" in text
    done = export_via_menu(window, qtbot, ui, "subword-nmt", tmp_path / "bpe.codes")
    assert done.notes == () and "Note:" not in ui.infos[-1][1]


def test_a_byte_fallback_model_exports_to_tokenizer_json_that_decodes_as_it_does(
        window, qtbot, ui, tmp_path):
    """Rare characters left to byte fallback (coverage below 1) at the end of a line: the
    window's verification decodes with Hugging Face and agrees on every line."""
    french = corpus_path("udhr/fra").read_text(encoding="utf-8").splitlines()
    text = tmp_path / "corpus.txt"  # a few lines end in two words of rare letters
    text.write_text("\n".join(line + (" Ωμ Жж" if i % 40 == 0 else "")
                              for i, line in enumerate(french)) + "\n", encoding="utf-8")
    config = TrainConfig.preset("subword-nmt", vocab_size=900, byte_fallback=True,
                                character_coverage=0.99)
    result = train(Corpus.from_files([str(text)]), config)
    tok = result.model.tokenizer()
    lines = interop_menus.sample_lines(result.model)
    # the last two words of such a line are byte tokens, their </w> spelled in bytes too
    assert any(line.endswith(" Ωμ Жж") and tok.encode_as_pieces(line)[-12].startswith("<0x")
               for line in lines)
    window.document.set_trained(result)
    done = export_via_menu(window, qtbot, ui, "hf", tmp_path / "tokenizer.json")
    assert done.verification.agreed == done.verification.lines, \
        done.verification.mismatch_text()
    assert ui.errors == [] and VERIFIED.search(ui.infos[-1][1])

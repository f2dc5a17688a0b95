"""GUI test setup: offscreen Qt, settings isolated per test, no thread left running, the
garbage collector left as each test found it."""

from __future__ import annotations

import gc
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before any Qt import

import pytest  # noqa: E402
from PySide6.QtCore import QCoreApplication, QEvent, QSettings  # noqa: E402

import bpe_desktop.ui  # noqa: E402,F401  (PySide6 before pyqtgraph)
from bpe_desktop.core import BPEModel, Corpus, TrainConfig, train  # noqa: E402
from bpe_desktop.core import chunked
from bpe_desktop.ui.common import dialogs, workers  # noqa: E402

# Python 3.12's full collections move its own immortal objects into the permanent
# generation (3.11 and 3.13 leave it empty), and gc.unfreeze() moves them out again: those
# come and go with every full pass, so a test is held only to what lies beyond them.
gc.unfreeze()
gc.collect()
INTERPRETER_FROZEN = gc.get_freeze_count()

#: The seeds' toy vocabulary (seed 000): word counts with `</w>` as its own symbol.
SEED_WORDS = (("low", 5), ("lower", 2), ("newest", 6), ("widest", 3))


def gc_state() -> dict:
    """The process's garbage-collector state that a test must leave as it found it."""
    return {"enabled": gc.isenabled(), "threshold": gc.get_threshold(),
            "frozen": max(0, gc.get_freeze_count() - INTERPRETER_FROZEN),
            "paused": chunked.collection_paused()}


@pytest.fixture(autouse=True)
def gui_thread_collector(qapp):
    """As in the application: garbage (Qt objects among it) is collected on the GUI thread
    only, never in a worker thread (see ui.common.collector).

    One collector per test. At its end the test's widgets are destroyed, so a window is
    not freed during a later test: pytest-qt closes widgets with deleteLater(), which
    only the next test's QTest.qWait (waitUntil, waitSignal) carried out, and the
    thousands of objects a main window then freed offset the allocations test_collector
    waits on. Its young garbage is collected too (a full pass per test cost ~0.15 s;
    what reached the oldest generation waits for a later one, on the GUI thread as
    always). Fails the test if the gc state is not as it found it."""
    from bpe_desktop.ui.common.collector import GuiThreadCollector

    before = gc_state()
    collector = GuiThreadCollector(qapp)
    yield collector
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    collector.stop()
    gc.collect(1)  # the test's young garbage; a full pass per test cost ~0.15 s
    after = gc_state()
    if after != before:  # restored for the next test, then reported
        gc.unfreeze()
        gc.set_threshold(*before["threshold"])
        (gc.enable if before["enabled"] else gc.disable)()
        chunked._collector_users = 0  # a collector_paused() never left
        pytest.fail(f"garbage-collector state changed by the test: {before} -> {after}")


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path, qapp):
    """Each test gets its own empty QSettings (INI files under tmp_path)."""
    QCoreApplication.setOrganizationName("bpe-desktop-tests")
    QCoreApplication.setApplicationName("bpe-desktop-tests")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "settings"))
    os.environ["BPE_DESKTOP_DATA_DIR"] = str(tmp_path / "data")
    QSettings().clear()
    yield
    QSettings().clear()


@pytest.fixture(autouse=True)
def no_thread_left(qapp):
    """Every test must leave no background QThread running."""
    yield
    running = workers.running_threads()
    for t in running:
        t.wait(10_000)
    assert not running, f"{len(running)} QThread(s) still running after the test"


@pytest.fixture(scope="session")
def toy_model() -> BPEModel:
    """Seed 000's example: 10 merges over the toy vocabulary."""
    return train(Corpus.from_word_counts(SEED_WORDS), TrainConfig(merges=10)).model


@pytest.fixture(scope="session")
def botchan_model() -> BPEModel:
    from tests.shared_data import corpus_path

    return train(Corpus.from_files([corpus_path("botchan.txt")]),
                 TrainConfig(vocab_size=2000)).model


@pytest.fixture
def errors(monkeypatch) -> list[tuple[str, str]]:
    """Error dialogs recorded as (title, message) instead of shown."""
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(dialogs, "show_error",
                        lambda parent, title, message, details=None: shown.append((title, message)))
    return shown


@pytest.fixture
def training_panel(qtbot):
    """A Training panel on its own (its Train action starts a run), shut down after the test."""
    from bpe_desktop.ui.training.panel import TrainingPanel

    widget = TrainingPanel()
    qtbot.addWidget(widget)
    widget.train_requested.connect(widget.start)
    yield widget
    widget.shutdown()

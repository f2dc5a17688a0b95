"""Work that waits until the panels have taken a model over: the autosave and the export
checks run after the vocabulary's loading job, not beside it, where they would keep the
GUI thread waiting for the GIL."""

from __future__ import annotations

import pytest

from bpe_desktop.ui.common.background import WhenIdle
from bpe_desktop.ui.window.autosave import Autosave
from bpe_desktop.ui.window.document import ModelDocument

#: The ``ui`` (recorded dialogs) and ``window`` fixtures.
pytest_plugins = ["tests.ui.window_fixtures"]


class Flag:
    def __init__(self, value: bool) -> None:
        self.value = value

    def __call__(self) -> bool:
        return self.value


class Clock:
    """A clock the test moves by hand: the limits are tested without wall-clock windows
    (which a loaded machine can overrun)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class CountingFlag(Flag):
    """A busy flag that counts how often it was asked (each poll asks once)."""

    def __init__(self, value: bool) -> None:
        super().__init__(value)
        self.asked = 0

    def __call__(self) -> bool:
        self.asked += 1
        return self.value


@pytest.fixture
def busy():
    return Flag(True)


def polled(qtbot, flag: CountingFlag, times: int = 3) -> None:
    """Let the WhenIdle poll ``flag`` ``times`` more times (however slow the machine)."""
    target = flag.asked + times
    qtbot.waitUntil(lambda: flag.asked >= target, timeout=10_000)


def test_runs_at_once_when_nothing_is_busy(qtbot):
    calls = []
    idle = WhenIdle(lambda: False)
    idle.request(lambda: calls.append(1))
    assert calls == [1] and not idle.pending


def test_waits_while_busy_then_runs_once(qtbot):
    calls = []
    busy = CountingFlag(True)
    idle = WhenIdle(busy, poll_ms=5)
    idle.request(lambda: calls.append(1))
    polled(qtbot, busy)
    assert calls == [] and idle.pending
    busy.value = False
    qtbot.waitUntil(lambda: calls == [1], timeout=10_000)
    assert not idle.pending
    asked = busy.asked
    qtbot.wait(50)
    assert calls == [1] and busy.asked == asked  # done: no more polling


def test_a_newer_request_replaces_the_waiting_one(qtbot, busy):
    calls = []
    idle = WhenIdle(busy, poll_ms=5)
    idle.request(lambda: calls.append("old"))
    idle.request(lambda: calls.append("new"))
    busy.value = False
    qtbot.waitUntil(lambda: calls == ["new"], timeout=10_000)
    qtbot.wait(50)
    assert calls == ["new"]


def test_cancel_drops_the_waiting_request(qtbot):
    calls = []
    busy = CountingFlag(True)
    idle = WhenIdle(busy, poll_ms=5)
    idle.request(lambda: calls.append(1))
    idle.cancel()
    busy.value = False
    asked = busy.asked
    qtbot.wait(50)
    assert calls == [] and not idle.pending and busy.asked == asked  # not polled again


def test_runs_after_the_limit_even_if_still_busy(qtbot):
    calls = []
    busy, clock = CountingFlag(True), Clock()
    idle = WhenIdle(busy, poll_ms=5, limit_ms=60, clock=clock)
    idle.request(lambda: calls.append(1))
    clock.now = 0.059
    polled(qtbot, busy)
    assert calls == [] and idle.pending
    clock.now = 0.060
    qtbot.waitUntil(lambda: calls == [1], timeout=10_000)
    assert busy() and not idle.pending  # it did not wait for the panels


def test_the_default_limit_is_ten_seconds(qtbot):
    calls = []
    busy, clock = CountingFlag(True), Clock()
    idle = WhenIdle(busy, poll_ms=5, clock=clock)
    idle.request(lambda: calls.append(1))
    clock.now = 9.999
    polled(qtbot, busy)
    assert calls == []
    clock.now = 10.0
    qtbot.waitUntil(lambda: calls == [1], timeout=10_000)


def test_a_replacing_request_keeps_the_first_ones_deadline(qtbot):
    calls = []
    busy, clock = CountingFlag(True), Clock()
    idle = WhenIdle(busy, poll_ms=5, limit_ms=1000, clock=clock)
    idle.request(lambda: calls.append("old"))
    clock.now = 0.3
    idle.request(lambda: calls.append("new"))
    clock.now = 0.999
    polled(qtbot, busy)
    assert calls == []
    # due 1 s after the first request, not 1 s after the one that replaced it
    clock.now = 1.0
    qtbot.waitUntil(lambda: calls == ["new"], timeout=10_000)
    # a request after that one ran starts a deadline of its own
    idle.request(lambda: calls.append("later"))
    clock.now = 1.999
    polled(qtbot, busy)
    assert calls == ["new"]
    clock.now = 2.0
    qtbot.waitUntil(lambda: calls == ["new", "later"], timeout=10_000)


@pytest.fixture
def due_autosave(qtbot, busy, toy_model, monkeypatch):
    """(document, autosave): an imported model's autosave is due (after DELAY_MS) while
    the panels are busy."""
    monkeypatch.setattr("bpe_desktop.ui.window.autosave.DELAY_MS", 10)
    document = ModelDocument()
    autosave = Autosave(document, busy=busy)
    try:
        document.set_imported(toy_model)
        qtbot.waitUntil(lambda: autosave.busy, timeout=10_000)
        yield document, autosave
    finally:
        autosave.close()


def test_autosave_waits_for_the_panels(qtbot, busy, due_autosave):
    _, autosave = due_autosave
    qtbot.wait(100)
    assert not autosave.exists and autosave.busy and not autosave.writing  # held back
    busy.value = False
    with qtbot.waitSignal(autosave.saved, timeout=10_000):
        pass
    assert autosave.exists and not autosave.busy


def test_autosave_of_a_discarded_model_never_happens(qtbot, busy, due_autosave):
    document, autosave = due_autosave
    document.new()  # nothing unsaved any more
    assert not autosave.busy
    busy.value = False
    qtbot.wait(300)
    assert not autosave.exists


def test_export_checks_wait_for_the_panels(window, qtbot, toy_model, monkeypatch):
    loading = Flag(True)
    monkeypatch.setattr(window.vocab, "is_loading", loading)  # as while it loads
    window.document.set_imported(toy_model)
    qtbot.wait(300)
    actions = window.interop.export_actions
    assert window.interop.checking_exports
    assert all(a.isEnabled() for a in actions.values())  # offered until checked
    loading.value = False
    qtbot.waitUntil(lambda: not window.interop.checking_exports, timeout=10_000)
    # the toy model is not byte-level: the GPT-2 format cannot take it
    assert not actions["gpt2"].isEnabled() and actions["subword-nmt"].isEnabled()


def test_export_checks_wait_for_a_running_autosave(window, qtbot, toy_model, monkeypatch):
    """Work that can wait runs one job at a time (two workers running Python beside the
    GUI thread make it wait for both)."""
    writing = Flag(True)
    monkeypatch.setattr(type(window.autosave), "writing", property(lambda self: writing()))
    assert window.background_busy()
    window.document.set_imported(toy_model)
    qtbot.wait(300)
    assert window.interop.checking_exports and not window.interop.checks_running
    writing.value = False
    qtbot.waitUntil(lambda: not window.interop.checking_exports, timeout=10_000)
    assert not window.interop.export_actions["gpt2"].isEnabled()  # checked: not byte-level

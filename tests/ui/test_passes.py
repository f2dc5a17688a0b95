"""Steps run one per event-loop pass, in order; cancelled or finished at once on demand."""

from __future__ import annotations

import time

from PySide6.QtWidgets import QApplication

from bpe_desktop.ui.common.passes import StepsInPasses


def passes_until(done, limit: float = 5.0) -> list[int]:
    """Run the event loop pass by pass; the pass numbers in which a step ran."""
    ran: list[int] = []
    end = time.monotonic() + limit
    turn = 0
    while not done() and time.monotonic() < end:
        before = len(ran_steps)
        QApplication.processEvents()
        ran += [turn] * (len(ran_steps) - before)
        turn += 1
        time.sleep(0.0005)
    return ran


ran_steps: list[str] = []


def test_steps_run_one_per_pass_in_order_after_the_queuing_pass(qapp):
    ran_steps.clear()
    steps = StepsInPasses()
    steps.later(lambda: ran_steps.append("a"), lambda: ran_steps.append("b"))
    steps.later(lambda: ran_steps.append("c"))
    assert ran_steps == [] and steps.pending() == 3  # not in the pass that queued them
    turns = passes_until(lambda: len(ran_steps) == 3)
    assert ran_steps == ["a", "b", "c"]
    assert turns == sorted(set(turns))  # each in a pass of its own


def test_cancel_drops_and_finish_runs_what_is_waiting(qapp):
    ran_steps.clear()
    steps = StepsInPasses()
    steps.later(lambda: ran_steps.append("old"))
    steps.cancel()
    steps.later(lambda: ran_steps.append("a"), lambda: ran_steps.append("b"))
    steps.finish()
    assert ran_steps == ["a", "b"] and steps.pending() == 0
    passes_until(lambda: False, limit=0.05)
    assert ran_steps == ["a", "b"]  # nothing runs twice, nothing cancelled comes back

"""The stage ETA follows the recent rate: hand-built progress sequences."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bpe_desktop.views.eta import StageEta, stage_eta


def _speeding_up_merges(step=0.1):
    """3,000 merges: the first 100 take 2 s (50/s), the rest run at 1,000/s (2.9 s).

    Yields (elapsed, merges done, true seconds left), one report every ``step`` s.
    """
    total_time = 2.0 + 2.9
    t = 0.0
    while t <= total_time + 1e-9:
        done = 50 * t if t <= 2.0 else min(3000, 100 + 1000 * (t - 2.0))
        yield round(t, 6), round(done), max(0.0, total_time - t)
        t += step


def test_recent_rate_follows_the_speed_up():
    eta = StageEta()
    seen = {}
    for t, done, truth in _speeding_up_merges():
        seen[round(t, 1)] = (eta.update("merging", t, done, 3000), truth)
    # After 1 s at the new speed the estimate is close to the truth (1.9 s left) ...
    estimate, truth = seen[3.0]
    assert truth == pytest.approx(1.9)
    assert estimate == pytest.approx(truth, abs=0.4)
    # ... where the average since the start would say 3.0 * 1900 / 1100 = 5.2 s.
    assert 3.0 * (3000 - 1100) / 1100 > 5
    # Near the end it is within a few tenths of a second, and zero when done.
    estimate, truth = seen[4.5]
    assert estimate == pytest.approx(truth, abs=0.2)
    assert eta.update("merging", 5.0, 3000, 3000) == 0.0


def test_steady_rate_gives_the_exact_time_left():
    eta = StageEta()
    # 100 bytes a second, 1,000 bytes: at t = 4 s, 6 s are left
    results = [eta.update("reading", t / 10, 10 * t, 1000) for t in range(41)]
    assert results[40] == pytest.approx(6.0)


def test_no_estimate_too_early_unknown_total_or_new_stage():
    eta = StageEta()
    assert eta.update("reading", 0.0, 0, 1000) is None
    assert eta.update("reading", 0.3, 300, 1000) is None  # under MIN_SPENT
    assert eta.update("reading", 1.0, 400, 1000) is not None
    assert eta.update("merging", 1.1, 5, 1000) is None  # a new stage starts over
    assert eta.update("merging", 2.0, 10, None) is None  # target unknown
    assert eta.update("merging", 3.0, 10, 100_000) is None  # 0.01 % done: under MIN_FRACTION


def test_a_stall_counts_down_instead_of_jumping():
    eta = StageEta()
    for t in range(11):
        last = eta.update("merging", t / 10 + 1, 100 * t, 2000)
    # 1,000 merges a second, 1,000 left: 1 s
    assert last == pytest.approx(1.0)
    stalled = eta.update("merging", 2.5, 1000, 2000)
    stalled = eta.update("merging", 2.9, 1000, 2000)
    assert stalled is not None and stalled < 1.0


def test_stage_eta_reads_a_progress_report():
    eta = StageEta()
    reports = [SimpleNamespace(stage="merging", elapsed=t / 10, merges_done=10 * t,
                               merges_target=100, bytes_done=0, bytes_total=0)
               for t in range(8)]
    values = [stage_eta(eta, p) for p in reports]
    # 100 merges a second, 30 left at t = 0.7 s
    assert values[-1] == pytest.approx(0.3)

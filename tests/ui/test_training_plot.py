"""The live merge-count plot: every count drawn, in a pass of its own; axes set once from
the run's expected merges, or grown in steps."""

from __future__ import annotations

import numpy as np
import pytest

from bpe_desktop.ui.training.plot import MergeCountPlot, nice_ceiling


@pytest.mark.parametrize("n, expected", [
    (0, 1000), (1, 1000), (1000, 1000), (1001, 2000), (2000, 2000), (2001, 5000),
    (5001, 10_000), (31_744, 50_000), (100_000, 100_000), (100_001, 200_000),
])
def test_nice_ceiling(n, expected):
    assert nice_ceiling(n) == expected


@pytest.fixture
def plot(qtbot) -> MergeCountPlot:
    widget = MergeCountPlot()
    qtbot.addWidget(widget)
    widget.resize(600, 300)
    return widget


def test_batches_are_all_drawn_once_in_the_next_pass(plot, qtbot):
    counts = (1e6 / np.arange(1, 5001) ** 0.9).astype(np.int64)
    drawn = []
    plot._curve.sigPlotChanged.connect(lambda *_: drawn.append(len(plot._curve.xData)))
    for start in range(0, 5000, 700):
        plot.add_counts(counts[start:start + 700])
    assert np.array_equal(plot.counts(), counts)
    assert drawn == []  # the slot that brought them only stores them
    qtbot.waitUntil(lambda: bool(drawn))
    qtbot.wait(20)
    assert drawn == [5000]  # eight batches, one redraw
    x, y = plot._curve.getOriginalDataset()
    assert np.array_equal(x, np.arange(1, 5001)) and np.array_equal(y, counts)
    assert plot._curve.opts["clipToView"] and plot._curve.opts["autoDownsample"]


def test_axes_grow_in_steps_and_only_when_needed(plot):
    ranges = []
    plot.getPlotItem().getViewBox().sigRangeChanged.connect(
        lambda *_: ranges.append(plot.shown_range()))
    assert plot.shown_range() == (1000, 10)
    plot.add_counts([50_000, 40_000])  # a count beyond the first decade: y grows
    plot.flush()
    assert plot.shown_range() == (1000, 100_000)
    for _ in range(9):  # up to 902 steps of smaller counts: nothing changes
        plot.add_counts([30_000] * 100)
        plot.flush()
    assert plot.shown_range() == (1000, 100_000)
    changes = len(ranges)
    plot.add_counts([20_000] * 200)  # 1,102 steps: the step axis doubles
    plot.flush()
    assert plot.shown_range() == (2000, 100_000) and len(ranges) > changes
    plot.clear_counts()
    assert plot.shown_range() == (1000, 10) and plot.counts().size == 0


def test_final_counts_replace_the_live_ones(plot):
    plot.add_counts([5, 4, 3])
    plot.set_counts([9, 8, 7, 6])
    assert plot.counts().tolist() == [9, 8, 7, 6]
    plot.set_counts([])
    assert plot.counts().size == 0


def test_fit_to_data_ends_the_step_axis_at_the_last_merge(plot):
    counts = (1e5 / np.arange(1, 2900) ** 0.8).astype(np.int64)  # 2,899 merges
    for start in range(0, len(counts), 500):
        plot.add_counts(counts[start:start + 500])
        plot.flush()
    assert plot.shown_range()[0] == 5000  # while training: the next 1-2-5 step
    plot.fit_to_data()
    steps, top = plot.shown_range()
    assert steps == 2899 and top == 100_000
    (_, x_max), _ = plot.getPlotItem().getViewBox().viewRange()
    assert x_max < 2899 * 1.05  # at most the padding is left empty
    plot.clear_counts()  # the next run starts on the usual axis again
    assert plot.shown_range() == (1000, 10)


def test_expected_merges_set_the_step_axis_once(plot):
    """A run whose options bound its merges: the step axis is set when it starts, and the
    counts change the count axis once, with the first of them (a merge's count is the
    most any later merge can have)."""
    ranges = []
    plot.getPlotItem().getViewBox().sigRangeChanged.connect(
        lambda *_: ranges.append(plot.shown_range()))
    plot.clear_counts()
    assert ranges == []  # the axes a run starts with are already shown
    plot.expect_merges(31_744)  # the options' limit, with the first progress
    assert plot.shown_range() == (31_744, 10) and len(ranges) == 1
    counts = (3e6 / np.arange(1, 31_745) ** 0.9).astype(np.int64)
    plot.expect_merges(31_744)  # the engine's target, as merging starts: no change
    changes = len(ranges)
    for start in range(0, len(counts), 6000):
        plot.add_counts(counts[start:start + 6000])
        plot.flush()
    assert plot.shown_range() == (31_744, 10_000_000)
    assert len(ranges) == changes + 1  # y only (one setRange may emit x and y)
    plot.fit_to_data()  # the axis already ends at the last merge: nothing changes
    assert len(ranges) == changes + 1


def test_a_wide_limit_shrinks_to_the_engines_target(plot):
    """A vocabulary limit counts the characters as room for merges: when merging starts,
    an axis more than a quarter wider than the engine's target is fitted to it."""
    plot.expect_merges(298)
    plot.expect_merges(154)
    plot.add_counts([900, 800])
    plot.flush()
    assert plot.shown_range() == (154, 1000)
    plot.clear_counts()
    plot.expect_merges(2998)
    plot.expect_merges(2916)  # within a quarter: kept while the count axis holds
    plot.add_counts([9, 8])
    plot.flush()
    assert plot.shown_range() == (2998, 10)
    plot.add_counts([900])  # the count axis changes, and the step axis with it
    plot.flush()
    assert plot.shown_range() == (2916, 1000)
    plot.add_counts([7] * 2916)  # more than expected after all: 1-2-5 steps again
    plot.flush()
    assert plot.shown_range()[0] == 5000


def test_axes_show_major_ticks_only(plot):
    for name in ("left", "bottom"):
        assert plot.getPlotItem().getAxis(name).style["maxTickLevel"] == 0

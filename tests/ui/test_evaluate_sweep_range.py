"""The Evaluate panel offers no more vocabulary sizes than the model has merge counts."""

from __future__ import annotations

from bpe_desktop.core import BPEModel, Merge, TrainConfig
from bpe_desktop.ui.evaluate import EvaluatePanel
from bpe_desktop.ui.evaluate.panel import SWEEP_SPIN_MAX


def _model(merges: int) -> BPEModel:
    pieces = ["a"]
    rules = []
    for _ in range(merges):  # a, aa, aaa, ...: each merge a new token
        rules.append(Merge(pieces[-1], "a", None))
        pieces.append(pieces[-1] + "a")
    return BPEModel(config=TrainConfig(merges=merges), alphabet=("a",), merges=tuple(rules))


def test_sweep_sizes_are_capped_at_merges_plus_one(qtbot):
    panel = EvaluatePanel()
    qtbot.addWidget(panel)
    panel.set_model(_model(5))
    assert panel.sweep_points.maximum() == 6
    panel.sweep_points.setValue(150)
    assert panel.sweep_points.value() == 6
    panel.set_model(_model(400))
    assert panel.sweep_points.maximum() == SWEEP_SPIN_MAX
    panel.set_model(None)
    assert panel.sweep_points.maximum() == SWEEP_SPIN_MAX

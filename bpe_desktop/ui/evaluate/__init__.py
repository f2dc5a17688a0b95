"""The Evaluate panel (Ctrl+4): morphology, text statistics, parity, vocabulary size."""

from bpe_desktop.ui.evaluate.panel import EvaluatePanel

__all__ = ["EvaluatePanel"]

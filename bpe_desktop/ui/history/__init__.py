"""The History panel and everything of the window that records runs in a project."""

from bpe_desktop.ui.history.panel import HistoryPanel

__all__ = ["HistoryPanel"]

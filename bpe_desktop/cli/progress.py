"""The progress line of long commands (train, import --recount, count) on standard error."""

from __future__ import annotations

import shutil
import threading
import time
from typing import TextIO

from bpe_desktop.cli._common import PROG
from bpe_desktop.views.eta import StageEta, stage_eta
from bpe_desktop.core.formatting import describe_progress


class ProgressBar:
    """Training progress on a stream: a redrawn line on a terminal, else a line now and then.

    Called from the training thread with :class:`~bpe_desktop.core.training.Progress`.
    """

    TTY_INTERVAL = 0.1
    PLAIN_INTERVAL = 5.0
    BAR_WIDTH = 20

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        try:
            self.tty = stream.isatty()
        except (AttributeError, ValueError):
            self.tty = False
        self._last = 0.0
        self._stage = None
        self._eta = StageEta()
        self._drawn = False
        self._lock = threading.Lock()

    def __call__(self, p) -> None:
        now = time.monotonic()
        new_stage = p.stage != self._stage
        if new_stage:
            self._stage = p.stage
        eta = stage_eta(self._eta, p)
        if not self._due(now, new_stage):
            return
        # The last line shows the finished state (100 %, N/N), not the stage's first report.
        self.show(self.describe(p, eta) if p.stage != "done" else self.describe_finished(p))

    def _due(self, now: float, new_stage: bool) -> bool:
        interval = self.TTY_INTERVAL if self.tty else self.PLAIN_INTERVAL
        if not new_stage and now - self._last < interval:
            return False
        self._last = now
        return True

    def show(self, line: str) -> None:
        """Redraw the line on a terminal; elsewhere (a log, a pipe) write it as a line."""
        with self._lock:
            try:
                if self.tty:
                    width = shutil.get_terminal_size((80, 24)).columns - 1
                    self.stream.write("\r" + line[:width] + "\x1b[K")
                    self._drawn = True
                else:
                    self.stream.write(f"{PROG}: {line}\n")
                self.stream.flush()
            except (OSError, ValueError):
                pass

    def describe(self, p, eta: float | None = None) -> str:
        return describe_progress(p, eta, bar_width=self.BAR_WIDTH if self.tty else 0)

    def describe_finished(self, p) -> str:
        """The merging stage as it ended: every merge done, whatever the target was."""
        from bpe_desktop.core.training import Progress

        finished = Progress("merging", p.bytes_done, p.bytes_total, p.words, p.merges_done,
                            p.merges_done, p.pair, p.count, p.elapsed)
        return self.describe(finished)

    def clear(self) -> None:
        with self._lock:
            if self.tty and self._drawn:
                try:
                    self.stream.write("\r\x1b[K")
                    self.stream.flush()
                except (OSError, ValueError):
                    pass
                self._drawn = False


class SegmenterProgressBar(ProgressBar):
    """Morfessor's progress before training (its reports carry words, not bytes or merges)."""

    def __call__(self, p) -> None:  # type: ignore[override]
        new_stage = p.stage != self._stage
        self._stage = p.stage
        if self._due(time.monotonic(), new_stage):
            self.show(f"morfessor {p.stage}  {p.fraction:4.0%}  {p.words_done:,}/"
                      f"{p.words_total:,} words  {p.elapsed:.0f} s")

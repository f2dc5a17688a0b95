"""Work for the GUI thread cut into steps, each in an event-loop pass of its own.

A step that changes what a large view shows (a 1 MB document set, a form disabled) costs
its own time and a repaint in the next pass. Two such steps in one pass, or one step and the
other's repaint, held the GUI thread 20-30 ms; one per pass, a timer due meanwhile (another
job's progress, an animation) runs between them. Each next step waits on a 1 ms timer: a
0 ms single shot is a posted event, which the loop delivers in the same pass (measured:
both of the Encode tab's steps in one 20 ms pass), and a 1 ms one usually leaves the
repaint the last step asked for a pass of its own before the next step.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

#: Between two steps, so that the loop paints in between.
STEP_GAP_MS = 1


class StepsInPasses(QObject):
    """A queue of steps run one per pass, in order, after the pass that queued them."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._steps: deque[Callable[[], object]] = deque()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(STEP_GAP_MS)
        self._timer.timeout.connect(self._next)

    def later(self, *steps: Callable[[], object]) -> None:
        """Queue ``steps`` after those already waiting."""
        self._steps.extend(steps)
        if self._steps and not self._timer.isActive():
            self._timer.start()

    def cancel(self) -> None:
        """Drop the steps still waiting (what they would show is out of date)."""
        self._steps.clear()
        self._timer.stop()

    def finish(self) -> None:
        """Run the steps still waiting now, in order (the work they finish has ended)."""
        self._timer.stop()
        while self._steps:
            self._steps.popleft()()

    def pending(self) -> int:
        return len(self._steps)

    def _next(self) -> None:
        if self._steps:
            self._steps.popleft()()
        if self._steps:
            self._timer.start()

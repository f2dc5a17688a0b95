"""Time left in a training stage, from the recent rate rather than the average one.

Merging speeds up as it goes: the first merges touch the most frequent pairs, which
occur in many words, and later merges touch ever fewer. Extrapolating the average rate
since the stage began therefore overestimates the time left many times over (0:48 shown
on a run that ended 3 s later). :class:`StageEta` measures the rate over a recent
window of the stage's own progress reports, so it follows the speed-up, and smooths the
estimate so it does not jump with every report. Qt-free: the CLI and the GUI use it.
"""

from __future__ import annotations

from collections import deque

#: No estimate before the stage has run this long (seconds) and got this far (fraction):
#: the first moments say little about the rest.
MIN_SPENT = 0.5
MIN_FRACTION = 0.02
#: The rate is measured over the last WINDOW_SHARE of the stage's time so far, kept
#: within these bounds (seconds): long enough to be steady, short enough to follow.
WINDOW_SHARE = 0.25
MIN_WINDOW, MAX_WINDOW = 0.5, 30.0
#: Weight of a new estimate against the previous, smoothed one.
SMOOTHING = 0.5


class StageEta:
    """Feed it each progress report; it returns the seconds left in that report's stage.

    ``update`` takes the stage name, the seconds elapsed since training began, and the
    work done and total in the stage's own unit (bytes, merges). It returns None when
    there is no sensible estimate yet (a new stage, too early, the total unknown).
    """

    def __init__(self) -> None:
        self._stage: str | None = None
        self._start = 0.0
        self._samples: deque[tuple[float, float]] = deque()
        self._smoothed: float | None = None
        self._smoothed_at = 0.0

    def update(self, stage: str, elapsed: float, done: float, total: float | None
               ) -> float | None:
        if stage != self._stage:
            self._stage, self._start = stage, elapsed
            self._samples.clear()
            self._smoothed = None
        samples = self._samples
        if samples and elapsed <= samples[-1][0]:
            samples.pop()  # two reports at one instant: keep the newer
        samples.append((elapsed, done))
        spent = elapsed - self._start
        window = min(MAX_WINDOW, max(MIN_WINDOW, WINDOW_SHARE * spent))
        # keep one sample at or before the window's start, so the window is covered whole
        while len(samples) > 2 and samples[1][0] <= elapsed - window:
            samples.popleft()
        if not total or total <= 0:
            return None
        if done >= total:
            self._smoothed, self._smoothed_at = 0.0, elapsed
            return 0.0
        if spent < MIN_SPENT or done / total < MIN_FRACTION or len(samples) < 2:
            return None
        (t0, d0), (t1, d1) = samples[0], samples[-1]
        if d1 <= d0 or t1 <= t0:
            return self._aged(elapsed)  # no progress in the window: keep counting down
        estimate = (total - done) * (t1 - t0) / (d1 - d0)
        previous = self._aged(elapsed)
        if previous is not None:
            estimate = SMOOTHING * estimate + (1 - SMOOTHING) * previous
        self._smoothed, self._smoothed_at = estimate, elapsed
        return estimate

    def _aged(self, elapsed: float) -> float | None:
        """The previous estimate, less the time since it was made."""
        if self._smoothed is None:
            return None
        return max(0.0, self._smoothed - (elapsed - self._smoothed_at))


def progress_work(p) -> tuple[float, float | None]:
    """(done, total) of a :class:`~bpe_desktop.core.training.Progress` in its stage's unit."""
    if p.stage == "merging":
        return float(p.merges_done), (float(p.merges_target) if p.merges_target else None)
    return float(p.bytes_done), (float(p.bytes_total) if p.bytes_total else None)


def stage_eta(estimator: StageEta, p) -> float | None:
    """Seconds left in ``p``'s stage by ``estimator`` (fed with this report)."""
    done, total = progress_work(p)
    return estimator.update(p.stage, p.elapsed, done, total)

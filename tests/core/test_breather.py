"""The Breather of background jobs: when it lets go of the GIL, and for how long."""

from __future__ import annotations

import pytest

from bpe_desktop.core.chunked import MAX_STEP_ASIDE, Breather, Superseded


class Clocks:
    """A wall clock and a thread's CPU clock the test moves by hand; sleeps are recorded."""

    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0
        self.sleeps: list[float] = []

    def run(self, wall: float, cpu: float) -> None:
        self.wall += wall
        self.cpu += cpu

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.wall += seconds

    def breather(self, **kwargs) -> Breather:
        return Breather(clock=lambda: self.wall, cpu_clock=lambda: self.cpu,
                        sleep=self.sleep, **kwargs)


def test_it_lets_go_briefly_once_per_hold_when_the_job_ran_freely():
    c = Clocks()
    breathe = c.breather(hold=0.002, pause=0.0002)
    c.run(0.001, 0.001)
    breathe()
    assert c.sleeps == []  # not a hold yet
    c.run(0.0015, 0.0015)
    breathe()
    assert c.sleeps == [0.0002]
    c.run(0.0021, 0.0018)  # waited 0.3 ms of 2.1: under a quarter
    breathe()
    assert c.sleeps == [0.0002, 0.0002]


def test_it_steps_aside_four_times_as_long_as_the_job_waited():
    c = Clocks()
    breathe = c.breather(hold=0.002, pause=0.0002)
    c.run(0.002, 0.001)  # waited 1 ms of 2: half the time
    breathe()
    assert c.sleeps == [pytest.approx(0.004)]
    c.run(0.003, 0.001)  # waited 2 ms: 8 ms, more than the most it steps aside
    breathe()
    assert c.sleeps[-1] == MAX_STEP_ASIDE
    c.run(0.0025, 0.0025)  # the time it stepped aside does not count as waiting
    breathe()
    assert c.sleeps[-1] == 0.0002


def test_stepping_aside_can_be_turned_off_and_cancelling_still_stops():
    c = Clocks()

    class Cancel:
        cancelled = False

    cancel = Cancel()
    breathe = c.breather(cancel=cancel, hold=0.002, pause=0.0002, step_aside=0.0)
    c.run(0.004, 0.001)
    breathe()
    assert c.sleeps == [0.0002]
    cancel.cancelled = True
    with pytest.raises(Superseded):
        breathe()

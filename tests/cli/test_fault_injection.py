"""Writers killed at random moments (a fixed seed) and faults injected into their system
calls (strace): every target is the old or the new complete file, a set of files is
never silently mixed, a failed write is one line and leaves the old file, and the next
write removes what a killed one left. The long series is benchmarks/bench_fault_injection.py.
"""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest

from tests.fault_harness import Bench, environment, kill_after, random_delay

#: Kills per writer in the suite (the benchmark runs hundreds).
KILLS_PER_WRITER = 3


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    return Bench(tmp_path_factory.mktemp("faults"), merges=(150, 300))


def test_random_kills_leave_the_old_or_the_new_output(bench):
    rng = random.Random(32)
    outcomes = []
    for writer in bench.writers:
        for _ in range(KILLS_PER_WRITER):
            bench.restore_old(writer)
            proc = bench.start(writer)
            finished = kill_after(proc, random_delay(rng, bench.seconds[writer.name]))
            state = bench.judge(writer)  # raises on a torn or silently mixed output
            outcomes.append((writer.name, finished, state))
            if finished:
                assert state == "new", (writer.name, state)
    # every writer's next complete run leaves no temporary file of the killed ones
    for writer in bench.writers:
        bench._run(writer.argv("new"))
        assert bench.judge(writer) == "new"
    assert bench.temporary_files() == []
    assert len(outcomes) == KILLS_PER_WRITER * len(bench.writers)


def _strace() -> str:
    path = shutil.which("strace")
    assert path, "strace is needed (apt-get install strace; .ci/run installs it)"
    return path


RENAMES = "rename,renameat,renameat2"


@pytest.mark.parametrize("when", [1, 2, 3])
def test_a_kill_at_each_rename_of_a_set_is_never_silently_mixed(bench, when):
    writer = next(w for w in bench.writers if w.name == "export-gpt2")
    bench.restore_old(writer)
    done = subprocess.run([_strace(), "-f", "-qq", "-o", "/dev/null", "-e", f"trace={RENAMES}",
                           "-e", f"inject={RENAMES}:signal=KILL:when={when}",
                           *writer.argv("new")], env=environment(), capture_output=True)
    assert done.returncode != 0  # killed at that rename
    state = bench.judge(writer)
    # rename 1 is the checksum list: killed before it, all old; at the files, mixed
    assert state == ("old" if when == 1 else "mixed-refused"), state
    bench._run(writer.argv("new"))  # the next export completes the set and tidies up
    assert bench.judge(writer) == "new" and bench.temporary_files() == []


@pytest.mark.parametrize("syscall, error", [("fsync", "EIO"), ("fsync", "ENOSPC"),
                                            (RENAMES, "EXDEV"), ("write", "ENOSPC")])
def test_an_injected_io_error_is_one_line_and_keeps_the_old_file(bench, syscall, error):
    writer = next(w for w in bench.writers if w.name == "train")
    bench.restore_old(writer)
    # the first such call is the model's (with -q and no bytecode caching, the first
    # write too: a full disk); the error message's own write is not touched
    env = dict(environment(), PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([_strace(), "-f", "-qq", "-o", "/dev/null", "-e", f"trace={syscall}",
                           "-e", f"inject={syscall}:error={error}:when=1",
                           *writer.argv("new")], env=env, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("bpe-desktop: error: "), done.stderr
    assert "model.json" in lines[0] and "Traceback" not in done.stderr
    assert bench.judge(writer) == "old"
    assert bench.temporary_files() == []

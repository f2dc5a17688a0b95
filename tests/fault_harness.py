"""Killing the command line's writers at random moments, and judging what they leave.

Shared by ``tests/cli/test_fault_injection.py`` (a few kills, in the suite) and
``benchmarks/bench_fault_injection.py`` (hundreds, two writers at a time). Each writer
replaces files in ``out/`` that hold an *old* version (written beforehand); a kill at
any moment must leave each target the old or the new complete file, and a set of files
(GPT-2's pair with its checksum list) all old, all new, or mixed in a way that import
refuses. The next run of a writer removes what killed runs left (temporary files).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "data" / "tinyshakespeare.txt"


@dataclass
class Writer:
    """A command that replaces ``targets`` (names in ``out/``); ``argv(version)`` writes
    version ``old`` or ``new``."""

    name: str
    argv: Callable[[str], list[str]]
    targets: tuple[str, ...]
    kind: str  # model | bytes | set


class Violation(AssertionError):
    """A target that is neither the old nor the new complete output."""


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "bpe_desktop", *args, "-q"]


def environment() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(REPO))


class Bench:
    """A work folder with the sources, the reference outputs and the writers."""

    def __init__(self, root: Path, *, merges: tuple[int, int] = (300, 600)) -> None:
        self.root = root
        self.src, self.out, self.ref = root / "src", root / "out", root / "ref"
        for d in (self.src, self.out, self.ref):
            d.mkdir(parents=True, exist_ok=True)
        corpus = self.src / "corpus.txt"
        shutil.copy(CORPUS, corpus)
        self.corpus = str(corpus)
        old, new = merges
        for version, n in (("old", old), ("new", new)):
            self._run(command("train", self.corpus, "-o", str(self.src / f"{version}.json"),
                              "--preset", "subword-nmt", "--merges", str(n)))
            self._run(command("train", self.corpus, "-o", str(self.src / f"gpt2-{version}.json"),
                              "--preset", "gpt2", "--merges", str(n)))
            self._run(command("export", "-m", str(self.src / f"{version}.json"), "--format",
                              "subword-nmt", "-o", str(self.src / f"{version}.codes")))
        self.merges = {"old": old, "new": new}
        o = self.out
        self.writers = [
            Writer("train", lambda v: command(
                "train", self.corpus, "-o", str(o / "model.json"), "--preset", "subword-nmt",
                "--merges", str(self.merges[v])), ("model.json",), "model"),
            Writer("count", lambda v: command(
                "count", self.corpus, "-o", str(o / "table.tsv.gz"),
                *(["--lowercase"] if v == "new" else [])), ("table.tsv.gz",), "bytes"),
            Writer("export-hf", lambda v: command(
                "export", "-m", str(self.src / f"{v}.json"), "--format", "hf", "-o",
                str(o / "tokenizer.json")), ("tokenizer.json",), "bytes"),
            Writer("export-gpt2", lambda v: command(
                "export", "-m", str(self.src / f"gpt2-{v}.json"), "--format", "gpt2", "-o",
                str(o) + os.sep), ("vocab.json.sha256", "vocab.json", "merges.txt"), "set"),
            Writer("import", lambda v: command(
                "import", "--format", "subword-nmt", str(self.src / f"{v}.codes"), "-o",
                str(o / "imported.json")), ("imported.json",), "model"),
        ]
        self.reference: dict[tuple[str, str], dict[str, bytes]] = {}
        self.seconds: dict[str, float] = {}
        for w in self.writers:
            for version in ("new", "old"):  # old last: out/ then holds the old versions
                started = time.perf_counter()
                self._run(w.argv(version))
                self.seconds[w.name] = time.perf_counter() - started
                self.reference[w.name, version] = {t: (o / t).read_bytes() for t in w.targets}
        for w in self.writers:
            for t in w.targets:
                shutil.copy(o / t, self.ref / f"{w.name}.old.{t}")

    @staticmethod
    def _run(argv: list[str]) -> None:
        done = subprocess.run(argv, env=environment(), capture_output=True, text=True,
                              timeout=600)
        if done.returncode != 0:
            raise RuntimeError(f"{argv}: {done.stderr}")

    def restore_old(self, writer: Writer) -> None:
        """The targets back to their old version (atomically, as a user's files are)."""
        for t in writer.targets:
            tmp = self.out / f"restore.{t}"
            shutil.copy(self.ref / f"{writer.name}.old.{t}", tmp)
            os.replace(tmp, self.out / t)

    def start(self, writer: Writer) -> subprocess.Popen:
        return subprocess.Popen(writer.argv("new"), env=environment(),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def judge(self, writer: Writer) -> str:
        """``old``, ``new`` or ``mixed-refused`` (a set import refuses); else Violation."""
        found = {}
        for t in writer.targets:
            path = self.out / t
            if not path.is_file():
                raise Violation(f"{writer.name}: {t} is missing")
            found[t] = path.read_bytes()
        versions = set()
        for t, data in found.items():
            versions.add(self._version_of(writer, t, data))
        if len(versions) == 1:
            return versions.pop()
        if writer.kind != "set":
            raise Violation(f"{writer.name}: targets of different versions")
        from bpe_desktop.core.errors import ModelFileError
        from bpe_desktop.core.formats import import_model

        try:
            import_model("gpt2", str(self.out) + os.sep)
        except ModelFileError as exc:
            if "different exports" in str(exc):
                return "mixed-refused"
            raise Violation(f"{writer.name}: a mixed set refused for another reason: {exc}")
        raise Violation(f"{writer.name}: a mixed set ({sorted(versions)}) imports silently")

    def _version_of(self, writer: Writer, target: str, data: bytes) -> str:
        if writer.kind == "model":  # the model file records when it was made: compare merges
            from bpe_desktop.core.model_file import loads

            try:
                merges = len(loads(data).merges)
            except Exception as exc:
                raise Violation(f"{writer.name}: {target} does not load: {exc}") from None
            for version, n in self.merges.items():
                if merges == n:
                    return version
            raise Violation(f"{writer.name}: {target} has {merges} merges")
        for version in ("old", "new"):
            if data == self.reference[writer.name, version][target]:
                return version
        raise Violation(f"{writer.name}: {target} is neither version ({len(data)} bytes)")

    def temporary_files(self) -> list[str]:
        return sorted(p.name for p in self.out.iterdir() if p.name.endswith(".tmp"))


def random_delay(rng, seconds: float, stretch: float = 1.0) -> float:
    """When to kill a run that takes ``seconds`` alone (``stretch`` times that beside
    another): mostly late, where its files are written (starting Python and reading the
    corpus take most of a short run)."""
    return seconds * stretch * rng.uniform(0.6, 1.15)


def kill_after(proc: subprocess.Popen, delay: float) -> bool:
    """SIGKILL ``proc`` after ``delay`` seconds; True if it had ended by itself first."""
    deadline = time.perf_counter() + delay
    while time.perf_counter() < deadline:
        if proc.poll() is not None:
            return True
        time.sleep(0.002)
    if proc.poll() is not None:
        return True
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return False

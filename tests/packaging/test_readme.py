"""The README's install steps are complete: a newcomer who follows them on Debian or
Ubuntu has every system package the tests need (the ones CI installs)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: What CI installs to build the engine and its crates, not to run the app or the tests:
#: a developer with a Rust toolchain has it already.
BUILD_TOOLCHAIN = {"build-essential", "pkg-config", "ca-certificates"}


def _readme_system_packages() -> set[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    line = re.search(r"^\s*sudo apt-get install (.+)$", text, re.MULTILINE)
    assert line, "the README names no system packages"
    return set(line.group(1).split())


def _ci_system_packages() -> set[str]:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    command = re.search(r"apt-get install -y -qq --no-install-recommends(.*?)>/dev/null",
                        script, re.DOTALL)
    assert command, ".ci/run installs no system packages"
    return set(command.group(1).replace("\\", " ").split())


def test_the_readme_names_every_system_package_the_tests_need():
    missing = _ci_system_packages() - BUILD_TOOLCHAIN - _readme_system_packages()
    assert not missing, f"README's apt-get line lacks {sorted(missing)}"

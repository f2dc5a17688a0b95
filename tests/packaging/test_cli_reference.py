"""The help page "Command line" is generated from the parsers and cannot go stale."""

from __future__ import annotations

import argparse
import importlib.util
import re
from pathlib import Path

from bpe_desktop.app import _parser as app_parser
from bpe_desktop.cli import build_parser
from bpe_desktop.paths import resource_path

ROOT = Path(__file__).resolve().parents[2]


def _generator():
    spec = importlib.util.spec_from_file_location(
        "make_cli_reference", ROOT / "packaging" / "make_cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _page() -> str:
    return resource_path("help", "command-line.md").read_text(encoding="utf-8")


def _layout_free(text: str) -> str:
    """The page without what argparse lays out differently from one Python to the next:
    white space (wrapping, column alignment) and the way an option with a value is listed
    (``-o MODEL, --output MODEL`` up to 3.12, ``-o, --output MODEL`` from 3.13)."""
    text = re.sub(r"(?<![\w-])(-\w) (\S+), (--[\w-]+) \2", r"\1, \3 \2", text)
    return re.sub(r"\s+", "", text)


def test_page_matches_a_fresh_generation(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    page, fresh = _page(), _generator().generate()
    assert _layout_free(page) == _layout_free(fresh), \
        "help/command-line.md is stale: run python3 packaging/make_cli_reference.py"


def test_layout_free_comparison_still_sees_content():
    assert _layout_free("  -o MODEL, --output MODEL\n   where") == \
        _layout_free("-o, --output MODEL    where")
    assert _layout_free("--vocab-size N  stop") != _layout_free("--vocab-size N  halt")


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def test_every_command_and_option_is_documented():
    page = _page()
    parser = build_parser()
    commands = _commands(parser)
    assert set(commands) >= {"train", "encode", "decode", "info", "export", "import"}
    parsers = [("", parser), *commands.items(), ("(application)", app_parser())]
    missing = []
    for name, sub in parsers:
        if name and not name.startswith("(") and f"## bpe-desktop {name}" not in page:
            missing.append(f"section for {name}")
        for action in sub._actions:
            for option in action.option_strings:
                if option not in page:
                    missing.append(f"{name} {option}")
            for choice in action.choices or () if not isinstance(
                    action, argparse._SubParsersAction) else ():
                if str(choice) not in page:
                    missing.append(f"{name} {'/'.join(action.option_strings)} {choice}")
    assert missing == []

"""Write the help page "Command line" from the commands' own ``--help`` texts.

    python3 packaging/make_cli_reference.py          # rewrites resources/help/command-line.md
    python3 packaging/make_cli_reference.py --check  # exit 1 if the page is out of date

The page is generated so it cannot drift from the program: tests/packaging checks that
it matches a fresh generation. Edit the help strings in the bpe_desktop/cli/ modules and
bpe_desktop/app.py, then run this.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "bpe_desktop" / "resources" / "help" / "command-line.md"
#: argparse wraps help to the terminal width; fix it so the page is the same everywhere.
WIDTH = 90

INTRO = """\
# Command line

Everything the application does to a model can also be done from a terminal, for
batch work and scripts: the `bpe-desktop` command has one subcommand per task.
Without a subcommand it opens the desktop application. Each section below is exactly
what `bpe-desktop COMMAND --help` prints.

Every failure is one line on standard error, `bpe-desktop: error: ...`, and a non-zero
exit status: 1 for errors, 2 for a wrong command line (an unknown option, a bad value,
options that need or exclude each other), 130 when interrupted (Ctrl+C,
which also stops a training, count, extension or import cleanly), 143 when stopped by
SIGTERM (`kill`, a job scheduler), which cancels the work as Ctrl+C does. Set `BPE_DESKTOP_DEBUG=1` to also see the
traceback of an unexpected error.

Typical use (the toy vocabulary ships with the application; see [Quick
start](quickstart.md)):

    bpe-desktop train corpus.txt -o model.json --vocab-size 8000
    bpe-desktop train corpus.txt -o gpt2.json --preset gpt2 --vocab-size 32000
    bpe-desktop train counts.tsv --word-counts -o toy.json --merges 10
    echo "lowest newer" | bpe-desktop encode -m toy.json          # low est</w> new e r </w>
    echo "lowest newer" | bpe-desktop encode -m toy.json --ids | bpe-desktop decode -m toy.json
    bpe-desktop info -m toy.json --merges
    bpe-desktop export -m gpt2.json --format hf -o tokenizer.json --verify held_out.txt

In pipelines and scripts: progress, warnings and errors go to standard error; data (the
model, table or export with `-o -`, encodings, `--json`, tables) to standard output; a
command's closing summary to standard output, or to standard error when its data goes
to standard output. `-q` leaves only warnings and errors. When the reader of the output
stops early (`| head -1`), the command stops writing and ends quietly with status 141,
the status a shell gives a command killed by SIGPIPE (as `cat big.txt | head -1` does);
an output the reader took whole ends with 0. `--json` (`info`, `count`, `evaluate`,
`compare`, `history`) prints one JSON object, for `jq` and scripts; its fields are
listed in [Model files](model-files.md), [Training options](training-options.md)
(*Input*), [Evaluation](evaluation.md), [Comparison](comparison.md) and
[Projects](projects.md).

A file named `-` is standard input, once per command (it can be read only once):
`zcat corpus.gz | bpe-desktop train - -o model.json`, `cut -f2 data.tsv | bpe-desktop
evaluate -m model.json -` (also `--gold -`), `trim --text -`; `encode` and `decode` read
it when given no file. `train`, `count`, `extend`, `trim`, `evaluate` and `compare` first
copy it to a temporary file (in `TMPDIR`; they read their input more than once); the
model file and History record it as `<stdin>` with its size and SHA-256, and errors name
`<stdin>` and the line. `-m -` reads the model (every command with `-m`) from standard
input, also copied first: `curl -s URL/model.json | bpe-desktop encode -m - text.txt`;
the text must then be a file (`encode` and `decode` without one are a usage error, as
is any second `-`); errors name `<stdin>` with the line or JSON path, and its corpus
paths are shown as the file writes them. A model is not compressed, as a file or on
standard input (decompress it first).

The training options are explained in [Training options](training-options.md), the
model file in [Model files](model-files.md).
"""

APP_SECTION = """\
## Starting the application

`bpe-desktop` with no command, with a model file, or with one of these options opens
the desktop application (`python3 -m bpe_desktop` does the same):
"""


def _help_text(parser: argparse.ArgumentParser) -> str:
    return parser.format_help().rstrip() + "\n"


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def generate() -> str:
    os.environ["COLUMNS"] = str(WIDTH)
    sys.path.insert(0, str(ROOT))
    from bpe_desktop.app import _parser as app_parser
    from bpe_desktop.cli import build_parser

    parser = build_parser()
    parts = [INTRO, "## bpe-desktop\n", "```text\n" + _help_text(parser) + "```\n"]
    for name, sub in _subparsers(parser).items():
        parts.append(f"## bpe-desktop {name}\n")
        parts.append("```text\n" + _help_text(sub) + "```\n")
    parts.append(APP_SECTION)
    parts.append("```text\n" + _help_text(app_parser()) + "```\n")
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare instead of writing; exit 1 when out of date")
    args = parser.parse_args(argv)
    text = generate()
    if args.check:
        current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
        if current != text:
            print(f"{PAGE} is out of date: run python3 packaging/{Path(__file__).name}",
                  file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    print(PAGE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

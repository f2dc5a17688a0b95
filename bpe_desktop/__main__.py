"""`python -m bpe_desktop` is the same as the `bpe-desktop` command."""

from bpe_desktop.launch import run

raise SystemExit(run())

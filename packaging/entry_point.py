"""What the bundled ``bpe-desktop`` executable runs: the same entry point as the wheel's.

With no command (or a model file, or ``--smoke-test``) it opens the desktop
application; with a command (train, encode, …) it is the command line.
"""

from bpe_desktop.launch import run

raise SystemExit(run())

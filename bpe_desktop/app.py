"""Start the desktop application: ``bpe-desktop`` with no command, or ``python -m bpe_desktop``.

This is the one place that creates the QApplication and sets the application's identity
(QSettings depend on it), installs the crash guard and opens the main window.
"""

from __future__ import annotations

import argparse
import gc
import logging
import logging.handlers
import sys
import traceback
from typing import Sequence

from bpe_desktop import __version__
from bpe_desktop.paths import user_data_dir

log = logging.getLogger("bpe_desktop")

#: The reverse-DNS application id: the name of the desktop entry, the AppStream metainfo
#: and the installed icons (packaging/linux/). Wayland finds the window's icon through it.
APP_ID = "io.github.bpe_desktop.BpeDesktop"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="bpe-desktop",
        description="BPE Desktop: train, inspect and export BPE tokenizers. "
                    "Commands (train, encode, decode, info, …) run without the window; "
                    "see `bpe-desktop --help`.")
    p.add_argument("model", nargs="?", help="a model file to open")
    p.add_argument("--smoke-test", action="store_true",
                   help="check this installation: open the window, every icon and help page, "
                        "train the toy vocabulary, close; exit 0 if all is well, else 1")
    p.add_argument("--screenshots", metavar="DIR",
                   help="train the Botchan example, save a screenshot of each panel in DIR, exit")
    p.add_argument("--appearance", choices=("system", "light", "dark"),
                   help="force light or dark mode (default: the saved choice, or the system's)")
    return p


def setup_logging() -> str:
    """Log warnings and errors to a rotating file in the user data folder."""
    path = user_data_dir() / "bpe-desktop.log"
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=1 << 20, backupCount=2,
                                                   encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return str(path)


def install_crash_guard(log_path: str) -> None:
    """An unexpected exception in a slot is logged and shown, never fatal."""
    from bpe_desktop.ui.common import dialogs

    def hook(kind, value, tb) -> None:
        if issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, value, tb)
            return
        details = "".join(traceback.format_exception(kind, value, tb))
        log.error("unexpected error\n%s", details)
        try:
            from PySide6.QtWidgets import QApplication

            parent = QApplication.activeWindow()
            dialogs.show_error(parent, "Unexpected error",
                               f"{kind.__name__}: {value}\n\nThe application keeps running. "
                               f"Details are in {log_path}.", details)
        except Exception:  # noqa: BLE001 - the guard itself must never raise
            sys.__excepthook__(kind, value, tb)

    sys.excepthook = hook


#: How long a thread running Python keeps the GIL while another waits for it (a fraction
#: of CPython's default). Background jobs run Python beside the GUI thread (a model's
#: table, its plots, loading or autosaving a model), and the GUI thread lets go of the GIL
#: around each call into Qt: in a pass that makes many such calls (a plot's paint calls
#: Python for each item) it waits up to one turn each time to get it back, so the turn
#: bounds the pass's delay; shorter turns cost the background jobs only a few per cent.
#: Jobs cut long C calls into chunks but do not sleep between them (the vocabulary's
#: loading and filters): this turn is what hands the GIL to the GUI thread between chunks.
GIL_SWITCH_INTERVAL = 0.0002


def create_application(argv: Sequence[str] = ()):  # -> QApplication
    from PySide6.QtWidgets import QApplication

    sys.setswitchinterval(GIL_SWITCH_INTERVAL)
    from bpe_desktop.ui.common.scheduling import prioritise_gui_thread

    prioritise_gui_thread()  # this thread, which creates the application, runs its GUI

    import bpe_desktop.ui  # noqa: F401  (PySide6 before pyqtgraph)

    app = QApplication.instance()
    if app is None:
        app = QApplication(["bpe-desktop", *argv])
    app.setOrganizationName("BPE Desktop")
    app.setOrganizationDomain("bpe-desktop.invalid")
    app.setApplicationName("bpe-desktop")
    app.setApplicationDisplayName("BPE Desktop")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName(APP_ID)
    from bpe_desktop.ui.common.icons import app_icon

    app.setWindowIcon(app_icon())  # every window without its own icon uses this one
    return app


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    from bpe_desktop import qt_libraries

    qt_libraries.check_or_exit()  # Qt would abort with a message that names no package
    log_path = setup_logging()
    app = create_application()

    from bpe_desktop.ui.common import theme
    from bpe_desktop.ui.common.settings import Settings
    from bpe_desktop.ui.window.main_window import MainWindow

    install_crash_guard(log_path)
    from bpe_desktop.ui.common.collector import GuiThreadCollector

    collector = GuiThreadCollector(app)  # noqa: F841 (owned by the application)
    theme.apply_appearance(args.appearance or Settings().value("view/appearance", "system"))
    window = MainWindow()
    window.show()
    if args.model:
        window.open_path(args.model)
    if args.smoke_test or args.screenshots:
        from bpe_desktop.ui.window import selftest

        if args.smoke_test:
            from bpe_desktop.ui.window import smoke_guard

            return smoke_guard.run(app, window, selftest.run_smoke_test)
        return selftest.take_screenshots(app, window, args.screenshots)
    # Everything made so far (Qt wrappers, modules) lives as long as the app: keep it out
    # of the garbage collector's full passes, which would walk it all on the GUI thread.
    gc.freeze()
    window.first_run_hint()
    return app.exec()


if __name__ == "__main__":
    raise SystemExit(main())

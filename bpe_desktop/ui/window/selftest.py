"""``--smoke-test`` and ``--screenshots``: drive the real window without a user.

The smoke test proves an installed build works end to end (window, engine, worker
thread, panels); screenshots feed the README and the help.
"""

from __future__ import annotations

import os
import sys
import time

from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication

from bpe_desktop.ui.window.main_window import MainWindow

SAMPLE_TEXT = ("I had been a good-for-nothing ever since I was a child, and newest "
               "tokenizers split the lowest words into subwords.")


def _train_example(app: QApplication, window: MainWindow, key: str, timeout: float) -> bool:
    loop = QEventLoop()
    outcome: list[str] = []
    panel = window.training
    panel.trained.connect(lambda _r: (outcome.append("ok"), loop.quit()))
    panel.failed.connect(lambda e: (outcome.append(f"failed: {e.message}"), loop.quit()))
    panel.cancelled.connect(lambda: (outcome.append("cancelled"), loop.quit()))
    panel.load_example(panel.example(key))
    if not window.train():
        print("smoke test: training did not start", file=sys.stderr)
        return False
    QTimer.singleShot(int(timeout * 1000), loop.quit)
    loop.exec()
    if outcome != ["ok"]:
        print(f"smoke test: training {outcome[0] if outcome else 'timed out'}", file=sys.stderr)
        return False
    app.processEvents()
    return True


def run_smoke_test(app: QApplication, window: MainWindow) -> tuple[int, str]:
    """Train the toy vocabulary through the window: (exit status, what happened).

    The caller (smoke_guard.run) says OK or FAILED: only it knows whether anything else
    went wrong meanwhile.
    """
    started = time.perf_counter()
    if not _train_example(app, window, "toy", timeout=60):
        window.close_discarding()
        return 1, "the toy vocabulary did not train"
    model = window.document.model
    pieces = model.tokenizer().encode_as_pieces("lowest")
    ok = len(model.merges) == 10 and pieces == ["low", "est</w>"]
    window.codec.set_text("lowest newer")
    window.tabs.setCurrentWidget(window.vocab)
    app.processEvents()
    window.close_discarding()
    app.processEvents()
    return (0 if ok else 1), (f"{len(model.merges)} merges, 'lowest' -> {pieces}, platform "
                              f"{QApplication.platformName()}, "
                              f"{time.perf_counter() - started:.1f} s")


def take_screenshots(app: QApplication, window: MainWindow, folder: str) -> int:
    """Train Botchan, then save training.png, vocabulary.png, encode.png in ``folder``."""
    os.makedirs(folder, exist_ok=True)
    window.resize(1280, 800)
    if not _train_example(app, window, "botchan", timeout=120):
        window.close_discarding()
        return 1
    shots = {"training": window.training}
    # A large model's vocabulary and tokenizer are prepared in the background.
    if not _wait_until(app, lambda: not window.vocab.is_loading()
                       and not window.codec.is_busy(), timeout=120):
        print("screenshots: the panels did not finish loading the model", file=sys.stderr)
        window.close_discarding()
        return 1
    window.tabs.setCurrentWidget(window.vocab)
    model = window.document.model
    token = model.piece_to_id("ing</w>")
    window.vocab.select_token(token if token is not None else model.piece_to_id(
        model.merges[0].result))
    shots["vocabulary"] = window.vocab
    window.tabs.setCurrentWidget(window.codec)
    window.codec.set_text(SAMPLE_TEXT)
    if not _wait_until(app, lambda: window.codec.stats is not None
                       and not window.codec.is_busy(), timeout=120):
        print("screenshots: the sample text was not encoded", file=sys.stderr)
        window.close_discarding()
        return 1
    window.codec.step_through("subwords")
    shots["encode"] = window.codec
    for name, panel in shots.items():
        window.tabs.setCurrentWidget(panel)
        _settle(app)
        path = os.path.join(folder, f"{name}.png")
        if not window.grab().save(path):
            print(f"could not write {path}", file=sys.stderr)
            window.close_discarding()
            return 1
        print(path)
    window.close_discarding()
    return 0


def _wait_until(app: QApplication, done, timeout: float) -> bool:
    """Process events until ``done()`` (False when ``timeout`` seconds pass first)."""
    end = time.monotonic() + timeout
    while not done():
        if time.monotonic() > end:
            return False
        app.processEvents()
        time.sleep(0.01)
    return True


def _settle(app: QApplication, seconds: float = 0.3) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)

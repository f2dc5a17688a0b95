"""Settings are written to disk by a thread of their own (ui.common.settings): the GUI
thread never waits for QSettings' fdatasync calls, and a read sees every earlier write."""

from __future__ import annotations

import threading

from PySide6.QtCore import QSettings

from bpe_desktop.ui.common import settings as settings_module
from bpe_desktop.ui.common.settings import Settings


def test_a_read_sees_every_earlier_write(qapp):
    for i in range(30):
        Settings().set_training_defaults({"vocab_size": i})
        assert Settings().training_defaults() == {"vocab_size": i}
    first = Settings()
    for i in range(4):
        first.add_recent_file(f"/tmp/model-{i}.json")  # each reads the list it extends
    assert Settings().recent_files()[:4] == [f"/tmp/model-{i}.json" for i in (3, 2, 1, 0)]


def test_the_file_is_written_on_the_settings_thread_in_the_order_asked(qapp, monkeypatch):
    synced_on: list[str] = []

    class Recording(QSettings):
        def sync(self) -> None:
            synced_on.append(threading.current_thread().name)
            super().sync()

    monkeypatch.setattr(settings_module, "QSettings", Recording)
    for i in range(50):
        Settings().set_value("test/order", i)
    assert settings_module._WRITER.wait()
    assert synced_on and set(synced_on) == {"bpe-settings"}
    assert len(synced_on) <= 50  # writes queued meanwhile share one sync
    # On disk (the file's text, not the process's cache of it).
    with open(Settings()._s.fileName(), encoding="utf-8") as f:
        assert "order=49\n" in f.read()

"""The main window under test with every dialog replaced by a recorder.

A test module uses the fixtures with ``pytest_plugins = ["tests.ui.window_fixtures"]``.
Answers are set per test on the ``ui`` object; what the application showed is recorded
there.
"""

from __future__ import annotations

import pytest

from bpe_desktop.ui.common import dialogs
from bpe_desktop.ui.window.main_window import MainWindow


class FakeDialogs:
    """Records every dialog; answers come from the attributes below."""

    def __init__(self) -> None:
        self.errors: list[tuple[str, str]] = []
        self.error_details: list[str | None] = []
        self.infos: list[tuple[str, str]] = []
        #: Questions asked with ask_yes_no / ask_action, as (title, text).
        self.questions: list[tuple[str, str]] = []
        self.save_answer = "discard"
        self.asked_to_save = 0
        #: What each save question said was about to happen ("Save it before …?").
        self.save_reasons: list[str] = []
        self.open_paths: list[str] = []
        self.save_path: str | None = None
        #: The file name each save chooser proposed.
        self.suggested_names: list[str] = []
        self.folder: str | None = None
        self.yes = True
        #: Titles of every file chooser opened (to check none was when refusing).
        self.choosers: list[str] = []

    def install(self, monkeypatch) -> None:
        def show_error(parent, title, message, details=None):
            self.errors.append((title, message))
            self.error_details.append(details)

        def ask_save_changes(parent, what, before):
            self.asked_to_save += 1
            self.save_reasons.append(before)
            return self.save_answer

        def ask_open_paths(parent, title, *args, **kwargs):
            self.choosers.append(title)
            return list(self.open_paths)

        def ask_save_path(parent, title, kind, filters, suggested_name=""):
            self.choosers.append(title)
            self.suggested_names.append(suggested_name)
            return self.save_path

        def ask_folder(parent, title, *args, **kwargs):
            self.choosers.append(title)
            return self.folder

        def ask_question(parent, title, text, *args, **kwargs):
            self.questions.append((title, text))
            return self.yes

        monkeypatch.setattr(dialogs, "show_error", show_error)
        monkeypatch.setattr(dialogs, "show_info",
                            lambda parent, title, message: self.infos.append((title, message)))
        monkeypatch.setattr(dialogs, "ask_save_changes", ask_save_changes)
        monkeypatch.setattr(dialogs, "ask_open_paths", ask_open_paths)
        monkeypatch.setattr(dialogs, "ask_save_path", ask_save_path)
        monkeypatch.setattr(dialogs, "ask_folder", ask_folder)
        monkeypatch.setattr(dialogs, "ask_yes_no", ask_question)
        monkeypatch.setattr(dialogs, "ask_action", ask_question)


@pytest.fixture
def ui(monkeypatch) -> FakeDialogs:
    fake = FakeDialogs()
    fake.install(monkeypatch)
    return fake


@pytest.fixture
def window(qtbot, ui):
    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    yield win
    win.close_discarding()

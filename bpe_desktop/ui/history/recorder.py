"""Recording the window's runs in the open project, off the GUI thread.

Every write (a run started, a run completed with its metrics and model) goes to one
background thread in order, so hashing a new corpus file or storing a large model never
holds up the window, and a run's completion always follows its start. Each write is one
short transaction; :data:`recorded` (the run's id) tells the History panel to refresh.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable

from PySide6.QtCore import QObject, Signal

from bpe_desktop.core.errors import BpeError
from bpe_desktop.core.project import Metric, Project
from bpe_desktop.core.project.recording import engine_version, peak_memory
from bpe_desktop.core.project.run_model import model_to_keep

log = logging.getLogger(__name__)


class ProjectRecorder(QObject):
    #: A run was inserted or completed (its id). Connect to a slot of a GUI object.
    recorded = Signal(int)
    #: A write failed (the message names the project); the run's work is unaffected.
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path: str | None = None
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="bpe-project")
        self._project: Project | None = None  # used only in the executor's thread
        self._project_path: str | None = None
        #: Where a project file moved while open is now (old path: new path), so a run
        #: started before the move completes in it.
        self._moved: dict[str, str] = {}
        #: Called before each write is queued, in the GUI thread (the window follows a
        #: project file renamed or moved meanwhile: :meth:`let_go`).
        self.before_write: Callable[[], None] = lambda: None
        self._closed = False

    def set_path(self, path: str | None) -> None:
        self.path = path

    def start(self, kind: str, *, config: dict, command: dict | None,
              inputs: list[tuple[str, str]], preset: str = "") -> Future:
        """Insert a ``running`` run; the future gives its id (None if no project)."""
        from bpe_desktop import __version__

        def write(project: Project) -> int:
            return project.start_run(kind, config=config, command=command, inputs=inputs,
                                     preset=preset, engine_version=engine_version(),
                                     app_version=__version__)
        future = self._submit(write)
        future.project_path = self.path  # type: ignore[attr-defined]
        return future

    def finish(self, started: Future, status: str, *, message: str = "",
               metrics: list[Metric] | None = None, model=None,
               model_path: str | None = None, model_format: str = "model",
               log_text: str = "", config_added: dict | None = None,
               command: dict | None = None) -> Future:
        """Complete the run ``started`` inserted; ``model`` was written to ``model_path``
        (None: to no file) in ``model_format`` (see :func:`model_to_keep`)."""
        def write(project: Project):
            run_id = started.result()
            if run_id is None:
                return None
            path, data, size = None, None, None
            if model is not None and status == "finished":
                size = (model.vocab_size, model.merge_count)
                path, data = model_to_keep(model, model_path, model_format)
            project.finish_run(run_id, status, message=message, metrics=metrics or (),
                               model_path=path, model_data=data, model_size=size,
                               log=log_text, peak_memory=peak_memory(),
                               config_added=config_added, command=command)
            return run_id
        # In the project the run started in, though another may have been opened since.
        return self._submit(write, getattr(started, "project_path", self.path))

    def record(self, kind: str, *, config: dict, command: dict | None,
               inputs: list[tuple[str, str]], metrics: list[Metric], preset: str = "",
               log_text: str = "", config_added: dict | None = None) -> Future:
        """A run that is recorded once it is done (an evaluation, a comparison)."""
        started = self.start(kind, config=config, command=command, inputs=inputs,
                             preset=preset)
        return self.finish(started, "finished", metrics=metrics, log_text=log_text,
                           config_added=config_added)

    def _submit(self, write: Callable[[Project], int | None], path: str | None = None
                ) -> Future:
        self.before_write()
        path = self.path if path is None else path
        if self._closed:  # the window is closing: nothing more is recorded
            done: Future = Future()
            done.set_result(None)
            return done

        def job():
            where = self._moved.get(path, path) if path is not None else None
            if where is None:
                return None
            try:
                project = self._open(where)
                run_id = write(project)
            except (BpeError, OSError, Exception) as exc:  # noqa: BLE001 - never lose the thread
                log.error("recording in %s failed: %s", where, exc)
                self.failed.emit(f"Could not record the run in {where}: {exc}")
                return None
            if run_id is not None:
                self.recorded.emit(run_id)
            return run_id
        return self._executor.submit(job)

    def _open(self, path: str) -> Project:
        if self._project_path != path:
            if self._project is not None:
                self._project.close()
            # (The window checked the file when it opened it.)
            self._project, self._project_path = Project(path, verify=False), path
        return self._project  # type: ignore[return-value]

    def let_go(self, old: str) -> None:
        """The project file at ``old`` was renamed, moved or deleted: close this
        connection to it once every write queued so far is done (the window's own then
        writes everything into the file and opens it where it is now)."""
        def close():
            if self._project is not None and old in (self._project_path, self._project.path):
                self._project.close()
                self._project = self._project_path = None
        self._executor.submit(close).result()

    def redirect(self, old: str, new: str) -> None:
        """Runs started in the project at ``old`` complete in it at ``new``."""
        self._moved = {**{k: (new if v == old else v) for k, v in self._moved.items()},
                       old: new}

    def wait(self) -> None:
        """Until every write so far is done."""
        self._executor.submit(lambda: None).result()

    def shutdown(self) -> None:
        if self._closed:
            return
        self._closed = True

        def close():
            if self._project is not None:
                self._project.close()
                self._project = None
        self._executor.submit(close)
        self._executor.shutdown(wait=True)

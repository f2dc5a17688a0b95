"""The open model: the one piece of state every panel shows.

The main window owns a :class:`ModelDocument`; panels never keep their own copy of
"the current model", they are told by ``model_changed``. A model only ever becomes
current whole (a finished training run, a successfully loaded file), so a failed or
cancelled job, or a bad file, leaves the previous model untouched.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from bpe_desktop.core import BPEModel, TrainResult, load_model, save_model

from bpe_desktop.core import release


def _now(work: Callable[[], Any]) -> Any:
    return work()


class ModelDocument(QObject):
    #: The current model was replaced (payload: the BPEModel or None).
    model_changed = Signal(object)
    #: The file path or the unsaved flag changed (window title, Save action).
    state_changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model: BPEModel | None = None
        self.path: str | None = None
        self.dirty = False

    @property
    def display_name(self) -> str:
        if self.path:
            return os.path.basename(self.path)
        return "Untitled" if self.model is not None else "No model"

    def suggested_file_name(self) -> str:
        """A name for Save As: the file's own, else the first corpus file's stem and the
        vocabulary size asked for (``botchan-8000.json``; the size reached when none was
        asked for), else ``model-8000.json``."""
        if self.path:
            return os.path.basename(self.path)
        if self.model is None:
            return "model.json"
        files = self.model.corpus.files if self.model.corpus is not None else ()
        stem = _stem(files[0].path) if files else ""
        size = self.model.config.vocab_size or self.model.vocab_size
        return f"{stem or 'model'}-{size}.json"

    def new(self) -> None:
        self._replace(None, None, dirty=False)

    def set_trained(self, result: TrainResult) -> None:
        """A finished training run becomes the current, unsaved model."""
        self._replace(result.model, None, dirty=True)

    def set_imported(self, model: BPEModel) -> None:
        """A model read from another tool's format: current, untitled and unsaved."""
        self._replace(model, None, dirty=True)

    def set_recovered(self, model: BPEModel) -> None:
        """An autosaved model offered back after a crash: untitled and still unsaved."""
        self._replace(model, None, dirty=True)

    def set_edited(self, model: BPEModel) -> None:
        """The open model changed in place (e.g. recounted): same file, now unsaved."""
        self._replace(model, self.path, dirty=True)

    def open(self, path: str, *, run: Callable[[Callable[[], Any]], Any] = _now) -> BPEModel:
        """Load a model file; on any error nothing changes and the error propagates.
        ``run(work)`` runs the reading and returns its result (the window's runs it in a
        worker thread: ``ui.common.modal_work``)."""
        model = run(lambda: load_model(path))
        self._replace(model, os.path.abspath(path), dirty=False)
        return model

    def save(self, path: str | None = None, *,
             run: Callable[[Callable[[], Any]], Any] = _now) -> str:
        """Save atomically to ``path`` (or the current path); errors leave the state as is.
        ``run(work)`` runs the writing, as for :meth:`open`."""
        target = path or self.path
        model = self.model
        if model is None:
            raise ValueError("there is no model to save")
        if not target:
            raise ValueError("no file name given")
        run(lambda: save_model(model, target))
        if self.model is not model:  # replaced meanwhile: the file holds the one saved
            return os.path.abspath(target)
        self.path = os.path.abspath(target)
        self.dirty = False
        self.state_changed.emit()
        return self.path

    def _replace(self, model: BPEModel | None, path: str | None, *, dirty: bool) -> None:
        old = self.model
        if old is not None and old is not model:
            # Freed in slices on a background thread once the panels let go of it: a
            # large model's deallocation would otherwise fall on the thread that drops it
            # last, often the GUI thread.
            release.retire(old)
        self.model, self.path, self.dirty = model, path, dirty
        self.model_changed.emit(model)
        self.state_changed.emit()


def _stem(path: str) -> str:
    """``/data/botchan.txt.gz`` -> ``botchan``; characters unsafe in file names dropped."""
    name = os.path.basename(path)
    for suffix in (".gz", ".txt", ".tsv", ".csv"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return "".join(c for c in name if c.isalnum() or c in "-_.").strip(".")

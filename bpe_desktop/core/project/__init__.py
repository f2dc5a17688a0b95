"""Projects: every run (training, evaluation, comparison, counting) kept in one SQLite
file with its corpus, settings, versions, model and metrics, to list, compare, reproduce
and report on. Qt-free; the History panel and the ``--project`` option of the commands
both go through :func:`recorded_run`."""

from bpe_desktop.core.project.queries import RunQuery, count_runs, page_of_runs
from bpe_desktop.core.project.recording import RecordedRun, recorded_run
from bpe_desktop.core.project.schema import RUN_KINDS, RUN_STATUSES, SCHEMA_VERSION
from bpe_desktop.core.project.records import Metric, RunDetails, RunInput, RunSummary
from bpe_desktop.core.project.store import PROJECT_SUFFIX, Project, ProjectError

__all__ = ["Metric", "PROJECT_SUFFIX", "Project", "ProjectError", "RUN_KINDS",
           "RUN_STATUSES", "RecordedRun", "RunDetails", "RunInput", "RunQuery",
           "RunSummary", "SCHEMA_VERSION", "count_runs", "page_of_runs", "recorded_run"]

"""``bpe-desktop count``: count a corpus's words into a ``word<TAB>count`` table, on this
machine (the engine's threads) or on a Dask cluster, or merge tables into one.

Training from the table (``bpe-desktop train --word-counts TABLE ...``) gives the same
merges as training on the text with the same text options (see
:mod:`bpe_desktop.core.counting`).
"""

from __future__ import annotations

import argparse
import sys
import time

from bpe_desktop.cli._common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    PROG,
    CliError,
    UsageError,
    _check_output,
    _report_stream,
    _without_empty,
    _fail,
    _in_worker,
)
from bpe_desktop.cli.options import (
    add_encoding_errors_option,
    add_train_options,
    config_from_args,
    whole_number,
)
from bpe_desktop.cli.progress import ProgressBar
from bpe_desktop.cli.recording import add_project_option, recording
from bpe_desktop.core.errors import ConfigError, TrainingCancelled

#: The training options that decide what a word is (the others only matter when merging).
TEXT_OPTIONS = ("pretokenizer", "normalize", "lowercase", "threads")


def add_parser(sub: argparse._SubParsersAction) -> None:
    from bpe_desktop.core.cluster import DEFAULT_PARTITION_BYTES

    p = sub.add_parser(
        "count", help="count a corpus's words into a word<TAB>count table",
        description="Count the words of text files, folders and glob patterns (plain or "
        ".gz) with the normalization and pre-tokenizer training would use (--preset and "
        "the text options), and write a word<TAB>count table in first-seen order "
        "(gzip-compressed if OUTPUT ends in .gz). 'train --word-counts OUTPUT' then gives "
        "the same merges as training on the text. --dask counts on a Dask cluster "
        "(pip install \"bpe-desktop[cluster]\"); --merge sums existing tables instead.",
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="corpus files, folders (every file below, sorted) or quoted glob "
                   "patterns (- for standard input); with --merge, word-count tables")
    p.add_argument("-o", "--output", required=True, metavar="TABLE",
                   help="where to write the table (.tsv, or .tsv.gz to compress; - for "
                   "standard output)")
    p.add_argument("--merge", action="store_true",
                   help="the inputs are word-count tables: sum them into one")
    add_train_options(p, only=TEXT_OPTIONS)
    p.add_argument("--dask", metavar="CLUSTER",
                   help="count on Dask: 'local' or 'local:N' starts a LocalCluster of N "
                   "worker processes (default: one per core); an address such as "
                   "tcp://host:8786 uses a running scheduler (workers must see the files "
                   "under the same paths)")
    p.add_argument("--partition-size", type=whole_number(1), metavar="BYTES",
                   default=DEFAULT_PARTITION_BYTES,
                   help="with --dask: plain files larger than this are split at line "
                   f"breaks into pieces of about this size (default {DEFAULT_PARTITION_BYTES})")
    add_encoding_errors_option(p)
    p.add_argument("-q", "--quiet", action="store_true", help="no progress or summary")
    p.add_argument("--json", action="store_true",
                   help="print the summary as one JSON object (also with -q; fields: "
                   "Help > Training options > Input); not with -o -")
    add_project_option(p, language_help="the language of the corpus, written into the "
                       "table (a code: fi, tur, pt-BR; 'train --word-counts' then uses the "
                       "table as that language's) and, with --project, recorded with the "
                       "files. Default: the language the file names name (ud_finnish.txt: "
                       "fi), or with --merge the tables' common label; 'none' for no label")
    p.set_defaults(run=cmd_count)


class CountProgressBar(ProgressBar):
    """The training progress bar, fed :class:`CountProgress` (bytes, words, partitions)."""

    def __init__(self, stream) -> None:
        super().__init__(stream)
        self._started = time.monotonic()
        self._latest = self._shown = None

    def __call__(self, p) -> None:  # type: ignore[override]
        from bpe_desktop.core.training import Progress

        self.partitions = (p.partitions_done, p.partitions_total)
        self._latest = Progress("counting", p.bytes_done, p.bytes_total, p.words, 0, None,
                                None, None, p.elapsed)
        super().__call__(self._latest)

    def show(self, line: str) -> None:
        self._shown = self._latest
        super().show(line)

    def finish(self) -> None:
        """End on the finished count, as training ends on its finished merges: the last
        report may come before the end (tables are reported on as they start) or have
        been too soon after the previous line to be shown."""
        from bpe_desktop.core.training import Progress

        last, shown = self._latest, self._shown
        if last is None or not last.bytes_total or (
                shown is not None and shown.bytes_done >= shown.bytes_total):
            return
        complete = last.bytes_done >= last.bytes_total
        elapsed = last.elapsed if complete else time.monotonic() - self._started
        if self.partitions[1]:
            self.partitions = (self.partitions[1], self.partitions[1])
        self._latest = Progress("counting", last.bytes_total, last.bytes_total,
                                last.words if complete else 0, 0, None, None, None,
                                max(elapsed, last.elapsed))
        self.show(self.describe(self._latest))

    def describe(self, p, eta: float | None = None) -> str:
        line = super().describe(p, eta)
        done, total = getattr(self, "partitions", (0, 0))
        return f"{line}  {done}/{total} partitions" if total else line


def cmd_count(args: argparse.Namespace) -> int:
    from bpe_desktop.core import cluster, counting
    from bpe_desktop.core.training import CancelToken

    config = config_from_args(args)
    progress = None if args.quiet else CountProgressBar(sys.stderr)
    started = time.perf_counter()
    if args.dask and args.merge:
        raise UsageError("--merge runs locally (it is streamed); leave out --dask")
    if args.dask:
        try:
            cluster.parse_target(args.dask)
        except ConfigError as exc:  # (a malformed local:N)
            raise UsageError(str(exc)) from None
    if args.json and _report_stream(args.output) is not sys.stdout:
        raise UsageError("--json prints to standard output, where -o writes the table; "
                         "give -o a file")
    if args.dask and not cluster.dask_available():
        raise CliError(cluster.INSTALL_HINT)
    inputs = counting.expand_inputs(args.inputs)  # (folders and patterns: their files)
    _check_output(args.output, inputs)
    inputs = _without_empty(inputs)
    language = table_language_of(args)
    try:
        if args.dask:
            with cluster.connect(args.dask, log_path=_log_path()) as client:
                if not args.quiet:
                    sys.stderr.write(f"{PROG}: Dask dashboard: {client.dashboard_link}\n")
                table = cluster.count_on_dask(
                    inputs, config, client, partition_bytes=args.partition_size,
                    errors=args.encoding_errors, on_progress=progress, language=language)
        else:
            cancel = CancelToken()
            if args.merge:
                def work():
                    return counting.merge_tables(inputs, config, on_progress=progress,
                                                 cancel=cancel, language=language)
            else:
                def work():
                    return counting.count_words(inputs, config, errors=args.encoding_errors,
                                                on_progress=progress, cancel=cancel,
                                                language=language)
            table = _in_worker(work, cancel)
        if progress:
            progress.finish()
    except TrainingCancelled:
        _fail("counting cancelled; nothing was written")
        return EXIT_INTERRUPTED
    finally:
        if progress:
            progress.clear()
    table.save(args.output)  # type: ignore[attr-defined]
    if (run := recording(args)) is not None:
        from bpe_desktop.core.project.metrics import counting_metrics

        run.add_metrics(counting_metrics(table))
    seconds = time.perf_counter() - started
    if args.json:
        from bpe_desktop.cli._common import print_json
        from bpe_desktop.cli.standard_input import shown_names

        print_json({"output": args.output, "inputs": [shown_names(f) for f in inputs],
                    "distinct_words": table.distinct_words,
                    "total_words": table.total_count, "language": table.language or None,
                    "seconds": round(seconds, 3)})
    elif not args.quiet:
        hint = ""
        if not args.dask and not args.merge and not cluster.dask_available():
            hint = f" (to count on a cluster: {cluster.INSTALL_COMMAND}, then --dask)"
        label = f", language {table.language}" if table.language else ""
        print(f"{table.distinct_words:,} distinct words, {table.total_count:,} in all"
              f"{label}, {seconds:.1f} s; saved {args.output}{hint}",
              file=_report_stream(args.output))
    return EXIT_OK


def table_language_of(args: argparse.Namespace) -> str | None:
    """The label the table gets: --language (checked; 'none': no label), else the one
    the inputs' names (files or folders, as given) agree on; None with --merge (the
    tables' common label)."""
    from bpe_desktop.core.counting import inputs_language
    from bpe_desktop.core.languages import check_code

    given = args.language.strip()
    if given.lower() == "none":
        return ""
    if given:
        try:
            return check_code(given, "--language")
        except ConfigError as exc:
            raise UsageError(str(exc)) from None
    if args.merge:
        return None
    return inputs_language(args.inputs)


def _log_path() -> str | None:
    """The application's log file (Dask's messages go there, not to the terminal)."""
    from bpe_desktop.paths import user_data_dir

    try:
        return str(user_data_dir() / "bpe-desktop.log")
    except OSError:
        return None

"""The vocabulary panel's loading job, run by a worker: the table, then the words."""

from __future__ import annotations

import time

from bpe_desktop.core import BPEModel
from bpe_desktop.core.chunked import Breather, collector_paused, shared_tokenizer
from bpe_desktop.core.vocab_loading import load_table, load_words

#: Seconds the loading job leaves the GUI thread to paint on its own: before it starts,
#: and after it hands the table over.
TABLE_PAINT_PAUSE = 0.1


def loading_job(model: BPEModel, filter_spec: tuple, sort: tuple[int, bool]):
    """The worker's function: the table first (sent as progress), then the words."""

    def job(report, cancel):
        breathe = Breather(cancel)
        # The GUI thread first paints the loading state (its plots call into Python for
        # every axis label): without this thread competing for the GIL.
        time.sleep(TABLE_PAINT_PAUSE)
        with collector_paused():
            table = load_table(model, filter_spec, sort, breathe)
            report(table, force=True)
            # Let the GUI thread swap the table in and paint it without competing for the
            # GIL: each cell it paints calls back into Python.
            time.sleep(TABLE_PAINT_PAUSE)
            return load_words(table, shared_tokenizer(model), breathe)

    return job

"""The vocabulary panel's loading job, run by a worker: the table, then the words."""

from __future__ import annotations

import time

from bpe_desktop.core import BPEModel
from bpe_desktop.core.chunked import Superseded, collector_paused, shared_tokenizer
from bpe_desktop.views.vocab_loading import load_table, load_words

#: Seconds the loading job leaves the GUI thread to paint on its own, before it starts and
#: after it hands the table over: those paints call into Python for every axis label and
#: cell, and the job's Python would compete for the GIL (the GUI latency benchmark's
#: phases that open a 100,000-token model are worse without these pauses).
TABLE_PAINT_PAUSE = 0.1


def loading_job(model: BPEModel, filter_spec: tuple, sort: tuple[int, bool]):
    """The worker's function: the table first (sent as progress), then the words."""

    def job(report, cancel):
        time.sleep(TABLE_PAINT_PAUSE)
        # The table's texts are hundreds of thousands of new objects: no collection pass
        # on the GUI thread while they are made (see core.chunked.collector_paused).
        with collector_paused():
            table = load_table(model, filter_spec, sort)
            report(table, force=True)
            time.sleep(TABLE_PAINT_PAUSE)
            if cancel.cancelled:  # another model came meanwhile: its words are not wanted
                raise Superseded
            return load_words(table, shared_tokenizer(model))

    return job

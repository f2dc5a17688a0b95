"""A real Dask LocalCluster (two worker processes) shared by the cluster tests; no worker
process may outlive it. Without Dask these tests skip on a developer's machine and fail
where everything must run (BPE_DESKTOP_REQUIRE_TOOLS=1, as CI sets)."""

from __future__ import annotations

import time

import pytest

from tests.shared_data import missing_system_tool


def _children() -> set[int]:
    """Child processes but multiprocessing's resource tracker (it lives until exit)."""
    import psutil

    found = set()
    for child in psutil.Process().children(recursive=True):
        try:
            if "resource_tracker" not in " ".join(child.cmdline()):
                found.add(child.pid)
        except psutil.Error:  # ended meanwhile
            pass
    return found


@pytest.fixture(scope="module")
def dask_client():
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        missing_system_tool('Dask is not installed (pip install "bpe-desktop[cluster]")')
    before = _children()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0", silence_logs=40) as cluster, \
            Client(cluster) as client:
        client.wait_for_workers(2, timeout=60)
        yield client
    deadline = time.monotonic() + 20
    while _children() - before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _children() - before, "Dask worker processes outlived their cluster"

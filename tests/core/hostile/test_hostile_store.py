"""A full disk in the middle of a sweep (tests/core/hostile/drive.py in a subprocess, its
writers limited with `PRAGMA max_page_count`): no cell reads finished with requests missing,
the cell that lost rows says how many landed, and `resume` runs it again. See
docs/RELIABILITY.md, "The results file"."""

from __future__ import annotations

import asyncio

import pytest

from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.store import Store
from desktop_app.core.throughput.resume import resume_sweep
from tests.core.hostile.server import HostileServer
from tests.core.hostile.test_hostile_sweep import drive

REQUESTS = 60


@pytest.fixture(scope="module")
def server():
    with HostileServer() as srv:
        yield srv


def test_a_full_disk_mid_sweep_leaves_an_incomplete_cell_that_resume_runs_again(server,
                                                                                tmp_path):
    path = tmp_path / "results.db"
    out = drive(server.url("ok"), {
        "store": str(path), "spare_pages": 6,
        # No /metrics scraping: its samples share the writer, and a sample batch that met the
        # full disk after every request row landed would (rightly) leave no cell incomplete.
        "sweep": {"concurrency": [1, 4], "requests_per_cell": REQUESTS,
                  "output_tokens": [64], "scrape_metrics": False}}, timeout=60)
    assert out["error"] and "disk is full" in out["error"], out
    with Store.open(path) as store:
        run = store.list_runs()[0]
        assert run.status in ("interrupted", "failed")  # the process ended with the run
        assert run.error and "disk is full" in run.error
        cells = store.cells(run.id)
        for cell in cells:
            rows = store.count_requests(run.id, cell.id)
            if cell.status == "completed":
                assert rows == REQUESTS
        # Where the disk filled is timing: between a cell's requests (the next row refused
        # ends the cell 'failed', saying why) or after its last one (the cell ends
        # 'incomplete', saying how many of its rows landed, and so does the run).
        lost = [c for c in cells if c.status in ("incomplete", "failed")]
        assert lost, [(c.status, c.error) for c in cells]
        if lost[0].status == "incomplete":
            landed = store.count_requests(run.id, lost[0].id)
            assert lost[0].error.startswith(f"{landed} of ")
            assert f"{landed} of {REQUESTS} requests were stored" in run.error
        else:
            assert "disk is full" in lost[0].error
        result = asyncio.run(resume_sweep(store, run.id, EndpointConfig(server.url("ok"))))
        assert result.status == "completed"
        assert store.get_run(run.id).status == "completed"
        for cell in store.cells(run.id):
            assert cell.status == "completed" and cell.error is None
            assert store.count_requests(run.id, cell.id) == REQUESTS

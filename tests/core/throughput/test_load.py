"""Under load (2,000 requests, 128 in flight) the sweep fails nothing and the store stays whole.

About 25 s on a 2-core machine; `make test` runs it, `make test-load` runs it alone (marker
`load`). bench/load_c128.py measures the same run's memory and speed.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.sweep import run_sweep

REQUESTS, CONCURRENCY = 2000, 128
# A leak of even 200 kB per request would pass 400 MB here; the bench measured ~5 MB per 1,000.
RSS_GROWTH_LIMIT_MB = 400


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS in /proc/self/status")


@pytest.mark.slow
@pytest.mark.load
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
def test_2000_requests_at_concurrency_128_fail_nothing_and_store_every_one(tmp_path):
    db_path = tmp_path / "results.db"
    with start_simulator("instant") as sim:
        config = SweepConfig(EndpointConfig(sim.url, model="sim/llama-sim-8b"),
                             input_tokens=(32,), output_tokens=(16,), concurrency=(CONCURRENCY,),
                             requests_per_cell=REQUESTS, warmup=0)
        before = _rss_mb()
        with Store.open(db_path) as store:
            result = asyncio.run(asyncio.wait_for(run_sweep(config, store), 240))
        growth = _rss_mb() - before
        trace = httpx.get(f"{sim.url}/sim/trace", timeout=10).json()["records"]

    cell = result.cells[0]
    assert cell.summary.count == REQUESTS
    assert cell.summary.failures_by_class == {} and cell.summary.ok == REQUESTS
    assert growth < RSS_GROWTH_LIMIT_MB
    with Store.open(db_path) as store:
        assert store.get_run(result.run_id).status == "completed"
        rows = store.requests(result.run_id, limit=10 * REQUESTS)
        assert len(rows) == REQUESTS and not any(r["warmup"] or r["error_class"] for r in rows)
        (stored,) = store.cells(result.run_id)
        assert stored.status == "completed" and stored.summary["count"] == REQUESTS
        assert store.count_requests(result.run_id, stored.id) == REQUESTS
        assert sorted(r["seq"] for r in rows) == list(range(REQUESTS))
        assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    # Every stored request is one the server answered, once.
    ids = [r["response_id"] for r in rows]
    assert len(set(ids)) == REQUESTS and set(ids) <= {t["id"] for t in trace}

"""The verdicts on an ordinary, busy machine (issue #26): with a process of the test's own
burning one of the two cores, the diagnosis names no server problem on an uncapped simulator
and names the cap of 2 on a capped one, and the comparison names the uncapped server ahead for
many concurrent users, and no winner between two sweeps of one server.

The sweeps run on the built-in simulator once for the module.
"""

import asyncio
import contextlib
import subprocess
import sys

import pytest

from desktop_app.core.compare import compare
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.effects import annotate_sweep
from desktop_app.core.throughput.sweep import run_sweep

SIM_MODEL = "sim/llama-sim-8b"


@contextlib.contextmanager
def busy():
    """A process that keeps one core busy while the sweeps run (the issue's load)."""
    burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield burner
    finally:
        burner.kill()
        burner.wait()


async def _sweep(store, url, name, lengths, concurrency, requests):
    config = SweepConfig(EndpointConfig(url, model=SIM_MODEL), input_tokens=lengths,
                         concurrency=concurrency, output_tokens=(32,),
                         requests_per_cell=requests, warmup=1, name=name)
    result = await run_sweep(config, store)
    # What `throughline throughput` does at its end: each suggestion's effect predicted.
    await asyncio.to_thread(annotate_sweep, result, store)
    return result.run_id


@pytest.fixture(scope="module")
def stored(tmp_path_factory, steady_load):
    db = tmp_path_factory.mktemp("busy") / "results.db"
    ids = {}
    with steady_load(), busy(), Store.open(db) as store, start_simulator("fast") as fast, \
            start_simulator("fast-capped") as capped:
        async def all_sweeps():
            for profile, url in (("fast", fast.url), ("capped", capped.url)):
                # The diagnosis's sweeps: 1, 4 and 8 concurrent, three of each server.
                ids[f"{profile}_diag"] = [await _sweep(store, url, f"{profile} {i}", (512, 1024),
                                                       (1, 4, 8), 24) for i in range(3)]
            for profile, url in (("fast", fast.url), ("capped", capped.url)):
                ids[f"{profile}_cmp"] = await _sweep(store, url, f"{profile} cmp", (512, 2048),
                                                     (1, 4), 32)
        asyncio.run(all_sweeps())
    return db, ids


def test_no_false_bottleneck_on_a_busy_machine_and_the_real_cap_is_named(stored):
    db, ids = stored
    with Store.open(db) as store:
        for run_id in ids["fast_diag"]:
            findings = compare(store, [run_id, ids["capped_cmp"]]).runs[0].findings
            problems = [(f.code, f.evidence.get("cap")) for f in findings
                        if f.severity == "problem" and f.code != "client_bound"]
            assert problems == [], (run_id, problems)
            cap = next((f for f in findings if f.code == "concurrency_cap"), None)
            if cap is not None:  # a plateau below max_num_seqs 16 may be seen, as possible
                assert cap.params["strength"] == "possible" and cap.params["below_limit"] == 16
                assert cap.suggestion_code == "settle_cap"
        for run_id in ids["capped_diag"]:
            findings = compare(store, [run_id, ids["fast_cmp"]]).runs[0].findings
            cap = next(f for f in findings if f.code == "concurrency_cap")
            assert (cap.severity, cap.evidence["cap"], cap.params["strength"]) == (
                "problem", 2, "strong")
            assert cap.params["matches_max_num_seqs"] == 2 and cap.suggestion_code == "raise_cap"
            # The finding agrees with its prediction: raising the cap it names from 2 helps
            # the most loaded cells, starting from the figures measured there.
            predicted = cap.params["predicted"]
            assert (predicted["setting"], predicted["before"], predicted["withdrawn"]) == (
                "max_num_seqs", 2, False)
            assert any(e["verdict"] in ("gain", "tradeoff") for e in predicted["lengths"])


def test_the_uncapped_server_is_ahead_for_many_users_and_one_server_never_beats_itself(stored):
    db, ids = stored
    with Store.open(db) as store:
        comp = compare(store, [ids["fast_cmp"], ids["capped_cmp"]])
        same = compare(store, ids["fast_diag"][:2])
    many = next(s for s in comp.scenarios if s.key == "many_users")
    assert (many.status, many.leader) == ("ahead", 0)
    for key in ("ttft", "output_tps"):
        cells = [r for r in comp.rows if r.key == key and r.cell
                 and r.params["concurrency"] == 4]
        assert len(cells) == 2
        assert all(r.verdict.significant and r.verdict.winner == 0 for r in cells), key
    # Two sweeps of one server: no figure in any cell names a winner, no scenario a leader.
    won = [(r.key, r.params) for r in same.rows if r.verdict.significant]
    assert won == []
    assert all(s.leader is None for s in same.scenarios)

"""Runs that differ are named apart (#26): a default name carries what sets the run apart from
the stored runs that would get the same name, for sweeps and SQL runs alike."""

import asyncio

import httpx

from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.runs import RunInfo, distinct_name, name_facts
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.sqleval.runner import EvalConfig, run_eval
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.sweep import run_sweep
from tests.core.compare.test_compare_strategies import Scripted
from tests.core.sqleval.test_sqleval_runner import question_set  # noqa: F401

BASE = "m 512 tokens c=1,4"


def _info(run_id, name=BASE, kind="throughput", endpoint="http://10.0.0.5:8000/v1", **config):
    return RunInfo(run_id, kind, name, endpoint, "m", "vllm", "completed", "", "", config)


def test_a_name_carries_only_what_differs_from_the_runs_it_would_share_a_name_with():
    first = _info(1, server_settings={"max_num_seqs": 16, "max_model_len": 4096})
    second = _info(0, server_settings={"max_num_seqs": 2, "max_model_len": 4096})
    assert distinct_name(BASE, second, [first]) == f"{BASE} (max_num_seqs=2)"
    # Another endpoint and its setting: both said, the endpoint first.
    third = _info(0, endpoint="http://10.0.0.6:8000/v1", server_settings={"max_num_seqs": 2})
    assert distinct_name(BASE, third, [first]) == f"{BASE} (10.0.0.6:8000, max_num_seqs=2)"
    # The same server again, or a run of another name: the name as it is.
    assert distinct_name(BASE, _info(0, server_settings=first.config["server_settings"]),
                         [first]) == BASE
    assert distinct_name(BASE, second, [_info(1, name="other",
                                              server_settings={"max_num_seqs": 16})]) == BASE
    # A run named apart before still counts as one of the same name.
    named = _info(2, name=f"{BASE} (max_num_seqs=2)", server_settings={"max_num_seqs": 2})
    assert distinct_name(BASE, _info(0, server_settings={"max_num_seqs": 8}), [named]) == (
        f"{BASE} (max_num_seqs=8)")
    # Never a password, though the URL held one.
    secret = _info(0, endpoint="http://alice:pw@10.0.0.7:8000/v1")
    assert "pw" not in distinct_name(BASE, secret, [first]) and "alice" not in name_facts(
        secret)["target"]


def test_sweeps_of_two_simulator_profiles_are_named_apart(tmp_path):
    async def sweeps(store):
        names = []
        for profile in ("fast", "fast-capped"):
            with start_simulator(profile) as sim:
                config = SweepConfig(EndpointConfig(sim.url, model="sim/llama-sim-8b"),
                                     input_tokens=(64,), concurrency=(1,), output_tokens=(4,),
                                     requests_per_cell=2, warmup=0)
                result = await run_sweep(config, store)
                names.append(store.get_run(result.run_id).name)
        return names

    with Store.open(tmp_path / "r.db") as store:
        fast, capped = asyncio.run(sweeps(store))
    assert fast == "sim/llama-sim-8b 64 tokens c=1"
    assert capped.startswith(fast + " (fast-capped")
    assert "max_num_seqs=2" in capped


def test_sql_runs_of_two_strategies_are_named_apart(question_set, tmp_path):  # noqa: F811
    def run(store, **kw):
        config = EvalConfig(EndpointConfig("http://scripted.test", model="scripted"),
                            questions=str(question_set), **kw)

        async def go():
            async with httpx.AsyncClient(transport=httpx.MockTransport(Scripted().handler)) as c:
                result = await run_eval(config, store, sets_dir=tmp_path,
                                        cache_dir=tmp_path / "c", client=c)
            return store.get_run(result.run_id).name
        return asyncio.run(go())

    with Store.open(tmp_path / "r.db") as store:
        loop = run(store)
        layered = run(store, strategies=("layered",))
        text = run(store, tool_mode="text")
    assert layered == f"{loop} (strategy=layered)"
    assert text == f"{loop} (tools=text)"

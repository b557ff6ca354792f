"""Find the knee (#29, part 5): the highest concurrency meeting the targets for a share of
requests, searched in few cells and said with its noise."""

import asyncio

import pytest

from desktop_app.cli import main
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.parsing import InputError
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.export import sweep_to_json
from desktop_app.core.throughput.findmax import FindMax, Probe, knee, next_load
from desktop_app.core.throughput.resume import ResumeError, resume_sweep
from desktop_app.core.throughput.sweep import run_sweep
from desktop_app.core.throughput.types import CellResult, CellSpec
from desktop_app.core.metrics import RequestTiming, summarize_cell


def _probe(c: int, good: int, n: int = 40) -> Probe:
    return Probe(c, good, n, good / n, 0.0, 1.0)


def _search(threshold: int, most: int = 1024, share: float = 0.9) -> list[int]:
    """The loads the search tries against a server that meets the share below `threshold`."""
    tried: list[Probe] = []
    while (load := next_load(tried, FindMax(share, most))) is not None:
        tried.append(_probe(load, 40 if load < threshold else 10))
    return [p.concurrency for p in tried]


def test_the_search_doubles_then_halves_the_gap_in_few_cells():
    assert _search(threshold=6) == [1, 2, 4, 8, 6, 5]  # knee: 5 meets, 6 misses
    assert _search(threshold=100) == [1, 2, 4, 8, 16, 32, 64, 128, 96, 112, 104]
    assert _search(threshold=1) == [1]  # one at a time already misses
    assert _search(threshold=10_000, most=20) == [1, 2, 4, 8, 16, 20]  # bounded by `most`


def _cell(c: int, good: int, n: int = 40) -> CellResult:
    ok = [RequestTiming(prompt_tokens=8, completion_tokens=4, sent_s=0.0, first_token_s=0.01,
                        last_token_s=0.02, chunk_times_s=(0.01, 0.02))] * n
    return CellResult(spec=CellSpec(256, 4, n, concurrency=c), summary=summarize_cell(ok),
                      timings=tuple(ok), goodput=good / n)


def test_the_knee_is_the_pair_that_bounds_it_and_a_share_in_the_noise_is_said():
    search = FindMax(0.9)
    found = knee([_cell(1, 40), _cell(2, 40), _cell(4, 40), _cell(8, 20)], search)
    assert (found.meets, found.misses, found.within_noise) == (4, 8, False)
    assert found.at.low > 0.9  # 40 of 40: the fewest whose interval clears 90 %
    # 39 of 40 meets 90 % (97.5 %), but its interval reaches below it: said as noise.
    noisy = knee([_cell(1, 40), _cell(2, 39), _cell(4, 12)], search)
    assert (noisy.meets, noisy.misses, noisy.within_noise) == (2, 4, True)
    assert noisy.at.low < 0.9 < noisy.at.share
    none = knee([_cell(1, 5)], search)
    assert (none.meets, none.misses, none.at) == (0, 1, None)
    # A load that met it above one that missed does not move the knee past the miss.
    odd = knee([_cell(1, 40), _cell(2, 10), _cell(4, 40)], search)
    assert (odd.meets, odd.misses) == (1, 2)


def test_a_search_needs_a_target_and_one_shape():
    endpoint = EndpointConfig("http://x", model="m")
    with pytest.raises(InputError, match="needs a target"):
        SweepConfig(endpoint, input_tokens=(256,), find_max=FindMax()).validate()
    with pytest.raises(InputError, match="one prompt length and one output length"):
        SweepConfig(endpoint, input_tokens=(256, 512), ttft_target_s=1.0,
                    find_max=FindMax()).validate()
    (first,) = SweepConfig(endpoint, input_tokens=(256,), concurrency=(4, 8), ttft_target_s=1.0,
                           find_max=FindMax()).cells()
    assert (first.concurrency, first.requests) == (1, 40)


def test_a_capped_server_has_its_knee_found_bounded_and_stored(tmp_path):
    with start_simulator("fast-capped") as sim:
        config = SweepConfig(EndpointConfig(sim.url, model="sim/llama-sim-8b"),
                             input_tokens=(256,), output_tokens=(8,), warmup=1,
                             ttft_target_s=0.1, find_max=FindMax(0.9, most=64))
        with Store.open(tmp_path / "r.db") as store:
            result = asyncio.run(asyncio.wait_for(run_sweep(config, store), 120))
            stored = store.cells(result.run_id)
            with pytest.raises(ResumeError, match="searched for the highest load"):
                store.finish_run(result.run_id, "interrupted")
                asyncio.run(resume_sweep(store, result.run_id, EndpointConfig(sim.url)))
    found = knee(result.cells, config.find_max)
    loads = [c.spec.concurrency for c in result.cells]
    # max-num-seqs=2: a queue builds past it, and TTFT crosses 0.1 s a few loads above.
    assert found.misses is not None and found.misses - found.meets == 1, loads
    assert 2 <= found.meets < 64 and len(loads) <= 10, loads
    assert [c.concurrency for c in stored] == loads
    doc = sweep_to_json(result)
    assert doc["find_max"]["meets"] == found.meets
    assert [p["concurrency"] for p in doc["find_max"]["probes"]] == sorted(loads)


def test_the_cli_says_the_knee_and_refuses_a_search_option_alone(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("THROUGHLINE_DB", str(tmp_path / "r.db"))
    with start_simulator("instant") as sim:
        assert main(["throughput", "--base-url", sim.url, "--input-tokens", "64",
                     "--output-tokens", "4", "--find-max", "--ttft-target", "5",
                     "--max-concurrency", "4", "--requests", "8", "--warmup", "0"]) == 0
        out = capsys.readouterr().out
        assert "Highest load meeting the targets for 90 % of requests: 4 concurrent" in out
        assert "no load tried missed them" in out
        monkeypatch.setenv("THROUGHLINE_LANG", "zh")
        assert main(["throughput", "--base-url", sim.url, "--input-tokens", "64",
                     "--slo-share", "0.8"]) == 2
        err = capsys.readouterr().err.strip().splitlines()[-1]
        assert err.endswith("--slo-share：仅可与 --find-max 一起使用"), err

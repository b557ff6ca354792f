"""The sweep diagnosis: findings a user reads to learn why throughput degrades.

Cells come from the virtual-time simulator (seed-reference: vLLM with max-num-seqs=2; fast:
16 sequences), laid end to end on one run clock as the real sweep records them. /metrics
samples, where a test wants them, are synthesized from the timings the way the engine's
gauges would read: running = min(in flight, cap), waiting = the rest, every 0.5 s.
"""

from __future__ import annotations

import dataclasses
import json
from functools import cache

import numpy as np
import pytest

from desktop_app.core.endpoint.types import EndpointInfo, MetricSample
from desktop_app.core.metrics import RequestTiming, summarize_cell
from desktop_app.core.simulator.profiles import load_profile
from desktop_app.core.simulator.virtual import simulate_closed_loop
from desktop_app.core.throughput.diagnosis import _level_times, diagnose, unreliable_cells
from desktop_app.core.throughput.types import CellResult, CellSpec, ClientLoad
from desktop_app.report.diagnosis_words import finding_text, suggestion_text

SCRAPE_EVERY_S = 0.5
GAP_BETWEEN_CELLS_S = 1.0


def vllm_info() -> EndpointInfo:
    return EndpointInfo(models=("m",), engine="vllm", engine_version="0.9", tokenizer="vllm",
                        has_metrics=True, simulated=True, accepts_ignore_eos=True, latency_s=0.01)


def shifted(t: RequestTiming, by: float) -> RequestTiming:
    return dataclasses.replace(t, sent_s=t.sent_s + by, first_token_s=t.first_token_s + by,
                               last_token_s=t.last_token_s + by,
                               chunk_times_s=tuple(x + by for x in t.chunk_times_s))


def synth_samples(timings, cap: int, kv: float | None = None) -> tuple[MetricSample, ...]:
    """What a vLLM scrape would read while these requests ran (seconds on the run clock)."""
    start = min(t.sent_s for t in timings)
    end = max(t.last_token_s for t in timings)
    out = []
    for ts in np.arange(start, end, SCRAPE_EVERY_S):
        in_flight = sum(1 for t in timings if t.sent_s <= ts < t.last_token_s)
        running = min(in_flight, cap)
        out.append(MetricSample(t_s=float(ts), running=running, waiting=in_flight - running,
                                kv_cache_usage=kv, preemptions=0.0))
    return tuple(out)


@cache
def _simulate(profile: str, inp: int, out: int, conc: int, n: int) -> tuple[RequestTiming, ...]:
    return tuple(simulate_closed_loop(load_profile(profile), input_tokens=inp, output_tokens=out,
                                      concurrency=conc, requests=n))


def sweep(profile: str, lengths, concurrencies, *, output: int = 64, metrics_cap: int | None = None,
          kv: float | None = None, requests=lambda c: max(2 * c, 4)) -> list[CellResult]:
    """One closed-loop cell per (length, concurrency), end to end on one clock."""
    cells, clock = [], 0.0
    for inp in lengths:
        for conc in concurrencies:
            n = requests(conc)
            timings = [shifted(t, clock) for t in _simulate(profile, inp, output, conc, n)]
            end = max(t.last_token_s for t in timings)
            samples = synth_samples(timings, metrics_cap, kv) if metrics_cap else ()
            cells.append(CellResult(spec=CellSpec(inp, output, n, conc),
                                    summary=summarize_cell(timings), timings=tuple(timings),
                                    samples=samples, started_s=clock, ended_s=end))
            clock = end + GAP_BETWEEN_CELLS_S
    return cells


def en(finding) -> str:
    """A finding's words in English, as the CLI prints them."""
    return finding_text(finding, "en")


def sug(finding) -> str | None:
    return suggestion_text(finding, "en")


def codes(findings) -> list[str]:
    return [f.code for f in findings]


def by_code(findings, code):
    return next(f for f in findings if f.code == code)


# --- the headline: the concurrency cap of the seed server -------------------------------------

def test_seed_reference_cap_named_from_vllm_metrics():
    cells = sweep("seed-reference", (512, 1024), (1, 2, 4, 6), metrics_cap=2, kv=0.91)
    findings = diagnose(cells, vllm_info(), server_settings={"max-num-seqs": 2})
    assert findings[0].code == "concurrency_cap"
    cap = findings[0]
    assert cap.severity == "problem"
    assert "at most 2 requests at once" in en(cap)
    assert "up to 4 waited" in en(cap)
    assert "vllm:num_requests_running plateau at 2" in en(cap)
    assert "max-num-seqs=2" in en(cap)
    assert cap.evidence["cap"] == 2 and cap.evidence["source"] == "metrics"
    # the queue share is quoted for the 6-concurrent cell, and says how it was estimated
    share = cap.evidence["queue_share"]
    assert share["concurrency"] == 6 and share["estimate"] == "ttft_minus_concurrency_1_ttft"
    assert f"{share['share'] * 100:.0f} % of TTFT" in en(cap)
    assert 0.5 < share["share"] < 1.0
    assert "max-num-seqs" in sug(cap) and "91 %" in sug(cap)


def test_seed_reference_cap_inferred_without_metrics():
    cells = sweep("seed-reference", (512, 1024), (1, 2, 4, 6))
    findings = diagnose(cells)
    cap = by_code(findings, "concurrency_cap")
    assert cap.evidence["cap"] == 2 and cap.evidence["source"] == "client_timeline"
    assert "at most 2 requests at once" in en(cap)
    assert "inferred from the client's timeline" in en(cap)
    assert cap.evidence["max_client_concurrency"] == 6


def _missed_queue(cells, running_cap: int):
    """The cells as scrapes answered late would record them: the running gauge right, every
    scrape that would have caught a request waiting lost (seen on llama.cpp in CI)."""
    return [dataclasses.replace(c, samples=tuple(
        dataclasses.replace(s, running=float(min(s.running, running_cap)), waiting=0.0)
        for s in c.samples if s.waiting == 0)) for c in cells]


def test_a_queue_no_scrape_caught_is_found_where_the_running_gauge_agrees():
    cells = _missed_queue(sweep("seed-reference", (512,), (1, 4), metrics_cap=2), 2)
    assert all(s.waiting == 0 for c in cells for s in c.samples)
    assert any(s.running == 2 for c in cells for s in c.samples)
    info = dataclasses.replace(vllm_info(), engine="llamacpp")
    cap = by_code(diagnose(cells, info, server_settings={"max-num-seqs": 2}), "concurrency_cap")
    assert cap.evidence["cap"] == 2 and cap.evidence["source"] == "timeline_and_gauge"
    assert cap.severity == "problem"  # at the server's own limit of 2
    text = en(cap)
    assert "at most 2 requests at once" in text
    assert "llamacpp:requests_processing never went above 2" in text
    assert "no scrape caught a request waiting" in text
    assert "llamacpp:requests_processing" in finding_text(cap, "zh")
    # Without the server's limit known, a queue its waiting gauge never showed is only possible.
    unsure = by_code(diagnose(cells, info), "concurrency_cap")
    assert (unsure.severity, unsure.params["strength"]) == ("warning", "possible")


def test_a_timeline_plateau_the_running_gauge_never_reached_is_no_cap():
    # The gauge saw 3 running at once: the client's plateau at 2 is its clock, not the server.
    cells = sweep("seed-reference", (512,), (1, 4), metrics_cap=2)
    cells = _missed_queue(cells, 2)
    bumped = dataclasses.replace(cells[1].samples[0], running=3.0)
    cells[1] = dataclasses.replace(cells[1], samples=(bumped, *cells[1].samples[1:]))
    assert "concurrency_cap" not in codes(diagnose(cells, vllm_info()))


def test_timestamp_jitter_does_not_raise_the_inferred_cap():
    cells = sweep("seed-reference", (512,), (1, 4, 6))
    # stamp each last token 10 ms after the next request's first token (a late read): the
    # decode phases of three requests now overlap for an instant every time a slot changes hands
    jittered, peak = [], 0
    for c in cells:
        firsts = sorted(t.first_token_s for t in c.timings)
        ts = []
        for t in c.timings:
            later = [f for f in firsts if f > t.last_token_s]
            ts.append(dataclasses.replace(t, last_token_s=later[0] + 0.01) if later else t)
        jittered.append(dataclasses.replace(c, timings=tuple(ts), summary=summarize_cell(ts)))
        peak = max(peak, max(_level_times((t.first_token_s, t.last_token_s) for t in ts)))
    assert peak == 3
    assert by_code(diagnose(jittered), "concurrency_cap").evidence["cap"] == 2


def test_fast_profile_has_no_cap_with_or_without_metrics():
    for cap in (None, 16):
        cells = sweep("fast", (512, 1024), (1, 2, 4, 8), metrics_cap=cap)
        assert "concurrency_cap" not in codes(diagnose(cells, vllm_info()))


def test_decode_and_prefill_degradation_in_words():
    cells = sweep("seed-reference", (512, 1024), (1, 2, 4, 6))
    findings = diagnose(cells)
    decode = by_code(findings, "decode_slows_with_batch")
    alone = decode.evidence["decode_tps"]["512/64"]["1"]
    at6 = decode.evidence["decode_tps"]["512/64"]["6"]
    assert alone > at6
    assert f"from {alone:.1f} tok/s alone" in en(decode) and f"{at6:.1f} at 6" in en(decode)
    assert "not queueing" in en(decode)
    prefill = by_code(findings, "prefill_drop_under_concurrency")
    means = prefill.evidence["mean_change_by_concurrency"]
    assert means["2"] > means["4"] > means["6"]
    assert f"{means['6'] * 100:+.0f} % at 6" in en(prefill)
    # the evidence is ready for JSON exports
    for f in findings:
        json.dumps(f.evidence)


def test_length_findings_at_one_concurrent_request():
    cells = sweep("seed-reference", (2048, 8192, 32768), (1,), output=16, requests=lambda c: 1)
    findings = diagnose(cells)
    linear = by_code(findings, "ttft_linear")
    assert 1.0 < linear.evidence["slope_s_per_1k_tokens"] < 2.5
    assert "per 1k tokens" in en(linear)
    slows = by_code(findings, "prefill_slows_with_length")
    assert slows.evidence["to_tokens"] == 32768 and slows.evidence["change"] < -0.15


# --- server pressure and measurement quality --------------------------------------------------

def test_kv_pressure_with_preemptions():
    cells = sweep("seed-reference", (512,), (1, 2), metrics_cap=2, kv=0.5)
    last = cells[-1]
    # the server preempted 3 requests during the last cell and its cache peaked at 97 %
    samples = tuple(dataclasses.replace(s, preemptions=float(min(k, 3)),
                                        kv_cache_usage=0.97 if k == 2 else 0.6)
                    for k, s in enumerate(last.samples))
    cells[-1] = dataclasses.replace(last, samples=samples)
    kv = by_code(diagnose(cells, vllm_info()), "kv_cache_pressure")
    assert kv.severity == "problem"
    assert kv.evidence["preemptions"] == 3 and kv.evidence["preemptions_by_cell"] == {"1": 3}
    assert "97 %" in en(kv) and "preempted 3 requests" in en(kv)
    assert "gpu-memory-utilization" in sug(kv)


def test_each_engine_is_told_its_own_settings_by_name():
    cells = sweep("seed-reference", (512,), (1, 2), metrics_cap=2, kv=0.5)
    samples = tuple(dataclasses.replace(s, preemptions=float(min(k, 3)), kv_cache_usage=0.97)
                    for k, s in enumerate(cells[-1].samples))
    cells[-1] = dataclasses.replace(cells[-1], samples=samples)
    sglang = dataclasses.replace(vllm_info(), engine="sglang")
    kv = by_code(diagnose(cells, sglang), "kv_cache_pressure")
    for zh in (False, True):
        words = suggestion_text(kv, "zh" if zh else "en")
        assert "mem-fraction-static" in words and "context-length" in words
        assert "gpu-memory-utilization" not in words and "max-model-len" not in words
    # A run diagnosed before the names were kept: vLLM's, as its words said then.
    old = dataclasses.replace(kv, params={k: v for k, v in kv.params.items()
                                          if k not in ("memory_knob", "context_knob")})
    assert "gpu-memory-utilization" in sug(old) and "max-model-len" in sug(old)
    # TGI's limit on requests running at once is max-batch-size, in the finding as in the
    # predicted effect of raising it; max-batch-total-tokens is its batch's token budget.
    tgi = dataclasses.replace(vllm_info(), engine="tgi")
    cap = by_code(diagnose(sweep("seed-reference", (512,), (1, 4), metrics_cap=2, kv=0.5), tgi),
                  "concurrency_cap")
    assert "max-batch-size" in en(cap) + sug(cap)
    assert "max-batch-total-tokens" not in en(cap) + sug(cap)


def test_no_kv_finding_when_the_cache_has_room():
    cells = sweep("fast", (512,), (1, 2), metrics_cap=16, kv=0.3)
    assert "kv_cache_pressure" not in codes(diagnose(cells, vllm_info()))


def test_client_bound_cell_is_marked_unreliable():
    cells = sweep("fast", (512,), (1, 2, 4))
    calm = ClientLoad(loop_lag_p50_ms=0.3, loop_lag_p99_ms=1.2, loop_lag_max_ms=3.0,
                      cpu_percent=20, samples=100)
    busy = ClientLoad(loop_lag_p50_ms=4.0, loop_lag_p99_ms=18.0, loop_lag_max_ms=45.0,
                      cpu_percent=97, samples=100)
    cells = [dataclasses.replace(c, client_load=calm) for c in cells]
    assert unreliable_cells(cells) == set() and "client_bound" not in codes(diagnose(cells))
    cells[2] = dataclasses.replace(cells[2], client_load=busy)
    assert unreliable_cells(cells) == {2}
    findings = diagnose(cells)
    bound = by_code(findings, "client_bound")
    assert findings[0] is bound and bound.severity == "problem"
    assert "45 ms" in en(bound) and "unreliable" in en(bound)
    assert set(bound.evidence["cells"]) == {"2"}


def test_token_mismatches_are_reported():
    cells = sweep("fast", (512,), (1, 2))
    cells[1] = dataclasses.replace(cells[1], token_mismatches=3)
    f = by_code(diagnose(cells), "token_count_mismatch")
    assert "3 requests in 1 cell" in en(f) and "server's count" in en(f)
    assert f.evidence == {"cells": {"1": 3}, "requests": 3}


def test_failures_by_class():
    cells = sweep("fast", (512,), (1, 2))
    ts = list(cells[1].timings)
    ts[0] = dataclasses.replace(ts[0], error_class="timeout", first_token_s=None, last_token_s=None)
    ts[1] = dataclasses.replace(ts[1], error_class="http_status")
    cells[1] = dataclasses.replace(cells[1], timings=tuple(ts), summary=summarize_cell(ts))
    f = by_code(diagnose(cells), "failures")
    assert f.evidence["by_class"] == {"http_status": 1, "timeout": 1}
    assert "2 of" in en(f) and "1 timeout" in en(f)
    assert "timeout" in sug(f)


def test_goodput_best_concurrency():
    cells = sweep("fast", (512,), (1, 2, 4))
    cells = [dataclasses.replace(c, goodput=g) for c, g in zip(cells, (1.0, 0.95, 0.6))]
    f = by_code(diagnose(cells), "goodput")
    assert f.evidence["512/64"]["best_concurrency"] == 2
    assert "up to concurrency 2" in en(f)
    cells = [dataclasses.replace(c, goodput=0.5) for c in cells]
    f = by_code(diagnose(cells), "goodput")
    assert f.severity == "warning" and f.evidence["512/64"]["best_concurrency"] is None


def test_nothing_to_say_about_an_empty_sweep():
    assert diagnose([]) == [] and unreliable_cells([]) == set()


def test_a_queue_that_drains_early_still_shows_the_cap_when_the_client_kept_more_in_flight():
    """Seen on llama.cpp, 4 requests at concurrency 4 with 2 slots: 2 running in most scrapes,
    requests deferred in only a few (the queue empties half-way through the cell)."""
    from desktop_app.core.endpoint.types import MetricSample
    from desktop_app.core.metrics import RequestTiming, summarize_cell
    from desktop_app.core.throughput.diagnosis import diagnose
    from desktop_app.core.throughput.types import CellResult, CellSpec

    timings = [RequestTiming(256, 16, 0.0, 0.2 + i * 0.3, 1.0 + i * 0.3) for i in range(4)]
    samples = tuple(MetricSample(t_s=0.05 * k, running=2.0 if 2 <= k < 38 else 1.0,
                                 waiting=2.0 if k in (2, 3, 4) else 0.0,
                                 raw={"llamacpp:requests_processing": 2.0})
                    for k in range(40))
    cell = CellResult(CellSpec(256, 16, 4, concurrency=4), summarize_cell(timings),
                      tuple(timings), samples)
    cap = [f for f in diagnose([cell]) if f.code == "concurrency_cap"]
    assert cap and "at most 2 requests at once" in en(cap[0])


def test_suggestions_name_the_setting_as_the_engine_spells_it():
    cells = sweep("seed-reference", (512,), (1, 4))
    for engine, knob in (("vllm", "max-num-batched-tokens"), ("llamacpp", "--ubatch-size"),
                         ("sglang", "chunked-prefill-size")):
        info = dataclasses.replace(vllm_info(), engine=engine)
        decode = by_code(diagnose(cells, info), "decode_slows_with_batch")
        assert f"a smaller {knob} keeps prefill chunks" in sug(decode), engine


def test_a_cell_that_could_not_keep_its_concurrency_says_so():
    from desktop_app.core.throughput.checks import mean_in_flight

    cells = sweep("fast", (512,), (1, 4), requests=lambda c: 16)
    held, _window, _delay = mean_in_flight(cells[1])
    assert held >= 3.6  # a closed loop refills a slot as soon as it frees
    assert mean_in_flight(cells[0])[0] == pytest.approx(1.0, abs=0.05)
    assert "concurrency_not_kept" not in codes(diagnose(cells))
    # The same requests sent one after another, as when each send waited for the previous
    # stream to end (a tokenizer that answers only between streams): c=4 in name only.
    serial, clock = [], cells[1].started_s
    for t in cells[1].timings:
        t = shifted(t, clock - t.sent_s)
        serial.append(t)
        clock = t.last_token_s
    cells[1] = dataclasses.replace(cells[1], timings=tuple(serial),
                                   summary=summarize_cell(serial))
    f = by_code(diagnose(cells), "concurrency_not_kept")
    assert f.severity == "warning" and set(f.evidence["cells"]) == {"1"}
    assert f.evidence["cells"]["1"]["mean_in_flight"] == pytest.approx(1.0, abs=0.05)
    assert "fewer requests in flight than asked in 1 cell (512 in / 64 out / c=4: 1.0 in " \
           "flight on average)" in en(f)
    assert "--workers" in sug(f)
    zh = finding_text(f, "zh")
    assert "平均在途 1.0 个" in zh and "in flight" not in zh


def test_a_cap_quotes_the_servers_own_queue_time_where_it_exports_one(tmp_path):
    """#26: vLLM (and the simulator) export vllm:request_queue_time_seconds; its change over a
    cell is the waiting share the finding quotes, and it says whose figure it is."""
    import asyncio

    from desktop_app.core.endpoint.types import EndpointConfig
    from desktop_app.core.simulator.launcher import start_simulator
    from desktop_app.core.throughput.config import SweepConfig
    from desktop_app.core.throughput.diagnosis import server_queue_time
    from desktop_app.core.throughput.sweep import run_sweep
    from desktop_app.report.diagnosis_words import finding_text

    with start_simulator("fast-capped") as sim:
        config = SweepConfig(EndpointConfig(sim.url, model="sim/llama-sim-8b"),
                             input_tokens=(512,), concurrency=(1, 6), output_tokens=(32,),
                             requests_per_cell=30, warmup=0, metrics_interval_s=0.1)
        result = asyncio.run(run_sweep(config, None))
    cap = by_code(result.findings, "concurrency_cap")
    share = cap.evidence["queue_share"]
    assert share["estimate"] == "server_queue_time" and share["requests"] >= 3
    loaded = next(c for c in result.cells if c.spec.concurrency == 6)
    wait, _ = server_queue_time(loaded)
    # Six clients on two slots: most of a request's time to first token is spent waiting.
    assert 0.4 < share["share"] <= 1.0 and wait > 0
    assert "the server's own queue time, vllm:request_queue_time_seconds" in en(cap)
    assert "服务端自身统计的排队时间" in finding_text(cap, "zh")
    # The 1-concurrent cell waited for nothing, by the server's own count.
    single = next(c for c in result.cells if c.spec.concurrency == 1)
    assert server_queue_time(single) is None or server_queue_time(single)[0] < 0.005

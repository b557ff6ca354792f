"""Server signals: each engine's /metrics names land on one timeline, and the scraper keeps time."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

import httpx
import pytest

from desktop_app.core.endpoint.types import EndpointConfig, MetricSample
from desktop_app.core.simulator.profiles import load_profile
from desktop_app.core.simulator.server import serve_in_thread
from desktop_app.core.throughput import servermetrics
from desktop_app.core.throughput.servermetrics import MetricsScraper, parse_metrics


@pytest.fixture(scope="module")
def sim():
    with serve_in_thread(load_profile("instant")) as server:
        yield server


def test_parses_vllm_text_from_the_simulator(sim):
    httpx.post(f"{sim.url}/v1/completions",
               json={"model": "sim/llama-sim-8b", "prompt": "hello", "max_tokens": 2})
    text = httpx.get(f"{sim.url}/metrics").text
    sample = parse_metrics(text, 2.5)
    assert sample.t_s == 2.5
    assert (sample.running, sample.waiting, sample.kv_cache_usage, sample.preemptions) == (
        0.0, 0.0, 0.0, 0.0)
    # The queue-time histogram's sum and count are kept (the diagnosis reads them), never its
    # buckets.
    assert set(sample.raw) == {"vllm:num_requests_running", "vllm:num_requests_waiting",
                               "vllm:kv_cache_usage_perc", "vllm:num_preemptions_total",
                               "vllm:request_queue_time_seconds_sum",
                               "vllm:request_queue_time_seconds_count"}


def test_vllm_sums_models_and_reads_older_names():
    text = """\
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="a"} 2.0
vllm:num_requests_running{model_name="b"} 1.0
vllm:num_requests_waiting{model_name="a"} 4.0
vllm:gpu_cache_usage_perc{model_name="a"} 0.5
vllm:gpu_cache_usage_perc{model_name="b"} 0.97
# TYPE vllm:num_preemptions counter
vllm:num_preemptions_total{model_name="a"} 3.0
vllm:num_preemptions_created{model_name="a"} 1.7e9
vllm:request_queue_time_seconds_bucket{le="0.3",model_name="a"} 1.0
"""
    sample = parse_metrics(text, 0.0)
    assert (sample.running, sample.waiting, sample.kv_cache_usage, sample.preemptions) == (
        3.0, 4.0, 0.97, 3.0)  # the fullest cache, not a sum of fractions
    assert sample.raw["vllm:gpu_cache_usage_perc"] == 0.97


def test_sglang():
    text = """\
# HELP sglang:num_running_reqs The number of running requests.
# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="qwen",engine_type="unified"} 2.0
sglang:num_queue_reqs{model_name="qwen",engine_type="unified"} 5.0
sglang:token_usage{model_name="qwen",engine_type="unified"} 0.83
sglang:gen_throughput{model_name="qwen",engine_type="unified"} 41.2
"""
    sample = parse_metrics(text, 1.0)
    assert (sample.running, sample.waiting, sample.kv_cache_usage, sample.preemptions) == (
        2.0, 5.0, 0.83, None)
    assert sample.raw == {"sglang:num_running_reqs": 2.0, "sglang:num_queue_reqs": 5.0,
                          "sglang:token_usage": 0.83}


def test_llamacpp():
    text = """\
# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.
# TYPE llamacpp:prompt_tokens_total counter
llamacpp:prompt_tokens_total 4096
# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 2
# TYPE llamacpp:requests_deferred gauge
llamacpp:requests_deferred 3
"""
    sample = parse_metrics(text, 1.0)
    assert (sample.running, sample.waiting, sample.kv_cache_usage, sample.preemptions) == (
        2.0, 3.0, None, None)


def test_tgi():
    text = """\
# TYPE tgi_queue_size gauge
tgi_queue_size 7
# TYPE tgi_batch_current_size gauge
tgi_batch_current_size 4
tgi_request_duration_bucket{le="0.5"} 3
"""
    sample = parse_metrics(text, 1.0)
    assert (sample.running, sample.waiting, sample.kv_cache_usage) == (4.0, 7.0, None)


@pytest.mark.parametrize("text", [
    "", "<html><body>Not Found</body></html>", '{"detail": "nope"}',
    "vllm:num_requests_running{model_name=\"a\" 2", "vllm:num_requests_running lots",
    "some_other_metric 1\n",
])
def test_garbage_or_unknown_text_gives_an_empty_sample(text):
    assert parse_metrics(text, 3.0) == MetricSample(t_s=3.0)


@pytest.mark.asyncio
async def test_scraper_keeps_its_interval_against_the_simulator(sim, monkeypatch):
    # The schedule runs on a clock the test moves: the scraper's waits move it by what they
    # ask, each scrape takes 10 ms of it and the fourth 120 ms. On the wall clock a loaded
    # machine made a scrape overrun a slot now and then, which the scraper rightly skips,
    # and 8 samples spanned 0.52 s instead of 0.35 s; here every time is exact.
    now = [100.0]

    async def sleep(delay: float) -> None:
        now[0] += max(delay, 0.0)
        await asyncio.sleep(0)

    monkeypatch.setattr(servermetrics, "asyncio",
                        SimpleNamespace(sleep=sleep, to_thread=asyncio.to_thread))
    samples: list[MetricSample] = []
    enough = asyncio.Event()

    def on_sample(sample: MetricSample) -> None:
        samples.append(sample)
        if len(samples) == 8:
            enough.set()

    async def scrape_takes_time(_response: httpx.Response) -> None:
        now[0] += 0.12 if scraper.scrapes == 3 else 0.01

    async with httpx.AsyncClient(event_hooks={"response": [scrape_takes_time]}) as client:
        scraper = MetricsScraper(client, EndpointConfig(base_url=f"{sim.url}/v1"), interval_s=0.05,
                                 clock=lambda: now[0])
        task = asyncio.create_task(scraper.run(on_sample))
        await asyncio.wait_for(enough.wait(), 30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert task.cancelled()
    # A sample is the middle of its scrape. Absolute slots, 50 ms apart: no drift by the
    # 10 ms each scrape takes; the slow scrape (0.15-0.27) skips the slots at 0.20 and 0.25
    # and the next starts at 0.30, on the grid, with no catch-up scrape before it.
    assert [s.t_s for s in samples] == pytest.approx(
        [0.005, 0.055, 0.105, 0.21, 0.305, 0.355, 0.405, 0.455])
    assert all(s.running == 0.0 for s in samples)
    assert scraper.errors == 0 and scraper.scrapes >= 8 and scraper.available


@pytest.mark.asyncio
async def test_no_metrics_endpoint_ends_quietly():
    transport = httpx.MockTransport(lambda request: httpx.Response(404, text="Not Found"))
    async with httpx.AsyncClient(transport=transport) as client:
        scraper = MetricsScraper(client, EndpointConfig(base_url="http://fake"), interval_s=0.05)
        samples: list[MetricSample] = []
        await asyncio.wait_for(scraper.run(samples.append), 2)
    assert samples == [] and scraper.available is False and scraper.errors == 0


@pytest.mark.asyncio
async def test_transient_errors_are_counted_and_scraping_goes_on():
    answers = iter(["500", "refused", "ok", "404", "ok", "ok"])
    samples: list[MetricSample] = []
    done = asyncio.Event()

    def handler(request: httpx.Request) -> httpx.Response:
        answer = next(answers, "ok")
        if answer == "refused":
            raise httpx.ConnectError("connection refused", request=request)
        if answer == "ok":
            return httpx.Response(200, text="llamacpp:requests_processing 1\n")
        return httpx.Response(int(answer))

    def on_sample(sample: MetricSample) -> None:
        samples.append(sample)
        if len(samples) == 3:
            done.set()

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        scraper = MetricsScraper(client, EndpointConfig(base_url="http://fake"), interval_s=0.02)
        task = asyncio.create_task(scraper.run(on_sample))
        await asyncio.wait_for(done.wait(), 3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    # A 500 on the first scrape is not "no /metrics"; a 404 after a success is transient.
    assert scraper.errors == 3
    assert [s.running for s in samples] == [1.0, 1.0, 1.0]


@pytest.mark.asyncio
async def test_a_slow_scrape_skips_slots_instead_of_queueing():
    starts: list[float] = []
    done = asyncio.Event()

    async def handler(request: httpx.Request) -> httpx.Response:
        starts.append(time.perf_counter())
        if len(starts) == 4:
            done.set()
        await asyncio.sleep(0.07 if len(starts) == 1 else 0)  # the first one takes 3.5 intervals
        return httpx.Response(200, text="tgi_queue_size 1\n")

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        scraper = MetricsScraper(client, EndpointConfig(base_url="http://fake"), interval_s=0.02)
        task = asyncio.create_task(scraper.run(lambda s: None))
        await asyncio.wait_for(done.wait(), 3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert starts[1] - starts[0] >= 0.07  # no scrape started while the slow one ran
    # And no burst of catch-up scrapes after it: back on the 20 ms grid. Each scrape has a
    # slot of its own after the one before, so two scrapes on are at least an interval apart
    # however late the loop ran any of them (the next gap alone is not: a scrape the loop
    # started 15 ms late is followed 5 ms later by the next on time). Catch-up scrapes for
    # the three slots the slow one overran would all start within a millisecond or two.
    assert starts[3] - starts[1] >= 0.02 - 0.001  # asyncio may wake a timer a hair early


def _body(lines: dict[str, float]) -> str:
    return "".join(f"# TYPE {name.removesuffix('_total')} counter\n{name} {value}\n"
                   for name, value in lines.items())


def test_a_cells_prefix_cache_reuse_is_read_from_each_engines_own_counters():
    """vLLM counts prompt tokens looked up and found; llama.cpp counts found and computed
    anew: either way the cell's share is what changed between its first and last scrape."""
    vllm = [parse_metrics(_body({"vllm:prefix_cache_queries_total": q,
                                 "vllm:prefix_cache_hits_total": h}), 0.0)
            for q, h in ((1000, 100), (3000, 1600))]
    assert servermetrics.prefix_cache(vllm[0].raw, vllm[1].raw) == {
        "hits": 1500.0, "queries": 2000.0, "share": 0.75,
        "source": "vllm:prefix_cache_hits_total"}
    llama = [parse_metrics(_body({"llamacpp:prompt_tokens_cached_total": h,
                                  "llamacpp:prompt_tokens_total": c}), 0.0)
             for h, c in ((0, 41), (1200, 841))]
    assert servermetrics.prefix_cache(llama[0].raw, llama[1].raw)["share"] == pytest.approx(0.6)
    # A restart between the scrapes (counters went back), or nothing looked up: no figure.
    assert servermetrics.prefix_cache(vllm[1].raw, vllm[0].raw) is None
    assert servermetrics.prefix_cache(vllm[0].raw, vllm[0].raw) is None
    assert servermetrics.prefix_cache({}, {}) is None

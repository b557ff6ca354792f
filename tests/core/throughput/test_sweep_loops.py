"""How a sweep dispatches requests, and what it accepts as configuration."""

import asyncio
import time

import pytest

from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.parsing import InputError, parse_float_list
from desktop_app.core.throughput.config import SweepConfig, load_sweep_toml
from desktop_app.core.throughput.loops import ClientLoadMonitor, closed_loop, open_loop


class Recorder:
    """A fake request: holds `hold` until released, records how many were in flight."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.peak = 0
        self.started: list[int] = []
        self.release = asyncio.Event()

    async def send(self, index: int) -> None:
        self.started.append(index)
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            await self.release.wait()
        finally:
            self.in_flight -= 1


@pytest.mark.asyncio
async def test_closed_loop_keeps_exactly_concurrency_requests_in_flight():
    rec = Recorder()
    task = asyncio.create_task(closed_loop(rec.send, concurrency=3, requests=10))
    while len(rec.started) < 3:
        await asyncio.sleep(0)
    assert rec.in_flight == 3 and rec.peak == 3
    rec.release.set()
    assert await asyncio.wait_for(task, 5) == 10
    assert sorted(rec.started) == list(range(10)) and rec.peak == 3


@pytest.mark.asyncio
async def test_closed_loop_stops_sending_at_the_deadline_and_lets_flight_finish():
    done = []

    async def send(i):
        await asyncio.sleep(0.01)
        done.append(i)

    sent = await closed_loop(send, concurrency=2, requests=10_000,
                             deadline=time.perf_counter() + 0.1)
    assert 4 <= sent < 10_000 and len(done) == sent


@pytest.mark.asyncio
async def test_cancelling_a_loop_cancels_every_request_in_flight():
    rec = Recorder()
    task = asyncio.create_task(closed_loop(rec.send, concurrency=4, requests=8))
    while len(rec.started) < 4:
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert rec.in_flight == 0


@pytest.mark.asyncio
async def test_open_loop_arrivals_are_poisson_and_repeatable():
    async def run(seed):
        times = []

        async def send(i):
            times.append(time.perf_counter())

        await open_loop(send, rate_per_s=200.0, requests=60, seed=seed)
        return times

    a = await run(1)
    gaps = [b - a_ for a_, b in zip(a, a[1:])]
    mean_gap = sum(gaps) / len(gaps)
    assert 0.002 < mean_gap < 0.012  # 1/200 s on average, loosely: the loop is real time
    assert len(a) == 60


@pytest.mark.asyncio
async def test_client_load_monitor_sees_a_blocked_loop():
    monitor = ClientLoadMonitor(interval_s=0.005)
    monitor.start()
    await asyncio.sleep(0.03)
    time.sleep(0.05)  # block the event loop on purpose: this is what starvation looks like
    await asyncio.sleep(0.02)
    load = await monitor.stop()
    assert load is not None and load.loop_lag_max_ms >= 40


def _config(**kw):
    base = dict(endpoint=EndpointConfig("http://127.0.0.1:9", model="m"), input_tokens=(512, 2048),
                concurrency=(1, 4), output_tokens=(64,))
    base.update(kw)
    return SweepConfig(**base)


def test_cells_run_in_input_then_load_order_with_default_request_counts():
    cells = _config().cells()
    assert [(c.input_tokens, c.concurrency, c.requests) for c in cells] == [
        (512, 1, 8), (512, 4, 16), (2048, 1, 8), (2048, 4, 16)]
    open_cells = _config(request_rates=(0.5, 4.0)).cells()
    assert [(c.request_rate, c.concurrency, c.requests) for c in open_cells][:2] == [
        (0.5, None, 8), (4.0, None, 32)]


@pytest.mark.parametrize("kw, field", [
    (dict(concurrency=(0,)), "concurrency"),
    (dict(input_tokens=()), "input tokens"),
    (dict(requests_per_cell=0), "requests per cell"),
    (dict(ttft_target_s=-1.0), "TTFT target"),
    (dict(request_rates=(float("nan"),)), "request rate"),
    (dict(endpoint=EndpointConfig("http://x", model="")), "model"),
])
def test_bad_sweep_config_names_the_field(kw, field):
    with pytest.raises(InputError) as exc:
        _config(**kw).validate()
    assert exc.value.field == field


def test_the_stored_config_never_holds_the_api_key():
    config = _config(endpoint=EndpointConfig("http://x", model="m", api_key="sk-canary-123"))
    assert "sk-canary-123" not in repr(config.to_json()) and "sk-canary" not in repr(config)


def test_sweep_files_refuse_unknown_keys_and_api_keys(tmp_path):
    good = tmp_path / "sweep.toml"
    good.write_text('input_tokens = [512, 2048]\nconcurrency = [1, 2]\n')
    assert load_sweep_toml(good)["concurrency"] == [1, 2]
    bad = tmp_path / "bad.toml"
    bad.write_text('input_tokens = [512]\napi_key = "sk-x"\n')
    with pytest.raises(InputError, match="API keys do not go in files"):
        load_sweep_toml(bad)
    typo = tmp_path / "typo.toml"
    typo.write_text('input_tokenz = [512]\n')
    with pytest.raises(InputError, match="input_tokenz"):
        load_sweep_toml(typo)


def test_float_lists():
    assert parse_float_list("0.5, 1,2", "rate") == [0.5, 1.0, 2.0]
    for bad in ("", "x", "0", "-1", "inf", "nan"):
        with pytest.raises(InputError):
            parse_float_list(bad, "rate")


def test_the_stored_config_drops_credentials_from_the_url():
    config = _config(endpoint=EndpointConfig("https://user:sk-canary-9@example.com/v1?api_key=sk-canary-9", model="m"))
    assert "sk-canary-9" not in repr(config.to_json())

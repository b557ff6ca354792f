"""One simulated server's state (`SimState`) and its `/metrics` collector.

`SimState` holds the engine, its real-time driver, the fault picker, the queue-time histogram and
the `/sim/trace` records; the server keeps one per app (`app.state.sim`). `_VllmCollector`
exposes it to prometheus_client under vLLM's metric names, read at scrape time.

Times in the trace are `time.perf_counter()` seconds of the server process; on Linux that is
CLOCK_MONOTONIC, directly comparable with a client's `time.perf_counter_ns()` on the same machine.
"""

from __future__ import annotations

import random
import time
from collections import deque

from prometheus_client import CollectorRegistry
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
)

from desktop_app.core.simulator.engine import Engine, Profile
from desktop_app.core.simulator import personas  # noqa: F401  (registers the SQL personas)
from desktop_app.core.simulator.faults import FaultPicker, FaultSpec
from desktop_app.core.simulator.realtime import RealtimeDriver

TRACE_LIMIT = 100_000  # records kept by /sim/trace (the oldest are dropped)
# vLLM's buckets for vllm:request_queue_time_seconds.
QUEUE_BUCKETS_S = (0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0,
                   60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0)


class SimState:
    """Everything one simulated server holds: engine, driver, faults, counters and the trace."""

    def __init__(self, profile: Profile, faults: FaultSpec | None = None) -> None:
        self.profile = profile
        self.faults = faults or FaultSpec()
        self.engine = Engine(profile)
        self.driver = RealtimeDriver(self.engine)
        self.picker = FaultPicker(faults)
        self.rng = random.Random(self.faults.seed or 0)
        self.trace: deque[dict] = deque(maxlen=TRACE_LIMIT)
        self.queue_counts = [0] * (len(QUEUE_BUCKETS_S) + 1)  # last one is +Inf
        self.queue_sum_s = 0.0
        self.created = int(time.time())
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(_VllmCollector(self))

    def drain_queue_times(self) -> None:
        """Move the engine's new queue times into the histogram."""
        times = self.engine.queue_times_s
        if not times:
            return
        for q in times:
            i = next((i for i, b in enumerate(QUEUE_BUCKETS_S) if q <= b), len(QUEUE_BUCKETS_S))
            self.queue_counts[i] += 1
            self.queue_sum_s += q
        times.clear()

    def new_record(self, rid: str, model: str, endpoint: str, stream: bool,
                   prompt_tokens: int, arrival_s: float | None = None) -> dict:
        """Start a trace record for a request that arrived at `arrival_s` (default now)."""
        record = {
            "id": rid, "model": model, "endpoint": endpoint, "stream": stream,
            "arrival_s": time.perf_counter() if arrival_s is None else arrival_s,
            "first_token_s": None, "last_token_s": None,
            "end_s": None, "prompt_tokens": prompt_tokens, "completion_tokens": 0,
            "planned_tokens": 0, "queue_s": None, "preemptions": 0, "finish_reason": None,
            "status": None, "fault": None, "disconnected": False,
        }
        self.trace.append(record)
        return record


class _VllmCollector:
    """Exposes the engine's state under vLLM's metric names, read at scrape time."""

    def __init__(self, state: SimState) -> None:
        self.state = state

    def collect(self):
        st = self.state
        st.drain_queue_times()
        labels, value = ["model_name"], [st.profile.model]

        def gauge(name: str, doc: str, v: float) -> GaugeMetricFamily:
            g = GaugeMetricFamily(name, doc, labels=labels)
            g.add_metric(value, v)
            return g

        def counter(name: str, doc: str, v: float) -> CounterMetricFamily:
            c = CounterMetricFamily(name, doc, labels=labels)
            c.add_metric(value, v)
            return c

        yield gauge("vllm:num_requests_running", "Number of requests in model execution batches.",
                    len(st.engine.running))
        yield gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.",
                    st.engine.num_waiting(st.driver.clock()))
        yield gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.",
                    st.engine.kv_usage)
        yield counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.",
                      st.engine.num_preemptions)
        yield counter("vllm:prompt_tokens", "Number of prefill tokens processed.",
                      st.driver.prompt_tokens_total)
        yield counter("vllm:generation_tokens", "Number of generation tokens processed.",
                      st.driver.generation_tokens_total)
        h = HistogramMetricFamily("vllm:request_queue_time_seconds",
                                  "Histogram of time spent in WAITING phase for request.",
                                  labels=labels)
        cumulative, buckets = 0, []
        for bound, count in zip((*QUEUE_BUCKETS_S, float("inf")), st.queue_counts):
            cumulative += count
            buckets.append(("+Inf" if bound == float("inf") else repr(bound), cumulative))
        h.add_metric(value, buckets, sum_value=st.queue_sum_s)
        yield h
        yield from _config_info(st.profile)


SIM_BLOCK_SIZE = 16  # vLLM's default block size; the simulator counts KV in tokens


def _config_info(profile: Profile):
    """The profile's settings as vLLM exposes its own: info gauges set to 1, settings as labels.

    `vllm:cache_config_info` is vLLM's (labels as its CacheConfig spells them; num_gpu_blocks is
    the profile's kv_cache_tokens in blocks of SIM_BLOCK_SIZE). vLLM exports no scheduler
    config-info gauge; `vllm:scheduler_config_info` follows the name vLLM's `log_metrics_info`
    would give a "scheduler_config", so the same `vllm:*_config_info` reader finds max_num_seqs
    and max_num_batched_tokens, read rather than typed.
    """
    cache = GaugeMetricFamily("vllm:cache_config_info", "Information of the LLMEngine CacheConfig",
                              labels=["block_size", "cache_dtype", "gpu_memory_utilization",
                                      "num_gpu_blocks"])
    cache.add_metric([str(SIM_BLOCK_SIZE), "auto", repr(profile.gpu_memory_utilization),
                      str(profile.kv_cache_tokens // SIM_BLOCK_SIZE)], 1.0)
    yield cache
    sched = GaugeMetricFamily("vllm:scheduler_config_info",
                              "Information of the simulated SchedulerConfig",
                              labels=["max_model_len", "max_num_batched_tokens", "max_num_seqs"])
    sched.add_metric([str(profile.max_model_len), str(profile.max_num_batched_tokens),
                      str(profile.max_num_seqs)], 1.0)
    yield sched

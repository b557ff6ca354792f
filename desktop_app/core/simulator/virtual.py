"""A discrete-event driver for the engine in virtual time: it never sleeps.

The real-time driver behind the simulated HTTP server sleeps for each step's duration; this one
jumps its clock instead, so a sweep that would take an hour on the modelled server takes well
under a second of CPU. Both call the same `Engine.step`, so they schedule identically; the
virtual driver is what `whatif` and the calibration tests run.

Clients behave like the real sweep's: each sends a request with ignore_eos semantics (exactly
`output_tokens` tokens come back, one token per streamed chunk) and, in the closed loop, sends
its next request the moment its previous one finished. A request that arrives while a step is
running is seen by the scheduler at the next step, as in vLLM.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Sequence

import numpy as np

from desktop_app.core.parsing import CodedError
from desktop_app.core.metrics import RequestTiming
from desktop_app.core.simulator.engine import Engine, Profile, SimRequest

# A default seed-reference sweep takes about 6 x 10^4 steps; a run a thousand times longer
# than that is a bug (an engine that can make no progress), not a workload.
MAX_STEPS = 100_000_000


class _Record:
    """The client's view of one request while it runs (times in virtual seconds)."""

    __slots__ = ("req", "sent_s", "chunks")

    def __init__(self, req: SimRequest, sent_s: float) -> None:
        self.req = req
        self.sent_s = sent_s
        self.chunks: list[float] = []

    def timing(self) -> RequestTiming:
        chunks = tuple(self.chunks)
        return RequestTiming(
            prompt_tokens=self.req.prompt_tokens,
            completion_tokens=len(chunks),
            sent_s=self.sent_s,
            first_token_s=chunks[0] if chunks else None,
            last_token_s=chunks[-1] if chunks else None,
            chunk_times_s=chunks,
            error_class=None if self.req.state == "finished" else "unfinished",
        )


class CellRefused(CodedError, ValueError):
    """A cell the profile cannot run (lengths it could never schedule): a code and its values,
    said in the reader's language by `report.errors.error_text`."""


def _check(profile: Profile, input_tokens: int, output_tokens: int) -> None:
    if input_tokens < 1 or output_tokens < 1:
        raise CellRefused(code="virtual_tokens_min", input=input_tokens, output=output_tokens)
    total = input_tokens + output_tokens
    if total > profile.max_model_len:
        raise CellRefused(code="virtual_over_len", input=input_tokens, output=output_tokens,
                          profile=repr(profile.name), high=profile.max_model_len)
    if total > profile.kv_cache_tokens:
        raise CellRefused(code="virtual_over_cache", input=input_tokens, output=output_tokens,
                          profile=repr(profile.name), high=profile.kv_cache_tokens)


def _run(
    profile: Profile,
    arrivals: list[tuple[float, SimRequest]],
    on_finish: Callable[[SimRequest, float], list[tuple[float, SimRequest]]],
) -> dict[str, _Record]:
    """Drive an engine until every request (known up front or sent by `on_finish`) is done.

    `arrivals` are (send time in seconds, request); `on_finish(req, t)` returns the requests
    sent because `req` finished at `t`. Returns the client's records by request id.
    """
    engine = Engine(profile)
    seq = itertools.count()
    heap: list[tuple[float, int, SimRequest]] = []
    records: dict[str, _Record] = {}

    def send(t: float, req: SimRequest) -> None:
        heapq.heappush(heap, (t, next(seq), req))
        records[req.rid] = _Record(req, t)

    for t, req in arrivals:
        send(t, req)
    now = 0.0
    for _ in range(MAX_STEPS):
        while heap and heap[0][0] <= now:
            t, _, req = heapq.heappop(heap)
            engine.add(req, t)
        if not engine.has_work():
            if not heap:
                return records
            now = heap[0][0]
            continue
        res = engine.step(now)
        if res.prefill_tokens == 0 and res.decode_tokens == 0:
            # Nothing runnable: jump to the next preprocessing end or arrival.
            candidates = [t for t in (engine.next_ready_s(), heap[0][0] if heap else None)
                          if t is not None and t > now]
            if not candidates:
                raise RuntimeError(
                    f"simulated engine {profile.name!r} cannot make progress at t={now:.3f} s "
                    f"({len(engine.waiting)} waiting, {len(engine.running)} running)"
                )
            now = min(candidates)
            continue
        end = now + res.duration_s
        for req in res.new_tokens:
            records[req.rid].chunks.append(end)
        for req in res.finished:
            for t, nxt in on_finish(req, end):
                send(t, nxt)
        now = end
    raise RuntimeError(f"simulation of profile {profile.name!r} exceeded {MAX_STEPS} steps")


def simulate_closed_loop(
    profile: Profile,
    *,
    input_tokens: int,
    output_tokens: int,
    concurrency: int,
    requests: int,
    warmup: int = 0,
) -> list[RequestTiming]:
    """Run `concurrency` clients in a closed loop against `profile`, in virtual time.

    Each client sends a request (`input_tokens` prompt tokens, exactly `output_tokens` output
    tokens) at t=0 and its next one the moment the previous finished, until
    `requests + warmup` have been sent. Returns the timings (virtual seconds from t=0) of the
    requests in the order they were sent, without the first `warmup` sent. Raises ValueError
    for a request the profile cannot hold.
    """
    if concurrency < 1 or requests < 0 or warmup < 0:
        raise ValueError(
            f"need concurrency >= 1, requests >= 0, warmup >= 0 "
            f"(got {concurrency}, {requests}, {warmup})"
        )
    _check(profile, input_tokens, output_tokens)
    total = requests + warmup
    counter = itertools.count()
    order: list[str] = []

    def new_request() -> SimRequest:
        rid = f"req-{next(counter)}"
        order.append(rid)
        return SimRequest(rid, input_tokens, output_tokens)

    def on_finish(_req: SimRequest, t: float) -> list[tuple[float, SimRequest]]:
        return [(t, new_request())] if len(order) < total else []

    first = [(0.0, new_request()) for _ in range(min(concurrency, total))]
    records = _run(profile, first, on_finish)
    return [records[rid].timing() for rid in order[warmup:]]


def simulate_open_loop(
    profile: Profile,
    *,
    input_tokens: int,
    output_tokens: int,
    rate_per_s: float,
    requests: int,
    seed: int = 0,
) -> list[RequestTiming]:
    """Send `requests` requests with Poisson arrivals at `rate_per_s` (requests per second),
    in virtual time; the same `seed` gives the same arrivals. The first request is sent at
    t=0. Returns the timings in the order sent."""
    if rate_per_s <= 0 or requests < 0:
        raise ValueError(f"need rate_per_s > 0 and requests >= 0 (got {rate_per_s}, {requests})")
    _check(profile, input_tokens, output_tokens)
    gaps = np.random.default_rng(seed).exponential(1.0 / rate_per_s, size=requests)
    times = np.concatenate(([0.0], np.cumsum(gaps[1:]))) if requests else np.zeros(0)
    reqs = [SimRequest(f"req-{i}", input_tokens, output_tokens) for i in range(requests)]
    records = _run(profile, [(float(t), r) for t, r in zip(times, reqs)], lambda r, t: [])
    return [records[r.rid].timing() for r in reqs]


def simulate_agents(
    profile: Profile,
    tasks: Sequence[Sequence[tuple[int, int]]],
    gaps_s: Sequence[float],
    agents: int,
) -> list[float]:
    """`agents` agents working through `tasks` in virtual time, as `throughput.replay` sends
    them: task i is its steps (prompt tokens, output tokens), each sent `gaps_s[i]` seconds
    after the previous step's last token (the recorded tool and harness time); an agent starts
    the next task not yet taken the moment its task's last step finished. Returns each task's
    seconds, from its first send to its last token, in task order."""
    # The caller's shapes (recorded tasks always have a step): a bug, not input, if broken.
    assert agents >= 1 and len(gaps_s) == len(tasks) and all(tasks), (agents, len(gaps_s))
    for steps in tasks:
        for prompt, output in steps:
            _check(profile, prompt, output)
    started: dict[int, float] = {}
    ended: dict[int, float] = {}
    where: dict[str, tuple[int, int]] = {}  # request id -> (task, step)
    taken = itertools.count()

    def request(task: int, step: int) -> SimRequest:
        rid = f"t{task}-s{step}"
        where[rid] = (task, step)
        prompt, output = tasks[task][step]
        return SimRequest(rid, prompt, output)

    def start(t: float) -> list[tuple[float, SimRequest]]:
        task = next(taken)
        if task >= len(tasks):
            return []
        started[task] = t
        return [(t, request(task, 0))]

    def on_finish(req: SimRequest, t: float) -> list[tuple[float, SimRequest]]:
        task, step = where[req.rid]
        if step + 1 < len(tasks[task]):
            return [(t + max(0.0, gaps_s[task]), request(task, step + 1))]
        ended[task] = t
        return start(t)

    first = [sent for _ in range(min(agents, len(tasks))) for sent in start(0.0)]
    _run(profile, first, on_finish)
    return [ended[i] - started[i] for i in range(len(tasks))]

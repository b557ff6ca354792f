"""Ray actors as load generators: a cell's streams sent from the machines of a Ray cluster.

`RayPool` has `WorkerPool`'s interface (`start`, `run_cell`, `loads`, `close`) and runs the same
worker code (`workers.open_stream_client`, `workers.run_share`) in Ray actors, spread over the
cluster's nodes; their finished requests come back to this process, which records them in one
run. Ray is optional (`pip install 'throughline[ray]'`): it is imported here only, when a pool
starts, and a missing Ray is an InputError naming --ray. docs/THROUGHPUT.md says when a sweep
needs it.

Clocks: an actor stamps with its own host's CLOCK_MONOTONIC (`time.perf_counter_ns()`), which
on another machine has another origin. Before every cell, and once more at the end of the run,
this process measures each actor's offset by ping-pong (`estimate_offset`: NTP's rule, the
best of `ROUND_TRIPS` round trips) and puts the actor's stamps of that cell on this process's
clock (`on_local_clock`); the cell's deadline goes the other way. `clock_record` states, per
actor, the offsets at start and end, their drift and the largest uncertainty, and flags those
beyond `CLOCK_TOLERANCE_NS`; the sweep stores it in the run's configuration under `CLOCKS_KEY`
(`save_clocks`), where the diagnosis reads it (`checks.ray_clocks_uncertain`). A request's own
latencies are differences of two stamps on one actor's clock and need no correction; what an
offset's error moves is the request's place on the run's timeline (against other hosts'
requests and the /metrics scrapes), which the timeline figures are read from to the
millisecond.

Cancelling `run_cell` kills the actors at once (their streams drop), as `WorkerPool` kills its
processes; an actor that fails or dies makes the cell raise `WorkerError`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from desktop_app.core.endpoint.types import EndpointConfig, StreamResult
from desktop_app.core.parsing import InputError
# The key of the clocks in the run's stored configuration (a list, one entry per session),
# defined where the diagnosis reads it.
from desktop_app.core.throughput.checks import CLOCK_TOLERANCE_NS, CLOCKS_KEY, ROUND_TRIPS
from desktop_app.core.throughput.types import ClientLoad
from desktop_app.core.throughput.workers import (
    START_TIMEOUT_S,
    Share,
    WorkerError,
    apply_limits,
    limit_values,
    open_stream_client,
    plan_shares,
    run_share,
)

__all__ = ["CLOCKS_KEY", "ClockOffset", "RayPool", "default_actors", "estimate_offset",
           "import_ray", "on_local_clock", "save_clocks"]

log = logging.getLogger(__name__)

INSTALL = "pip install 'throughline[ray]'"
POLL_WAIT_S = 0.2  # an actor answers a poll at once when it has results, else after this
MAX_ACTORS = 256  # as config.MAX_WORKERS


def import_ray():
    """The `ray` module, or InputError naming --ray with the command that installs it."""
    try:
        import ray
    except ImportError as exc:
        if exc.name == "ray":
            raise InputError("--ray", code="ray_not_installed", install=INSTALL) from None
        raise InputError("--ray", code="ray_import_failed", detail=str(exc),
                         install=INSTALL) from None
    return ray


# --- clocks ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ClockOffset:
    """Where a remote clock stands against this process's: remote = local + `offset_ns`, right
    to within +/- `uncertainty_ns` (nanoseconds), from `round_trips` round trips."""

    offset_ns: int
    uncertainty_ns: int
    round_trips: int


def estimate_offset(samples: Sequence[tuple[int, int, int]]) -> ClockOffset:
    """The offset of a remote clock from round trips (t0 local, remote stamp, t1 local), ns.

    The remote stamp was taken somewhere between t0 and t1, so the remote clock reads
    `remote - (t0 + t1) / 2` ahead of this one, wrong by at most (t1 - t0) / 2 however
    unequal the two directions' delays; the shortest round trip gives the tightest bound
    (NTP's rule). Raises ValueError when no sample has t1 >= t0.
    """
    usable = [s for s in samples if s[2] >= s[0]]
    if not usable:
        raise ValueError("no round trip with t1 >= t0")
    t0, remote, t1 = min(usable, key=lambda s: s[2] - s[0])
    return ClockOffset(offset_ns=remote - (t0 + t1) // 2, uncertainty_ns=(t1 - t0 + 1) // 2,
                       round_trips=len(usable))


_STAMP_FIELDS = tuple(f.name for f in dataclasses.fields(StreamResult) if f.name.endswith("_ns"))


def on_local_clock(res: StreamResult, offset_ns: int) -> StreamResult:
    """`res` with every stamp (each `*_ns` field) moved from a clock `offset_ns` ahead onto
    this process's clock."""
    if not offset_ns:
        return res
    moved: dict[str, Any] = {}
    for name in _STAMP_FIELDS:
        value = getattr(res, name)
        if isinstance(value, tuple):
            moved[name] = tuple(t - offset_ns for t in value)
        elif value is not None:
            moved[name] = value - offset_ns
    return dataclasses.replace(res, **moved)


def _ms(ns: float) -> float:
    """Nanoseconds as milliseconds to the microsecond, as the run states them."""
    return round(ns * 1e-6, 3)


def default_actors(nodes: list[dict]) -> int:
    """One actor per CPU of each live node, less one per node (left to Ray and the node's
    other work), at least one per node with a CPU; at most MAX_ACTORS. `nodes` as `ray.nodes()`."""
    count = 0
    for node in nodes:
        cpus = int((node.get("Resources") or {}).get("CPU", 0))
        if node.get("Alive") and cpus >= 1:
            count += max(1, cpus - 1)
    return max(1, min(count, MAX_ACTORS))


def save_clocks(store, run_id: int, record: dict) -> None:
    """Add `record` (`RayPool.clock_record`) to the run's stored configuration, under
    CLOCKS_KEY: a list, so a resumed run keeps the first session's beside its own (blocking)."""
    config = dict(store.get_run(run_id).config or {})
    kept = config.get(CLOCKS_KEY)
    config[CLOCKS_KEY] = [*(kept if isinstance(kept, list) else []), record]
    store.update_run(run_id, config=config)


# --- in the actor ------------------------------------------------------------------------------

class StreamActor:
    """Run as a Ray actor (async): streams its shares of cells as a worker process does."""

    def __init__(self, endpoint: EndpointConfig, http_client: str, limits: dict) -> None:
        apply_limits(limits)
        self.endpoint = endpoint
        self.http_client = http_client
        self.stack = contextlib.AsyncExitStack()
        self.client: Any = None  # opened by ready(), on the actor's own event loop
        self.stream: Any = None
        self.task: asyncio.Task | None = None
        self.batch: list = []
        self.wake = asyncio.Event()

    async def ready(self) -> dict:
        """Open the client; where this actor runs."""
        if self.client is None:
            client, self.stream = open_stream_client(self.endpoint, self.http_client)
            self.client = await self.stack.enter_async_context(client)
        return {"host": socket.gethostname()[:255], "pid": os.getpid()}

    async def now_ns(self) -> int:
        """This host's CLOCK_MONOTONIC, for the ping-pong."""
        return time.perf_counter_ns()

    async def start_share(self, share: Share) -> None:
        """Start streaming `share` (its deadline on this host's clock); `take` collects."""
        self.batch = []
        wake = self.wake = asyncio.Event()

        def emit(batch: list) -> None:
            self.batch.extend(batch)
            wake.set()

        task = self.task = asyncio.create_task(run_share(self.client, self.stream,
                                                         self.endpoint, share, emit))
        task.add_done_callback(lambda _task: wake.set())

    async def take(self, wait_s: float) -> tuple[list, tuple | None]:
        """(finished results, None) while the share runs, waiting up to `wait_s` for some;
        (the last results, ("done", sent, ClientLoad) or ("error", text)) once it ended."""
        task = self.task
        if task is None:
            raise RuntimeError("take() before start_share()")
        if not self.batch and not task.done():
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.wake.wait(), wait_s)
        self.wake.clear()
        batch, self.batch = self.batch, []
        if not task.done():
            return batch, None
        exc = task.exception()
        if exc is not None:
            return batch, ("error", f"{type(exc).__name__}: {exc}")
        sent, load = task.result()
        return batch, ("done", sent, load)


# --- in this process ---------------------------------------------------------------------------

async def _wait(ref):
    """An ObjectRef's value, awaited without holding a thread (Ray Client refs too)."""
    return await asyncio.wrap_future(ref.future())


class RayPool:
    """N Ray actors streaming to one endpoint, with `WorkerPool`'s interface. `address` is
    config.ray's ("auto", "local", "ray://host:10001", "host:6379"); `count` 0 means
    `default_actors`. A process already connected to Ray (`ray.init` called) keeps its
    connection, whatever the address; one this pool made is closed by `close()`."""

    actor_class = StreamActor  # what each actor runs (a test gives one with a skewed clock)

    def __init__(self, count: int, endpoint: EndpointConfig, http_client: str = "lean",
                 address: str = "auto") -> None:
        self.count = count
        self.endpoint = endpoint
        self.http_client = http_client
        self.address = address
        self.actors: list = []
        self.hosts: list[dict] = []  # each actor's `ready()`
        self.loads: list[ClientLoad | None] = []  # the last cell's, per actor
        self.measured: list[list[ClockOffset]] = []  # every measurement, each per actor
        self.end: list[ClockOffset] | None = None
        self._ray: Any = None  # the ray module, imported by start()
        self._owns_ray = False
        self._killed = False

    async def start(self) -> None:
        """Connect to Ray, start the actors, wait until each is ready and measure its clock."""
        ray = self._ray = import_ray()
        if not ray.is_initialized():
            # On this thread, not a worker thread: Ray sets its signal handlers only on the
            # main thread. Nothing is timed yet; starting a local Ray takes seconds.
            self._connect(ray)
        count = self.count or default_actors(ray.nodes())
        cpus = float(ray.cluster_resources().get("CPU", 0)) or 1.0
        # A CPU each while the cluster has them; more actors than CPUs share (none waits
        # unscheduled for a CPU that never frees).
        actor_cls = ray.remote(self.actor_class).options(
            num_cpus=min(1.0, cpus / count), scheduling_strategy="SPREAD")
        limits = limit_values()
        self.actors = [actor_cls.remote(self.endpoint, self.http_client, limits)
                       for _ in range(count)]
        try:
            self.hosts = await asyncio.wait_for(
                asyncio.gather(*(_wait(a.ready.remote()) for a in self.actors)), START_TIMEOUT_S)
        except asyncio.TimeoutError:
            raise WorkerError(code="ray_not_ready", count=count, seconds=f"{START_TIMEOUT_S:g}",
                              address=self.address) from None
        except Exception as exc:  # noqa: BLE001 - Ray's errors differ by version
            raise WorkerError(code="ray_actor_start", detail=f"{type(exc).__name__}: "
                              f"{str(exc):.300}", install=INSTALL) from None
        await self._measure()

    def _connect(self, ray) -> None:
        kwargs: dict = {"log_to_driver": False, "logging_level": logging.WARNING}
        if self.address == "local":
            kwargs["include_dashboard"] = False
        try:
            ray.init(address=self.address, **kwargs)  # "local" starts one here, as Ray reads it
        except Exception as exc:  # noqa: BLE001 - connection errors have many types
            raise InputError("--ray", code="ray_connect", address=self.address,
                             detail=f"{type(exc).__name__}: {str(exc):.300}") from None
        self._owns_ray = True

    async def _measure(self) -> list[ClockOffset]:
        """Every actor's offset now (one actor at a time: a quiet round trip is a short one)."""
        ray = self._ray

        def measure() -> list[ClockOffset]:
            out = []
            for actor in self.actors:
                samples = []
                for _ in range(ROUND_TRIPS):
                    t0 = time.perf_counter_ns()
                    remote = ray.get(actor.now_ns.remote())
                    samples.append((t0, remote, time.perf_counter_ns()))
                out.append(estimate_offset(samples))
            return out

        offsets = await asyncio.to_thread(measure)
        self.measured.append(offsets)
        return offsets

    async def run_cell(self, items: list, *, concurrency: int | None, rate_per_s: float | None,
                       seed: int, deadline: float | None,
                       on_result: Callable[[int, StreamResult], None]) -> int:
        """As `WorkerPool.run_cell`: `on_result(index, result)` gets each finished request, its
        stamps on this process's clock, corrected by the offsets measured just before."""
        self.loads = []
        tasks: list[asyncio.Task] = []
        try:
            offsets = await self._measure()
            shares = plan_shares(items, len(self.actors), concurrency=concurrency,
                                 rate_per_s=rate_per_s, seed=seed, deadline=deadline)
            tasks = [asyncio.create_task(self._drive(i, share, offsets[i], on_result))
                     for i, share in enumerate(shares)]
            outcomes = await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self.kill()
            raise
        self.loads = [load for _, load in outcomes]
        return sum(sent for sent, _ in outcomes)

    async def _drive(self, i: int, share: Share, clock: ClockOffset,
                     on_result: Callable[[int, StreamResult], None]) -> tuple[int, ClientLoad]:
        actor, where = self.actors[i], self.hosts[i].get("host", "?")
        if share.deadline is not None:
            share = dataclasses.replace(share, deadline=share.deadline + clock.offset_ns / 1e9)
        async def call(ref):
            try:
                return await _wait(ref)
            except Exception as exc:  # noqa: BLE001 - a dead actor, a lost node: Ray's errors
                raise WorkerError(code="ray_actor_failed", actor=i, host=where,
                                  detail=f"{type(exc).__name__}: {str(exc):.300}") from None

        await call(actor.start_share.remote(share))
        end = None
        while end is None:
            batch, end = await call(actor.take.remote(POLL_WAIT_S))
            for index, res in batch:  # a failing on_result ends the cell with its own error
                on_result(index, on_local_clock(res, clock.offset_ns))
        if end[0] == "error":
            raise WorkerError(code="ray_actor_failed", actor=i, host=where,
                              detail=f"{end[1]:.300}")
        return end[1], end[2]

    async def clock_record(self) -> dict:
        """What the run states about its actors' clocks, after one last measurement (skipped
        when the actors were killed: a cancelled or failed cell). Milliseconds; JSON-ready.

        Per actor: its host, the offset at the start and at the end and their difference
        (`drift_ms`), the largest uncertainty of any measurement, and the largest change
        between two measurements in a row (`cell_drift_ms`: what a cell's correction could
        not follow). `beyond_tolerance` is true when an uncertainty or a cell drift passes
        `tolerance_ms`; `end_failed` is true when the last measurement was tried and failed
        (`end_error` says why), false when it was made or skipped. The user reads none of it
        here: the diagnosis's `ray_clocks_uncertain` finding (`checks.ray_clocks_uncertain`)
        words it from the run's stored configuration; the log lines are for debugging."""
        end_error = None
        if not self._killed and self.actors and self.end is None:
            try:
                self.end = await self._measure()
            except Exception as exc:  # noqa: BLE001 - an actor gone: the end is not measured
                end_error = f"{type(exc).__name__}: {str(exc):.300}"
                log.info("Ray actors' clocks at the end not measured: %s", end_error)
        ms = _ms
        actors: list[dict[str, Any]] = []
        for i, host in enumerate(self.hosts):
            series = [m[i] for m in self.measured]
            start, last = series[0], series[-1]
            steps = [abs(b.offset_ns - a.offset_ns) for a, b in zip(series, series[1:])]
            actors.append({
                "host": host.get("host"),
                "offset_start_ms": ms(start.offset_ns),
                "offset_end_ms": ms(last.offset_ns) if self.end is not None else None,
                "drift_ms": ms(last.offset_ns - start.offset_ns)
                if self.end is not None else None,
                "uncertainty_max_ms": ms(max(m.uncertainty_ns for m in series)),
                "cell_drift_ms": ms(max(steps, default=0)),
            })
        beyond = any(a["uncertainty_max_ms"] > ms(CLOCK_TOLERANCE_NS)
                     or a["cell_drift_ms"] > ms(CLOCK_TOLERANCE_NS) for a in actors)
        if beyond:
            log.info("Ray actors' clocks known to %.3f ms at worst, drifting up to %.3f ms "
                     "between measurements (tolerance %.3f ms); per actor in the run's %s",
                     max(a["uncertainty_max_ms"] for a in actors),
                     max(a["cell_drift_ms"] for a in actors), ms(CLOCK_TOLERANCE_NS),
                     CLOCKS_KEY)
        return {"address": self.address, "actors": len(self.actors),
                "round_trips": ROUND_TRIPS, "measurements": len(self.measured),
                "corrected": True, "tolerance_ms": ms(CLOCK_TOLERANCE_NS),
                "beyond_tolerance": beyond, "end_failed": end_error is not None,
                "end_error": end_error, "per_actor": actors}

    def kill(self) -> None:
        """Stop every actor now (their streams drop)."""
        ray = self._ray
        for actor in self.actors:
            with contextlib.suppress(Exception):
                ray.kill(actor, no_restart=True)
        self._killed = True

    async def close(self) -> None:
        """Stop the actors, and the Ray connection if this pool made it."""
        if self._ray is None:
            return
        self.kill()
        if self._owns_ray:
            await asyncio.to_thread(self._ray.shutdown)
            self._owns_ray = False

"""Agentic replay (#29): capacity in tasks, measured. A stored SQL evaluation's conversations
(`sqleval.records.recorded_tasks`) are sent again as N concurrent agents: each sends a task's
next step when the previous reply is done and the task's recorded time between steps (tools, the
harness) has passed, with the reply held to the recorded length (`max_tokens`, plus
`ignore_eos`/`min_tokens` where the engine takes them). The history sent is the recorded one, not
the new replies: every configuration replays the same conversations, so what differs is the
server.

Per number of agents: tasks finished, tasks per hour, each step's TTFT (p50) and the mean
end-to-end task time. Tasks per hour has one definition (`tasks_per_hour`), the capacity model's:
A agents, each always busy with a task, finish A x 3,600 / (mean seconds per task) an hour, where
A is the number of agents that had a task (at most the tasks replayed); its 95 % interval is a
bootstrap over the tasks (`stats.ratio_estimate`). The simulator's virtual-time replay
(`simulator.virtual.simulate_agents`) is read with the same function.

A replay is stored as a run of kind "replay" (`replay` given a store): its config names the SQL
run replayed (`sql_run`), the sweep it was set beside (`beside_sweep`) and the server's settings
as a sweep stores them; one cell per number of agents, its summary the point
(`ReplayPoint.to_json`). `stored_replay`/`stored_replays` read them back, checked, for the run
lists and the comparison.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from desktop_app.core import engines
from desktop_app.core.endpoint.client import make_client, stream_request
from desktop_app.core.endpoint.server_settings import stored_settings
from desktop_app.core.endpoint.types import EndpointConfig, EndpointInfo, StreamResult
from desktop_app.core.metrics import RequestTiming, distribution, request_metrics
from desktop_app.core.runs import RunInfo, run_info
from desktop_app.core.parsing import InputError
from desktop_app.core.sqleval.records import RecordedTask, recorded_tasks
from desktop_app.core.sqleval.tools import TOOLS
from desktop_app.core.stats import Estimate, ratio_estimate
from desktop_app.core.store import Store
from desktop_app.core.throughput.loops import closed_loop
from desktop_app.core.throughput.records import cell_summaries

MAX_AGENTS = 1024
# A stored point's task list is read back bounded: a run never replays more questions than this.
MAX_STORED_TASKS = 100_000


def tasks_per_hour(agents: int, task_s: Sequence[float]) -> Estimate | None:
    """Tasks per hour of `agents` agents each always busy with a task that takes `task_s`
    seconds (module doc); None without a finished task."""
    times = [t for t in task_s if math.isfinite(t) and t >= 0]
    if agents < 1 or not times:
        return None
    return ratio_estimate([1.0] * len(times), times, scale=3600.0 * agents)


def paired_ratio(a: ReplayPoint, b: ReplayPoint) -> tuple[Estimate | None, int]:
    """`a`'s tasks per hour over `b`'s on the tasks both finished (by `task_ids`), with the
    95 % interval of a bootstrap resampling those tasks together (the same task measured on
    both servers: its own length is not noise between them), and how many tasks were paired.
    (agents_a / mean_a) / (agents_b / mean_b) over the paired tasks."""
    mine = dict(zip(a.task_ids, a.task_s))
    pairs = [(mine[t], s) for t, s in zip(b.task_ids, b.task_s) if t in mine]
    if len(pairs) < 2 or not a.agents or not b.agents:
        return None, len(pairs)
    return ratio_estimate([s for _, s in pairs], [m for m, _ in pairs],
                          scale=a.agents / b.agents), len(pairs)


@dataclass(frozen=True)
class ReplayPoint:
    """The replay at one number of concurrent agents."""

    sessions: int
    agents: int  # agents that had a task: at most the tasks replayed
    tasks: int  # conversations finished (every step answered)
    failed: int  # conversations ended by a failed step
    steps: int  # model calls sent
    wall_s: float
    step_ttft_p50_s: float | None
    task_s: tuple[float, ...] = ()  # each finished task's seconds, first send to last token
    # Which task each of `task_s` is ("question:epoch", in task order): two replays of the
    # same conversations are compared task by task (`dimensions.replay_rows`).
    task_ids: tuple[str, ...] = ()

    @property
    def tasks_per_hour(self) -> Estimate | None:
        return tasks_per_hour(self.agents, self.task_s)

    @property
    def task_s_mean(self) -> float | None:
        dist = distribution(list(self.task_s))
        return dist.mean if dist else None

    def to_json(self) -> dict[str, Any]:
        tph = self.tasks_per_hour
        return {"sessions": self.sessions, "agents": self.agents, "tasks": self.tasks,
                "failed": self.failed, "steps": self.steps, "wall_s": self.wall_s,
                "tasks_per_hour": None if tph is None else tph.value,
                "tasks_per_hour_low": None if tph is None else tph.low,
                "tasks_per_hour_high": None if tph is None else tph.high,
                "step_ttft_p50_s": self.step_ttft_p50_s, "task_s_mean": self.task_s_mean,
                "task_s": list(self.task_s), "task_ids": list(self.task_ids)}

    @classmethod
    def from_json(cls, doc: Any) -> ReplayPoint | None:
        """A stored point, checked (None when it is not one: a file edited by hand)."""
        if not isinstance(doc, dict):
            return None

        def count(key: str) -> int | None:
            v = doc.get(key)
            return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None

        def seconds(v: Any) -> float | None:
            ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
            return float(v) if ok and v >= 0 else None

        times = doc.get("task_s")
        if not isinstance(times, list) or len(times) > MAX_STORED_TASKS:
            return None
        task_s = tuple(t for v in times if (t := seconds(v)) is not None)
        ints = [count(k) for k in ("sessions", "agents", "tasks", "failed", "steps")]
        wall = seconds(doc.get("wall_s"))
        if any(i is None for i in ints) or wall is None or len(task_s) != len(times):
            return None
        sessions, agents, tasks, failed, steps = (int(i or 0) for i in ints)
        if not 1 <= sessions <= MAX_AGENTS or agents > sessions or tasks != len(task_s):
            return None
        ids = doc.get("task_ids")
        task_ids = (tuple(str(i)[:200] for i in ids) if isinstance(ids, list)
                    and len(ids) == len(task_s) else ())
        return cls(sessions, agents, tasks, failed, steps, wall,
                   seconds(doc.get("step_ttft_p50_s")), task_s, task_ids)


@dataclass(frozen=True)
class ReplayResult:
    """What `replay` measured: the stored run's id (None when not stored) and the points."""

    run_id: int | None
    points: tuple[ReplayPoint, ...]


@dataclass(frozen=True)
class StoredReplay:
    """A stored replay run: who served it, the SQL run it replayed, the sweep it was set
    beside (None when none was named) and its points in the order run."""

    info: RunInfo
    sql_run: int
    beside_sweep: int | None
    points: tuple[ReplayPoint, ...]

    def point(self, sessions: int) -> ReplayPoint | None:
        return next((p for p in self.points if p.sessions == sessions), None)


def tasks_to_replay(store: Store, run_id: int, field: str = "run") -> tuple[RecordedTask, ...]:
    """The conversations SQL run `run_id` recorded, or an InputError under `field` naming the
    run: not a SQL evaluation, or no model call recorded (NotFoundError for no such run)."""
    kind = store.get_run(run_id).kind
    if kind != "sql":
        raise InputError(field, code="not_sql_run", run=run_id, kind=kind)
    tasks = recorded_tasks(store, run_id)
    if not tasks:
        raise InputError(field, code="replay_no_tasks", run=run_id)
    return tasks


def _uses_tools(task: RecordedTask) -> bool:
    return any(m.get("role") == "tool" or m.get("tool_calls")
               for step in task.steps for m in step.new_messages)


def step_body(model: str, task: RecordedTask, k: int, info: EndpointInfo) -> dict:
    """The body of step `k` of `task`: the recorded history up to it, the reply held to the
    recorded length; the agent's tools when the conversation used them (a tool message needs
    them to be read)."""
    messages = [dict(m) for step in task.steps[: k + 1] for m in step.new_messages]
    tokens = task.steps[k].completion_tokens
    body: dict = {"model": model, "messages": messages, "max_tokens": tokens, "temperature": 0}
    if info.accepts_ignore_eos:
        body.update(ignore_eos=True, min_tokens=tokens)
    if _uses_tools(task):
        body.update(tools=TOOLS, tool_choice="auto")
    return body


async def replay(endpoint: EndpointConfig, info: EndpointInfo, tasks: Sequence[RecordedTask],
                 sessions: Sequence[int], *,
                 on_point: Callable[[ReplayPoint], None] | None = None,
                 store: Store | None = None, sql_run: int | None = None,
                 beside_sweep: int | None = None, name: str = "") -> ReplayResult:
    """Replay `tasks` at each number of concurrent agents in `sessions`, every task once per
    number; the points in that order. With a `store` (and the `sql_run` the tasks came from)
    the replay is stored as a run (module doc) and each point as it ends; `on_point` sees it
    first."""
    run_id = None
    if store is not None:
        assert sql_run is not None, "a stored replay names the SQL run it replays"
        run_id = await asyncio.to_thread(
            store.create_run, "replay",
            # Notation, not words: the name reads the same in every language.
            name=name or f"#{sql_run} → {endpoint.model} ×{','.join(map(str, sessions))}",
            endpoint_url=endpoint.base_url, model=endpoint.model,
            engine=engines.run_label(info.engine, info.simulated),
            config={"sql_run": sql_run, "beside_sweep": beside_sweep,
                    "sessions": list(sessions), "tasks": len(tasks),
                    **stored_settings(info.server_settings, {})})
    points: list[ReplayPoint] = []
    try:
        async with make_client(endpoint, max(sessions)) as client:
            for index, n in enumerate(sessions):
                point = await _replay_at(client, endpoint, info, tasks, n)
                points.append(point)
                if on_point is not None:
                    on_point(point)
                if store is not None and run_id is not None:
                    await asyncio.to_thread(_store_point, store, run_id, index, point)
    except BaseException as exc:
        if store is not None and run_id is not None:
            status = "cancelled" if isinstance(exc, asyncio.CancelledError) else "failed"
            await asyncio.to_thread(store.finish_run, run_id, status,
                                    None if status == "cancelled" else f"{type(exc).__name__}: {exc}")
        raise
    if store is not None and run_id is not None:
        await asyncio.to_thread(store.finish_run, run_id, "completed")
    return ReplayResult(run_id, tuple(points))


def _store_point(store: Store, run_id: int, index: int, point: ReplayPoint) -> None:
    store.add_cell(run_id, cell_index=index, concurrency=point.sessions, status="completed",
                   summary=point.to_json())


def stored_replay(store: Store, run_id: int) -> StoredReplay | None:
    """Replay run `run_id` as stored, checked; None when it is not a replay run or its config
    does not name the SQL run it replayed. A stored point that does not read is left out."""
    info = run_info(store.get_run(run_id))
    if info.kind != "replay":
        return None
    sql_run, sweep = info.config.get("sql_run"), info.config.get("beside_sweep")
    if not isinstance(sql_run, int) or isinstance(sql_run, bool):
        return None
    points = tuple(p for summary in cell_summaries(store, run_id)
                   if (p := ReplayPoint.from_json(summary)) is not None)
    return StoredReplay(info, sql_run, sweep if isinstance(sweep, int)
                        and not isinstance(sweep, bool) else None, points)


def stored_replays(store: Store) -> list[StoredReplay]:
    """Every completed replay with at least one point that reads, newest first."""
    return [found for record in store.list_runs(kind="replay", status="completed")
            if (found := stored_replay(store, record.id)) is not None and found.points]


async def _replay_at(client, endpoint: EndpointConfig, info: EndpointInfo,
                     tasks: Sequence[RecordedTask], n: int) -> ReplayPoint:
    ttfts: list[float] = []
    task_times: dict[int, float] = {}
    failed = steps = 0

    async def agent(i: int) -> None:
        nonlocal failed, steps
        task = tasks[i]
        started = time.perf_counter()
        for k in range(len(task.steps)):
            if k:
                await asyncio.sleep(task.between_steps_s)
            res: StreamResult = await stream_request(
                client, endpoint, step_body(endpoint.model, task, k, info))
            steps += 1
            ttft = request_metrics(_timing(res)).ttft_s
            if ttft is not None:
                ttfts.append(ttft)
            if res.error_class is not None:
                failed += 1
                return
        task_times[i] = time.perf_counter() - started

    started = time.perf_counter()
    await closed_loop(agent, concurrency=n, requests=len(tasks))
    wall = time.perf_counter() - started
    ttft_dist = distribution(ttfts)
    order = sorted(task_times)
    return ReplayPoint(n, min(n, len(tasks)), len(task_times), failed, steps, wall,
                       ttft_dist.p50 if ttft_dist else None,
                       tuple(task_times[i] for i in order),
                       tuple(f"{tasks[i].question_id}:{tasks[i].epoch}" for i in order))


def _timing(res: StreamResult) -> RequestTiming:
    """A step's StreamResult on its own clock (its send at 0), for `metrics.request_metrics`."""
    def s(ns: int | None) -> float | None:
        return None if ns is None else (ns - res.sent_ns) / 1e9

    return RequestTiming(prompt_tokens=res.prompt_tokens or 0,
                         completion_tokens=res.completion_tokens, sent_s=0.0,
                         first_token_s=s(res.first_token_ns), last_token_s=s(res.last_token_ns),
                         chunk_times_s=tuple((t - res.sent_ns) / 1e9 for t in res.chunk_times_ns),
                         error_class=res.error_class)

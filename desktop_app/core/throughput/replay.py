"""Agentic replay (#29): capacity in tasks, measured. A stored SQL evaluation's conversations
(`sqleval.records.recorded_tasks`) are sent again as N concurrent agents: each sends a task's
next step when the previous reply is done and the task's recorded time between steps (tools, the
harness) has passed, with the reply held to the recorded length (`max_tokens`, plus
`ignore_eos`/`min_tokens` where the engine takes them). The history sent is the recorded one, not
the new replies: every configuration replays the same conversations, so what differs is the
server.

Per number of agents: tasks finished, tasks per hour (finished tasks over the wall time, times
3,600), each step's TTFT (p50) and the mean end-to-end task time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from desktop_app.core.endpoint.client import make_client, stream_request
from desktop_app.core.endpoint.types import EndpointConfig, EndpointInfo, StreamResult
from desktop_app.core.metrics import RequestTiming, distribution, request_metrics
from desktop_app.core.sqleval.records import RecordedTask
from desktop_app.core.sqleval.tools import TOOLS
from desktop_app.core.throughput.loops import closed_loop

MAX_AGENTS = 1024


@dataclass(frozen=True)
class ReplayPoint:
    """The replay at one number of concurrent agents."""

    sessions: int
    tasks: int  # conversations finished (every step answered)
    failed: int  # conversations ended by a failed step
    steps: int  # model calls sent
    wall_s: float
    tasks_per_hour: float | None
    step_ttft_p50_s: float | None
    task_s_mean: float | None

    def to_json(self) -> dict[str, Any]:
        return {"sessions": self.sessions, "tasks": self.tasks, "failed": self.failed,
                "steps": self.steps, "wall_s": self.wall_s,
                "tasks_per_hour": self.tasks_per_hour, "step_ttft_p50_s": self.step_ttft_p50_s,
                "task_s_mean": self.task_s_mean}


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
                 on_point: Callable[[ReplayPoint], None] | None = None) -> list[ReplayPoint]:
    """Replay `tasks` at each number of concurrent agents in `sessions`, every task once per
    number; the points in that order."""
    points = []
    async with make_client(endpoint, max(sessions)) as client:
        for n in sessions:
            point = await _replay_at(client, endpoint, info, tasks, n)
            points.append(point)
            if on_point is not None:
                on_point(point)
    return points


async def _replay_at(client, endpoint: EndpointConfig, info: EndpointInfo,
                     tasks: Sequence[RecordedTask], n: int) -> ReplayPoint:
    ttfts: list[float] = []
    task_times: list[float] = []
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
        task_times.append(time.perf_counter() - started)

    started = time.perf_counter()
    await closed_loop(agent, concurrency=n, requests=len(tasks))
    wall = time.perf_counter() - started
    done = len(task_times)
    ttft_dist, task_dist = distribution(ttfts), distribution(task_times)
    return ReplayPoint(n, done, failed, steps, wall,
                       done / wall * 3600 if wall > 0 and done else None,
                       ttft_dist.p50 if ttft_dist else None,
                       task_dist.mean if task_dist else None)


def _timing(res: StreamResult) -> RequestTiming:
    """A step's StreamResult on its own clock (its send at 0), for `metrics.request_metrics`."""
    def s(ns: int | None) -> float | None:
        return None if ns is None else (ns - res.sent_ns) / 1e9

    return RequestTiming(prompt_tokens=res.prompt_tokens or 0,
                         completion_tokens=res.completion_tokens, sent_s=0.0,
                         first_token_s=s(res.first_token_ns), last_token_s=s(res.last_token_ns),
                         chunk_times_s=tuple((t - res.sent_ns) / 1e9 for t in res.chunk_times_ns),
                         error_class=res.error_class)

"""Findings about the measurement itself, not the server: was the client the bottleneck, did
requests fail, do the server's token counts match the targets, how much goodput held, and
how well the Ray actors' clocks were known (from the run's stored configuration).

`diagnose` (diagnosis.py) orders these with the server findings; `unreliable_cells` marks the
cells whose latencies the client may have inflated, for the table, the JSON and the GUI. Each
finding is a code and the values its words quote (`report/diagnosis_words.py` has the words).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from desktop_app.core.endpoint.client import PLAUSIBILITY_FLAGS
from desktop_app.core.throughput.types import CellResult, CellSpec, Finding, Severity

# The client's own event loop: a 10 ms timer late by this much stamps tokens late (a 99th
# percentile of 5 ms is already a sizeable share of a 20-40 ms inter-token gap) ...
CLIENT_LAG_P99_MS = 5.0
CLIENT_LAG_MAX_MS = 20.0
# ... and a client using this much of one core has no slack left to read sockets promptly.
CLIENT_CPU_PERCENT = 90.0
# A closed-loop cell whose mean number of requests in flight, while it still had requests to
# send, fell below this share of its concurrency measured a lighter load than it says: the
# sends went out late (a client that could not keep up, a proxy or server that refused or
# held connections, or prompts counted inside the loop, as happened against a tokenizer that
# answers only between streams). The gaps between one request's end and its successor's send
# are well under a millisecond with the prompts built beforehand, but the stream's end comes
# after its last token (the usage event, [DONE]): on a server answering in a millisecond that
# alone leaves a slot idle a third of the time. So a slot must also have waited, on average,
# CONCURRENCY_REFILL_DELAY_S before its next send: a delay that moves a TTFT, not a tail.
CONCURRENCY_KEPT_SHARE = 0.8
CONCURRENCY_REFILL_DELAY_S = 0.005
# Below this many seconds of sending window a cell's mean in flight says nothing.
CONCURRENCY_MIN_WINDOW_S = 0.05
# Failed requests above this share of a sweep make the other figures doubtful.
FAILURE_PROBLEM_SHARE = 0.05
# The goodput level a concurrency must keep to count as sustainable.
GOODPUT_TARGET = 0.90

# The failure classes with a hint of what to do (the `failures` finding's suggestion; the
# words are `hint_<class>` in the catalogue).
FAILURE_HINT_CLASSES = ("timeout", "connect", "http_status", "connection_closed", "stream_cut",
                        "malformed_stream", "no_usage", "no_content")
# A hint said in an engine's own terms where it has a habit of its own (`hint_<class>_<engine>`).
# Each engine's descriptor names its own (`Engine.hints`, core/engines).
def engine_hints() -> set[tuple[str, str]]:
    from desktop_app.core import engines

    return {(cls, e.name) for e in engines.all_engines() for cls in e.hints}
# Every code these findings, their suggestions and their sub-parts carry (diagnosis.py lists
# them with its own for the words catalogue's test).
CHECK_FINDING_CODES = ("client_bound", "concurrency_not_kept", "failures", "goodput",
                       "implausible_counts", "token_count_mismatch", "ray_clocks_uncertain",
                       "requests_resent")
CHECK_SUGGESTION_CODES = ("calibrate_prompts", "split_client_load", "separate_client_machine",
                          "failure_hints", "goodput_capacity", "check_usage_reporting",
                          "keep_concurrency", "ray_clocks_closer")
# The findings read from the run's stored configuration rather than its cells: a diagnosis
# kept before the configuration was complete (the Ray clocks are stored as the run ends, after
# its diagnosis) has them replaced by `config_findings` when the run is read back.
CONFIG_FINDING_CODES = ("ray_clocks_uncertain",)
CLOCKS_KEY = "ray_clocks"  # in the run's stored configuration (ray_pool.save_clocks writes it)
# How ray_pool measures a worker's clock, and what the check of its record allows (here, below
# ray_pool, so the two modules make no circle).
ROUND_TRIPS = 8  # per actor and measurement; the shortest bounds the offset best
CLOCK_TOLERANCE_NS = 1_000_000  # beyond 1 ms the run's timeline is not good to the millisecond
CHECK_PART_CODES = (*(f"hint_{c}" for c in FAILURE_HINT_CLASSES),
                    *(f"hint_{c}_{e}" for c, e in sorted(engine_hints())),
                    "resent_llamacpp", "resent_cell",
                    *(f"implausible_{c}" for c in PLAUSIBILITY_FLAGS))


def cell_params(spec: CellSpec) -> dict:
    """A cell's shape as a finding quotes it (the words write "512 in / 64 out / c=4")."""
    return {"input_tokens": spec.input_tokens, "output_tokens": spec.output_tokens,
            "concurrency": spec.concurrency, "request_rate": spec.request_rate}


def unreliable_cells(cells: Sequence[CellResult]) -> set[int]:
    """Indices of the cells whose latencies the client itself may have inflated (its event
    loop ran late or it used nearly a whole core; thresholds CLIENT_*)."""
    return {i for i, c in enumerate(cells) if _client_lag_reason(c) is not None}



def _r(x: float | None, digits: int = 3) -> float | None:
    return None if x is None else float(round(x, digits))


def _mean(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return float(np.mean(vals)) if vals else None


def resent(cells: Sequence[CellResult], engine: str | None = None) -> Finding | None:
    """Requests the client sent again because the server closed a kept-alive connection under
    them before answering: not failures (nothing of theirs was answered; each is timed from
    its second send), but a server habit worth knowing (llama.cpp's server closes after every
    streamed reply), and a server that drops requests it has read shows here too."""
    bad = [(i, c) for i, c in enumerate(cells) if c.resent]
    if not bad:
        return None
    total = sum(c.resent for _, c in bad)
    requests = sum(c.summary.count for c in cells)
    params = {"resent": total, "requests": requests, "engine": engine,
              "cells": [{"cell": cell_params(c.spec), "resent": c.resent} for _, c in bad]}
    evidence = {"resent": total, "requests": requests,
                "by_cell": {str(i): c.resent for i, c in bad}}
    return Finding("requests_resent", "info", evidence=evidence, params=params)


def token_mismatch(cells: Sequence[CellResult]) -> Finding | None:
    bad = [(i, c) for i, c in enumerate(cells) if c.token_mismatches > 0]
    if not bad:
        return None
    total = sum(c.token_mismatches for _, c in bad)
    detail = []
    for _, c in bad:
        served = _mean(t.prompt_tokens for t in c.timings if t.ok)
        detail.append({"cell": cell_params(c.spec), "mismatches": c.token_mismatches,
                       "requests": c.summary.count, "served_mean": served})
    params = {"requests": total, "cells": len(bad), "detail": detail}
    evidence = {"cells": {str(i): c.token_mismatches for i, c in bad}, "requests": total}
    return Finding("token_count_mismatch", "warning", evidence=evidence, params=params,
                   suggestion_code="calibrate_prompts")


def _client_lag_reason(c: CellResult) -> str | None:
    load = c.client_load
    if load is None:
        return None
    if load.loop_lag_p99_ms > CLIENT_LAG_P99_MS or load.loop_lag_max_ms > CLIENT_LAG_MAX_MS:
        return "loop_lag"
    if load.cpu_percent > CLIENT_CPU_PERCENT:
        return "cpu"
    return None


def client_bound(cells: Sequence[CellResult]) -> Finding | None:
    bad = sorted(unreliable_cells(cells))
    if not bad:
        return None
    parts, evidence, cpu = [], {}, []
    for i in bad:
        c, load = cells[i], cells[i].client_load
        assert load is not None  # a cell is unreliable by its client load only
        cpu.append(load.cpu_percent)
        itl = c.summary.itl_s.p50 if c.summary.itl_s is not None else None
        parts.append({"cell": cell_params(c.spec), "reason": _client_lag_reason(c),
                      "loop_lag_max_ms": float(load.loop_lag_max_ms),
                      "loop_lag_p99_ms": float(load.loop_lag_p99_ms),
                      # the p99 lag as a share of the median gap between tokens
                      "lag_share_of_itl": (load.loop_lag_p99_ms / 1000 / itl) if itl else None,
                      "cpu_percent": float(load.cpu_percent)})
        evidence[str(i)] = {"loop_lag_p99_ms": _r(load.loop_lag_p99_ms, 1),
                            "loop_lag_max_ms": _r(load.loop_lag_max_ms, 1),
                            "cpu_percent": _r(load.cpu_percent, 1), "itl_p50_s": _r(itl, 4)}
    busy_self = max(cpu) >= CLIENT_CPU_PERCENT * 0.6
    # A late loop with little CPU of our own: other processes took the CPU (often the server
    # itself, when it runs on the same machine).
    params = {"cells": parts, "other_processes": not busy_self}
    return Finding("client_bound", "problem", evidence={"cells": evidence}, params=params,
                   suggestion_code="split_client_load" if busy_self
                   else "separate_client_machine")


def failures(cells: Sequence[CellResult], engine: str | None = None) -> Finding | None:
    failed = [(i, c) for i, c in enumerate(cells) if c.summary.failures_by_class]
    if not failed:
        return None
    total = sum(c.summary.count for c in cells)
    n_failed = sum(sum(c.summary.failures_by_class.values()) for _, c in failed)
    by_class: dict[str, int] = defaultdict(int)
    parts = []
    for _, c in failed:
        for cls, n in sorted(c.summary.failures_by_class.items()):
            by_class[cls] += n
        parts.append({"cell": cell_params(c.spec),
                      "by_class": dict(sorted(c.summary.failures_by_class.items()))})
    share = n_failed / total if total else 1.0
    hints = [cls for cls in sorted(by_class) if cls in FAILURE_HINT_CLASSES]
    params = {"failed": n_failed, "requests": total, "share": share, "cells": parts,
              "hint_classes": hints,
              "engine_hints": [cls for cls in hints if (cls, engine) in engine_hints()],
              "engine": engine}
    evidence = {"failed": n_failed, "requests": total, "share": _r(share),
                "by_class": dict(sorted(by_class.items())),
                "by_cell": {str(i): dict(c.summary.failures_by_class) for i, c in failed}}
    severity: Severity = "problem" if share >= FAILURE_PROBLEM_SHARE else "warning"
    return Finding("failures", severity, evidence=evidence, params=params,
                   suggestion_code="failure_hints" if hints else None)


def goodput(cells: Sequence[CellResult]) -> Finding | None:
    rows: dict[tuple[int, int], dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for c in cells:
        if c.goodput is not None and c.spec.concurrency is not None:
            rows[(c.spec.input_tokens, c.spec.output_tokens)][c.spec.concurrency].append(c.goodput)
    if not rows:
        return None
    parts: list[dict[str, Any]] = []
    evidence: dict[str, Any] = {}
    none_ok = False
    for (inp, out), by_c in sorted(rows.items()):
        means = {c: float(np.mean(v)) for c, v in sorted(by_c.items())}
        good = [c for c, g in means.items() if g >= GOODPUT_TARGET]
        if good:
            best = max(good)
            parts.append({"input_tokens": inp, "best_concurrency": best,
                          "goodput": means[best]})
        else:
            none_ok = True
            top = max(means, key=lambda c: means[c])
            parts.append({"input_tokens": inp, "best_concurrency": None,
                          "top_concurrency": top, "goodput": means[top]})
            best = None
        evidence[f"{inp}/{out}"] = {"best_concurrency": best,
                                    "goodput": {str(c): _r(g) for c, g in means.items()}}
    params = {"target": GOODPUT_TARGET, "rows": parts}
    return Finding("goodput", "warning" if none_ok else "info", evidence=evidence,
                   params=params, suggestion_code="goodput_capacity" if none_ok else None)


def implausible(cells: Sequence[CellResult]) -> Finding | None:
    """Requests whose numbers could not be true (the client's plausibility flags): negative or
    absurd usage (the client's own count was used instead), usage disagreeing with what
    streamed (kept, but doubtful), streams with no content (failed as `no_content`)."""
    bad = [(i, c) for i, c in enumerate(cells) if c.implausible]
    if not bad:
        return None
    by_code: dict[str, int] = defaultdict(int)
    parts = []
    for _, c in bad:
        for code, n in sorted(c.implausible.items()):
            by_code[code] += n
        parts.append({"cell": cell_params(c.spec), "by_code": dict(sorted(c.implausible.items()))})
    total = sum(by_code.values())
    params = {"requests": total, "by_code": dict(sorted(by_code.items())), "cells": parts}
    evidence = {"requests": total, "by_code": dict(sorted(by_code.items())),
                "by_cell": {str(i): dict(sorted(c.implausible.items())) for i, c in bad}}
    return Finding("implausible_counts", "problem", evidence=evidence, params=params,
                   suggestion_code="check_usage_reporting")


def mean_in_flight(c: CellResult) -> tuple[float, float, float] | None:
    """(mean requests in flight, seconds, mean delay before a freed slot's next send) over a
    closed-loop cell's sending window: from its first send to its last, the time during which
    the loop had a request ready for every slot that freed. A request counts as in flight
    until its last token (the client keeps no later stamp). None for an open-loop cell, one
    that sent no more than its concurrency (no window), or one with requests whose end the
    client did not see (failed before a token)."""
    if c.spec.concurrency is None or len(c.timings) <= c.spec.concurrency:
        return None
    intervals = []
    for t in c.timings:
        end = t.last_token_s if t.last_token_s is not None else t.first_token_s
        if end is None:
            return None
        intervals.append((t.sent_s, end))
    start = min(a for a, _ in intervals)
    stop = max(a for a, _ in intervals)
    window = stop - start
    if window < CONCURRENCY_MIN_WINDOW_S:
        return None
    busy = sum(max(0.0, min(b, stop) - max(a, start)) for a, b in intervals)
    refills = len(intervals) - c.spec.concurrency
    return busy / window, window, max(0.0, c.spec.concurrency * window - busy) / refills


def concurrency_not_kept(cells: Sequence[CellResult]) -> Finding | None:
    """Closed-loop cells that held fewer requests in flight than their concurrency (mean over
    the sending window below CONCURRENCY_KEPT_SHARE of it, each freed slot idle at least
    CONCURRENCY_REFILL_DELAY_S on average): their latencies were measured at a lighter load
    than their label says."""
    parts, evidence = [], {}
    for i, c in enumerate(cells):
        held = mean_in_flight(c)
        if (held is None or c.spec.concurrency is None  # open loop: mean_in_flight is None
                or held[0] >= CONCURRENCY_KEPT_SHARE * c.spec.concurrency
                or held[2] < CONCURRENCY_REFILL_DELAY_S):
            continue
        parts.append({"cell": cell_params(c.spec), "mean_in_flight": held[0],
                      "concurrency": c.spec.concurrency, "refill_delay_s": held[2]})
        evidence[str(i)] = {"mean_in_flight": _r(held[0], 2), "window_s": _r(held[1], 3),
                            "refill_delay_s": _r(held[2], 4),
                            "concurrency": c.spec.concurrency}
    if not parts:
        return None
    return Finding("concurrency_not_kept", "warning", evidence={"cells": evidence},
                   params={"cells": parts}, suggestion_code="keep_concurrency")


# --- Ray actors' clocks ---------------------------------------------------------------------

# A stored configuration is read as hostile: this many sessions and actors each at most (as
# ray_pool.MAX_ACTORS), a host quoted only when it looks like a host name.
_MAX_SESSIONS = 64
_MAX_ACTORS = 256
_HOST = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}")


def _stored_ms(x) -> float | None:
    """A stored figure in milliseconds, or None when it is not a plausible number."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    x = float(x)
    return x if math.isfinite(x) and abs(x) < 1e9 else None


def _stored_host(x) -> str | None:
    return x if isinstance(x, str) and _HOST.fullmatch(x) else None


def ray_clocks_uncertain(config: Mapping | None) -> Finding | None:
    """How well the Ray actors' clocks were known, from the run's stored configuration (its
    `ray_pool.CLOCKS_KEY`: one `RayPool.clock_record` per session, so a reopened or resumed
    run shows it too). A warning when an actor's offset passed the tolerance (1 ms: its
    largest uncertainty or its largest change between two measurements in a row) or when a
    session's last measurement, at its end, failed; None for a run not on Ray or within it.

    Milliseconds. `error_ms` is the worst actor's uncertainty plus its drift: how far its
    requests' place on the run's timeline may be off. Counts are per session, the largest
    (a resumed run ran its actors again); hosts are counted over every session."""
    sessions = config.get(CLOCKS_KEY) if isinstance(config, Mapping) else None
    if not isinstance(sessions, list):
        return None
    # Only for a run on Ray: the pool's module brings the worker processes' with it.
    total = beyond = 0
    hosts: set[str] = set()
    hosts_beyond: set[str] = set()
    worst: tuple[float, float, float, str | None] | None = None  # error, unc., drift, host
    uncertainty = drift = run_drift = 0.0
    tolerance = CLOCK_TOLERANCE_NS / 1e6
    round_trips = ROUND_TRIPS
    end_failed, end_errors, n_sessions = False, [], 0
    for rec in sessions[:_MAX_SESSIONS]:
        if not isinstance(rec, Mapping):
            continue
        n_sessions += 1
        tol = _stored_ms(rec.get("tolerance_ms"))
        tol = tol if tol is not None and tol > 0 else CLOCK_TOLERANCE_NS / 1e6
        tolerance = min(tolerance, tol) if n_sessions > 1 else tol
        trips = rec.get("round_trips")
        if isinstance(trips, int) and not isinstance(trips, bool) and 0 < trips <= 1000:
            round_trips = trips
        if rec.get("end_failed") is True:
            end_failed = True
            if isinstance(rec.get("end_error"), str):
                end_errors.append(rec["end_error"][:300])
        per = rec.get("per_actor")
        per = [a for a in per[:_MAX_ACTORS] if isinstance(a, Mapping)] if isinstance(
            per, list) else []
        count = rec.get("actors")
        count = (count if isinstance(count, int) and not isinstance(count, bool)
                 and 0 <= count <= _MAX_ACTORS else 0)
        total = max(total, count, len(per))
        flagged = 0
        for a in per:
            host = _stored_host(a.get("host"))
            if host:
                hosts.add(host)
            unc = abs(_stored_ms(a.get("uncertainty_max_ms")) or 0.0)
            step = abs(_stored_ms(a.get("cell_drift_ms")) or 0.0)
            run_drift = max(run_drift, abs(_stored_ms(a.get("drift_ms")) or 0.0))
            if unc <= tol and step <= tol:
                continue
            flagged += 1
            if host:
                hosts_beyond.add(host)
            uncertainty, drift = max(uncertainty, unc), max(drift, step)
            if worst is None or unc + step > worst[0]:
                worst = (unc + step, unc, step, host)
        beyond = max(beyond, flagged)
    if worst is None and not end_failed:
        return None
    params = {"actors": beyond, "actors_total": total, "hosts": len(hosts_beyond),
              "hosts_total": len(hosts), "error_ms": None if worst is None else _r(worst[0]),
              "uncertainty_ms": _r(uncertainty), "drift_ms": _r(drift),
              "tolerance_ms": _r(tolerance),
              "worst_host": None if worst is None else worst[3], "end_failed": end_failed,
              "round_trips": round_trips}
    evidence = {"sessions": n_sessions, "actors_beyond": beyond, "actors": total,
                "hosts_beyond": sorted(hosts_beyond)[:16], "hosts": len(hosts),
                "worst_error_ms": _r(None if worst is None else worst[0]),
                "uncertainty_max_ms": _r(uncertainty), "cell_drift_max_ms": _r(drift),
                "run_drift_max_ms": _r(run_drift), "tolerance_ms": _r(tolerance),
                "end_failed": end_failed, "end_errors": end_errors[:4]}
    return Finding("ray_clocks_uncertain", "warning", evidence=evidence, params=params,
                   suggestion_code="ray_clocks_closer" if worst is not None else None)


def config_findings(config: Mapping | None) -> list[Finding]:
    """The findings a run's stored configuration gives (CONFIG_FINDING_CODES)."""
    found = ray_clocks_uncertain(config)
    return [found] if found is not None else []

"""Findings about the measurement itself, not the server: was the client the bottleneck, did
requests fail, do the server's token counts match the targets, and how much goodput held.

`diagnose` (diagnosis.py) orders these with the server findings; `unreliable_cells` marks the
cells whose latencies the client may have inflated, for the table, the JSON and the GUI.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np

from desktop_app.core.throughput.types import CellResult, Finding

# The client's own event loop: a 10 ms timer late by this much stamps tokens late (a 99th
# percentile of 5 ms is already a sizeable share of a 20-40 ms inter-token gap) ...
CLIENT_LAG_P99_MS = 5.0
CLIENT_LAG_MAX_MS = 20.0
# ... and a client using this much of one core has no slack left to read sockets promptly.
CLIENT_CPU_PERCENT = 90.0
# Failed requests above this share of a sweep make the other figures doubtful.
FAILURE_PROBLEM_SHARE = 0.05
# The goodput level a concurrency must keep to count as sustainable.
GOODPUT_TARGET = 0.90

_FAILURE_HINTS = {
    "timeout": "raise the first-byte timeout or send fewer requests at once",
    "connect": "check the server is up and reachable",
    "http_status": "the server refused requests (429/503 mean overload: lower the load)",
    "stream_cut": "the server cut streams (llama-cpp-python does when a new request arrives)",
    "malformed_stream": "the server's stream was not valid SSE/JSON, or passed a size, line or "
                        "nesting limit (the message names the limit's error class)",
    "no_usage": "token counts are the client's own: the server sent no usage",
    "no_content": "the server completed streams without any content (choices null or missing)",
}
# What each plausibility code means, for the `implausible_counts` finding.
_IMPLAUSIBLE_WORDS = {
    "negative_usage": "negative token counts in usage",
    "absurd_usage": "token counts in usage above 10,000,000",
    "usage_mismatch": "usage.completion_tokens more than 2x + 8 away from the content chunks "
                      "streamed",
    "no_content": "streams that completed without any content",
}


def unreliable_cells(cells: Sequence[CellResult]) -> set[int]:
    """Indices of the cells whose latencies the client itself may have inflated (its event
    loop ran late or it used nearly a whole core; thresholds CLIENT_*)."""
    return {i for i, c in enumerate(cells) if _client_lag_reason(c) is not None}



def _r(x: float | None, digits: int = 3) -> float | None:
    return None if x is None else float(round(x, digits))


def _mean(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return float(np.mean(vals)) if vals else None


def token_mismatch(cells: Sequence[CellResult]) -> Finding | None:
    bad = [(i, c) for i, c in enumerate(cells) if c.token_mismatches > 0]
    if not bad:
        return None
    total = sum(c.token_mismatches for _, c in bad)
    detail = []
    for _, c in bad:
        served = _mean(t.prompt_tokens for t in c.timings if t.ok)
        got = f", server counted {served:.0f} on average" if served is not None else ""
        detail.append(f"{c.token_mismatches} of {c.summary.count} in {c.spec.label}{got}")
    msg = (f"Prompt lengths missed their target: {total} request{'s' if total != 1 else ''} in "
           f"{len(bad)} cell{'s' if len(bad) != 1 else ''} had server-counted prompt tokens more "
           f"than 2 % off ({'; '.join(detail)}). Prefill rates for them are computed on the "
           "server's count.")
    evidence = {"cells": {str(i): c.token_mismatches for i, c in bad}, "requests": total}
    return Finding("token_count_mismatch", "warning", msg, evidence,
                   "Use the server's /tokenize endpoint (or calibrate) so prompts hit their "
                   "length; a chat template adds tokens the target does not count.")


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
    parts, evidence = [], {}
    for i in bad:
        c, load = cells[i], cells[i].client_load
        itl = c.summary.itl_s.p50 if c.summary.itl_s is not None else None
        share = (f", {load.loop_lag_p99_ms / 1000 / itl * 100:.0f} % of the median gap between "
                 "tokens" if itl else "")
        parts.append(f"{c.spec.label}: event loop late by up to {load.loop_lag_max_ms:.0f} ms "
                     f"(p99 {load.loop_lag_p99_ms:.0f} ms{share}), "
                     f"{load.cpu_percent:.0f} % of a core")
        evidence[str(i)] = {"loop_lag_p99_ms": _r(load.loop_lag_p99_ms, 1),
                            "loop_lag_max_ms": _r(load.loop_lag_max_ms, 1),
                            "cpu_percent": _r(load.cpu_percent, 1), "itl_p50_s": _r(itl, 4)}
    n = len(bad)
    busy_self = max(cells[i].client_load.cpu_percent for i in bad) >= CLIENT_CPU_PERCENT * 0.6
    msg = (f"The benchmarking client itself was the bottleneck in {n} cell{'s' if n != 1 else ''} "
           f"({'; '.join(parts)}). Latencies there are unreliable: each timestamp may be late by "
           "up to the loop lag, inflating TTFT and inter-token gaps by that much.")
    if busy_self:
        suggestion = ("Send fewer concurrent requests per client process (split the load over "
                      "processes) or run the client on a faster machine.")
    else:
        # A late loop with little CPU of our own: other processes took the CPU (often the
        # server itself, when it runs on the same machine).
        msg += (" The client used little CPU itself, so other processes on this machine held "
                "the CPU (a server running on the same machine does).")
        suggestion = ("Run the client on another machine than the server, or leave the client "
                      "a free core.")
    return Finding("client_bound", "problem", msg, {"cells": evidence}, suggestion)


def failures(cells: Sequence[CellResult]) -> Finding | None:
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
        parts.append(f"{c.spec.label}: " + ", ".join(
            f"{n} {cls}" for cls, n in sorted(c.summary.failures_by_class.items())))
    share = n_failed / total if total else 1.0
    msg = (f"{n_failed} of {total} requests failed ({share * 100:.0f} %): {'; '.join(parts)}. "
           "Failed requests are left out of every latency and throughput figure.")
    hints = [f"{cls}: {_FAILURE_HINTS[cls]}" for cls in sorted(by_class) if cls in _FAILURE_HINTS]
    evidence = {"failed": n_failed, "requests": total, "share": _r(share),
                "by_class": dict(sorted(by_class.items())),
                "by_cell": {str(i): dict(c.summary.failures_by_class) for i, c in failed}}
    severity = "problem" if share >= FAILURE_PROBLEM_SHARE else "warning"
    return Finding("failures", severity, msg, evidence, "; ".join(hints) or None)


def goodput(cells: Sequence[CellResult]) -> Finding | None:
    rows: dict[tuple[int, int], dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for c in cells:
        if c.goodput is not None and c.spec.concurrency is not None:
            rows[(c.spec.input_tokens, c.spec.output_tokens)][c.spec.concurrency].append(c.goodput)
    if not rows:
        return None
    parts, evidence, none_ok = [], {}, False
    for (inp, out), by_c in sorted(rows.items()):
        means = {c: float(np.mean(v)) for c, v in sorted(by_c.items())}
        good = [c for c, g in means.items() if g >= GOODPUT_TARGET]
        if good:
            best = max(good)
            parts.append(f"up to concurrency {best} for {inp}-token prompts "
                         f"({means[best] * 100:.0f} %)")
        else:
            none_ok = True
            top = max(means, key=means.get)
            parts.append(f"at no concurrency for {inp}-token prompts "
                         f"(best {means[top] * 100:.0f} % at {top})")
            best = None
        evidence[f"{inp}/{out}"] = {"best_concurrency": best,
                                    "goodput": {str(c): _r(g) for c, g in means.items()}}
    msg = (f"Goodput (requests meeting your TTFT and TPOT targets) stays at or above "
           f"{GOODPUT_TARGET * 100:.0f} % " + "; ".join(parts) + ".")
    suggestion = ("Loosen the targets, shorten the prompts, or serve this load with more capacity."
                  if none_ok else None)
    return Finding("goodput", "warning" if none_ok else "info", msg, evidence, suggestion)


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
        parts.append(f"{c.spec.label}: " + ", ".join(
            f"{n} {code}" for code, n in sorted(c.implausible.items())))
    total = sum(by_code.values())
    what = "; ".join(f"{by_code[code]} with {_IMPLAUSIBLE_WORDS.get(code, code)}"
                     for code in sorted(by_code))
    msg = (f"The server reported numbers that cannot be true in {total} request"
           f"{'s' if total != 1 else ''}: {what} ({'; '.join(parts)}). Impossible counts were "
           "replaced by the client's own (one token per content chunk); figures resting on a "
           "disagreeing usage are doubtful.")
    evidence = {"requests": total, "by_code": dict(sorted(by_code.items())),
                "by_cell": {str(i): dict(sorted(c.implausible.items())) for i, c in bad}}
    return Finding("implausible_counts", "problem", msg, evidence,
                   "Check the server's usage reporting (and its streaming format) before "
                   "trusting its token counts.")

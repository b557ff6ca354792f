"""Why throughput degrades: a sweep's cells turned into findings, as codes and values.

`diagnose(cells, info)` reads the client's timings, the server's /metrics scrapes taken during
each cell and the client's own load, and returns `Finding`s ordered by importance: each with
its code, the values its words quote (`params`), the numbers behind it (`evidence`, both
JSON-ready) and, where one helps, the code of a suggested change with its cost. The words, in
English and Chinese, are in `desktop_app.report.diagnosis_words`; `FINDING_CODES`,
`SUGGESTION_CODES` and `PART_CODES` list every code it must have words for. What a suggestion
would do, as the engine model fitted to the sweep predicts it, is added afterwards by
`effects.annotate` (a fit costs seconds; this stays quick). Definitions follow
docs/DOMAIN.md: prefill tok/s per request includes queueing; queue time is estimated as TTFT
minus the 1-concurrent TTFT of the same prompt length; decode tok/s is measured after the first
token, so queueing never affects it.

All times are seconds since the run started, on one clock for the client and the scrapes, so a
/metrics sample at `t_s` can be set beside the requests in flight at that moment. No /metrics
is a normal case: the concurrency cap is then inferred from the client's own timeline.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np

from desktop_app.core.endpoint.types import EndpointInfo
from desktop_app.core.metrics import request_metrics
from desktop_app.core import engines
from desktop_app.core.throughput.servermetrics import queue_time
from desktop_app.core.throughput.checks import (
    CHECK_FINDING_CODES,
    CHECK_PART_CODES,
    CHECK_SUGGESTION_CODES,
    CONFIG_FINDING_CODES,
    cell_params,
    client_bound as _client_bound,
    config_findings,
    concurrency_not_kept as _concurrency_not_kept,
    failures as _failures,
    goodput as _goodput,
    implausible as _implausible,
    resent as _resent,
    token_mismatch as _token_mismatch,
    unreliable_cells as unreliable_cells,  # re-exported: the views read it from here
)
from desktop_app.core.throughput.types import CellResult, Finding, Severity

# --- thresholds -------------------------------------------------------------------------
# A server-side level counts as reached only if held this share of a cell's wall time: two
# requests' decode phases can overlap for a few milliseconds through timestamp jitter alone.
MIN_HOLD_SHARE = 0.05
# The cap shows as a plateau: N requests decoding together for at least this share of a
# cell's wall time while the client kept more in flight. Below it (prefill-heavy cells, whose
# decode phases are short) the client's timeline cannot tell a cap from a coincidence.
PLATEAU_SHARE = 0.3
# With /metrics: share of a cell's scrapes that must show requests waiting at the plateau.
# vLLM shows a request as waiting for one step after it arrives even when a slot is free.
QUEUED_SAMPLE_SHARE = 0.2
# Scrapes that must show the cap reached with requests waiting before a cap, with no server
# limit known to match it, is called a problem (fewer: a "possible" cap).
MIN_QUEUE_SCRAPES = 3
# The server's own queue time (`server_queue_time`) is used for a cell only when it covers at
# least this many requests scheduled between the cell's scrapes: fewer is one wave's luck.
MIN_SERVER_QUEUED = 3
# Or: the running gauge sat at the plateau for this share of the scrapes while the client kept
# more requests than that in flight (closed loop), and at least one scrape saw a queue. With few
# requests per cell the queue drains early (seen on llama.cpp with 4 requests at concurrency 4:
# 2 running in 36 of 40 scrapes, deferred > 0 in only 3), yet the requests above the plateau
# can only have been waiting.
PLATEAU_SAMPLE_SHARE = 0.5
# KV-cache usage above this is "near full": the next long request may force a preemption.
KV_HIGH_USAGE = 0.90
# Prefill rate at 1 concurrent request falling more than this from its peak to the longest
# prompt: attention cost worth naming (the seed server loses 16 % from 4k to 32k).
PREFILL_LENGTH_DROP = 0.15
# Pearson r of TTFT against prompt length at or above this reads as "about linear".
TTFT_LINEAR_R = 0.98
# Decode tok/s per request falling more than this under concurrency is worth a finding;
# more than the second figure is a warning (a user's streaming speed halves).
DECODE_DROP_MIN = 0.10
DECODE_DROP_WARN = 0.50
# Prefill tok/s under concurrency: a smaller change is noise, a larger one a warning.
PREFILL_DROP_MIN = 0.10
PREFILL_DROP_WARN = 0.30
_SEVERITY_RANK = {"problem": 0, "warning": 1, "info": 2}
# Within a severity, what the server does comes before how well it was measured: a cap of 2
# running requests is the answer a reader came for; a client-bound cell says which figures to
# doubt, and follows it (it used to come first and push the cap down the page).
_CODE_RANK = {code: i for i, code in enumerate((
    "concurrency_cap", "kv_cache_pressure", "client_bound", "implausible_counts", "failures",
    "concurrency_not_kept", "ray_clocks_uncertain",
    "prefill_drop_under_concurrency", "decode_slows_with_batch", "token_count_mismatch",
    "goodput", "prefill_slows_with_length", "ttft_linear", "requests_resent"))}
# Every code a finding, a suggestion or a sub-part of either can carry (the words catalogue
# and its test enumerate these: a new code without English and Chinese words fails).
FINDING_CODES = tuple(_CODE_RANK)
SUGGESTION_CODES = ("raise_cap", "settle_cap", "kv_relief", "shorter_prompts", "fewer_at_once", "raise_budget",
                    *CHECK_SUGGESTION_CODES)
PART_CODES = ("queue_from_metrics", "queue_from_client_timeline", "queue_from_timeline_and_gauge",
              "kv_full", "kv_room",
              "kv_unknown", "kv_preempted", "kv_near_full", *CHECK_PART_CODES)
assert set(CHECK_FINDING_CODES) <= set(FINDING_CODES)




def diagnose(
    cells: Sequence[CellResult],
    info: EndpointInfo | None = None,
    *,
    server_settings: dict | None = None,
    run_config: dict | None = None,
) -> list[Finding]:
    """Findings about a sweep, most important first (problems, then warnings, then info).

    `info` names the engine so messages can use its metric and flag names; `server_settings`
    (e.g. {"max-num-seqs": 2, "gpu-memory-utilization": 0.91}, keys with - or _) adds what the
    user knows of the server's configuration; `run_config`, the run's stored configuration,
    adds what the run recorded of itself (`checks.config_findings`: the Ray actors' clocks).
    Pure and quick: no I/O, nothing to cancel.
    """
    cells = list(cells)
    engine = _engine(info, cells)
    settings = {str(k).lower().lstrip("-").replace("-", "_"): v
                for k, v in (server_settings or {}).items()}
    kv_peak = _kv_peak(cells)
    cap = _concurrency_cap(cells, engine, settings, kv_peak)
    findings = [
        cap, _kv_pressure(cells, engine, settings, kv_peak), _client_bound(cells),
        _concurrency_not_kept(cells),
        _failures(cells, engine), _resent(cells, engine), _prefill_drop(cells, cap, engine), _decode_slows(cells, cap, engine),
        _token_mismatch(cells), _implausible(cells), _goodput(cells), *_length_findings(cells),
        *config_findings(run_config),
    ]
    return sorted((f for f in findings if f is not None), key=_rank)


def with_config_findings(findings: Iterable[Finding], run_config: dict | None) -> list[Finding]:
    """`findings` with those the run's stored configuration gives (CONFIG_FINDING_CODES) made
    anew from `run_config`, in the diagnosis's order. For a diagnosis made before the
    configuration was complete: a sweep's Ray clocks are stored as it ends, after its
    diagnosis was kept, and a run read back must show them."""
    out = [f for f in findings if f.code not in CONFIG_FINDING_CODES]
    # Inserted where they rank, the kept findings left in the order they were kept in (an
    # older run's order may differ from today's).
    for new in config_findings(run_config):
        at = next((i for i, f in enumerate(out) if _rank(f) > _rank(new)), len(out))
        out.insert(at, new)
    return out


def _rank(f: Finding) -> tuple[int, int]:
    # An unknown severity (a stored run's) goes last rather than sinking the view.
    return _SEVERITY_RANK.get(f.severity, 9), _CODE_RANK.get(f.code, 99)



# --- values ----------------------------------------------------------------------------------

def _f(x) -> float | None:
    """A float for `params` (JSON-ready: numpy scalars become plain floats)."""
    return None if x is None else float(x)


def _r(x: float | None, digits: int = 3) -> float | None:
    return None if x is None else float(round(x, digits))


# --- shared measurements ---------------------------------------------------------------------

def _engine(info: EndpointInfo | None, cells: Sequence[CellResult]) -> str:
    """The engine whose gauges the findings name: discovery's, where its descriptor has a
    running gauge; else the one whose series the scrapes hold; else "unknown"."""
    if info is not None and engines.series(info.engine, "running"):
        return info.engine
    # Without discovery, the scraped series' names still say which engine answered.
    readable = [e for e in engines.all_engines() if e.metric_prefix and e.series.get("running")]
    for c in cells:
        for s in c.samples:
            for name in s.raw:
                for engine in readable:
                    if name.startswith(engine.metric_prefix):
                        return engine.name
    return engines.UNKNOWN


def _mean(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return float(np.mean(vals)) if vals else None


def _cell_mean(cells: Iterable[CellResult], name: str) -> float | None:
    """Mean of a per-request distribution over cells, weighted by their request counts."""
    pairs = [(d.mean, d.n) for c in cells if (d := getattr(c.summary, name)) is not None]
    total = sum(n for _, n in pairs)
    return sum(m * n for m, n in pairs) / total if total else None


def _groups(cells: Sequence[CellResult]) -> dict[tuple[int, int], dict[int, list[CellResult]]]:
    """Closed-loop cells by (input tokens, output tokens), then by concurrency."""
    out: dict[tuple[int, int], dict[int, list[CellResult]]] = defaultdict(lambda: defaultdict(list))
    for c in cells:
        if c.spec.concurrency is not None:
            out[(c.spec.input_tokens, c.spec.output_tokens)][c.spec.concurrency].append(c)
    return out


def _baseline_ttft(
    cells: Sequence[CellResult], input_tokens: int, output_tokens: int
) -> float | None:
    """Mean TTFT at concurrency 1 for this prompt length (same output length preferred)."""
    same = [c for c in cells if c.spec.concurrency == 1 and c.spec.input_tokens == input_tokens]
    exact = [c for c in same if c.spec.output_tokens == output_tokens]
    return _cell_mean(exact or same, "ttft_s")


def _level_times(intervals: Iterable[tuple[float, float]]) -> dict[int, float]:
    """Seconds spent at each overlap level of the intervals (a sweep over start/end events;
    an interval ending exactly when another starts does not overlap it)."""
    spans = [(a, b) for a, b in intervals if b > a]
    # At equal times ends (-1) sort before starts (+1): touching intervals do not overlap.
    events = sorted([(a, 1) for a, _ in spans] + [(b, -1) for _, b in spans])
    times: dict[int, float] = defaultdict(float)
    level, prev = 0, None
    for t, delta in events:
        if prev is not None and t > prev:
            times[level] += t - prev
        level, prev = level + delta, t
    return times


def _held_at_least(times: dict[int, float], k: int) -> float:
    return sum(v for lvl, v in times.items() if lvl >= k)


def _robust_max(times: dict[int, float], span: float) -> int:
    """The highest level held for at least MIN_HOLD_SHARE of `span` seconds."""
    levels = [k for k in times if k > 0 and _held_at_least(times, k) >= MIN_HOLD_SHARE * span]
    return max(levels, default=0)


def _span(c: CellResult) -> float:
    ends = [t.last_token_s for t in c.timings if t.last_token_s is not None]
    return max(ends) - min(t.sent_s for t in c.timings) if ends else 0.0


def _finite(x: float | None) -> bool:
    return x is not None and math.isfinite(x)


def _gauges(s) -> bool:
    """Whether a scrape has usable running and waiting gauges (finite: a stored run from before
    the scraper dropped impossible values may hold inf or NaN)."""
    return _gauge_pair(s) is not None


def _gauge_pair(s) -> tuple[float, float] | None:
    """(running, waiting) of a scrape whose gauges are usable (`_gauges`), else None."""
    r, w = s.running, s.waiting
    if r is None or w is None or not (_finite(r) and _finite(w)):
        return None
    return (r, w) if abs(r) < 1e12 and abs(w) < 1e12 else None


def _gauge_pairs(samples: Iterable) -> list[tuple[float, float]]:
    return [p for s in samples if (p := _gauge_pair(s)) is not None]


def _finite_values(samples: Iterable, name: str) -> list[float]:
    """The finite values of one sample field (None, inf and NaN dropped)."""
    return [v for s in samples if _finite(v := getattr(s, name))]


def _kv_peak(cells: Sequence[CellResult]) -> float | None:
    vals = _finite_values((s for c in cells for s in c.samples), "kv_cache_usage")
    return max(vals) if vals else None


# --- 1. the concurrency cap ----------------------------------------------------------------

def _cap_from_metrics(cells: Sequence[CellResult]) -> tuple[int, int, list[int]] | None:
    """(cap, most waiting, indices of the cells that queued) from the running/waiting gauges."""
    samples = _gauge_pairs(s for c in cells for s in c.samples)
    if not samples:
        return None
    cap = int(round(max(running for running, _ in samples)))
    queued: list[int] = []
    most_waiting = 0
    for i, c in enumerate(cells):
        ss = _gauge_pairs(c.samples)
        at_cap = [(r, w) for r, w in ss if round(r) >= cap and w > 0]
        plateau = [r for r, _ in ss if round(r) == cap]
        client_above = c.spec.concurrency is not None and c.spec.concurrency > cap
        if ss and (len(at_cap) >= max(1, QUEUED_SAMPLE_SHARE * len(ss))
                   or (client_above and at_cap
                       and len(plateau) >= PLATEAU_SAMPLE_SHARE * len(ss))):
            queued.append(i)
            most_waiting = max(most_waiting, int(round(max(w for _, w in at_cap))))
    return (cap, most_waiting, queued) if queued and cap > 0 else None


def _cap_from_timeline(cells: Sequence[CellResult]) -> tuple[int, int, list[int]] | None:
    """The same from the client's timeline: how many requests were decoding at once."""
    per_cell: list[tuple[int, dict[int, float], float] | None] = []
    for c in cells:
        span = _span(c)
        ok = [(t.first_token_s, t.last_token_s) for t in c.timings
              if t.ok and t.first_token_s is not None and t.last_token_s is not None]
        if span <= 0 or not ok:
            per_cell.append(None)
            continue
        times = _level_times(ok)
        per_cell.append((_robust_max(times, span), times, span))
    cap = max((p[0] for p in per_cell if p), default=0)
    if cap <= 0:
        return None
    queued, most_waiting = [], 0
    for i, (c, p) in enumerate(zip(cells, per_cell)):
        load = c.spec.concurrency
        if p is None or load is None or load <= cap:
            continue
        _, times, span = p
        if _held_at_least(times, cap) >= PLATEAU_SHARE * span:
            queued.append(i)
            most_waiting = max(most_waiting, load - cap)
    return (cap, most_waiting, queued) if queued else None


def server_queue_time(cell: CellResult) -> tuple[float, int] | None:
    """(mean seconds a request waited, requests) as the server itself measured it over the
    cell: the change of vLLM's queue-time histogram's sum and count between the cell's first
    and last scrape, when at least MIN_SERVER_QUEUED requests were scheduled between them;
    None for a server that does not export it (llama.cpp, SGLang, TGI) or a counter reset."""
    ss = [q for q in (queue_time(s.raw) for s in cell.samples) if q is not None]
    if len(ss) < 2:
        return None
    n = ss[-1][1] - ss[0][1]
    total = ss[-1][0] - ss[0][0]
    if n < MIN_SERVER_QUEUED or total < 0:
        return None
    return total / n, int(n)


def _queue_share(cells: Sequence[CellResult], queued: list[int]) -> dict | None:
    """Share of TTFT spent waiting in the queued cell with the most clients (longest prompt
    on a tie): the server's own queue time where it exports one (`server_queue_time`), else
    estimated as TTFT minus the 1-concurrent TTFT of the same prompt length (which counts
    prompts prefilled together as waiting too: an estimate, and said to be)."""
    ranked = sorted(queued,
                    key=lambda i: (cells[i].spec.concurrency or 0, cells[i].spec.input_tokens))
    for i in reversed(ranked):
        c = cells[i]
        base = _baseline_ttft(cells, c.spec.input_tokens, c.spec.output_tokens)
        ttfts = [m.ttft_s for t in c.timings
                 if t.ok and (m := request_metrics(t)).ttft_s is not None]
        if not ttfts:
            continue
        mean_ttft = float(np.mean(ttfts))
        head = {"cell": i, "concurrency": c.spec.concurrency,
                "input_tokens": c.spec.input_tokens, "mean_ttft_s": _r(mean_ttft),
                "baseline_ttft_s": _r(base)}
        server = server_queue_time(c)
        if server is not None and mean_ttft > 0:
            wait, n = server
            return head | {"share": _r(min(wait / mean_ttft, 1.0)), "mean_queue_s": _r(wait),
                           "estimate": "server_queue_time", "requests": n}
        if base is None:
            continue
        queue = float(np.mean([max(0.0, x - base) for x in ttfts]))
        return head | {"share": _r(queue / mean_ttft), "mean_queue_s": _r(queue),
                       "estimate": "ttft_minus_concurrency_1_ttft"}
    return None


def _known_limit(settings: dict) -> int | None:
    """The server's own limit on requests at once, when it was read or typed (vLLM's
    max_num_seqs; llama.cpp's --parallel and SGLang's max-running-requests are recorded under
    that name)."""
    v = settings.get("max_num_seqs")
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return None
    return int(v) if 0 < v < 1e9 else None


def _cap_evidence(cells: Sequence[CellResult], queued: list[int], cap: int) -> dict:
    """What a cap finding rests on: the scrapes of the queued cells (how many, over how many
    seconds, how many showed the cap reached with requests waiting) and their requests."""
    ss = [s for i in queued for s in cells[i].samples if _gauges(s)]
    at_cap = [(r, w) for r, w in _gauge_pairs(ss) if round(r) >= cap and w > 0]
    times = _finite_values(ss, "t_s")
    return {"scrapes": len(ss), "queue_scrapes": len(at_cap),
            "seconds": _r(max(times) - min(times)) if len(times) > 1 else 0.0,
            "requests": sum(cells[i].summary.count for i in queued)}


def cap_strength(cap: int, limit: int | None, source: str, queue_scrapes: int,
                 kv_full: bool, queued_cells: int = 1) -> str:
    """"strong" or "possible" (a cap finding is a problem only when strong): a plateau at the
    server's known limit is that limit; one below it is not (unless the KV cache was full,
    which holds requests back below it); with no limit known, at least MIN_QUEUE_SCRAPES
    scrapes must show the cap reached with requests waiting, or (no scrapes) the client's
    timeline the plateau in at least two cells; a plateau of the timeline that only the
    running gauge confirms (no scrape saw a request waiting) stays possible."""
    if limit is not None:
        return "strong" if cap >= limit or kv_full else "possible"
    if source == "metrics":
        return "strong" if queue_scrapes >= MIN_QUEUE_SCRAPES else "possible"
    if source == "timeline_and_gauge":
        # The server's waiting gauge never showed a queue: only its known limit makes it one.
        return "possible"
    # The client's timeline: the same plateau at two loads is a cap; at one, a coincidence
    # of batched prefills could draw it.
    return "strong" if queued_cells >= 2 else "possible"


def _concurrency_cap(cells, engine, settings, kv_peak) -> Finding | None:
    found, source = _cap_from_metrics(cells), "metrics"
    if found is None:
        found, source = _cap_from_timeline(cells), "client_timeline"
        # With gauges, the client's timeline counts only where the server's own running gauge
        # agrees on the cap: scrapes answered late or timed out on a busy machine can miss
        # every moment requests waited (seen on llama.cpp in CI, 4 clients on 2 slots), but a
        # plateau the gauge never reached is a coincidence of the client's clock.
        gauged = [s.running for c in cells for s in c.samples if _gauges(s)]
        if found is not None and gauged:
            if int(round(max(gauged))) != found[0]:
                found = None
            else:
                source = "timeline_and_gauge"
    if found is None:
        return None
    cap, waiting, queued = found
    load = max(cells[i].spec.concurrency or 0 for i in queued)
    # None: an unknown engine; the words then describe the gauge or the knob in general.
    metric = engines.series(engine, "running") if source != "client_timeline" else None
    share = _queue_share(cells, queued)
    configured = settings.get("max_num_seqs")
    if kv_peak is not None and kv_peak >= KV_HIGH_USAGE:
        cost = "kv_full"
    elif kv_peak is not None:
        cost = "kv_room"
    else:
        cost = "kv_unknown"
    params = {"cap": cap, "max_waiting": waiting, "how": f"queue_from_{source}",
              "metric": metric, "max_client_concurrency": load,
              "queue_share": None if share is None else {
                  "concurrency": share["concurrency"], "input_tokens": share["input_tokens"],
                  "share": share["share"], "baseline_ttft_s": share["baseline_ttft_s"],
                  "estimate": share["estimate"], "requests": share.get("requests")},
              "matches_max_num_seqs": (configured if configured is not None
                                       and int(configured) == cap else None),
              "knob": engines.knob(engine, "cap"), "kv_cost": cost, "kv_cache_peak": _f(kv_peak)}
    rests = _cap_evidence(cells, queued, cap)
    limit = _known_limit(settings)
    strength = cap_strength(cap, limit, source, rests["queue_scrapes"], cost == "kv_full",
                            len(queued))
    params.update(strength=strength, evidence=rests, limit=limit,
                  below_limit=limit if limit is not None and cap < limit else None,
                  settle_concurrency=max(2 * load, cap * 2))
    evidence = {"cap": cap, "source": source, "metric": metric, "max_waiting": waiting,
                "max_client_concurrency": load, "queued_cells": queued, "queue_share": share,
                "kv_cache_peak": _r(kv_peak), "strength": strength, "limit": limit, **rests}
    if strength == "possible":
        # Not enough to call it a cap: say what would settle it instead of what to change.
        return Finding("concurrency_cap", "warning", evidence=evidence, params=params,
                       suggestion_code="settle_cap")
    return Finding("concurrency_cap", "problem", evidence=evidence, params=params,
                   suggestion_code="raise_cap")


# --- 2. KV-cache pressure ------------------------------------------------------------------

def _preemptions_by_cell(cells: Sequence[CellResult]) -> dict[int, int]:
    """Preemption counter delta per cell: the cell's highest value minus the last value scraped
    before it (any cell's), so preemptions between two cells' scrapes are not lost."""
    def counts(samples) -> list[tuple[float, float]]:
        return [(s.t_s, v) for s in samples if _finite(v := s.preemptions)]

    series = sorted(counts(s for c in cells for s in c.samples))
    out = {}
    for i, c in enumerate(cells):
        mine = counts(c.samples)
        if not mine:
            continue
        first = min(t for t, _ in mine)
        before = [v for t, v in series if t < first]
        start = before[-1] if before else min(v for _, v in mine)
        delta = max(v for _, v in mine) - start
        if delta > 0:  # a negative delta is a counter reset (server restart)
            out[i] = int(round(delta))
    return out


def _kv_pressure(cells, engine, settings, kv_peak) -> Finding | None:
    preempted = _preemptions_by_cell(cells)
    high = kv_peak is not None and kv_peak >= KV_HIGH_USAGE
    if not preempted and not high:
        return None
    params = {"kv_cache_peak": _f(kv_peak), "preemptions": sum(preempted.values()),
              "preempted_cells": [{"cell": cell_params(cells[i].spec), "n": n}
                                  for i, n in preempted.items()],
              "cost": "kv_preempted" if preempted else "kv_near_full",
              "gpu_memory_utilization": settings.get("gpu_memory_utilization"),
              "memory_knob": engines.knob(engine, "kv_memory"),
              "context_knob": engines.knob(engine, "context")}
    evidence = {"kv_cache_peak": _r(kv_peak), "metric": engines.series(engine, "kv_cache_usage"),
                "preemptions_by_cell": {str(i): n for i, n in preempted.items()},
                "preemptions": sum(preempted.values())}
    severity: Severity = "problem" if preempted else "warning"
    return Finding("kv_cache_pressure", severity, evidence=evidence, params=params,
                   suggestion_code="kv_relief")


# --- 3. prompt length at concurrency 1 ---------------------------------------------------------

def _length_findings(cells: Sequence[CellResult]) -> list[Finding]:
    solo = [c for c in cells if c.spec.concurrency == 1]
    lengths = sorted({c.spec.input_tokens for c in solo})
    at = {n: [c for c in solo if c.spec.input_tokens == n] for n in lengths}
    prefill: dict[int, float] = {}
    ttft: dict[int, float] = {}
    for n in lengths:
        p, t = _cell_mean(at[n], "prefill_tps"), _cell_mean(at[n], "ttft_s")
        if p is not None and t is not None:
            prefill[n], ttft[n] = p, t
    lengths = [n for n in lengths if n in prefill]
    out = []
    if len(lengths) >= 2:
        # From the peak, not the shortest: a fixed per-request cost (tokenizer, template) makes
        # the shortest prompts slow per token, which is not the attention cost named here.
        longest = lengths[-1]
        peak = max(lengths[:-1], key=lambda n: prefill[n])
        drop = prefill[longest] / prefill[peak] - 1
        if drop < -PREFILL_LENGTH_DROP:
            out.append(Finding(
                "prefill_slows_with_length", "info",
                evidence={"prefill_tps_by_length": {str(n): _r(prefill[n], 1) for n in lengths},
                          "from_tokens": peak, "to_tokens": longest, "change": _r(drop)},
                params={"from_tokens": peak, "from_tps": _f(prefill[peak]),
                        "to_tokens": longest, "to_tps": _f(prefill[longest]),
                        "change": _f(drop)},
                suggestion_code="shorter_prompts"))
    if len(lengths) >= 3:
        x = np.array(lengths, dtype=float)
        y = np.array([ttft[n] for n in lengths])
        r = float(np.corrcoef(x, y)[0, 1]) if np.ptp(y) > 0 else 0.0
        slope, intercept = np.polyfit(x, y, 1)
        if r >= TTFT_LINEAR_R and slope > 0:
            out.append(Finding(
                "ttft_linear", "info",
                evidence={"slope_s_per_1k_tokens": _r(slope * 1000), "intercept_s": _r(intercept),
                          "pearson_r": _r(r, 4),
                          "ttft_s_by_length": {str(n): _r(ttft[n]) for n in lengths}},
                params={"slope_s_per_1k_tokens": _f(slope * 1000), "pearson_r": _f(r),
                        # A negative intercept (attention makes long prompts super-linear)
                        # is not a cost: only a fixed cost worth naming is quoted.
                        "fixed_s": _f(intercept) if intercept >= 0.05 else None,
                        "longest_tokens": lengths[-1], "longest_ttft_s": _f(ttft[lengths[-1]])}))
    return out


# --- 4 and 5. per-request decode and prefill against concurrency 1 -----------------------------

def _changes(
    cells: Sequence[CellResult], name: str
) -> dict[tuple[int, int], dict[int, tuple[float, float]]]:
    """(input, output) -> concurrency -> (mean of `name`, change against concurrency 1)."""
    out: dict[tuple[int, int], dict[int, tuple[float, float]]] = {}
    for key, by_c in sorted(_groups(cells).items()):
        base = _cell_mean(by_c.get(1, []), name)
        if not base or len(by_c) < 2:
            continue
        row = {}
        for conc, cs in sorted(by_c.items()):
            value = _cell_mean(cs, name)
            if value is not None:
                row[conc] = (value, value / base - 1)
        out[key] = row
    return out


def _decode_slows(cells, cap, engine: str = "vllm") -> Finding | None:
    table = _changes(cells, "decode_tps")
    worst = min((ch for row in table.values() for c, (_, ch) in row.items() if c > 1), default=0.0)
    if worst > -DECODE_DROP_MIN:
        return None
    rows = [{"input_tokens": inp, "alone_tps": _f(row[1][0]),
             "under": [[c, _f(v)] for c, (v, _) in row.items() if c > 1],
             "change": _f(row[max(row)][1])}
            for (inp, _out), row in table.items()]
    # Only a cap the evidence holds explains where the batch stops growing (a possible one,
    # a plateau below the server's limit on a busy machine, does not).
    firm = cap is not None and cap.severity == "problem"
    params = {"rows": rows, "cap": cap.evidence["cap"] if firm else None,
              "budget_knob": engines.knob(engine, "budget")}
    evidence = {"decode_tps": {f"{inp}/{out}": {str(c): _r(v, 1) for c, (v, _) in row.items()}
                               for (inp, out), row in table.items()},
                "worst_change": _r(worst)}
    severity: Severity = "warning" if worst <= -DECODE_DROP_WARN else "info"
    return Finding("decode_slows_with_batch", severity, evidence=evidence, params=params,
                   suggestion_code="fewer_at_once")


def _prefill_drop(cells, cap, engine: str = "vllm") -> Finding | None:
    table = _changes(cells, "prefill_tps")
    by_conc: dict[int, list[float]] = defaultdict(list)
    worst = None
    for (inp, out), row in table.items():
        for c, (_, ch) in row.items():
            if c > 1:
                by_conc[c].append(ch)
                if worst is None or ch < worst[0]:
                    worst = (ch, inp, c)
    if not by_conc or worst is None or worst[0] > -PREFILL_DROP_MIN:
        return None
    means = {c: float(np.mean(v)) for c, v in sorted(by_conc.items())}
    params = {"mean_change_by_concurrency": [[c, m] for c, m in means.items()],
              "worst_change": _f(worst[0]), "worst_input_tokens": worst[1],
              "worst_concurrency": worst[2],
              "capped": cap is not None and cap.severity == "problem",
              "budget_knob": engines.knob(engine, "budget")}
    severity: Severity = "warning" if min(means.values()) <= -PREFILL_DROP_WARN else "info"
    evidence = {"mean_change_by_concurrency": {str(c): _r(m) for c, m in means.items()},
                "worst": {"change": _r(worst[0]), "input_tokens": worst[1],
                          "concurrency": worst[2]},
                "by_cell": {f"{inp}/{out}": {str(c): _r(ch) for c, (_, ch) in row.items()}
                            for (inp, out), row in table.items()}}
    # A larger per-step token budget carries more prompt tokens per step: the knob for prefill
    # under load (its cost, slower decode steps, is in the words; core.throughput.effects
    # predicts whether it helps this server and withdraws it when it would not).
    return Finding("prefill_drop_under_concurrency", severity, evidence=evidence,
                   params=params, suggestion_code="raise_budget")


# --- 6-9. measurement quality, failures, goodput ---------------------------------------------

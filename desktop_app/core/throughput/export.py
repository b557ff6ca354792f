"""A finished sweep as JSON (documented in docs/THROUGHPUT.md) and its cell table for a terminal.

The diagnosis is codes and values here; its words (the text the CLI prints, and the JSON's
`message`/`suggestion` when the caller passes a renderer) are `report/diagnosis_words.py`'s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from desktop_app import __version__
from desktop_app.core.metrics import DEFINITIONS as METRIC_DEFINITIONS
from desktop_app.core.redact import redact_document, redact_url
from desktop_app.core.tables import CellRow, format_cell_table
from desktop_app.core.throughput.diagnosis import unreliable_cells
from desktop_app.core.throughput.records import finding_to_json
from desktop_app.core.throughput.findmax import knee
from desktop_app.core.throughput.lengths import length_text, sent_lengths
from desktop_app.core.throughput.sweep import SweepResult, cell_summary_json
from desktop_app.core.throughput.types import CellResult, Finding

JSON_FORMAT_VERSION = 1

# Reasoning models (vLLM's reasoning parsers stream `delta.reasoning_content`, newer servers
# `delta.reasoning`): which figure counts what. `ttft_s` keeps its field name and now says what
# it always measured; the answer's own figures are new fields beside it.
REASONING_DEFINITIONS = {
    "ttft_s": "first chunk carrying any token (non-empty content, a tool-call delta, or "
              "reasoning: delta.reasoning_content / delta.reasoning) minus send time (seconds)",
    "ttft_answer_s": "first chunk carrying the answer (non-empty content or a tool-call delta; "
                     "reasoning excluded) minus send time (seconds); equals ttft_s for a model "
                     "that does not reason",
    "reasoning_chunks": "chunks that carried reasoning and no answer (per request; summed per "
                        "cell); completion_tokens and decode figures include them",
}


def _values_dist(values: list[float]) -> dict | None:
    """mean, p50, p90, p99, min, max of `values` (None when empty), as `_dist` gives them."""
    if not values:
        return None
    import numpy as np

    arr = np.asarray(values, dtype=float)
    p50, p90, p99 = (float(x) for x in np.percentile(arr, [50, 90, 99]))
    return {"mean": float(arr.mean()), "p50": p50, "p90": p90, "p99": p99,
            "min": float(arr.min()), "max": float(arr.max())}


def _reasoning_by_cell(result: SweepResult) -> dict[int, dict]:
    """Each cell's `ttft_answer_s` distribution (completed requests) and reasoning chunks."""
    by_cell: dict[int, dict] = {}
    for r in result.requests:
        cell = by_cell.setdefault(r.cell, {"answer": [], "chunks": 0})
        cell["chunks"] += r.reasoning_chunks
        if r.error in (None, "no_usage") and r.ttft_answer_s is not None:
            cell["answer"].append(r.ttft_answer_s)
    return {i: {"ttft_answer_s": _values_dist(c["answer"]), "reasoning_chunks": c["chunks"]}
            for i, c in by_cell.items()}


def _dist(d) -> dict | None:
    if d is None:
        return None
    return {"mean": d.mean, "p50": d.p50, "p90": d.p90, "p99": d.p99, "min": d.min, "max": d.max}


def cell_json(index: int, cell: CellResult, unreliable: bool) -> dict:
    """One cell: its shape, counts, every latency and rate distribution, and its extras."""
    s = cell.summary
    return {
        "cell": index,
        "input_tokens": cell.spec.input_tokens,
        "output_tokens": cell.spec.output_tokens,
        "concurrency": cell.spec.concurrency,
        "request_rate": cell.spec.request_rate,
        "requests": s.count,
        "failed": s.count - s.ok,
        "failures_by_class": s.failures_by_class,
        "ttft_s": _dist(s.ttft_s),
        "prefill_tok_s": _dist(s.prefill_tps),
        "decode_tok_s": _dist(s.decode_tps),
        "tpot_s": _dist(s.tpot_s),
        "itl_s": _dist(s.itl_s),
        "e2e_s": _dist(s.e2e_s),
        "output_tok_s": s.output_tps,
        "effective_prefill_tok_s": s.effective_prefill_tps,
        "effective_decode_tok_s": s.effective_decode_tps,
        "prefill_change_vs_c1": cell.prefill_change,
        "decode_change_vs_c1": cell.decode_change,
        "goodput": cell.goodput,
        "token_mismatches": cell.token_mismatches,
        "implausible": dict(cell.implausible),
        "client_load": dataclasses.asdict(cell.client_load) if cell.client_load else None,
        "latencies_unreliable": unreliable,
        "status": cell.status,
        "started_s": cell.started_s,
        "ended_s": cell.ended_s,
        # How the lengths were drawn and what was sent (absent: both fixed).
        **({"lengths": cell.spec.workload_json(), "lengths_sent": sent_lengths(cell.timings)}
           if cell.spec.workload_json() is not None else {}),
        **({"send_lateness_s": cell.send_lateness} if cell.send_lateness is not None else {}),
        **({"turns": list(cell.turn_figures)} if cell.turn_figures is not None else {}),
        **({"prefix_cache": cell.prefix_cache} if cell.prefix_cache is not None else {}),
    }


# A finding in words: (message, suggestion or None), e.g. from `report.diagnosis_words`.
FindingWords = Callable[[Finding], tuple[str, "str | None"]]


def finding_json(f: Finding, words: FindingWords | None = None) -> dict:
    """A finding in the sweep JSON: the shape it is kept in with its run (code, severity,
    params, evidence, suggestion_code), with its `message` and `suggestion` in words when
    `words` is given."""
    out = finding_to_json(f)
    if words is not None:
        out["message"], out["suggestion"] = words(f)
    return out


def sweep_to_json(result: SweepResult, words: FindingWords | None = None) -> dict:
    """The whole sweep as a JSON-ready dict (fields documented in docs/THROUGHPUT.md);
    `words` puts each finding's message and suggestion in words (see `finding_json`). Every
    remembered secret is blanked in every string (a server may have echoed the key into a
    model id, a response id or an error: `redact.redact_document`)."""
    info = result.info
    bad = unreliable_cells(result.cells)
    reasoning = _reasoning_by_cell(result)
    return redact_document({
        "format": "throughline-throughput",
        "format_version": JSON_FORMAT_VERSION,
        "app_version": __version__,
        "run_id": result.run_id,
        "status": result.status,
        "endpoint": redact_url(result.config.endpoint.base_url),
        "model": result.config.endpoint.model,
        "engine": info.engine,
        "engine_version": info.engine_version,
        "simulated": info.simulated,
        "tokenizer": info.tokenizer,
        "usage_in_streams": result.usage_expected,
        "config": result.config.to_json(),
        # How a ShareGPT file's reply lengths were turned into tokens (None: 4 characters a
        # token, estimated).
        "reply_chars_per_token": result.reply_chars_per_token,
        "replies_counted": result.replies_counted,
        "definitions": {**METRIC_DEFINITIONS, **REASONING_DEFINITIONS},
        "cells": [{**cell_json(i, c, i in bad),
                   **reasoning.get(i, {"ttft_answer_s": None, "reasoning_chunks": 0})}
                  for i, c in enumerate(result.cells)],
        "requests": [dataclasses.asdict(r) for r in result.requests],
        "server_metrics": [
            {"t_s": s.t_s, "running": s.running, "waiting": s.waiting,
             "kv_cache_usage": s.kv_cache_usage, "preemptions": s.preemptions}
            for s in result.samples
        ],
        "diagnosis": [finding_json(f, words) for f in result.findings],
        # A search for the knee: what it found (`findmax.Knee.to_json`).
        **({"find_max": found.to_json()}
           if result.config.find_max is not None
           and (found := knee(result.cells, result.config.find_max)) is not None else {}),
    })


def cells_table(cells: Sequence[CellResult], headers: Sequence[str], note=None) -> str:
    """The cell table for a terminal (means unless a percentile is named). `headers` (one per
    `tables.COLUMNS`) and `note` (a cell note's code -> words: client_bound, or a status) put
    it in the caller's language; by default a note's code stands as it is."""
    note = note or (lambda code: code.replace("_", " ").replace("client bound", "client-bound"))
    bad = unreliable_cells(cells)
    rows = []
    for i, c in enumerate(cells):
        if c.spec.concurrency is not None:
            load = str(c.spec.concurrency)
        elif c.spec.request_rate is not None:
            load = f"{c.spec.request_rate:g}/s"
        else:
            load = "?"  # an imported result that does not say (AIPerf's CSV)
        notes = []
        if i in bad:
            notes.append(note("client_bound"))
        if c.status != "completed":
            notes.append(note(c.status))
        rows.append(CellRow(length_text(c.spec, c.timings, "input"), load,
                            length_text(c.spec, c.timings, "output"),
                            c.summary, c.prefill_change, ", ".join(notes)))
    return format_cell_table(rows, headers)


__all__ = ["sweep_to_json", "cells_table", "cell_json", "cell_summary_json", "finding_json"]

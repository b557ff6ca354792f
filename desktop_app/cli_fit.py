"""`throughline whatif --from-run RUN_ID [--set KEY=VALUE ...]`: the engine model fitted to a
stored sweep, how well it fits, and what a changed setting would do to the same sweep.

Every predicted figure is simulated in virtual time and printed as such. Exit status 0, or 2
for a run that cannot be fitted (one line saying why).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from pathlib import Path

from desktop_app.core.parsing import InputError


def _measured(run):
    from desktop_app.core.fit import MeasuredCell

    cells = []
    for cell in run.cells:
        spec = cell.result.spec
        ok = tuple(t for t in cell.result.timings if t.ok)
        if spec.concurrency and ok:
            cells.append(MeasuredCell(spec.input_tokens, spec.output_tokens, spec.concurrency,
                                      len(cell.result.timings) or spec.requests, ok))
    return cells


def _cap(run) -> int | None:
    for finding in run.findings:
        if finding.code == "concurrency_cap":
            cap = (finding.evidence or {}).get("cap")
            return int(cap) if isinstance(cap, int) and cap > 0 else None
    return None


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:+.0f}%"


def _num(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.{digits}f}" if abs(value) < 1000 else f"{value:,.0f}"


def _value(v: float) -> str:
    if isinstance(v, float) and math.isinf(v):
        return "unlimited"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.4g}"


def run_fit(args: argparse.Namespace) -> int:
    """Fit, print the parameters and the per-cell errors, then the changed sweep if --set."""
    from desktop_app.core.fit import (
        KV_FACTOR,
        FitError,
        changed,
        fit_profile,
        parse_changes,
        predict,
    )
    from desktop_app.core.store import NotFoundError, Store, StoreError, resolve_db_path
    from desktop_app.core.throughput.records import load_sweep

    try:
        changes = parse_changes(args.set or [])
    except ValueError as exc:
        raise InputError("--set", str(exc).split(": ", 1)[-1]) from None
    try:
        with Store.open(resolve_db_path(None)) as store:
            run = load_sweep(store, args.from_run)
    except NotFoundError as exc:
        raise InputError("--from-run", str(exc)) from None
    except (StoreError, ValueError) as exc:
        raise InputError("--from-run", str(exc)) from None
    cells = _measured(run)
    try:
        fit = fit_profile(cells, run.info.settings, cap=_cap(run),
                          name=f"fitted-run-{args.from_run}", model=run.info.model or "")
    except FitError as exc:
        raise InputError("--from-run", f"run {args.from_run}: {exc}") from None
    out = sys.stdout
    out.write(f"Engine model fitted to run {args.from_run} ({run.info.name}): {len(cells)} "
              "cells. Predicted figures are simulated in virtual time.\n")
    out.write("parameter                     value        source   note\n")
    for p in fit.params:
        out.write(f"{p.name:<29} {_value(p.value):<12} {p.source:<8} {p.note}\n")
    out.write("Goodness of fit (predicted / measured - 1):\n")
    out.write("input  load  TTFT p50  prefill  decode\n")
    for e in fit.errors:
        out.write(f"{e.input_tokens:>5}  {e.concurrency:>4}  {_pct(e.ttft):>8}  "
                  f"{_pct(e.prefill):>7}  {_pct(e.decode):>6}\n")
    out.write(f"worst: TTFT {_pct(fit.worst('ttft'))}, prefill {_pct(fit.worst('prefill'))}, "
              f"decode {_pct(fit.worst('decode'))}\n")
    document: dict = {
        "run_id": args.from_run, "simulated": True, "clock": "virtual",
        "parameters": [dataclasses.asdict(p) | {"value": None if math.isinf(p.value)
                                                else p.value} for p in fit.params],
        "errors": [dataclasses.asdict(e) for e in fit.errors],
    }
    if changes:
        what = ", ".join(f"kv_capacity=x{v:g}" if k == KV_FACTOR else f"{k}={v:g}"
                         for k, v in changes.items())
        base, after = predict(fit.profile, cells), predict(changed(fit.profile, changes), cells)
        out.write(f"\nWhat if {what} (fitted model before -> after, virtual time):\n")
        out.write("input  load  TTFT p50 s            decode tok/s/req      output tok/s\n")
        rows = []
        for c, b, a in zip(cells, base, after):
            cols = []
            for get in (lambda s: s.ttft_s and s.ttft_s.p50,
                        lambda s: s.decode_tps and s.decode_tps.mean,
                        lambda s: s.output_tps):
                x, y = get(b), get(a)
                change = None if not x or y is None else y / x - 1
                cols.append((x, y, change))
            out.write(f"{c.input_tokens:>5}  {c.concurrency:>4}  " + "  ".join(
                f"{_num(x):>7} -> {_num(y):<7} {_pct(ch):>5}" for x, y, ch in cols) + "\n")
            rows.append({"input_tokens": c.input_tokens, "concurrency": c.concurrency,
                         "ttft_p50_s": cols[0][:2], "decode_tps": cols[1][:2],
                         "output_tps": cols[2][:2]})
        document["changes"] = changes
        document["predicted"] = rows
    if args.json:
        try:
            Path(args.json).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            raise InputError("--json", f"cannot write {args.json}: {exc.strerror or exc}"
                             ) from None
    return 0

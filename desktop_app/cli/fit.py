"""`throughline whatif --from-run RUN_ID [--set KEY=VALUE ...]`: the engine model fitted to a
stored sweep, how well it fits, and what a changed setting would do to the same sweep.

Every predicted figure is simulated in virtual time and printed as such. Exit status 0, or 2
for a run that cannot be fitted (one line saying why). The words are English or Chinese
(`--lang`, else $THROUGHLINE_LANG); parameter names, numbers and units stay as they are.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from pathlib import Path

from desktop_app.cli.common import said, words_lang
from desktop_app.core.parsing import InputError

from desktop_app.report.strings import lookup
from desktop_app.report.whatif_words import WORDS as _WORDS


def _w(lang: str, key: str, **values) -> str:
    return lookup(_WORDS, lang, key, **values)


def _pad(text: str, width: int) -> str:
    """`text` padded to `width` terminal columns (a CJK character takes two)."""
    return text + " " * max(width - sum(2 if ord(ch) > 0x2e80 else 1 for ch in text), 0)


def _note(p, lang: str) -> str:
    """A fitted parameter's note in `lang` (the core's English one when it has no words)."""
    key = f"note_{p.code}"
    if lang == "en" or not p.code or key not in _WORDS[lang]:
        return p.note
    return _WORDS[lang][key].format(held=f"{p.held_tokens or 0:,}")


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:+.0f}%"


def _num(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.{digits}f}" if abs(value) < 1000 else f"{value:,.0f}"


def _value(v: float, lang: str = "en") -> str:
    if isinstance(v, float) and math.isinf(v):
        return _w(lang, "unlimited")
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.4g}"


def run_fit(args: argparse.Namespace) -> int:
    """Fit, print the parameters and the per-cell errors, then the changed sweep if --set."""
    from desktop_app.core.fit import (
        KV_FACTOR,
        FitError,
        changed,
        fit_run,
        parse_changes,
        predict,
    )
    from desktop_app.core.store import NotFoundError, Store, StoreError, resolve_db_path
    from desktop_app.core.throughput.records import load_sweep

    changes = parse_changes(args.set or [])  # InputError naming --set
    try:
        with Store.open(resolve_db_path(None)) as store:
            run = load_sweep(store, args.from_run)
    except NotFoundError as exc:
        raise said("--from-run", exc, args) from None
    except (StoreError, ValueError) as exc:
        raise said("--from-run", exc, args) from None
    try:
        fit, cells = fit_run(run)
    except FitError as exc:
        raise said("--from-run", exc, args) from None
    out = sys.stdout
    lang = words_lang(args)
    out.write(_w(lang, "fitted", run=args.from_run, name=run.info.name, n=len(cells)))
    out.write(_w(lang, "params_head"))
    for p in fit.params:
        source = _w(lang, f"src_{p.source}") if f"src_{p.source}" in _WORDS["en"] else p.source
        out.write(f"{p.name:<29} {_pad(_value(p.value, lang), 12)} {_pad(source, 8)} "
                  f"{_note(p, lang)}\n")
    out.write(_w(lang, "fit_head"))
    out.write(_w(lang, "errors_head"))
    for e in fit.errors:
        out.write(f"{e.input_tokens:>5}  {e.concurrency:>4}  {_pct(e.ttft):>8}  "
                  f"{_pct(e.prefill):>7}  {_pct(e.decode):>6}\n")
    out.write(_w(lang, "worst", ttft=_pct(fit.worst("ttft")), prefill=_pct(fit.worst("prefill")),
                 decode=_pct(fit.worst("decode"))))
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
        out.write(_w(lang, "whatif", what=what))
        beyond = fit.extrapolated_batch(changes)
        if beyond is not None:
            out.write(_w(lang, "extrapolated", n=beyond))
        out.write(_w(lang, "whatif_head"))
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
        document["extrapolated_beyond_batch"] = beyond
        document["predicted"] = rows
    document["suggestions"] = _suggestions(run, fit, cells, lang, out)
    if args.json:
        try:
            Path(args.json).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            raise InputError("--json", code="cannot_write", path=args.json,
                             error=exc.strerror or exc) from None
    return 0


def _suggestions(run, fit, cells, lang: str, out) -> list[dict]:
    """The diagnosis's suggestions with their predicted effect (`core.throughput.effects`),
    printed. A run whose diagnosis already keeps them shows those: they are the run's claim,
    made once when it was diagnosed, and a second fit must not quietly replace them. Otherwise
    `fit` predicts them, and they are kept with the run when its diagnosis was kept (a
    diagnosis rebuilt for an older run is not stored in its place). Returns each prediction
    as its finding keeps it."""
    from desktop_app.core.store import Store, StoreError, resolve_db_path
    from desktop_app.core.throughput.effects import annotate, engine_name
    from desktop_app.core.throughput.records import save_diagnosis
    from desktop_app.report.diagnosis_words import suggestion_text
    from desktop_app.report.store_words import store_error_text

    kept = [f for f in run.findings if "predicted" in f.params]
    if kept:
        outcome = None
        tried = kept
    else:
        outcome = annotate(run.findings, cells, run.info.settings,
                           engine_name(run.info.engine), fit=fit)
        tried = [f for f in outcome.findings if "predicted" in f.params]
        if outcome.status != "predicted":
            tried = []
    if not tried:
        return []
    out.write(_w(lang, "suggestions"))
    for f in tried:
        out.write(f"- {suggestion_text(f, lang)}\n")
    if kept:
        out.write(_w(lang, "suggestions_kept"))
    elif run.diagnosis_kept:
        try:
            with Store.open(resolve_db_path(None)) as store:
                save_diagnosis(store, run.info.id, outcome.findings)
            out.write(_w(lang, "suggestions_kept"))
        except StoreError as exc:
            print(_w(lang, "not_kept", run=run.info.id, error=store_error_text(exc, lang)),
                  file=sys.stderr)
    return [{"finding": f.code, **f.params["predicted"]} for f in tried]

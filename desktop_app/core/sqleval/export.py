"""A SQL evaluation's JSON (documented in docs/SQL-EVAL.md); the per-tier table's words are
`report/judge_words.tier_table`'s. The summaries it writes (`summarize`: pass counts per judge
and tier, effort per tier, the spread across epochs) live in `results.py`, named here too.

The JSON shapes a run stores per question and per step (`runner` writes them with these
functions, the export and the GUI read the same shapes), so there is one definition of each.

`eval_to_json(result)` fields: `format_version`, `run_id`, `set`, `model`, `judges`,
`tolerance`, `rejudged`, `simulated` (present and true only for a simulated persona or
endpoint: never report those scores as a model's), `summary` (per judge: `passed`, `total`,
`by_tier` {tier: {`passed`, `total`}}, and with several epochs `epochs` {`rates`, `mean`, `std`,
`min`, `max`}), `tiers` (per tier: `questions`, `mean_steps`, `mean_prompt_tokens`,
`mean_completion_tokens`, `mean_seconds`), `skipped` [{`id`, `source`, `reason`}] and `items`
(one per question and epoch: `id`, `tier`, `epoch`, `verdicts` {judge: {`passed`, `findings`,
`tolerance`}}, `findings` (sqlglot's), `counterfactual`, `steps`, `prompt_tokens`,
`completion_tokens`, `seconds`, `stop_reason`, `final_sql`, `result`, `result_error`, and
with the layered strategy `path` ("fast" or "loop") and `route_reason`). A layered run adds
`layered` {path: {`questions`, `passed` {judge: n}, `mean_prompt_tokens`,
`mean_completion_tokens`, `mean_seconds`}}. A run that summarised full and a benchmark's rule
(spider2, bird, test-suite) adds `disagreements` [{`id`, `epoch`, `official`,
`official_passed`, `leniency` (why the rule passed what full failed: `official.LENIENCIES`),
`finding` (the failing side's first)}].
Findings are {`code`, `params`, `message`, `cells`: [[row, column, expected, actual], ...]}:
`params` the values the words need, `message` those words in English (rendered by the
`words` the caller passes, `report/judge_words.ENGLISH`; the core holds no words). An item's
`counterfactual` is the English line, `headline` the same as values ({`failing`, `passing`,
`reason`}).

The store keeps findings as {`code`, `params`, `cells`} and the counterfactual as {`failing`,
`passing`, `reason`}; verdicts stored earlier hold an English `message` and line instead,
which `records` keeps as `stored_text`.
"""

from __future__ import annotations

import dataclasses
from typing import Protocol

from desktop_app.core.sqleval.types import (
    AgentStep,
    Headline,
    JudgeFinding,
    Question,
    QueryResult,
    Verdict,
)
from desktop_app.core.redact import redact_document
from desktop_app.core.sqleval.judges import in_judge_order
from desktop_app.core.store import utc_now_iso

# The summaries live with the results they summarise; named here too for the export's readers.
from desktop_app.core.sqleval.results import (
    EpochSpread,
    EvalResult,
    ItemResult,
    JudgeSummary,
    TierStats,
    explained,
    passed,
    summarize,
)

__all__ = ["JSON_FORMAT_VERSION", "RESULT_ROWS", "EpochSpread", "FindingWords",
           "JudgeSummary", "TierStats", "eval_to_json", "explained", "failure_class",
           "headline_json", "headline_line", "passed", "path_summary", "summarize",
           "finding_json", "question_from_snapshot", "question_snapshot", "result_json",
           "step_row", "verdict_json", "verdicts_json"]

JSON_FORMAT_VERSION = 1
RESULT_ROWS = 20  # rows of the final result kept in the store and the export


# --------------------------------------------------------------------------- stored shapes


def _cell(value):
    """A result value as JSON can hold it (SQLite BLOBs become hex text)."""
    return value.hex() if isinstance(value, bytes) else value


def result_json(result: QueryResult | None, error: str | None) -> dict:
    """The final result as stored and exported: columns, first RESULT_ROWS rows, total, error."""
    if result is None:
        return {"columns": [], "rows": [], "total_rows": None, "truncated": False, "error": error}
    return {"columns": list(result.columns),
            "rows": [[_cell(v) for v in row] for row in result.rows[:RESULT_ROWS]],
            "total_rows": result.total_rows,
            "truncated": result.truncated or len(result.rows) > RESULT_ROWS, "error": error}


class FindingWords(Protocol):
    """What says a finding and a counterfactual in words (`report/judge_words.JudgeWords`);
    the exports take one for their English `message` and line."""

    def finding(self, finding: JudgeFinding) -> str: ...

    def headline(self, headline: Headline) -> str: ...


def finding_json(f: JudgeFinding, words: FindingWords | None = None) -> dict:
    """A finding as stored ({code, params, cells}) and, with `words`, as exported (plus its
    `message`). A finding read from an earlier verdict keeps its stored `message` and has no
    `params`."""
    data: dict = {"code": f.code}
    if f.params or not f.stored_text:
        data["params"] = dict(f.params)
    message = words.finding(f) if words is not None else f.stored_text
    if message:
        data["message"] = message
    data["cells"] = [list(c) for c in f.cells]
    return data


def headline_line(h: Headline) -> str:
    """The line across judges in a compact, language-free form for plain-text exports
    ("strict FAIL, tolerant PASS, full PASS: rounding_only"), the judges in their order; the
    stored English line of an old verdict as it was. Readers render
    `report/judge_words.headline_text`."""
    if h.stored_text:
        return h.stored_text
    outcome = {**{j: "FAIL" for j in h.failing}, **{j: "PASS" for j in h.passing}}
    marks = [f"{j} {outcome[j]}" for j in in_judge_order(outcome)]
    reason = f": {h.reason.code}" if h.reason is not None else ""
    return ", ".join(marks) + reason


def headline_json(h: Headline, words: FindingWords | None = None) -> dict | str:
    """A counterfactual as stored: {failing, passing, reason}; an earlier verdict's English line
    stays the string it was."""
    if h.stored_text:
        return h.stored_text
    return {"failing": list(h.failing), "passing": list(h.passing),
            "reason": None if h.reason is None else finding_json(h.reason, words)}


def verdict_json(v: Verdict, words: FindingWords | None = None) -> dict:
    """A verdict as stored and exported."""
    return {"passed": v.passed, "findings": [finding_json(f, words) for f in v.findings],
            "tolerance": v.tolerance}


def question_snapshot(q: Question) -> dict:
    """The question's metadata as stored with its verdicts (re-judging uses it)."""
    data = dataclasses.asdict(q)
    data["required_columns"] = list(q.required_columns)
    for key in ("tags", "gold_alternatives", "gold_files"):
        data[key] = list(getattr(q, key))
    return data


def question_from_snapshot(data: dict | None) -> Question | None:
    """The Question a `question_snapshot` was made from, or None when it is not usable."""
    if not isinstance(data, dict) or not data.get("id"):
        return None
    names = {f.name for f in dataclasses.fields(Question)}
    values = {k: v for k, v in data.items() if k in names}
    values["required_columns"] = tuple(values.get("required_columns") or ())
    for key in ("tags", "gold_alternatives", "gold_files"):
        values[key] = tuple(values.get(key) or ())
    values["rounding"] = dict(values.get("rounding") or {})
    values["evaluation"] = dict(values.get("evaluation") or {})
    try:
        return Question(**values)
    except TypeError:
        return None


def verdicts_json(item: ItemResult, question: Question, tolerance: float, ignore_names: bool,
                  rejudged: bool) -> dict:
    """The `verdicts_json` of a stored question: every judge's verdict and what goes with it."""
    return {
        "verdicts": {j: verdict_json(v) for j, v in item.outcome.verdicts.items()},
        "counterfactual": headline_json(item.counterfactual),
        "findings": [finding_json(f) for f in item.findings],
        "tolerance": tolerance, "ignore_names": ignore_names, "judged_at": utc_now_iso(),
        "rejudged": rejudged, "question": question_snapshot(question),
        **({"layered": {"path": item.outcome.path, "reason": item.outcome.route_reason}}
           if item.outcome.path else {}),
    }


def failure_class(verdicts: dict[str, Verdict], judges=("strict",)) -> str | None:
    """Why the answer failed, as one code: the first finding of the strictest of Throughline's
    own judges among `judges` (the run's: strict on a set that names its columns, full on an
    imported one) when it failed; None when it passed or none of them judged it."""
    from desktop_app.core.sqleval.official import official_judges

    own = [j for j in judges if j in verdicts and j not in official_judges([j])]
    if not own or verdicts[own[0]].passed:
        return None
    first = verdicts[own[0]]
    return first.findings[0].code if first.findings else "value_mismatch"


def step_row(run_id: int, question_row_id: int, step: AgentStep) -> dict:
    """An AgentStep as a `sql_steps` row: `request_json` = {"messages": how many were sent,
    "new": the messages added since the previous step}; one entry per tool call in
    `tool_args_json` ({id, name, arguments}) and `tool_result_json` ({id, name, result,
    truncated, error}); `tool_name` joins the calls' names with commas."""
    calls = step.tool_calls
    return {
        "run_id": run_id, "question_row_id": question_row_id, "step_index": step.index,
        "request_json": {"messages": step.request_messages, "new": list(step.new_messages)},
        "reply_json": step.reply,
        "tool_name": ",".join(c.name for c in calls) or None,
        "tool_args_json": [{"id": c.call_id, "name": c.name, "arguments": c.arguments}
                           for c in calls] or None,
        "tool_result_json": [{"id": c.call_id, "name": c.name, "result": c.result,
                              "truncated": c.result_truncated, "error": c.error}
                             for c in calls] or None,
        "prompt_tokens": step.prompt_tokens, "completion_tokens": step.completion_tokens,
        "latency_s": step.latency_s, "error": step.error,
    }


# --------------------------------------------------------------------------- the export


def item_json(item: ItemResult, words: FindingWords | None = None) -> dict:
    """One question in one epoch, as exported (findings and the line in `words`' language;
    without words, the line is `headline_line`'s compact form)."""
    o = item.outcome
    line = item.counterfactual
    return {
        "id": o.question_id, "tier": o.tier, "epoch": o.epoch,
        "verdicts": {j: verdict_json(v, words) for j, v in o.verdicts.items()},
        "findings": [finding_json(f, words) for f in item.findings],
        "counterfactual": words.headline(line) if words is not None else headline_line(line),
        "headline": headline_json(line, words),
        "steps": item.steps, "prompt_tokens": o.prompt_tokens,
        "completion_tokens": o.completion_tokens, "seconds": round(o.seconds, 3),
        "stop_reason": o.stop_reason, "final_sql": o.final_sql,
        "result": result_json(o.result, None) if o.result is not None else None,
        "result_error": o.result_error,
        **({"path": o.path, "route_reason": o.route_reason} if o.path else {}),
    }


def path_summary(items: list[ItemResult], judges: tuple[str, ...]) -> dict[str, dict]:
    """Layered runs: per path that answered ("fast", "loop"), its questions, passes per judge,
    mean tokens and seconds. Empty when no item records a path."""
    out = {}
    for path in ("fast", "loop"):
        group = [i for i in items if i.outcome.path == path]
        if not any(i.outcome.path for i in items):
            break
        n = max(len(group), 1)
        out[path] = {
            "questions": len(group),
            "passed": {j: sum(passed(i, j) for i in group) for j in judges},
            "mean_prompt_tokens": sum(i.outcome.prompt_tokens for i in group) / n,
            "mean_completion_tokens": sum(i.outcome.completion_tokens for i in group) / n,
            "mean_seconds": sum(i.outcome.seconds for i in group) / n}
    return out


def eval_to_json(result: EvalResult, words: FindingWords | None = None) -> dict:
    """Everything an evaluation measured, as the fields listed in the module doc; `words`
    (`report/judge_words.ENGLISH` for the documented export) give findings their `message`
    and items their `counterfactual` line. Every remembered secret is blanked in every string
    (a server may have echoed the key into a reply, a tool call or its SQL:
    `redact.redact_document`)."""
    summary = {}
    for judge, s in result.summary.items():
        entry = {"passed": s.passed, "total": s.total,
                 "by_tier": {t: {"passed": p, "total": n} for t, (p, n) in s.by_tier.items()}}
        spread = result.epochs.get(judge)
        if spread is not None:
            entry["epochs"] = {"rates": list(spread.rates), "mean": spread.mean,
                               "std": spread.std, "min": spread.min, "max": spread.max}
        summary[judge] = entry
    data = {
        "format_version": JSON_FORMAT_VERSION, "run_id": result.run_id, "set": result.set_name,
        "model": result.model, "judges": list(result.judges), "tolerance": result.tolerance,
        "ignore_names": None if result.config is None else bool(result.config.ignore_names),
        "rejudged": result.rejudged, "status": result.status, "summary": summary,
        "tiers": {t: {"questions": s.questions, "mean_steps": s.mean_steps,
                      "mean_prompt_tokens": s.mean_prompt_tokens,
                      "mean_completion_tokens": s.mean_completion_tokens,
                      "mean_seconds": s.mean_seconds} for t, s in result.tiers.items()},
        "skipped": [{"id": s.id, "source": s.source, "reason": s.reason} for s in result.skipped],
        "items": [item_json(i, words) for i in sorted(result.items, key=_order)],
    }
    paths = path_summary(result.items, result.judges)
    if paths:
        data["layered"] = paths
    from desktop_app.core.sqleval.official import official_judges, result_disagreements

    if official_judges(result.judges) and "full" in result.judges:
        data["disagreements"] = [
            {"id": d.question_id, "epoch": d.epoch, "official": d.official,
             "official_passed": d.official_passed, "leniency": d.leniency,
             "finding": None if d.finding is None else finding_json(d.finding, words)}
            for d in result_disagreements(result)]
    if result.simulated:
        data["simulated"] = True
    return redact_document(data)


def _order(item: ItemResult) -> tuple:
    return (item.outcome.epoch, item.outcome.question_id)

"""A stored SQL evaluation as CSV (one row per question, one per agent step) and as JSON.

The pass counts per judge and tier come from :meth:`desktop_app.core.sqleval.records.SqlRun.
pass_count`, the function every view uses, so the export and the app agree.
Every field is listed in docs/EXPORTS.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from desktop_app.core.sqleval.export import headline_line
from desktop_app.core.sqleval.records import SqlRun, StoredQuestion, compared_judges, step_rows
from desktop_app.core.sqleval.judges import judge_names
from desktop_app.core.store import Store

_BEFORE_VERDICTS = ("run_id", "question_row_id", "question_id", "epoch", "tier", "status",
                    "stop_reason", "failure_class")
_AFTER_VERDICTS = ("counterfactual", "steps", "prompt_tokens", "completion_tokens", "seconds",
                   "final_sql", "result_columns", "result_total_rows", "result_error",
                   "started_at", "ended_at")


def question_columns() -> tuple[str, ...]:
    """The questions CSV's columns: one `passed_<judge>` per registered judge (strict,
    tolerant, full, then any added), between the question's outcome and its effort."""
    return (*_BEFORE_VERDICTS, *(f"passed_{j}" for j in judge_names()), *_AFTER_VERDICTS)
STEP_COLUMNS = (
    "run_id", "question_row_id", "question_id", "epoch", "step_index", "tool_name",
    "tool_args", "tool_results", "reply", "prompt_tokens", "completion_tokens", "latency_s",
    "error",
)


def _line(question: StoredQuestion, words) -> str:
    """The line across judges: in words when given, else its compact language-free form."""
    return (words.headline(question.counterfactual) if words is not None
            else headline_line(question.counterfactual))


def question_row(run_id: int, row: dict[str, Any], question: StoredQuestion,
                 words=None) -> dict[str, Any]:
    """One row of ``questions.csv``; ``passed_<judge>`` is empty when that judge did not judge
    the question (it never finished, or that judge did not run)."""
    out = {k: row.get(k) for k in question_columns()}
    out.update(
        run_id=run_id, question_row_id=question.row_id, counterfactual=_line(question, words),
        result_columns=json.dumps(question.result.get("columns") or [], ensure_ascii=False),
        result_total_rows=question.result.get("total_rows"),
        result_error=question.result.get("error"),
    )
    for judge in judge_names():
        out[f"passed_{judge}"] = question.outcome(judge)
    return out


def step_row(run_id: int, question: dict[str, Any], step: dict[str, Any]) -> dict[str, Any]:
    """One row of ``steps.csv``: tool calls, their results and the reply as JSON text."""
    def text(value):
        return "" if value is None else json.dumps(value, ensure_ascii=False)

    return {
        "run_id": run_id, "question_row_id": question["id"],
        "question_id": question["question_id"], "epoch": question.get("epoch"),
        "step_index": step.get("step_index"), "tool_name": step.get("tool_name"),
        "tool_args": text(step.get("tool_args_json")),
        "tool_results": text(step.get("tool_result_json")), "reply": text(step.get("reply_json")),
        "prompt_tokens": step.get("prompt_tokens"),
        "completion_tokens": step.get("completion_tokens"), "latency_s": step.get("latency_s"),
        "error": step.get("error"),
    }


def summary_json(run: SqlRun) -> dict[str, Any]:
    """Pass counts per judge (overall and per tier; passed of judged, unfinished apart) and
    mean effort per tier of the judged questions: the counts every view shows."""
    judges = compared_judges([run])

    def count(judge: str, tier: str | None = None) -> dict[str, int]:
        c = run.pass_count(judge, tier)
        return {"passed": c.passed, "total": c.judged, "unfinished": c.unfinished}

    tiers_seen = [t for t in run.tiers]
    return {
        "judges": {j: {**count(j), "by_tier": {t: count(j, t) for t in tiers_seen}}
                   for j in judges},
        "tiers": {t: {"questions": s.questions, "mean_steps": s.mean_steps,
                      "mean_prompt_tokens": s.mean_prompt_tokens,
                      "mean_completion_tokens": s.mean_completion_tokens,
                      "mean_seconds": s.mean_seconds} for t, s in run.tiers.items()},
        "questions": len(run.questions), "judged": len(run.judged),
        "unfinished": len(run.questions) - len(run.judged),
    }


def json_questions(store: Store, rows: list[dict[str, Any]],
                   typed: dict[int, StoredQuestion] | None = None,
                   words=None) -> Iterator[dict[str, Any]]:
    """The ``questions`` entries of the JSON export: each stored row (``run_id`` dropped) with
    its steps as ``steps_detail``, read one question at a time; with ``words``, the line across
    judges in words as ``counterfactual_text``."""
    for row in rows:
        q = {k: v for k, v in row.items() if k != "run_id"}
        if words is not None and typed and row["id"] in typed:
            q["counterfactual_text"] = _line(typed[row["id"]], words)
        q["steps_detail"] = [{k: v for k, v in s.items() if k not in ("run_id", "question_row_id")}
                             for s in step_rows(store, row["id"])]
        yield q

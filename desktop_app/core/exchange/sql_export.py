"""A stored SQL evaluation as CSV (one row per question, one per agent step) and as JSON.

The pass counts per judge and tier come from :func:`desktop_app.core.sqleval.export.summarize`
over the stored verdicts, the same function the run itself used, so the export and the app agree.
Every field is listed in docs/EXPORTS.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from desktop_app.core.sqleval.export import summarize
from desktop_app.core.sqleval.runner import ItemResult
from desktop_app.core.sqleval.types import JUDGE_MODES, QuestionOutcome, Verdict
from desktop_app.core.store import Store

QUESTION_COLUMNS = (
    "run_id", "question_row_id", "question_id", "epoch", "tier", "status", "stop_reason",
    "failure_class", "passed_strict", "passed_tolerant", "passed_full", "counterfactual",
    "steps", "prompt_tokens", "completion_tokens", "seconds", "final_sql", "result_columns",
    "result_total_rows", "result_error", "started_at", "ended_at",
)
STEP_COLUMNS = (
    "run_id", "question_row_id", "question_id", "epoch", "step_index", "tool_name",
    "tool_args", "tool_results", "reply", "prompt_tokens", "completion_tokens", "latency_s",
    "error",
)


def _verdicts(row: dict[str, Any]) -> dict[str, Any]:
    return ((row.get("verdicts_json") or {}).get("verdicts")) or {}


def _passed(row: dict[str, Any], judge: str) -> bool | None:
    verdict = _verdicts(row).get(judge)
    return None if verdict is None else bool(verdict.get("passed"))


def question_row(run_id: int, row: dict[str, Any]) -> dict[str, Any]:
    """One row of ``questions.csv``; ``passed_<judge>`` is empty when that judge did not run."""
    result = row.get("result_json") or {}
    out = {k: row.get(k) for k in QUESTION_COLUMNS}
    out.update(
        run_id=run_id, question_row_id=row["id"],
        counterfactual=(row.get("verdicts_json") or {}).get("counterfactual"),
        result_columns=json.dumps(result.get("columns") or [], ensure_ascii=False),
        result_total_rows=result.get("total_rows"), result_error=result.get("error"),
    )
    for judge in JUDGE_MODES:
        out[f"passed_{judge}"] = _passed(row, judge)
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


def _item(row: dict[str, Any]) -> ItemResult:
    verdicts = {j: Verdict(j, bool(v.get("passed")), (), v.get("tolerance"))
                for j, v in _verdicts(row).items()}
    outcome = QuestionOutcome(
        question_id=row["question_id"], tier=row.get("tier") or "", epoch=row.get("epoch") or 0,
        steps=(), stop_reason=row.get("stop_reason") or "", final_sql=row.get("final_sql"),
        result=None, result_error=None, verdicts=verdicts,
        prompt_tokens=row.get("prompt_tokens") or 0,
        completion_tokens=row.get("completion_tokens") or 0, seconds=row.get("seconds") or 0.0)
    return ItemResult(outcome, (row.get("verdicts_json") or {}).get("counterfactual") or "",
                      steps=row.get("steps") or 0, row_id=row["id"])


def summary_json(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Pass counts per judge (overall and per tier) and mean effort per tier, of judged rows."""
    judged = [r for r in rows if _verdicts(r)]
    judges = tuple(j for j in JUDGE_MODES if any(j in _verdicts(r) for r in judged))
    by_judge, tiers, _ = summarize([_item(r) for r in judged], judges)
    return {
        "judges": {j: {"passed": s.passed, "total": s.total,
                       "by_tier": {t: {"passed": p, "total": n} for t, (p, n) in s.by_tier.items()}}
                   for j, s in by_judge.items()},
        "tiers": {t: {"questions": s.questions, "mean_steps": s.mean_steps,
                      "mean_prompt_tokens": s.mean_prompt_tokens,
                      "mean_completion_tokens": s.mean_completion_tokens,
                      "mean_seconds": s.mean_seconds} for t, s in tiers.items()},
        "questions": len(rows), "judged": len(judged),
    }


def json_questions(store: Store, rows: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The ``questions`` entries of the JSON export: each stored row (``run_id`` dropped) with
    its steps as ``steps_detail``, read one question at a time."""
    for row in rows:
        q = {k: v for k, v in row.items() if k != "run_id"}
        q["steps_detail"] = [{k: v for k, v in s.items() if k not in ("run_id", "question_row_id")}
                             for s in store.sql_steps(row["id"])]
        yield q

"""Where a benchmark's official rule and Throughline's full judge disagree, question by question.

A run on an imported set summarises full and the benchmark's rule (spider2, bird or
test-suite, `judges.default_judges`); their pass rates differ for reasons a user must be able
to read before quoting either. `disagreements` lists each question where they part, with the
failing side's first finding and, when the official rule passes what full fails, which of its
leniencies let it through (`LENIENCIES`: a code, said in words by report/judge_words.py).

Values only: the words are report/judge_words.py's (`disagreement_lines`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from desktop_app.core.sqleval.judges import get_judge
from desktop_app.core.sqleval.types import JudgeFinding, Verdict

OURS = "full"  # the judge an official rule is set beside: every row, like the benchmarks

# Which leniency of an official rule passes what full fails, by full's first finding.
LENIENCIES = ("extra_columns", "names_ignored", "within_001", "order_ignored",
              "columns_any_order", "set_of_rows", "rule")
_FORGIVES: dict[str, dict[str, str]] = {
    "spider2": {"column_count": "extra_columns", "column_names": "names_ignored",
                "value_mismatch": "within_001", "rounding_only": "within_001",
                "order_only": "order_ignored"},
    "bird": {"duplicates_only": "set_of_rows", "row_count": "set_of_rows",
             "order_only": "order_ignored", "column_names": "names_ignored"},
    "test-suite": {"value_mismatch": "columns_any_order", "column_names": "names_ignored",
                   "order_only": "order_ignored"},
}
_MAX_LISTED = 500


@dataclass(frozen=True)
class Disagreement:
    """One question (in one epoch) on which `official` and full part. `official_passed` says
    which side passed; `finding` is the failing side's first finding; `leniency` (a LENIENCIES
    code) why the official rule passed, when it did."""

    question_id: str
    epoch: int
    official: str
    official_passed: bool
    finding: JudgeFinding | None
    leniency: str | None = None


def official_judges(judges: Iterable[str]) -> tuple[str, ...]:
    """The benchmark rules among `judges`."""
    return tuple(j for j in judges if (spec := get_judge(j)) is not None and spec.benchmark)


def disagreements(items: Iterable[tuple[str, int, dict[str, Verdict]]],
                  judges: Iterable[str]) -> list[Disagreement]:
    """Every (question id, epoch, verdicts) where an official rule among `judges` and full
    reach different verdicts, in the order given (at most 500)."""
    officials = official_judges(judges)
    out: list[Disagreement] = []
    for qid, epoch, verdicts in items:
        ours = verdicts.get(OURS)
        for name in officials:
            theirs = verdicts.get(name)
            if ours is None or theirs is None or ours.passed == theirs.passed:
                continue
            failing = ours if theirs.passed else theirs
            first = failing.findings[0] if failing.findings else None
            leniency = None
            if theirs.passed:
                leniency = _FORGIVES.get(name, {}).get(first.code if first else "", "rule")
            out.append(Disagreement(qid, epoch, name, theirs.passed, first, leniency))
            if len(out) >= _MAX_LISTED:
                return out
    return out


def result_disagreements(result) -> list[Disagreement]:
    """`disagreements` of an EvalResult (its items and summarised judges)."""
    return disagreements(((i.outcome.question_id, i.outcome.epoch, i.outcome.verdicts)
                          for i in result.items), result.judges)

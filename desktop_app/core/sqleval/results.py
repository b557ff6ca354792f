"""What a SQL evaluation produced: one `ItemResult` per question and epoch, the run's
`EvalResult`, and their summaries (pass counts per judge and tier, effort per tier, the spread
across epochs).

Shared by the runner that makes them, the records that read them back from the store and the
export that writes them, so none of those imports another for its types.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from desktop_app.core.runs import pass_count
from desktop_app.core.sqleval.types import (
    TIERS,
    Headline,
    JudgeFinding,
    QuestionOutcome,
    SkippedQuestion,
)

if TYPE_CHECKING:
    from desktop_app.core.endpoint.types import EndpointInfo
    from desktop_app.core.sqleval.config import EvalConfig

__all__ = ["EpochSpread", "EvalResult", "ItemResult", "JudgeSummary", "TierStats", "explained",
           "outcome", "passed", "summarize"]


@dataclass(frozen=True)
class JudgeSummary:
    """One judge over the run: `by_tier` maps a tier to (passed, total). Epochs are pooled."""

    judge: str
    passed: int
    total: int
    by_tier: dict[str, tuple[int, int]]


@dataclass(frozen=True)
class TierStats:
    """Effort per tier: means per question (and epoch) of steps and tokens."""

    tier: str
    questions: int
    mean_steps: float
    mean_prompt_tokens: float
    mean_completion_tokens: float
    mean_seconds: float


@dataclass(frozen=True)
class EpochSpread:
    """A judge's pass rate (0..1) in each epoch, their mean, population std, min and max."""

    judge: str
    rates: tuple[float, ...]
    mean: float
    std: float
    min: float
    max: float


def summarize(items: list[ItemResult], judges: tuple[str, ...]
              ) -> tuple[dict[str, JudgeSummary], dict[str, TierStats], dict[str, EpochSpread]]:
    """Per judge: passed/total and by tier; per tier: mean effort; per judge across epochs
    (when there are several): the pass rate's mean and spread."""
    summary = {}
    for judge in judges:
        by_tier: dict[str, tuple[int, int]] = {}
        for tier in TIERS:
            tier_items = [i for i in items if i.outcome.tier == tier]
            if tier_items:
                count = pass_count(outcome(i, judge) for i in tier_items)
                if count.judged:
                    by_tier[tier] = (count.passed, count.judged)
        count = pass_count(outcome(i, judge) for i in items)
        summary[judge] = JudgeSummary(judge, count.passed, count.judged, by_tier)
    tiers: dict[str, TierStats] = {}
    for tier in TIERS:
        group = [i for i in items if i.outcome.tier == tier]
        if group:
            tiers[tier] = TierStats(
                tier, len(group), statistics.fmean(i.steps for i in group),
                statistics.fmean(i.outcome.prompt_tokens for i in group),
                statistics.fmean(i.outcome.completion_tokens for i in group),
                statistics.fmean(i.outcome.seconds for i in group))
    epochs = sorted({i.outcome.epoch for i in items})
    spread = {}
    if len(epochs) > 1:
        for judge in judges:
            rates = []
            for epoch in epochs:
                rate = pass_count(outcome(i, judge) for i in items
                                  if i.outcome.epoch == epoch).rate
                if rate is not None:
                    rates.append(rate)
            if not rates:
                continue
            spread[judge] = EpochSpread(judge, tuple(rates), statistics.fmean(rates),
                                        statistics.pstdev(rates), min(rates), max(rates))
    return summary, tiers, spread


def explained(items) -> Counter:
    """How many answers each explanation code (`missing_round`, `alias_differs`,
    `window_frame`) was found in, each answer counted once per code: the seeds' "15 answers
    omitted ROUND(x, 2)". Takes ItemResults or stored questions (both carry `findings`)."""
    return Counter(code for item in items for code in {f.code for f in item.findings})


def outcome(item: ItemResult, judge: str) -> bool | None:
    """Whether `judge` passed this item; None when it did not judge it (a judge the question
    cannot take, an unfinished question): not judged is never counted as failed, as
    `core.runs.pass_count` counts it for every view."""
    verdict = item.outcome.verdicts.get(judge)
    return None if verdict is None else bool(verdict.passed)


def passed(item: ItemResult, judge: str) -> bool:
    """Whether `judge` passed this item (False when it was not judged)."""
    return bool(outcome(item, judge))


@dataclass(frozen=True)
class ItemResult:
    """One question in one epoch: the outcome, plus what the export and the GUI show beside it.

    `findings` are sqlglot's explanations of the final SQL (missing ROUND, alias differs, window
    frame); `steps` is the number of model calls (also set when re-judging, where `outcome.steps`
    is empty); `row_id` is the stored row, if stored.
    """

    outcome: QuestionOutcome
    counterfactual: Headline  # the line across judges, as values (report/judge_words)
    findings: tuple[JudgeFinding, ...] = ()
    steps: int = 0
    row_id: int | None = None


@dataclass
class EvalResult:
    """What an evaluation (or a re-judge) produced; `status` is completed or cancelled."""

    run_id: int | None
    set_name: str
    model: str
    judges: tuple[str, ...]
    tolerance: float
    items: list[ItemResult] = field(default_factory=list)
    skipped: list[SkippedQuestion] = field(default_factory=list)
    config: EvalConfig | None = None  # None for a re-judge
    info: EndpointInfo | None = None
    status: str = "completed"
    simulated: bool = False
    rejudged: bool = False
    summary: dict[str, JudgeSummary] = field(default_factory=dict)
    tiers: dict[str, TierStats] = field(default_factory=dict)
    epochs: dict[str, EpochSpread] = field(default_factory=dict)  # only with several epochs

    @property
    def outcomes(self) -> list[QuestionOutcome]:
        """Every question's outcome, in the order they finished."""
        return [item.outcome for item in self.items]

    def finalize(self) -> EvalResult:
        """Fill `summary`, `tiers` and `epochs` from `items`; returns self."""
        self.summary, self.tiers, self.epochs = summarize(self.items, self.judges)
        return self

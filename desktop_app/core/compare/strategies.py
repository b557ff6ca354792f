"""The fast path, the tool loop and the layered strategy compared on the same endpoint.

The seeds advise a layered strategy: a one-shot answer first (the fast path), the tool loop only
when that answer fails the harness's checks. Whether it pays is a question in tasks: how many
correct answers an hour, how many tokens per correct answer, under each success criterion
(the strict, tolerant and full judges). Two sources answer it:

* **Runs that differ only in strategy.** SQL runs of a comparison that share the endpoint
  (`RunInfo.target_key`), the model and the question set form a :class:`StrategyGroup` when at
  least two strategies are among them. A run's strategy (`strategy_of`): "layered" when it ran
  with `--strategy layered`, "fast" with `--tool-mode text` (one request without tools, one
  fenced SQL block), else "loop" (the tool loop); any other strategies chosen are kept as
  `extras` (format-guard, ...). Per judge, three rows, each a
  :class:`~desktop_app.core.compare.dimensions.DimensionRow` decided on noise exactly as the
  comparison's other rows (so `report.verdicts.render_row` words them):

  - `strategy_pass_rate`: passed / judged; the exact McNemar test on the (question, epoch)
    pairs the runs share, Wilson intervals when they share none;
  - `strategy_correct_per_hour`: 3600 x passed / the judged questions' wall seconds summed, i.e.
    correct answers per hour of one agent working question after question (the run's own
    measured seconds, queueing at its concurrency included; no throughput sweep needed);
  - `strategy_tokens_per_correct`: (prompt + completion tokens of the judged questions) /
    passed.

  The last two are ratios of sums; their 95 % interval is a bootstrap over the questions
  (2000 resamples of (numerator, denominator) pairs, seeded from the data), and a winner needs
  non-overlapping intervals and `stats.MIN_EFFECT` (10 %), as everywhere else. A run that
  passed nothing has no tokens per correct answer (n/a, never infinity).

* **Inside one layered run.** Which path answered each question is stored with its verdicts
  (`verdicts_json["layered"]`: path and reason); `path_split` counts, per path, the questions,
  passes per judge, mean tokens and seconds, and why the loop was entered (`route_code`).

No words here: codes and values; `desktop_app.report.strategy_section` says them in English and
Chinese, the GUI through its translations.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from desktop_app.core.compare.dimensions import (
    DimensionRow,
    DimValue,
    _decide,
    _mcnemar,
    wilson,
)
from desktop_app.core.runs import RunInfo
from desktop_app.core.sqleval.records import SqlRun, compared_judges
from desktop_app.core.sqleval.judges import judge_names
from desktop_app.core.stats import ratio_estimate

__all__ = ["FIGURES", "KINDS", "PATHS", "ROUTE_CODES", "LayeredPath", "PathEntry", "PathShare",
           "StrategyGroup", "StrategyReport", "StrategyRun", "check_problems",
           "compare_strategies", "path_split", "ratio_estimate", "run_paths",
           "route_code", "run_split", "strategy_of"]

KINDS = ("fast", "loop", "layered")
PATHS = ("fast", "loop")
FIGURES = ("pass_rate", "correct_per_hour", "tokens_per_correct")
# Why a layered question took its path (from the stored reason, see agent.LayeredRoute).
ROUTE_CODES = ("validated", "validation_failed", "no_fast_answer", "structured", "always_loop",
               "other")


# --------------------------------------------------------------------------- one layered run


@dataclass(frozen=True)
class LayeredPath:
    """Which path answered one question of a layered run ("fast" or "loop") and the stored
    reason, as the runner wrote it ("validated", "validation failed: ...", ...)."""

    path: str
    reason: str = ""

    @property
    def code(self) -> str:
        return route_code(self.reason)[0]

    @property
    def detail(self) -> str:
        return route_code(self.reason)[1]


def route_code(reason: str | None) -> tuple[str, str]:
    """A stored route reason as (code of :data:`ROUTE_CODES`, detail): "validation failed:
    column x must be rounded" -> ("validation_failed", "column x must be rounded"),
    "structured: tier hard" -> ("structured", "hard"), "fast path ended step_budget without an
    answer" -> ("no_fast_answer", "step_budget")."""
    text = (reason or "").strip()
    if text == "validated":
        return "validated", ""
    if text == "always-loop":
        return "always_loop", ""
    if text.startswith("validation failed:"):
        return "validation_failed", text.split(":", 1)[1].strip()
    if text.startswith("structured: tier "):
        return "structured", text[len("structured: tier "):].strip()
    if text.startswith("fast path ended "):
        return "no_fast_answer", text[len("fast path ended "):].split(" ", 1)[0]
    return "other", text


_PROBLEMS = (
    ("query_failed", re.compile(r"^the query failed: (?P<error>.*)$", re.S)),
    ("no_rows", re.compile(r"^the query returned no rows")),
    ("columns", re.compile(r"^the output columns are (?P<columns>\[.*?\]) but the question asks "
                           r"for exactly (?P<required>\[.*?\])")),
    ("rounding", re.compile(r"^column (?P<column>\S+) must be rounded to (?P<decimals>\d+) "
                            r"decimals .* has values like (?P<value>.*)$", re.S)),
)


def check_problems(detail: str) -> list[tuple[str, dict[str, str]]]:
    """The harness's check findings in a "validation failed" reason as (code, params):
    "query_failed" {error}, "no_rows", "columns" {columns, required}, "rounding" {column,
    decimals, value}, else "other" {text}. The runner stores them as the words it sent the
    model (`sqleval.strategies.check_submission`), "; "-joined."""
    out: list[tuple[str, dict[str, str]]] = []
    for part in (p.strip() for p in detail.split("; ") if p.strip()):
        if part == "check the filters and joins":  # the tail of the no-rows finding
            continue
        for code, pattern in _PROBLEMS:
            m = pattern.match(part)
            if m:
                out.append((code, m.groupdict()))
                break
        else:
            out.append(("other", {"text": part}))
    return out


def run_paths(run: SqlRun) -> dict[int, LayeredPath]:
    """Question row id -> the path that answered it, for a loaded layered run (empty for any
    other run): `StoredQuestion.path` and `route_reason`. Pure."""
    return {q.row_id: LayeredPath(q.path, q.route_reason) for q in run.questions
            if q.path in PATHS}


@dataclass(frozen=True)
class PathEntry:
    """One question as `path_split` counts it: its path and reason, passed per judge (a judge
    missing: not judged), tokens (prompt + completion) and wall seconds."""

    path: str | None
    reason: str
    passed: Mapping[str, bool]
    tokens: int
    seconds: float


@dataclass(frozen=True)
class PathShare:
    """One path of a layered run: `questions` it answered of `total` judged, passes per judge,
    mean tokens and seconds per question, and why questions took it (route code -> count)."""

    path: str
    questions: int
    total: int
    passed: dict[str, int] = field(hash=False)
    tokens_per_question: float | None = None
    seconds_per_question: float | None = None
    reasons: tuple[tuple[str, int], ...] = ()

    @property
    def share(self) -> float:
        return self.questions / self.total if self.total else 0.0


def path_split(entries: Iterable[PathEntry], judges: Sequence[str] | None = None
               ) -> tuple[PathShare, ...]:
    """Per path (fast, then loop): the questions it answered, passes per judge, mean tokens
    and seconds; empty when no entry has a path (not a layered run). Pure."""
    judges = judge_names() if judges is None else judges
    items = [e for e in entries if e.passed]
    if not any(e.path for e in items):
        return ()
    out = []
    for path in PATHS:
        group = [e for e in items if e.path == path]
        n = len(group)
        reasons = Counter(route_code(e.reason)[0] for e in group)
        out.append(PathShare(
            path, n, len(items), {j: sum(bool(e.passed.get(j)) for e in group) for j in judges},
            sum(e.tokens for e in group) / n if n else None,
            sum(e.seconds for e in group) / n if n else None,
            tuple(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])))))
    return tuple(out)


def run_split(sql: SqlRun, paths: Mapping[int, LayeredPath] | None = None
              ) -> tuple[PathShare, ...]:
    """`path_split` of a stored run's judged questions, their paths from `paths` (default: the
    ones its questions carry, `run_paths`)."""
    paths = run_paths(sql) if paths is None else paths
    return path_split((PathEntry(p.path if (p := paths.get(q.row_id)) else None,
                                 p.reason if p else "", q.passed, q.tokens, q.seconds)
                       for q in sql.judged), sql.judges)


# --------------------------------------------------------------------------- runs compared


def strategy_of(info: RunInfo) -> tuple[str, tuple[str, ...]]:
    """(kind, extras): kind "layered", "fast" (text mode: one request without tools) or
    "loop"; extras the other strategies the run chose, in their stored order."""
    config = info.config if isinstance(info.config, dict) else {}
    chosen = tuple(str(s) for s in config.get("strategies") or ())
    if "layered" in chosen:
        kind = "layered"
    elif config.get("tool_mode") == "text":
        kind = "fast"
    else:
        kind = "loop"
    return kind, tuple(s for s in chosen if s != "layered")


@dataclass(frozen=True)
class StrategyRun:
    """One SQL run as a strategy: its id and label, kind and extra strategies, judged
    questions, and (a layered run whose paths were read) the split per path."""

    run_id: int
    label: str
    kind: str
    extras: tuple[str, ...]
    questions: int
    split: tuple[PathShare, ...] = ()
    run: SqlRun | None = field(default=None, hash=False, compare=False, repr=False)


@dataclass(frozen=True)
class StrategyGroup:
    """SQL runs of one endpoint, model and question set that differ in strategy, and one
    :class:`DimensionRow` per (judge, figure): key `strategy_<figure>`, params {"judge",
    "figure"}, one value per run in `runs` order, the verdict decided on noise."""

    target: str
    model: str
    set_name: str
    runs: tuple[StrategyRun, ...]
    rows: tuple[DimensionRow, ...]
    # (judge, figure, winner, loser): every pair of runs whose own row, decided on the two
    # alone, names a winner; a row names only the best against the runner-up, so with three
    # strategies a loser behind two about-even leaders is said here.
    beats: tuple[tuple[str, str, int, int], ...] = ()

    def row(self, judge: str, figure: str) -> DimensionRow | None:
        return next((r for r in self.rows if r.params.get("judge") == judge
                     and r.params.get("figure") == figure), None)

    @property
    def judges(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.params["judge"] for r in self.rows))


@dataclass(frozen=True)
class StrategyReport:
    """The groups of runs that differ in strategy, and every layered run with its path split
    (whether or not it is in a group)."""

    groups: tuple[StrategyGroup, ...] = ()
    layered: tuple[StrategyRun, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.groups or self.layered)


def _figure_row(runs: Sequence[SqlRun], judge: str, figure: str) -> DimensionRow:
    vals = []
    for r in runs:
        qs = [q for q in r.judged if q.outcome(judge) is not None]
        ok = [float(bool(q.outcome(judge))) for q in qs]
        detail = {"passed": int(sum(ok)), "total": len(qs), "client_bound": False}
        if figure == "pass_rate":
            est = wilson(int(sum(ok)), len(qs))
        elif figure == "correct_per_hour":
            est = ratio_estimate(ok, [q.seconds for q in qs], 3600.0)
        else:
            est = ratio_estimate([q.tokens for q in qs], ok)
        vals.append(DimValue(est.value, est, detail=detail) if est is not None else DimValue())
    values = tuple(vals)
    if figure == "pass_rate":
        verdict = _decide(values, "higher", points=True, pair_test=_mcnemar(runs, judge, None))
        unit, better = "fraction", "higher"
    elif figure == "correct_per_hour":
        verdict, unit, better = _decide(values, "higher"), "/h", "higher"
    else:
        verdict, unit, better = _decide(values, "lower"), "tokens", "lower"
    return DimensionRow(f"strategy_{figure}", unit, values, verdict,
                        {"judge": judge, "figure": figure},
                        "higher" if better == "higher" else "lower", "sql")


def _strategy_run(r: SqlRun, paths: Mapping[int, Mapping[int, LayeredPath]]) -> StrategyRun:
    kind, extras = strategy_of(r.info)
    own = paths.get(r.info.id) or run_paths(r)
    return StrategyRun(r.info.id, r.info.label, kind, extras, len(r.judged),
                       run_split(r, own) if own else (), r)


def compare_strategies(runs: Iterable, paths: Mapping[int, Mapping[int, LayeredPath]]
                       | None = None) -> StrategyReport:
    """Group the SQL runs among `runs` by endpoint, model and question set; every group holding
    at least two strategies (`strategy_of`, extras included) gets its rows (module doc).
    `paths` (run id -> question row id -> LayeredPath) overrides the split per path that the
    layered runs' questions carry (`run_paths`). Pure."""
    paths = paths or {}
    sqls = [r for r in runs if isinstance(r, SqlRun)]
    groups: dict[tuple[str, str, str], list[SqlRun]] = {}
    for r in sqls:
        config = r.info.config if isinstance(r.info.config, dict) else {}
        key = (r.info.target_key, r.info.model, str(config.get("set_name") or ""))
        groups.setdefault(key, []).append(r)
    out = []
    for (target, model, set_name), members in groups.items():
        if len({strategy_of(r.info) for r in members}) < 2:
            continue
        judges = list(compared_judges(members))
        rows = tuple(_figure_row(members, j, f) for j in judges for f in FIGURES)
        beats = []
        for j in judges:
            for f in FIGURES:
                for a in range(len(members)):
                    for b in range(a + 1, len(members)):
                        v = _figure_row([members[a], members[b]], j, f).verdict
                        if v.winner is not None:
                            w = (a, b)[v.winner]
                            beats.append((j, f, w, b if w == a else a))
        out.append(StrategyGroup(target, model, set_name,
                                 tuple(_strategy_run(r, paths) for r in members), rows,
                                 tuple(beats)))
    layered = tuple(_strategy_run(r, paths) for r in sqls
                    if strategy_of(r.info)[0] == "layered")
    return StrategyReport(tuple(out), layered)

"""A question's accepted answers, read whole, and an answer judged against any of them.

A question accepts the result of its gold SQL, of each alternative gold SQL, and of each gold
result file (Spider2 gives `local055_a.csv` and `local055_b.csv`, and no SQL). An answer passes a
judge when it matches ANY accepted answer under that judge; a pass on an answer other than the
first says which (`matched_alternative`), a fail with several says none matched
(`no_alternative_matched`) and carries the findings against the nearest (`_distance`: the
accepted answer it differs from least, the first on a tie).

Results are judged whole. The sandbox hands the model at most 10,000 rows; when either side of a
comparison was cut there, both are read again with `JUDGE_MAX_ROWS` rows and `JUDGE_TIME_LIMIT_S`
seconds, so a correct 156,870-row answer in another order passes `full`. A verdict that still
rests on cut results carries `truncated_comparison` (the row counts are still the full counts).

Everything here blocks (SQLite); call it from a thread in async code.
"""

from __future__ import annotations

import csv
import dataclasses
import io
from dataclasses import dataclass
from pathlib import Path

from desktop_app.core.files import LocalFileError, inside, read_bounded
from desktop_app.core.parsing import number_or_text
from desktop_app.core.sqleval.judge import degenerate, judge_all
from desktop_app.core.sqleval.judges import default_judges
from desktop_app.core.sqleval.sandbox import Sandbox, SandboxError
from desktop_app.core.sqleval.types import JudgeFinding, Question, QueryResult, Verdict

# The notes judge_answer adds to a verdict, as (code, form) (see judge.FINDING_FORMS).
NOTE_FORMS: tuple[tuple[str, str | None], ...] = (
    ("matched_alternative", None), ("no_alternative_matched", None),
    ("no_alternative_matched", "nearest"),
    ("truncated_comparison", None),
)
JUDGE_MAX_ROWS = 500_000  # rows per side a judge reads (about 100 MB at 5 columns)
JUDGE_TIME_LIMIT_S = 30.0  # per query read again for judging
MAX_GOLD_FILE_BYTES = 64 * 1024 * 1024


class GoldError(ValueError):
    """A question whose accepted answers cannot be read; the text says which and why."""


@dataclass(frozen=True)
class Gold:
    """One accepted answer: `label` names it for findings ("gold SQL", "alternative 2",
    "local055_b.csv"), `sql` is None for a result file."""

    label: str
    result: QueryResult
    sql: str | None = None


def _csv_value(text: str):
    """A gold file's cell as SQLite would have returned it: empty is NULL (pandas, which
    Spider2's evaluator uses, reads it as NaN), integers and finite floats are numbers."""
    return None if text == "" else number_or_text(text)


def read_gold_csv(path: Path, *, max_rows: int = JUDGE_MAX_ROWS,
                  max_bytes: int = MAX_GOLD_FILE_BYTES,
                  folder: Path | None = None) -> QueryResult:
    """A gold result file (CSV with a header row) as a QueryResult. Raises GoldError naming the
    file and line when it is missing, too large, not a regular file, not UTF-8, has rows of
    another width, or (with `folder`) resolves outside `folder` (a planted symlink)."""
    path = Path(path)
    try:
        if folder is not None:
            inside(path, folder)
        text = read_bounded(path, max_bytes, what="a gold file").decode("utf-8-sig")
    except LocalFileError as exc:
        raise GoldError(f"gold file {path.name}: {exc}") from None
    except UnicodeDecodeError as exc:
        raise GoldError(f"gold file {path.name}: not UTF-8 (byte offset {exc.start})") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
        if not header:
            raise GoldError(f"gold file {path.name}: empty (a header row is needed)")
        rows: list[tuple] = []
        total = 0
        for row in reader:
            if len(row) != len(header):
                raise GoldError(f"gold file {path.name}:{reader.line_num}: {len(row)} values, "
                                f"the header has {len(header)}")
            total += 1
            if len(rows) < max_rows:
                rows.append(tuple(_csv_value(v) for v in row))
    except csv.Error as exc:
        raise GoldError(f"gold file {path.name}:{reader.line_num}: {exc}") from None
    return QueryResult(tuple(header), tuple(rows), total, truncated=total > max_rows)


def gold_answers(question: Question, sandbox: Sandbox) -> tuple[Gold, ...]:
    """Every accepted answer of `question`, in order: gold SQL, alternatives, result files.
    Raises GoldError ("gold SQL failed: no such column: x") when any of them cannot be read."""
    golds: list[Gold] = []
    sqls = ([question.gold_sql] if question.gold_sql.strip() else []) + list(
        question.gold_alternatives)
    # Alternatives are numbered from 1 whether or not a main gold SQL comes first.
    first_alt = 0 if question.gold_sql.strip() else 1
    for number, sql in enumerate(sqls):
        label = "gold SQL" if number + first_alt == 0 else (
            f"alternative gold SQL {number + first_alt}")
        try:
            golds.append(Gold(label, sandbox.run(sql), sql))
        except SandboxError as exc:
            raise GoldError(f"{label} failed: {exc}") from None
    for file in question.gold_files:
        golds.append(Gold(Path(file).name, read_gold_csv(Path(file))))
    if not golds:
        raise GoldError("no gold: neither a gold SQL nor a gold result file")
    return tuple(golds)


def whole(sandbox: Sandbox, sql: str | None, result: QueryResult) -> QueryResult:
    """`result` read again with the judge's row cap when the sandbox cut it (else as is; also
    as is when reading it again fails or runs out of time)."""
    if not result.truncated or not sql:
        return result
    try:
        return sandbox.run(sql, max_rows=JUDGE_MAX_ROWS, time_limit_s=JUDGE_TIME_LIMIT_S)
    except SandboxError:
        return result


def same_rows_in_sql(sandbox: Sandbox, gold_sql: str, answer_sql: str, columns: int
                     ) -> bool:
    """Whether two queries return the same rows as multisets (any order, duplicates counted,
    values exactly equal), decided in SQLite itself: for results past the judge's row cap,
    which Python only holds the first rows of. False when it cannot tell in time."""
    if columns < 1:
        return False
    by = ", ".join(str(i) for i in range(1, columns + 1))

    def counted(sql: str) -> str:
        # The newlines keep a trailing "-- comment" from eating the ")".
        return f"SELECT *, count(*) FROM (\n{sql}\n) GROUP BY {by}"

    g, a = counted(gold_sql), counted(answer_sql)
    check = (f"SELECT NOT EXISTS (SELECT * FROM ({g} EXCEPT {a})) "
             f"AND NOT EXISTS (SELECT * FROM ({a} EXCEPT {g}))")
    try:
        return sandbox.run(check, time_limit_s=JUDGE_TIME_LIMIT_S).rows == ((1,),)
    except SandboxError:
        return False


def judge_answer(question: Question, golds: tuple[Gold, ...], actual: QueryResult | None, *,
                 sandbox: Sandbox | None = None, modes: tuple[str, ...] | None = None,
                 final_sql: str | None = None, error: str | None = None,
                 stop_reason: str = "submitted", tolerance: float = 1e-6,
                 ignore_names: bool = False) -> dict[str, Verdict]:
    """Every judge in `modes` on `actual` against the accepted answers (arguments as for
    `judge.judge_all`). With `sandbox`, results cut at the sandbox's cap are read whole first
    (the answer through `final_sql`, each SQL gold through its SQL)."""
    if not golds:
        raise GoldError("no gold to judge against")
    if sandbox is not None and actual is not None and (
            actual.truncated or any(g.result.truncated for g in golds)):
        actual = whole(sandbox, final_sql, actual)
        golds = tuple(dataclasses.replace(g, result=whole(sandbox, g.sql, g.result))
                      for g in golds)
    # Past the judge's cap, whether the rows are the same in any order is asked of SQLite: the
    # first 500,000 rows of an answer that orders them are another 500,000 than the gold's.
    same_in_sql: dict[int, bool] = {}
    if sandbox is not None and actual is not None and final_sql:
        for i, g in enumerate(golds):
            if g.sql and (actual.truncated or g.result.truncated) and len(
                    g.result.columns) == len(actual.columns):
                same_in_sql[i] = same_rows_in_sql(sandbox, g.sql, final_sql,
                                                  len(actual.columns))
    modes = default_judges(True) if modes is None else modes
    judged: list[dict[str, Verdict]] = []

    def against(index: int) -> dict[str, Verdict]:
        while len(judged) <= index:
            gold = golds[len(judged)]
            asked = question if gold.sql is None or gold.sql == question.gold_sql else (
                dataclasses.replace(question, gold_sql=gold.sql))
            judged.append(judge_all(asked, gold.result, actual, modes=modes,
                                    final_sql=final_sql, error=error, stop_reason=stop_reason,
                                    tolerance=tolerance, ignore_names=ignore_names,
                                    gold_label=gold.label, gold_from_file=gold.sql is None,
                                    same_rows=same_in_sql.get(len(judged), False)))
        return judged[index]

    verdicts: dict[str, Verdict] = {}
    for mode in modes:
        index = next((i for i in range(len(golds)) if against(i)[mode].passed), None)
        nearest = 0
        if index is None and len(golds) > 1 and actual is not None:
            nearest = min(range(len(golds)), key=lambda i: (_distance(against(i)[mode]), i))
        verdict = against(nearest if index is None else index)[mode]
        notes: list[JudgeFinding] = []
        if index is not None and index > 0:
            # Labels as Gold names them ("gold SQL", "alternative gold SQL 2", a file name);
            # report/question_words.gold_label puts them in words.
            notes.append(JudgeFinding("matched_alternative", {
                "index": index + 1, "total": len(golds), "label": golds[index].label,
                "first": golds[0].label}))
        elif index is None and len(golds) > 1 and actual is not None:
            notes.append(JudgeFinding("no_alternative_matched", {
                "form": "nearest", "total": len(golds), "index": nearest + 1,
                "label": golds[nearest].label, "first": golds[0].label}))
        chosen = nearest if index is None else index
        if not same_in_sql.get(chosen):  # SQLite compared them whole: nothing was left out
            notes += _truncation(actual, golds[chosen].result)
        if notes:
            verdict = dataclasses.replace(verdict, findings=verdict.findings + tuple(notes))
        verdicts[mode] = verdict
    return verdicts


# How far a failed verdict's answer is from its gold, by its first finding: a difference of
# rounding or order is nearer than different values, different values nearer than another row
# count, and another shape (names, column count) farthest.
_NEAR = ("rounding_only", "order_only", "value_mismatch", "duplicates_only", "row_count",
         "empty_result", "column_names", "column_count")


def _distance(verdict: Verdict) -> tuple[int, float]:
    """The failed `verdict`'s distance: its first finding's place in _NEAR, then how many
    cells differ (values) or how far apart the row counts are."""
    if not verdict.findings:
        return (0, 0.0)
    first = verdict.findings[0]
    rank = _NEAR.index(first.code) if first.code in _NEAR else len(_NEAR)
    p = first.params
    if first.code in ("row_count", "duplicates_only", "empty_result"):
        spread = abs(float(p.get("got") or 0) - float(p.get("expected") or 0))
    else:
        spread = float(p.get("differ") or 0)
    return (rank, spread)


def _truncation(actual: QueryResult | None, gold: QueryResult) -> list[JudgeFinding]:
    cut = [(side, r) for side, r in (("answer", actual), ("gold", gold))
           if r is not None and r.truncated]
    if not cut:
        return []
    return [JudgeFinding("truncated_comparison", {"parts": [
        {"side": side, "rows": len(r.rows), "total": r.total_rows} for side, r in cut]})]


# --- checking a whole set ----------------------------------------------------------------------

GOLD_PROBLEMS = (
    "gold_failed",  # an accepted answer cannot be read (SQL error, bad result file)
    "gold_empty",  # an accepted answer has no rows: any empty answer passes
    "gold_null_only",  # an accepted answer holds only NULLs
    "columns_differ",  # the gold's columns are not the question's required_columns
)


@dataclass(frozen=True)
class GoldProblem:
    """One problem `check_set` found: a GOLD_PROBLEMS code, and what it is about (the gold's
    label, the error text or the columns), for the CLI and the GUI to put in words."""

    question_id: str
    source: str
    code: str
    detail: str = ""  # the gold's label, or the error text for gold_failed
    columns: tuple[str, ...] = ()  # columns_differ: what the gold returns
    required: tuple[str, ...] = ()  # columns_differ: what the question requires


@dataclass(frozen=True)
class SetCheck:
    """What `check_set` found: how many questions it ran, their problems, and whether the set
    names its output columns (`asks_columns`; when not, strict and tolerant compare names the
    questions never asked for)."""

    questions: int
    golds: int
    problems: tuple[GoldProblem, ...]
    asks_columns: bool

    def unusable(self) -> set[str]:
        """Ids of the questions a run would skip (a gold fails or names other columns)."""
        return {p.question_id for p in self.problems
                if p.code in ("gold_failed", "columns_differ")}


def question_problems(question: Question, sandbox: Sandbox
                      ) -> tuple[tuple[Gold, ...], list[GoldProblem]]:
    """The question's accepted answers and their problems (no golds when one cannot be read)."""
    where = (question.id, question.source)
    try:
        golds = gold_answers(question, sandbox)
    except GoldError as exc:
        return (), [GoldProblem(*where, "gold_failed", str(exc))]
    problems = []
    for gold in golds:
        kind = degenerate(gold.result)
        if kind is not None:
            problems.append(GoldProblem(*where, f"gold_{kind}", gold.label))
    first = golds[0]
    if question.required_columns and first.sql is not None and [
            c.lower() for c in first.result.columns] != [c.lower() for c in
                                                          question.required_columns]:
        problems.append(GoldProblem(*where, "columns_differ", first.label,
                                    tuple(first.result.columns), question.required_columns))
    return golds, problems


def check_set(databases: dict[str, Path], questions: tuple[Question, ...] | list[Question], *,
              asks_columns: bool = True, sql_time_limit_s: float = 5.0) -> SetCheck:
    """Run every accepted answer of every question once and report what is wrong with them."""
    problems: list[GoldProblem] = []
    golds = 0
    boxes: dict[str, Sandbox] = {}
    try:
        for q in questions:
            if q.database not in boxes:
                try:
                    boxes[q.database] = Sandbox(databases[q.database],
                                                time_limit_s=sql_time_limit_s)
                except (OSError, SandboxError, KeyError) as exc:
                    problems.append(GoldProblem(q.id, q.source, "gold_failed",
                                                f"database {q.database!r}: {exc}"))
                    continue
            found, issues = question_problems(q, boxes[q.database])
            golds += len(found)
            problems += issues
    finally:
        for box in boxes.values():
            box.close()
    return SetCheck(len(questions), golds, tuple(problems), asks_columns)

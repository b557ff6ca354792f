"""The SQL evaluation's questions as a table: one row per question and epoch, with its verdicts.

`QuestionRow` is the frozen record both a live run (`ItemResult`) and a stored run
(`StoredQuestion`, from `sqleval.records.load_eval`) are turned into; `QuestionTableModel` shows them, `QuestionFilterModel`
sorts and filters them by verdict.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush, QColor

from desktop_app.core.runs import PassCount, pass_count
from desktop_app.core.sqleval.export import failure_class
from desktop_app.core.sqleval.judges import default_judges, in_judge_order
from desktop_app.core.sqleval.types import TIERS
from desktop_app.gui.i18n import report_language, status_text, translate
from desktop_app.report.judge_words import JudgeWords, failure_class_text

if TYPE_CHECKING:
    from desktop_app.core.sqleval.records import StoredQuestion
    from desktop_app.core.sqleval.runner import ItemResult

_Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class QuestionRow:
    """One question in one epoch as the table shows it. `verdicts` maps a judge to passed (a
    judge missing: not judged, e.g. a cancelled question); `row_id` is the `sql_questions` row
    (None when not stored); `tokens` are prompt + completion; `seconds` wall time."""

    question_id: str
    tier: str
    epoch: int
    verdicts: dict[str, bool] = field(hash=False)
    failure_class: str | None
    steps: int
    tokens: int
    seconds: float
    status: str = "completed"
    row_id: int | None = None
    explained: frozenset[str] = frozenset()  # explanation codes of the answer (missing_round)
    # What the Inspector's search reads: the question's text (each language it has, one a
    # line), its final SQL and its gold SQL ("" where not known, e.g. a live row).
    text: str = ""
    final_sql: str = ""
    gold_sql: str = ""

    @classmethod
    def from_item(cls, item: ItemResult, judges: Sequence[str] = ("strict",)) -> QuestionRow:
        """A row from a question that just finished in a live run whose summarised judges are
        `judges` (the failure class follows them, as the stored row's does)."""
        o = item.outcome
        return cls(o.question_id, o.tier, o.epoch,
                   {j: v.passed for j, v in o.verdicts.items()},
                   failure_class(o.verdicts, tuple(judges)),
                   item.steps, o.prompt_tokens + o.completion_tokens, o.seconds,
                   "completed", item.row_id, frozenset(f.code for f in item.findings),
                   final_sql=o.final_sql or "")

    @classmethod
    def from_stored(cls, question: StoredQuestion) -> QuestionRow:
        """A row from a stored question (`sqleval.records.load_eval`); a question the run
        never finished has no verdicts."""
        text = "\n".join(t for t in (question.text_en, question.text_zh) if t)
        return cls(question.question_id, question.tier, question.epoch, question.passed,
                   question.failure_class, question.step_count, question.tokens,
                   question.seconds, question.status, question.row_id,
                   frozenset(f.code for f in question.findings), text, question.final_sql)

    @property
    def judged(self) -> bool:
        """Finished and judged (as `StoredQuestion.judged`)."""
        return self.status == "completed" and bool(self.verdicts)

    def outcome(self, judge: str) -> bool | None:
        """Passed under `judge`; None when not judged (unfinished, or that judge not run), as
        `StoredQuestion.outcome` says it."""
        return self.verdicts.get(judge) if self.status == "completed" else None


# The verdict filter's values besides "fail:<judge>" and "pass:<judge>".
VERDICT_MIXED = "mixed"  # some judges passed it and some did not
VERDICT_UNJUDGED = "unjudged"
# The failure-class filter's value for the answers that passed.
CLASS_PASSED = "-"


def _folded(text: str) -> str:
    """Case and spacing ignored: what a search term is looked for in."""
    return " ".join(text.casefold().split())


def search_terms(text: str) -> tuple[str, ...]:
    """A search box's words, each looked for on its own; "double quotes" keep a phrase whole
    (an unmatched quote is read as a plain character)."""
    try:
        parts = shlex.split(text)
    except ValueError:
        parts = text.split()
    return tuple(t for t in (_folded(p) for p in parts) if t)


@dataclass(frozen=True)
class QuestionSearch:
    """What the Inspector's filter bar asks of a run's questions; '' means any.

    `text`: every term (`search_terms`) is found in the question's id, its text or its final or
    gold SQL, case and spacing ignored. `tier`: one tier. `failure_class`: one class code, or
    CLASS_PASSED for the answers the run's judges passed. `verdict`: "fail:<judge>",
    "pass:<judge>", VERDICT_MIXED or VERDICT_UNJUDGED."""

    text: str = ""
    tier: str = ""
    failure_class: str = ""
    verdict: str = ""

    @property
    def active(self) -> bool:
        return bool(search_terms(self.text) or self.tier or self.failure_class or self.verdict)

    def matches(self, row: QuestionRow, judges: Sequence[str] = ()) -> bool:
        """Whether `row` matches; `judges` are those the run summarised (VERDICT_MIXED reads
        only theirs; every stored verdict when empty)."""
        if self.tier and row.tier != self.tier:
            return False
        if self.failure_class:
            klass = row.failure_class or (CLASS_PASSED if row.judged else "")
            if klass != self.failure_class:
                return False
        if self.verdict and not self._verdict_matches(row, judges):
            return False
        terms = search_terms(self.text)
        if terms:
            haystack = _folded("\n".join((row.question_id, row.text, row.final_sql,
                                          row.gold_sql)))
            return all(t in haystack for t in terms)
        return True

    def _verdict_matches(self, row: QuestionRow, judges: Sequence[str]) -> bool:
        if self.verdict == VERDICT_UNJUDGED:
            return not row.judged
        if self.verdict == VERDICT_MIXED:
            outcomes = ({v for j, v in row.verdicts.items() if not judges or j in judges}
                        if row.judged else set())
            return outcomes == {True, False}
        wanted, _, judge = self.verdict.partition(":")
        return row.outcome(judge) is (wanted == "pass")

    def select(self, rows: Iterable[QuestionRow], judges: Sequence[str] = ()
               ) -> tuple[QuestionRow, ...]:
        """The rows that match, in their order."""
        return tuple(r for r in rows if self.matches(r, judges))


def rows_pass_count(rows: Iterable[QuestionRow], judge: str, tier: str | None = None
                    ) -> PassCount:
    """Passed / judged under `judge` (optionally in one tier), unfinished apart: the core's
    `pass_count`, the rule every view of a run uses."""
    return pass_count(r.outcome(judge) for r in rows if tier is None or r.tier == tier)


@dataclass(frozen=True)
class TierEffort:
    """Per tier: the pass count per judge, and the mean steps and tokens of the judged
    questions (for the tier chart)."""

    tier: str
    passed: dict[str, PassCount] = field(hash=False)
    mean_steps: float
    mean_tokens: float


def tier_effort(rows: Sequence[QuestionRow], judges: Sequence[str]) -> list[TierEffort]:
    """Pass counts and mean effort per tier (tiers with a judged question), in tier order."""
    out = []
    for tier in TIERS:
        group = [r for r in rows if r.tier == tier and r.judged]
        if group:
            n = len(group)
            out.append(TierEffort(tier, {j: rows_pass_count(rows, j, tier) for j in judges},
                                  sum(r.steps for r in group) / n,
                                  sum(r.tokens for r in group) / n))
    return out


# Columns: fixed ones around one verdict column per judge (judges keep their names: they are
# the values the command line takes too).
_HEAD = ("ID", QT_TRANSLATE_NOOP("QuestionTableModel", "Tier"),
         QT_TRANSLATE_NOOP("QuestionTableModel", "Epoch"))
_TAIL = (QT_TRANSLATE_NOOP("QuestionTableModel", "Failure class"),
         QT_TRANSLATE_NOOP("QuestionTableModel", "Steps"),
         QT_TRANSLATE_NOOP("QuestionTableModel", "Tokens"),
         QT_TRANSLATE_NOOP("QuestionTableModel", "Seconds"))
_PASS_BRUSH = QBrush(QColor("#1b7f3b"))
_FAIL_BRUSH = QBrush(QColor("#b3261e"))


class QuestionTableModel(QAbstractTableModel):
    """The questions of one SQL run: id, tier, epoch, PASS/FAIL per judge, failure class,
    steps, tokens and seconds."""

    COL_EPOCH = 2
    COL_FIRST_JUDGE = len(_HEAD)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._rows: list[QuestionRow] = []
        self.judges: tuple[str, ...] = default_judges(True)  # one verdict column each

    # ---- data in
    def set_rows(self, rows: Sequence[QuestionRow]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def add_row(self, row: QuestionRow) -> None:
        n = len(self._rows)
        self.beginInsertRows(QModelIndex(), n, n)
        self._rows.append(row)
        self.endInsertRows()

    def set_judges(self, judges: Sequence[str]) -> None:
        """One verdict column per judge the run summarised (in the judges' order): a run
        judged by full alone still stores strict's and tolerant's verdicts, which read as
        FAIL on a set whose questions name no columns."""
        chosen = in_judge_order(judges) or default_judges(True)
        if chosen != self.judges:
            self.beginResetModel()
            self.judges = chosen
            self.endResetModel()

    def clear(self) -> None:
        self.set_rows([])

    def rows(self) -> list[QuestionRow]:
        return list(self._rows)

    def row_at(self, row: int) -> QuestionRow:
        return self._rows[row]

    def pass_count(self, judge: str) -> PassCount:
        """Passed / judged under `judge`, unfinished rows counted apart."""
        return rows_pass_count(self._rows, judge)

    def explained_count(self, code: str) -> int:
        """How many judged answers carry the explanation `code` (e.g. missing_round)."""
        return sum(code in r.explained for r in self._rows if r.judged)

    def passed(self, judge: str) -> int:
        """How many rows `judge` passed."""
        return self.pass_count(judge).passed

    def max_epoch(self) -> int:
        return max((r.epoch for r in self._rows), default=0)

    # ---- Qt
    def _headers(self) -> tuple[str, ...]:
        # Judges by the report's names (strict / 严格), as the PDF and the Inspector say them.
        words = JudgeWords(report_language())
        return _HEAD + tuple(words.judge(j).capitalize() for j in self.judges) + _TAIL

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self._headers())

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return translate("QuestionTableModel", self._headers()[section])
        return None

    def _raw(self, row: QuestionRow, column: int) -> Any:
        """The value a column sorts by."""
        judges = len(self.judges)
        if column < len(_HEAD):
            return (row.question_id, TIERS.index(row.tier) if row.tier in TIERS else 99,
                    row.epoch)[column]
        if column < len(_HEAD) + judges:
            verdict = row.outcome(self.judges[column - len(_HEAD)])
            return -1 if verdict is None else int(verdict)
        return (row.failure_class or "", row.steps, row.tokens,
                row.seconds)[column - len(_HEAD) - judges]

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row, column = self._rows[index.row()], index.column()
        in_judges = len(_HEAD) <= column < len(_HEAD) + len(self.judges)
        if role == Qt.ItemDataRole.UserRole:
            return self._raw(row, column)
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 1:
                return row.tier
            if in_judges:
                verdict = self._raw(row, column)
                if verdict in (0, 1):
                    return JudgeWords(report_language()).outcome(bool(verdict))
                # Not judged: the question never finished (its status says why), or this
                # judge gave no verdict.
                return status_text(row.status) if row.status != "completed" else "-"
            if column == len(_HEAD) + len(self.judges):  # the code in words (English: code)
                return failure_class_text(row.failure_class, report_language())
            if column == self.columnCount() - 1:
                return f"{row.seconds:.2f}"
            if column == self.columnCount() - 2:
                return f"{row.tokens:,}"
            return str(self._raw(row, column))
        if role == Qt.ItemDataRole.ForegroundRole and in_judges:
            verdict = self._raw(row, column)
            return _PASS_BRUSH if verdict == 1 else _FAIL_BRUSH if verdict == 0 else None
        if role == Qt.ItemDataRole.TextAlignmentRole and column >= len(_HEAD) + len(
                self.judges) + 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and row.status != "completed":
            return f"{row.question_id}: {translate('RunStatus', row.status)}"
        return None


# The verdict filters the page offers: name -> which rows pass, given the judges the run
# summarised. The page shows each name translated (context "QuestionFilterModel").
FILTERS: dict[str, Any] = {
    QT_TRANSLATE_NOOP("QuestionFilterModel", "All questions"): lambda r, judges: True,
    QT_TRANSLATE_NOOP("QuestionFilterModel", "Failed strict"):
        lambda r, judges: r.outcome("strict") is False,
    QT_TRANSLATE_NOOP("QuestionFilterModel", "Fails strict but passes tolerant"):
        lambda r, judges: r.outcome("strict") is False and r.outcome("tolerant") is True,
    QT_TRANSLATE_NOOP("QuestionFilterModel", "Passed strict"):
        lambda r, judges: r.outcome("strict") is True,
    QT_TRANSLATE_NOOP("QuestionFilterModel", "Failed every judge"):
        lambda r, judges: r.judged and not any(r.outcome(j) for j in judges),
    QT_TRANSLATE_NOOP("QuestionFilterModel", "Not judged (cancelled)"):
        lambda r, judges: not r.judged,
}
# The judges a filter reads: offered only when the run summarised them all.
FILTER_JUDGES: dict[str, tuple[str, ...]] = {
    "Failed strict": ("strict",), "Fails strict but passes tolerant": ("strict", "tolerant"),
    "Passed strict": ("strict",)}


class QuestionFilterModel(QSortFilterProxyModel):
    """Sorts the questions by their raw values and keeps those a verdict filter (FILTERS) and
    an optional tier accept."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setSortRole(Qt.ItemDataRole.UserRole)
        self._filter = "All questions"
        self._tier = ""

    def set_verdict_filter(self, name: str) -> None:
        self.beginFilterChange()
        self._filter = name if name in FILTERS else "All questions"
        self.endFilterChange()

    def set_tier(self, tier: str) -> None:
        """Show only `tier` ("" or "all tiers": every tier)."""
        self.beginFilterChange()
        self._tier = "" if tier not in TIERS else tier
        self.endFilterChange()

    def filterAcceptsRow(self, source_row: int, source_parent: _Index) -> bool:  # noqa: N802
        model = self.sourceModel()
        if not isinstance(model, QuestionTableModel):
            return True
        row = model.row_at(source_row)
        return (not self._tier or row.tier == self._tier) and FILTERS[self._filter](
            row, model.judges)

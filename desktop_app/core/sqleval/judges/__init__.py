"""The judges an answer can be scored by: one module each in this package, found by name.

A judge is a `Judge` descriptor its module registers: its name (the code every view, export
and flag uses), its place among the judges (strictest first; the counterfactual quotes the
most lenient one that fails), how it compares column names, whether it compares numbers
within the tolerance, and `compare`, its value findings on a pair of results whose shapes
agree (the shared checks, column count, names and row count, are `judge.py`'s). A judge
with `whole` makes every check itself (a benchmark's own rule: Spider2's columns matched one
by one, BIRD's set of rows, test-suite's column permutations), and with `benchmark` it is that
benchmark's official rule, summarised by default on the sets imported from it. Adding a
judge is one module here that calls `register`, plus its words (docs/ARCHITECTURE.md,
"Adding a judge"); the CLI's `--judge` choices, the SQL form's boxes, the tables, the exports
and the comparison read `judge_names()`.

The package is read on first use (`core.registry.ModulesOnce`), so a module is registered
however the judges are first asked for.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from desktop_app.core.registry import ModulesOnce
from desktop_app.core.sqleval.types import JudgeFinding, Question

if TYPE_CHECKING:
    from desktop_app.core.sqleval.judge import Pair


@dataclass(frozen=True)
class Judge:
    """One judge. `compare(question, pair, tolerance)` returns the value findings (none: the
    values agree) on a pair whose column count and row count agree. `names` is how the shared
    check compares column names ("exact", or "nocase": case-insensitive); with
    `names_optional`, a set whose questions name no columns is judged with names ignored.
    `uses_tolerance`: the verdict carries the tolerance it compared numbers with. With
    `whole`, `compare` gets every pair (any shape) and makes every check itself: the shared
    column and row checks are skipped. `benchmark` is the question-set format (`importers.
    FORMATS`) whose official comparison this judge is: it is summarised by default on the sets
    imported from that benchmark, and only there."""

    name: str
    rank: int
    compare: Callable[[Question, Pair, float], list[JudgeFinding]]
    names: Literal["exact", "nocase", "ignore"] = "nocase"
    names_optional: bool = False
    uses_tolerance: bool = True
    whole: bool = False
    benchmark: str | None = None


_NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
_REGISTRY: dict[str, Judge] = {}
_load = ModulesOnce(__name__, __path__).load


def register(judge: Judge) -> Judge:
    """Add `judge` (a module's import calls this); a second judge of the same name replaces
    the first, so a module reloaded in a test does not make two."""
    if not _NAME.fullmatch(judge.name):
        raise ValueError(f"a judge's name is a code such as 'strict' or 'test-suite', not "
                         f"{judge.name!r}")
    _REGISTRY[judge.name] = judge
    return judge


def unregister(name: str) -> None:
    """Remove a judge (a test's toy judge)."""
    _REGISTRY.pop(name, None)


def all_judges() -> tuple[Judge, ...]:
    """Every registered judge, strictest first."""
    _load()
    return tuple(sorted(_REGISTRY.values(), key=lambda j: (j.rank, j.name)))


def judge_names() -> tuple[str, ...]:
    """The judges' names, strictest first: ("strict", "tolerant", "full", ...)."""
    return tuple(j.name for j in all_judges())


def get_judge(name: str) -> Judge | None:
    """The judge called `name`, or None."""
    _load()
    return _REGISTRY.get(name)


def in_judge_order(names) -> tuple[str, ...]:
    """`names` in the judges' order; names no judge has (a judge since removed, read from an
    old run) last, as they came."""
    order = {n: i for i, n in enumerate(judge_names())}
    names = list(dict.fromkeys(names))
    return tuple(sorted(names, key=lambda n: (order.get(n, len(order)), names.index(n))))


def default_judges(asks_columns: bool, benchmark: str = "") -> tuple[str, ...]:
    """The judges a run summarises when the user chose none: Throughline's own (every one
    when the questions name their columns, else those that can ignore names), then the
    official rule of the benchmark the set was imported from, if one is registered."""
    ours = [j.name for j in all_judges()
            if j.benchmark is None and (asks_columns or j.names_optional)]
    return (*ours, *(j.name for j in all_judges() if benchmark and j.benchmark == benchmark))

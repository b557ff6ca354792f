"""Plain-text tables of throughput cells, shared by `whatif` and the sweep's command line."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from desktop_app.core.metrics import CellSummary
from desktop_app.core.throughput import figures as cell_figures


@dataclass(frozen=True)
class CellRow:
    """One line of a cell table: the cell's shape, its summary and its change vs concurrency 1."""

    input_tokens: int | str  # or a distribution and what it sent, "N(512,128): 509 [301-716]"
    load: str  # "4" (concurrency) or "2/s" (open-loop rate)
    output_tokens: int | str
    summary: CellSummary
    prefill_change: float | None
    note: str = ""  # e.g. "client-bound", "time budget"


# The columns around the figures' (`throughput.figures.columns()`); all their words are the
# caller's (report.sweep_table_words.table_headers).
LEAD = ("input", "load", "output", "ok_n")
TRAIL = ("note",)


def table_columns() -> tuple[str, ...]:
    """The table's column keys, in order: the cell's shape and counts, every registered
    figure's columns, its note."""
    return LEAD + tuple(c.key for c in cell_figures.columns()) + TRAIL


def display_width(text: str) -> int:
    """Terminal columns `text` takes: a CJK character takes two."""
    return sum(2 if "\u2e80" <= ch <= "\uffef" else 1 for ch in text)


def format_cell_table(rows: Iterable[CellRow], headers: Sequence[str]) -> str:
    """An aligned text table, `headers` first (the caller's words, one per `table_columns()`);
    each figure column as its descriptor formats it."""
    figure_columns = cell_figures.columns()
    count = len(LEAD) + len(figure_columns) + len(TRAIL)
    if len(headers) != count:
        raise ValueError(f"{len(headers)} headers for {count} columns")
    lines: list[Sequence[str]] = [tuple(headers)]
    for r in rows:
        s = r.summary
        lines.append((str(r.input_tokens), r.load, str(r.output_tokens), f"{s.ok}/{s.count}",
                      *(c.text(r) for c in figure_columns), r.note))
    widths = [max(display_width(line[i]) for line in lines) for i in range(count)]
    return "\n".join(
        "  ".join(" " * (w - display_width(v)) + v for v, w in zip(line, widths)).rstrip()
        for line in lines
    )

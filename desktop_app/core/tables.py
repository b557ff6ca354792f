"""Plain-text tables of throughput cells, shared by `whatif` and the sweep's command line."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from desktop_app.core.metrics import CellSummary


@dataclass(frozen=True)
class CellRow:
    """One line of a cell table: the cell's shape, its summary and its change vs concurrency 1."""

    input_tokens: int
    load: str  # "4" (concurrency) or "2/s" (open-loop rate)
    output_tokens: int
    summary: CellSummary
    prefill_change: float | None
    note: str = ""  # e.g. "client-bound", "time budget"


# The columns, in order; their words are the caller's (report.sweep_table_words.CELL_TABLE).
COLUMNS = ("input", "load", "output", "ok_n", "ttft_p50", "ttft_p90", "prefill", "vs_c1",
           "decode", "tpot", "output_tps", "note")


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def _mean(dist) -> float | None:
    return None if dist is None else dist.mean


def display_width(text: str) -> int:
    """Terminal columns `text` takes: a CJK character takes two."""
    return sum(2 if "\u2e80" <= ch <= "\uffef" else 1 for ch in text)


def format_cell_table(rows: Iterable[CellRow], headers: Sequence[str]) -> str:
    """An aligned text table, `headers` first (the caller's words, one per COLUMNS); means
    unless the header says a percentile."""
    if len(headers) != len(COLUMNS):
        raise ValueError(f"{len(headers)} headers for {len(COLUMNS)} columns")
    lines: list[Sequence[str]] = [tuple(headers)]
    for r in rows:
        s = r.summary
        lines.append((
            str(r.input_tokens), r.load, str(r.output_tokens), f"{s.ok}/{s.count}",
            _fmt(None if s.ttft_s is None else s.ttft_s.p50, ".2f"),
            _fmt(None if s.ttft_s is None else s.ttft_s.p90, ".2f"),
            _fmt(_mean(s.prefill_tps), ".0f"),
            "-" if r.prefill_change is None else f"{r.prefill_change * 100:+.0f}%",
            _fmt(_mean(s.decode_tps), ".1f"),
            _fmt(None if s.tpot_s is None else s.tpot_s.mean * 1000, ".1f"),
            _fmt(s.output_tps, ".1f"),
            r.note,
        ))
    widths = [max(display_width(line[i]) for line in lines) for i in range(len(COLUMNS))]
    return "\n".join(
        "  ".join(" " * (w - display_width(v)) + v for v, w in zip(line, widths)).rstrip()
        for line in lines
    )

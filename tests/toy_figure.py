"""A toy figure written as a module of its own, as a user adding a figure would: `e2e`, each
request's end-to-end time (its median, lower is better, per user), one column in the cell
table, and its own columns in cells.csv, with its words in both languages."""

from contextlib import contextmanager
from pathlib import Path

from desktop_app.core.throughput.figures import unregister
from desktop_app.report.figure_words import remove
from tests.module_file import module_from_file

MODULE = '''
from desktop_app.core.throughput.figures import CellFigure, Column, per_request, register
from desktop_app.report.figure_words import FigureWords, add


def _p50(summary):
    return None if summary.e2e_s is None else summary.e2e_s.p50


FIGURE = register(CellFigure(
    "e2e", "s", 45, per_request("e2e_s", "median", _p50), "lower", "user", "time",
    columns=(Column("e2e_p50", lambda cell: _p50(cell.summary), ".3f", 25),),
    export="e2e_p50_s"))
add("e2e",
    en=FigureWords("End-to-end p50 (per user)",
                   {"e2e_p50": ("E2E p50 s", "median time from send to last token (seconds)")}),
    zh=FigureWords("端到端延迟中位数（单用户）",
                   {"e2e_p50": ("端到端 p50 秒", "从发送到最后一个 token 的时间中位数（秒）")}))
'''


@contextmanager
def toy_figure(folder: Path):
    """The module written into `folder`, imported (its import registers the figure and its
    words), and both removed afterwards."""
    try:
        with module_from_file(folder, "e2e_figure", MODULE) as module:
            yield module.FIGURE
    finally:
        unregister("e2e")
        remove("e2e")

"""Comparison summaries and exports (may use QtGui for PDF painting, never QtWidgets).

`write_comparison_pdf(store, run_ids, path, lang)` writes the comparison PDF of two or more
stored runs in English ("en") or Chinese ("zh"); see docs/REPORT.md. Importing this package
does not import Qt: the PDF modules load it when a report is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop_app.core.store import Store

__all__ = ["ReportError", "write_comparison_pdf"]


def write_comparison_pdf(store: Store, run_ids: list[int], path: Path | str,
                         lang: str = "en") -> Path:
    """Write the comparison PDF of `run_ids` to `path`; see `desktop_app.report.pdf`."""
    from desktop_app.report.pdf import write_comparison_pdf as write

    return write(store, run_ids, path, lang)


def __getattr__(name: str):
    if name == "ReportError":
        from desktop_app.report.pdf import ReportError

        return ReportError
    raise AttributeError(name)

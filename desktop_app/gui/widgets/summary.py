"""The comparison summary on screen: the PDF report's side-by-side table and its "speed and
quality together" section (cost per correct answer, capacity in tasks), rendered from the same
HTML the report prints, so the screen and the PDF never disagree."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QUrl
from PySide6.QtGui import QImage, QTextDocument
from PySide6.QtWidgets import QTextBrowser, QWidget

from desktop_app.core.compare import Comparison
from desktop_app.gui.i18n import report_language




class SummaryView(QTextBrowser):
    """Runs of both kinds compared: dimension rows with verdicts, then capacity in tasks."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenExternalLinks(False)
        self.comparison: Comparison | None = None
        self._images = 0

    def show_summary(self, comparison: Comparison, lang: str | None = None) -> None:
        from desktop_app.report import sections
        from desktop_app.report.strings import note_text

        lang = lang or report_language()
        self.comparison = comparison
        document = self.document()
        document.clear()

        def add_image(image: QImage) -> str:
            self._images += 1
            name = f"summary-chart-{self._images}.png"
            document.addResource(QTextDocument.ResourceType.ImageResource, QUrl(name), image)
            return name

        notes = "".join(f"<li>{escape(note_text(note, lang))}</li>" for note in comparison.notes)
        html = (sections.side_by_side(comparison, lang)
                + sections.capacity(comparison, lang, add_image)
                + (f"<ul>{notes}</ul>" if notes else ""))
        self.setHtml(f"<html><body>{html}</body></html>")

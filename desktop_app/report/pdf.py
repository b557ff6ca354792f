"""The comparison PDF: `write_comparison_pdf(store, run_ids, path, lang)`.

The sections (cover with each run's note and server settings, what differs between the runs,
the side-by-side table with intervals and verdicts, speed and quality together, charts,
diagnosis, failed questions, appendix with the methods) are HTML laid out by a QTextDocument
in document pixels (96 per inch), charts are QImages painted at about 210 dpi, and every page
is drawn with QPainter onto a QPdfWriter (A4), which embeds the fonts it uses. The PDF is
written to a temporary file beside `path` and renamed over it at the end, so a failure never
leaves a half-written file.

Works headless: without a QGuiApplication one is created, on the offscreen platform when no
display is set. Threads: it works on the GUI thread (0.4-1 s) or in a QThread; in a plain Python
thread (asyncio.to_thread) the PDF is right but Qt warns at the thread's exit
("QBasicTimer::start: current thread's event dispatcher has already been destroyed", from the
per-thread font cache), which a test failing on Qt warnings would catch.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from desktop_app.core.compare import CompareError, Comparison, compare
from desktop_app.core.exchange.atomic import current_umask
from desktop_app.core.store import Store
from desktop_app.report.strings import FONT_FAMILIES, LANGS, text

__all__ = ["ReportError", "write_comparison_pdf", "render_comparison_pdf"]

MARGIN_MM = 15.0
FOOTER_PX = 22.0  # document pixels kept free at the bottom of each page for the footer
_app = None  # the QGuiApplication this module had to create, kept alive


class ReportError(ValueError):
    """The report cannot be written (bad language, unknown runs, unwritable path); one line."""


def _ensure_gui_app() -> None:
    global _app
    from PySide6.QtGui import QGuiApplication

    if QGuiApplication.instance() is not None:
        return
    # A Linux machine without a display (a server, CI, an SSH session) has no other platform.
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY")
                                                 or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    _app = QGuiApplication(sys.argv[:1] or ["throughline"])


def write_comparison_pdf(store: Store, run_ids: list[int], path: Path | str,
                         lang: str = "en") -> Path:
    """Compare `run_ids` (two or more stored runs, any kinds) and write the PDF to `path`.

    Returns the path written. Raises ReportError with one line for an unknown language, unknown
    run ids (all named), fewer than two runs, or a path that cannot be written; nothing is left
    behind then. A section whose runs are of the wrong kind is skipped with a note in the PDF.
    """
    if lang not in LANGS:
        raise ReportError(f"--lang: {lang!r} is not a report language; choose {' or '.join(LANGS)}")
    try:
        comp = compare(store, list(run_ids))
    except CompareError as exc:
        raise ReportError(str(exc)) from None
    return render_comparison_pdf(comp, path, lang)


def render_comparison_pdf(comp: Comparison, path: Path | str, lang: str = "en",
                          when: datetime | None = None) -> Path:
    """Write an already computed Comparison as the PDF (see `write_comparison_pdf`)."""
    path = Path(path).expanduser()
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise ReportError(f"cannot write {path}: it is a folder")
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=folder)
    except OSError as exc:
        raise ReportError(f"cannot write {path}: {exc.strerror or exc}") from None
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        _ensure_gui_app()
        stamp = (when or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M")
        _paint(comp, tmp, lang, stamp)
        os.chmod(tmp, 0o666 & ~current_umask())  # mkstemp made it 0600; a PDF is for sharing
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return path


def _html(comp: Comparison, lang: str, stamp: str, add_image) -> str:
    from desktop_app.report import sections

    body = [sections.cover(comp, lang, stamp), sections.side_by_side(comp, lang),
            sections.capacity(comp, lang, add_image), sections.charts(comp, lang, add_image),
            sections.findings(comp, lang), sections.appendix(lang)]
    return "<html><body>" + "\n".join(body) + "</body></html>"


_CSS = """
body { font-size: 9pt; color: #1a1a1a; }
h1 { font-size: 20pt; color: #123a63; margin-bottom: 2px; }
h2 { font-size: 14pt; color: #123a63; margin-top: 14px; }
h3 { font-size: 10.5pt; color: #234; margin-top: 10px; }
table { font-size: 7.5pt; }
th { font-weight: bold; }
li { margin-bottom: 3px; }
"""


def _paint(comp: Comparison, out: Path, lang: str, stamp: str) -> None:
    from PySide6.QtCore import QMarginsF, QRectF, QSizeF, Qt, QUrl
    from PySide6.QtGui import (
        QColor,
        QFont,
        QPageLayout,
        QPageSize,
        QPainter,
        QPdfWriter,
        QTextDocument,
    )

    writer = QPdfWriter(str(out))
    writer.setPageSize(QPageSize(QPageSize.PageSizeId.A4))
    writer.setPageMargins(QMarginsF(MARGIN_MM, MARGIN_MM, MARGIN_MM, MARGIN_MM),
                          QPageLayout.Unit.Millimeter)
    writer.setResolution(300)
    writer.setTitle(text(lang, "title"))
    writer.setCreator("Throughline")
    page = writer.pageLayout().paintRectPixels(96)  # the printable area in document pixels
    width, height = float(page.width()), float(page.height()) - FOOTER_PX

    doc = QTextDocument()
    font = QFont()
    font.setFamilies(FONT_FAMILIES[lang])
    font.setPointSizeF(9)
    # No "fi"/"fl" ligatures: text copied or searched in the PDF must read "definitions".
    font.setFeature(QFont.Tag("liga"), 0)
    doc.setDefaultFont(font)
    doc.setDefaultStyleSheet(_CSS)
    doc.setDocumentMargin(0)
    images: list = []

    def add_image(image) -> str:
        name = f"chart{len(images)}.png"
        images.append(image)
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(name), image)
        return name

    doc.setHtml(_html(comp, lang, stamp, add_image))
    doc.setPageSize(QSizeF(width, height))
    pages = doc.pageCount()

    painter = QPainter()
    if not painter.begin(writer):
        raise ReportError(f"cannot write {out}: the PDF writer did not start")
    try:
        scale = writer.resolution() / 96.0
        footer_font = QFont(font)
        footer_font.setPixelSize(9)  # document pixels: the painter is scaled to them
        for i in range(pages):
            if i:
                writer.newPage()
            painter.save()
            painter.scale(scale, scale)
            painter.save()
            painter.translate(0, -i * height)
            doc.drawContents(painter, QRectF(0, i * height, width, height))
            painter.restore()
            painter.setFont(footer_font)
            painter.setPen(QColor("#777"))
            painter.drawText(QRectF(0, height + 6, width, FOOTER_PX - 6),
                             int(Qt.AlignmentFlag.AlignRight), text(lang, "page", n=i + 1) +
                             f" / {pages}")
            painter.drawText(QRectF(0, height + 6, width, FOOTER_PX - 6),
                             int(Qt.AlignmentFlag.AlignLeft), "Throughline · " +
                             text(lang, "title"))
            painter.restore()
    finally:
        painter.end()

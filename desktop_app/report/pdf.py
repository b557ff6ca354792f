"""The comparison PDF: `write_comparison_pdf(store, run_ids, path, lang)`.

The sections (a one-page summary: the runs, what differs, the verdicts; the grid of cells by
prompt length and concurrency; the side-by-side table with intervals and verdicts; charts;
speed and quality together; diagnosis; failed questions; each run's settings; the appendix
with the methods and the glossary) are HTML laid out by a QTextDocument in document pixels (96
per inch) as one long page, cut into pages by `paginate` (never inside a table row or a line,
a heading kept with what follows), charts are QImages painted at about 210 dpi, and every page
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
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

# Qt's names are imported here, once, by whoever imports this module first (the GUI does on
# its main thread): a `from PySide6.QtGui import ...` first run in a worker thread while the
# main thread ran Qt's event loop hung make test once (the PDF export's thread blocked in it).
from PySide6.QtCore import QMarginsF, QPointF, QRectF, Qt, QUrl
from PySide6.QtGui import (
    QColor,
    QFont,
    QGuiApplication,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)

from desktop_app.core.compare import CompareError, Comparison, compare
from desktop_app.core.exchange.atomic import current_umask
from desktop_app.core.redact import display_text, redact_known
from desktop_app.core.store import Store
from desktop_app.report import sections, strategy_section, whatif_section
from desktop_app.report.strings import FONT_FAMILIES, LANGS, lookup, text

__all__ = ["ReportError", "write_comparison_pdf", "render_comparison_pdf"]

MARGIN_MM = 15.0
FOOTER_PX = 22.0  # document pixels kept free at the bottom of each page for the footer
CLIP_INSET = 0.5  # document pixels the clip keeps inside a page's span (see _paint)
_app = None  # the QGuiApplication this module had to create, kept alive


class ReportError(ValueError):
    """The report cannot be written (bad language, unknown runs, unwritable path); one line,
    in the report's language where it is known, `field` the flag it is about."""

    def __init__(self, message: str, field: str = "--runs") -> None:
        super().__init__(message)
        self.field = field


def _ensure_gui_app() -> None:
    global _app
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
        raise ReportError(f"{lang!r} is not a report language; choose {' or '.join(LANGS)}",
                          field="--lang")
    try:
        comp = compare(store, list(run_ids))
    except CompareError as exc:
        from desktop_app.report.strings import compare_error_text

        raise ReportError(compare_error_text(exc, lang)) from None
    return render_comparison_pdf(comp, path, lang)


def _input_words(lang: str, code: str, **values) -> str:
    from desktop_app.report.input_words import WORDS

    return lookup(WORDS, lang, code, **values)


def _cannot_write(path: Path, lang: str, why: str) -> ReportError:
    return ReportError(_input_words(lang, "cannot_write", path=path, error=why), field="--pdf")


def render_comparison_pdf(comp: Comparison, path: Path | str, lang: str = "en",
                          when: datetime | None = None) -> Path:
    """Write an already computed Comparison as the PDF (see `write_comparison_pdf`)."""
    path = Path(path).expanduser()
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise _cannot_write(path, lang, _input_words(lang, "file_is_directory"))
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=folder)
    except OSError as exc:
        raise _cannot_write(path, lang, exc.strerror or str(exc)) from None
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
    # Page 1 sums up; then the seeds' grid, every row with its interval, the charts, speed and
    # quality together, the diagnosis, the failed questions, the runs in detail, the appendix.
    body = [sections.summary(comp, lang, stamp), sections.grid(comp, lang),
            sections.side_by_side(comp, lang), sections.charts(comp, lang, add_image),
            sections.capacity(comp, lang, add_image), strategy_section.strategies(comp, lang),
            whatif_section.whatif(comp, lang, add_image),
            sections.diagnosis(comp, lang), sections.failed_questions(comp, lang),
            sections.run_details(comp, lang), sections.appendix(lang)]
    # The one place the PDF's text is made: what a server named (a model id, an engine's
    # version, an error) reaches the page with its controls made harmless and known secrets
    # blanked (redact.display_text, redact_known), however a section quoted it.
    return display_text(redact_known("<html><body>" + "\n".join(body) + "</body></html>"))


_CSS = """
body { font-size: 9pt; color: #1a1a1a; }
h1 { font-size: 20pt; color: #123a63; margin-bottom: 2px; }
h2 { font-size: 14pt; color: #123a63; margin-top: 14px; }
h3 { font-size: 10.5pt; color: #234; margin-top: 10px; }
table { font-size: 7.5pt; }
th { font-weight: bold; }
li { margin-bottom: 3px; }
"""


# --------------------------------------------------------------------------- pagination
#
# Qt's own pagination (QTextDocument.setPageSize with a height) splits a table row whose cells
# wrap across two pages, strands a heading at the foot of a page, ignores
# "page-break-inside: avoid", and drawing a page with drawContents also draws every line of a
# paragraph that straddles the page edge, clipped but still in the PDF's text (a copied page
# holds the neighbour's lines twice). So the document is laid out as one long page and cut
# here, between units nothing may split: a paragraph (a line of a tall one), a table row.


@dataclass(frozen=True)
class Unit:
    """A vertical span of the laid-out document (document pixels) that a page never splits:
    a paragraph (or one line of a tall one), or a table row. `keep_with_next`: a heading,
    kept on the page of what follows; `forced`: the block asked for a page break before it;
    `header`: the span of the table header to repeat above this row when it opens a page."""

    top: float
    bottom: float
    keep_with_next: bool = False
    forced: bool = False
    header: tuple[float, float] | None = None
    text_top: float | None = None  # where its first line of text starts (a row's: below it)


@dataclass(frozen=True)
class Page:
    """One page: the document's span [top, bottom], below the repeated table `header`."""

    top: float
    bottom: float
    header: tuple[float, float] | None = None


MIN_UNITS = 3  # a page (or a section's page) carries at least this many lines or rows
SMALL_SECTION = 3  # a section of this many units or fewer does not start a page of its own
NEARLY_EMPTY = 0.25  # a page filled less than this far ignores a page break asked for


def paginate(units: list[Unit], height: float) -> list[Page]:
    """Cut `units` (sorted, not overlapping) into pages of `height`: never inside a unit, a
    heading never last on a page, a table row opening a page under its table's header, a forced
    break honoured unless its section is small (a heading and a note flow on after the page
    before) or the page is still nearly empty (two such notes start the next section's page),
    and no page ending a section with fewer than MIN_UNITS units when the page before
    can give some (no page holding a single sentence). Pure."""
    units = list(units)
    n = len(units)
    forced = [u.forced and i > 0 for i, u in enumerate(units)]
    starts = [i for i in range(n) if forced[i]] + [n]
    for a, b in zip(starts, starts[1:]):
        if b - a <= SMALL_SECTION:
            forced[a] = False
    pages: list[Page] = []
    i = 0
    while i < n:
        start = units[i].top
        header = units[i].header if units[i].header and units[i].header[0] < start else None
        room = height - (header[1] - header[0] if header else 0.0)
        j = i + 1  # an oversized unit gets a page of its own
        while j < n and units[j].bottom - start <= room and (
                not forced[j] or units[j - 1].bottom - start < NEARLY_EMPTY * room):
            j += 1
        end = next((k for k in range(j, n) if forced[k] and k > i), n)  # this section's rest
        if j < end:  # the section runs on: keep headings with what follows them ...
            k = j
            while k - 1 > i and units[k - 1].keep_with_next:
                k -= 1
            # ... and leave the next page more than a stray sentence.
            if end - k < MIN_UNITS:
                k = max(i + 1, end - MIN_UNITS)
                while k - 1 > i and units[k - 1].keep_with_next:
                    k -= 1
            j = k
        # A row's bottom border lies just below its span: draw it unless text comes first.
        bottom = units[j - 1].bottom + 2.0
        if j < n:
            nxt = units[j]
            bottom = min(bottom, nxt.top if nxt.text_top is None else nxt.text_top)
        pages.append(Page(start, bottom, header))
        i = j
    return pages


@dataclass(frozen=True)
class Tall:
    """A paragraph taller than KEEP_WHOLE of a page, which pages may cut between its lines:
    its span and its lines' spans (document pixels), and the QTextBlock."""

    top: float
    bottom: float
    lines: tuple[tuple[float, float], ...]
    block: object


KEEP_WHOLE = 0.4  # a paragraph up to this share of a page is never cut


def _units(doc, height: float) -> tuple[list[Unit], list[Tall]]:
    """The document's paragraphs (the lines of a tall one) and table rows as Units (document
    pixels), in order; and the tall paragraphs, which `_paint` draws line by line where a page
    cuts them (Qt would draw such a paragraph whole, its lines outside the page hidden but
    still in the PDF's text)."""
    layout = doc.documentLayout()
    spans: list[list] = []  # [top, bottom, keep, forced, table, is_header]
    rows: dict[tuple[int, int], list] = {}  # (table, row) -> its span
    headers: dict[int, list[float]] = {}  # table -> its header rows' span
    pad_of: dict[int, float] = {}  # table -> its cells' padding and border
    tall: list[Tall] = []
    block = doc.begin()
    while block.isValid():
        # blockBoundingRect first: Qt lays the document out lazily, up to the block asked for.
        rect = layout.blockBoundingRect(block)
        lay = block.layout()
        if block.text().strip() and lay.lineCount():
            base = rect.top() - lay.boundingRect().top()
            lines = [(base + lay.lineAt(k).y(), base + lay.lineAt(k).y() + lay.lineAt(k).height())
                     for k in range(lay.lineCount())]
            fmt = block.blockFormat()
            cursor = QTextCursor(block)
            table = cursor.currentTable()
            if table is not None:
                tf, key = table.format(), table.firstPosition()
                pad_of[key] = tf.cellPadding() + tf.border()
                row = table.cellAt(cursor).row()
                top, bottom = lines[0][0] - pad_of[key], lines[-1][1] + tf.cellPadding()
                if row < tf.headerRowCount():
                    h = headers.setdefault(key, [top, bottom])
                    h[0], h[1] = min(h[0], top), max(h[1], bottom)
                span = rows.get((key, row))
                if span is None:
                    span = rows[(key, row)] = [top, bottom, False, False, key,
                                               row < tf.headerRowCount()]
                    spans.append(span)
                span[0], span[1] = min(span[0], top), max(span[1], bottom)
            else:
                heading = fmt.headingLevel() > 0
                brk = bool(fmt.pageBreakPolicy()
                           & QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore)
                if lines[-1][1] - lines[0][0] <= KEEP_WHOLE * height:
                    spans.append([lines[0][0], lines[-1][1], heading, brk, None, False])
                else:
                    tall.append(Tall(lines[0][0], lines[-1][1], tuple(lines), block))
                    spans += [[t, b, heading, brk and k == 0, None, False]
                              for k, (t, b) in enumerate(lines)]
        block = block.next()
    out: list[Unit] = []
    for top, bottom, keep, brk, table, is_header in sorted(spans, key=lambda s: (s[0], s[1])):
        head = headers.get(table) if table is not None else None
        unit = Unit(top, bottom, keep or is_header, brk,
                    None if head is None or is_header else (head[0], head[1]),
                    None if table is None else top + pad_of[table])
        if out and unit.top < out[-1].bottom - 0.01:  # overlapping (an image beside text): one
            last = out[-1]
            out[-1] = Unit(last.top, max(last.bottom, unit.bottom), unit.keep_with_next,
                           last.forced, last.header, last.text_top)
        else:
            out.append(unit)
    return out, tall


def _paint(comp: Comparison, out: Path, lang: str, stamp: str) -> None:
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
    doc.setTextWidth(width)  # one long page; paginate() cuts it
    units, tall = _units(doc, height)
    pages = paginate(units, height) or [Page(0.0, 0.0)]

    def draw(top: float, bottom: float, at: float) -> None:
        """The document's span [top, bottom] at `at` on the page. Qt draws every paragraph that
        touches the clip whole (its lines outside clipped away, yet still text in the PDF), so
        a tall paragraph the span cuts is kept out of the clip and its lines inside drawn one
        by one."""
        lo, hi, lines = top, bottom, []
        for t in tall:
            if t.bottom <= top or t.top >= bottom or (t.top >= top and t.bottom <= bottom):
                continue
            lines += [(t, k) for k, (y0, y1) in enumerate(t.lines)
                      if y0 >= top - 0.01 and y1 <= bottom + 0.01]
            if t.top < top:
                lo = max(lo, t.bottom)
            if t.bottom > bottom:
                hi = min(hi, t.top)
        painter.save()
        painter.translate(0, at - top)
        if hi - lo > 2 * CLIP_INSET:
            doc.drawContents(painter, QRectF(0, lo + CLIP_INSET, width,
                                             hi - lo - 2 * CLIP_INSET))
        painter.setPen(QColor("#1a1a1a"))
        for t, k in lines:
            lay, line = t.block.layout(), t.block.layout().lineAt(k)
            left = doc.documentLayout().blockBoundingRect(t.block).left()
            line.draw(painter, QPointF(left - lay.boundingRect().left(),
                                       t.lines[k][0] - line.y()))
        painter.restore()

    painter = QPainter()
    if not painter.begin(writer):
        raise ReportError(f"cannot write {out}: the PDF writer did not start")
    try:
        scale = writer.resolution() / 96.0
        footer_font = QFont(font)
        footer_font.setPixelSize(9)  # document pixels: the painter is scaled to them
        for i, pg in enumerate(pages):
            if i:
                writer.newPage()
            painter.save()
            painter.scale(scale, scale)
            at = 0.0
            if pg.header is not None:  # a table running on: its header again
                draw(pg.header[0], pg.header[1], 0.0)
                at = pg.header[1] - pg.header[0]
            draw(pg.top, pg.bottom, at)
            painter.setFont(footer_font)
            painter.setPen(QColor("#777"))
            painter.drawText(QRectF(0, height + 6, width, FOOTER_PX - 6),
                             int(Qt.AlignmentFlag.AlignRight), text(lang, "page", n=i + 1) +
                             f" / {len(pages)}")
            painter.drawText(QRectF(0, height + 6, width, FOOTER_PX - 6),
                             int(Qt.AlignmentFlag.AlignLeft), "Throughline · " +
                             text(lang, "title"))
            painter.restore()
    finally:
        painter.end()

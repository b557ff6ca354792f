"""How the report's pages are cut (`report.pdf.paginate`, no Qt): never inside a line or a table
row, a heading kept with what follows it, a table row opening a page under its header again, a
small section running on after the page before, and no page left holding a stray sentence.
The PDFs themselves are checked in test_report_pdf.py (`_page_flow_problems`)."""

from desktop_app.report.pdf import MIN_UNITS, Page, Unit, paginate


def _lines(n: int, top: float = 0.0, height: float = 10.0, **kw) -> list[Unit]:
    return [Unit(top + i * height, top + (i + 1) * height, **kw) for i in range(n)]


def _inside(unit: Unit, pages: list[Page]) -> bool:
    return any(p.top <= unit.top and unit.bottom <= p.bottom for p in pages)


def test_every_unit_lies_whole_on_one_page_and_pages_keep_their_height():
    # Rows of uneven heights (a cell wrapping to three lines) among lines.
    units, y = [], 0.0
    for i in range(60):
        h = 34.0 if i % 7 == 3 else 12.0
        units.append(Unit(y, y + h))
        y += h + 2.0
    pages = paginate(units, 100.0)
    assert all(_inside(u, pages) for u in units)
    assert all(p.bottom - p.top <= 100.0 + 2.0 for p in pages)  # + a row's border below
    assert [p.top for p in pages] == sorted(p.top for p in pages)


def test_a_heading_is_never_the_last_thing_on_a_page():
    units = _lines(9) + [Unit(90, 100, keep_with_next=True)] + _lines(10, top=100)
    pages = paginate(units, 100.0)
    assert pages[0].bottom <= 90 + 0.01 and pages[1].top == 90  # the heading moved on


def test_a_table_row_opening_a_page_comes_under_its_header_again():
    header = (0.0, 20.0)
    units = [Unit(0, 20, keep_with_next=True)] + [
        Unit(20 + 20 * i, 40 + 20 * i, header=header, text_top=24 + 20 * i) for i in range(12)]
    pages = paginate(units, 100.0)
    assert pages[0].header is None
    assert all(p.header == header for p in pages[1:])
    # The header takes room on the page: the rows below it still fit.
    assert all(p.bottom - p.top + 20 <= 100 + 2 for p in pages[1:])


def test_a_small_section_runs_on_and_no_page_holds_a_stray_line():
    # A long section, then a section of a heading and one note that asked for a new page.
    units = _lines(25) + [Unit(250, 270, keep_with_next=True, forced=True), Unit(270, 280)]
    pages = paginate(units, 100.0)
    counts = [sum(1 for u in units if p.top <= u.top and u.bottom <= p.bottom) for p in pages]
    assert min(counts) >= MIN_UNITS, counts
    # A large section after a forced break does start a page.
    units = _lines(5) + [Unit(50, 60, forced=True)] + _lines(20, top=60)
    pages = paginate(units, 100.0)
    assert pages[1].top == 50


def test_an_oversized_unit_gets_a_page_and_nothing_is_lost():
    units = _lines(3) + [Unit(30, 230)] + _lines(3, top=230)
    pages = paginate(units, 100.0)
    assert all(_inside(u, pages) for u in units)
    assert paginate([], 100.0) == []


def test_a_nearly_empty_page_runs_on_into_the_next_section():
    # Two skipped sections (a heading and a note each) that did not fit after a full page,
    # then a long section asking for a page of its own: it starts on theirs instead.
    notes = [Unit(0, 20, keep_with_next=True, forced=True), Unit(20, 30),
             Unit(30, 50, keep_with_next=True, forced=True), Unit(50, 60)]
    units = _lines(40, top=-400) + notes + [Unit(60, 80, keep_with_next=True, forced=True)] + (
        _lines(40, top=80))
    pages = paginate(units, 400.0)
    assert pages[1].top == 0 and pages[1].bottom >= 390  # the notes, and the next section

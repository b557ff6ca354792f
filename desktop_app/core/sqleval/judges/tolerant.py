"""tolerant: strict's checks (names case-insensitive) with numbers equal within the tolerance
after the question's rounding; the FIRST row only, so nothing passes strict and fails it."""

from desktop_app.core.sqleval.judges import Judge, register


def compare(question, pair, tolerance):
    from desktop_app.core.sqleval.judge import first_row_findings  # as in strict.py

    return first_row_findings("tolerant", pair, tolerance, exact=False)


JUDGE = register(Judge("tolerant", rank=20, compare=compare))

"""strict, the reference harness's judge: row count, column count, column names (case-
sensitive) and the FIRST row, every value compared as its canonical text (see `judge.py`)."""

from desktop_app.core.sqleval.judges import Judge, register


def compare(question, pair, tolerance):
    # judge.py (numpy, sqlglot) is imported when a judge first judges, not when the CLI's
    # parser lists the judges.
    from desktop_app.core.sqleval.judge import first_row_findings

    return first_row_findings("strict", pair, tolerance, exact=True)


JUDGE = register(Judge("strict", rank=10, compare=compare, names="exact", uses_tolerance=False))

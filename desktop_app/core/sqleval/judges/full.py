"""full: every row as a multiset (duplicates count), the order checked only when the question
asks for one or the gold query orders its result, numbers as tolerant compares them; column
names optional on a set whose questions name none."""

from desktop_app.core.sqleval.judges import Judge, register


def compare(question, pair, tolerance):
    from desktop_app.core.sqleval.judge import all_rows_findings, order_required  # as strict.py

    return all_rows_findings(question, pair, tolerance, ordered=order_required(question))


JUDGE = register(Judge("full", rank=30, compare=compare, names_optional=True))

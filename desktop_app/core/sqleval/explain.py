"""Why an answer's SQL differs from what the question asks, read from the SQL with sqlglot.

`explain_sql(final_sql, question)` parses the final SQL (SQLite dialect) and reports:

- `missing_round`: a column the question asks to round (Question.rounding) whose projection in the
  final SELECT is not ROUND(..., n) with the required n (ROUND with other decimals, or ROUND only
  inside an aggregate, is said so). A projection that just names a column of a CTE or subquery is
  followed to the projection that defines it.
- `alias_differs`: the projection at a required column's position is named differently from it.
- `window_frame`: a window function's explicit frame (ROWS/RANGE BETWEEN ...) differs from the
  frame of the gold query's window function in the same place (Question.gold_sql).

SQL that sqlglot cannot parse gives no findings, never an exception. These findings explain a
failing verdict; they never decide one.
"""

from __future__ import annotations

from desktop_app.core.sqleval.types import JudgeFinding, Question

# Every finding made here, as (code, form) (see judge.FINDING_FORMS); report/judge_words.py
# has words for each.
EXPLAIN_FORMS: tuple[tuple[str, str | None], ...] = (
    ("alias_differs", "name"), ("alias_differs", "case"),
    ("missing_round", "none"), ("missing_round", "digits"), ("missing_round", "inner"),
    ("window_frame", None),
)


def _parse(sql: str):
    import sqlglot

    try:
        return sqlglot.parse_one(sql, read="sqlite")
    except Exception:  # noqa: BLE001 - unparseable SQL simply has nothing to explain
        return None


def explain_sql(final_sql: str, question: Question) -> list[JudgeFinding]:
    """The sqlglot findings on `final_sql` for `question` (possibly empty; never raises)."""
    try:
        tree = _parse(final_sql)
        if tree is None:
            return []
        found = _projection_findings(tree, question)
        gold = _parse(question.gold_sql) if question.gold_sql else None
        if gold is not None:
            found += _window_findings(tree, gold)
        return found
    except Exception:  # noqa: BLE001 - sqlglot trees vary by version; explanations are optional
        return []


def _final_projections(tree) -> list:
    from sqlglot import exp

    while isinstance(tree, exp.SetOperation):  # UNION etc.: the left side names the columns
        tree = tree.this
    if isinstance(tree, exp.Subquery):
        tree = tree.this
    return list(tree.selects) if isinstance(tree, exp.Query) else []


def _strip(node):
    from sqlglot import exp

    node = node.unalias() if isinstance(node, exp.Alias) else node
    while isinstance(node, (exp.Paren, exp.Cast)):
        node = node.this
    return node


def _defining_projection(tree, name: str, seen: set[int]):
    """The projection aliased `name` inside a CTE or subquery of `tree`, if any."""
    from sqlglot import exp

    for select in tree.find_all(exp.Select):
        for proj in select.selects:
            if id(proj) not in seen and proj.alias_or_name.lower() == name.lower():
                return proj
    return None


def _round_state(tree, proj) -> tuple[str, int | None]:
    """("round", n) when the column is ROUND(x, n) at its top, ("inner", n) when ROUND only
    appears inside it (e.g. inside SUM), ("none", None) otherwise."""
    from sqlglot import exp

    seen = {id(proj)}
    node = _strip(proj)
    for _ in range(8):  # follow CTE columns a few levels at most
        if isinstance(node, exp.Round):
            decimals = node.args.get("decimals")
            try:
                return "round", int(decimals.name) if decimals is not None else 0
            except (TypeError, ValueError):
                return "round", None
        if isinstance(node, exp.Column):
            origin = _defining_projection(tree, node.name, seen)
            if origin is None:
                break
            seen.add(id(origin))
            node = _strip(origin)
            continue
        inner = node.find(exp.Round)
        if inner is not None:
            decimals = inner.args.get("decimals")
            return "inner", int(decimals.name) if decimals is not None and decimals.is_int else 0
        break
    return "none", None


def _projection_findings(tree, question: Question) -> list[JudgeFinding]:
    from sqlglot import exp

    projections = _final_projections(tree)
    if any(isinstance(p, exp.Star) or (isinstance(p, exp.Column) and isinstance(p.this, exp.Star))
           for p in projections):
        return []  # SELECT *: the names come from the tables, nothing to say from the SQL
    names = [p.alias_or_name for p in projections]
    # Only an AS names a column in the SQL: SQLite names a bare column as its table declares it
    # ("language" reads "Language") and an expression by its text as typed ("count(*)",
    # "ROUND(avg(x), 2)"), where sqlglot says "language", "*" and "". Those names are the
    # judge's to compare, from the result itself.
    aliased = [bool(p.alias) if isinstance(p, exp.Alias) else False for p in projections]
    found: list[JudgeFinding] = []
    for i, required in enumerate(question.required_columns):
        if i < len(names) and aliased[i] and names[i] != required:
            found.append(JudgeFinding("alias_differs", {
                "form": "case" if names[i].lower() == required.lower() else "name",
                "position": i + 1, "got": names[i], "required": required},
                ((-1, required, required, names[i]),)))
    lowered = [n.lower() for n in names]
    required_lower = [c.lower() for c in question.required_columns]
    for col, n in question.rounding.items():
        if col.lower() in lowered:
            index = lowered.index(col.lower())
        elif col.lower() in required_lower and required_lower.index(col.lower()) < len(names):
            index = required_lower.index(col.lower())
        else:
            continue
        state, got = _round_state(tree, projections[index])
        if state == "round" and got == n:
            continue
        form = {"round": "digits", "inner": "inner"}.get(state, "none")
        found.append(JudgeFinding("missing_round", {
            "form": form, "column": names[index] or col, "digits": n,
            **({"got_digits": got} if form == "digits" else {})}))
    return found


def _frames(tree) -> list[tuple[str, str]]:
    """(function name, frame text or "" for the default frame) of each window function."""
    from sqlglot import exp

    out = []
    for window in tree.find_all(exp.Window):
        spec = window.args.get("spec")
        func = window.this.key.upper() if window.this is not None else "?"
        out.append((func, spec.sql("sqlite") if spec is not None else ""))
    return out


def _window_findings(tree, gold) -> list[JudgeFinding]:
    mine, theirs = _frames(tree), _frames(gold)
    if not mine or not theirs:
        return []
    found = []
    unmatched = list(theirs)
    for func, frame in mine:
        # Pair with the gold's first window of the same function, else the next one left.
        partner = next((w for w in unmatched if w[0] == func), unmatched[0] if unmatched else None)
        if partner is None:
            break
        unmatched.remove(partner)
        if frame != partner[1] and (frame or partner[1]):
            # "" is the default frame (the words say so)
            found.append(JudgeFinding("window_frame",
                                      {"function": func, "got": frame, "gold": partner[1]}))
    return found

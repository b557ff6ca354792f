"""`throughline sql`: run one query through the SQL sandbox the agent uses, and print the result.

The database is a SQLite file, or a question set's database as SET:KEY (e.g. `sales-25:sales`),
built on first use into the user data folder. The same rules as for a model apply: read-only,
one statement, a time limit. Exit status: 0 ran, 1 the query was refused or failed, 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from desktop_app.cli.common import global_options

EXIT_OK, EXIT_SQL_FAILED, EXIT_USAGE = 0, 1, 2


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the `sql` subcommand."""
    # No global --db here: this command's own --db names the database it queries.
    p = sub.add_parser(
        "sql", parents=[global_options(db=False)],
        help="run one read-only query in the SQL sandbox and print the result",
        description="Run one query the way the SQL agent's run_sql tool does: read-only, one "
        "statement, interrupted at the time limit. Writes, ATTACH, PRAGMA writes and extension "
        "loading are refused with the reason.",
    )
    # dest differs from the top-level --db (the results store) so the two never collide.
    p.add_argument(
        "--db", dest="sql_db", required=True, metavar="DB",
        help="a SQLite file, or a question set's database as SET:KEY (e.g. sales-25:sales)",
    )
    p.add_argument("sql", metavar="SQL", help="the query, e.g. \"SELECT count(*) FROM orders\"")
    p.add_argument("--time-limit", type=float, default=5.0, metavar="S",
                   help="interrupt the query after S seconds (default 5)")
    p.add_argument("--max-rows", type=int, default=50, metavar="N",
                   help="rows to print (default 50); the total is still counted")
    p.set_defaults(handler=run_sql_command)


def resolve_db(spec: str) -> Path:
    """The SQLite file for `spec`: a path, or SET:KEY naming a question set's database.

    Raises ValueError with a one-line reason when neither resolves.
    """
    path = Path(spec).expanduser()
    if path.is_file():
        return path
    set_name, _, key = spec.rpartition(":")
    if not set_name or not key or any(ch in key for ch in "/\\"):
        from desktop_app.cli.common import cli_error

        raise cli_error("--db", "no_db_file", spec=spec)
    from desktop_app import paths
    from desktop_app.core.sqleval.questions import (
        QuestionSetError,
        find_set_dir,
        load_question_set,
    )

    try:  # a set by name (bundled or imported) or by the path of its folder
        find_set_dir(set_name, paths.question_set_dirs())
    except QuestionSetError:
        from desktop_app.cli.common import cli_error

        raise cli_error("--db", "not_db_or_set", spec=spec) from None
    try:
        qset = load_question_set(
            set_name,
            sets_dir=paths.question_set_dirs(),
            cache_dir=paths.user_data_dir() / "databases",
            check_gold=False,
        )
    except QuestionSetError as exc:
        raise ValueError(f"--db {spec}: {exc}") from None
    if key not in qset.databases:
        known = ", ".join(f"{set_name}:{k}" for k in qset.databases)
        from desktop_app.cli.common import cli_error

        raise cli_error("--db", "no_set_db", set=repr(set_name), key=repr(key), known=known)
    return qset.databases[key]


def run_sql_command(args: argparse.Namespace) -> int:
    """Run `args.sql` on `args.sql_db` (or `args.db`) and print the result; the exit status."""
    from desktop_app.core.parsing import InputError, check_range
    from desktop_app.core.sqleval.sandbox import (
        MAX_ROWS,
        MAX_TIME_LIMIT_S,
        Sandbox,
        SandboxError,
        SqlError,
        format_result_for_model,
    )

    spec = getattr(args, "sql_db", None) or getattr(args, "db", None)
    time_limit = getattr(args, "time_limit", 5.0)
    max_rows = getattr(args, "max_rows", 50)
    from desktop_app.cli.common import words_lang
    from desktop_app.report.cli_words import cli_text
    from desktop_app.report.errors import error_text

    lang = words_lang(args)
    if not spec:
        return _fail(cli_text(lang, "sql", "need_db"), EXIT_USAGE)
    try:
        check_range("--time-limit", time_limit, 0, MAX_TIME_LIMIT_S, unit="s")
        check_range("--max-rows", max_rows, 0, MAX_ROWS)
    except InputError as exc:
        return _fail(error_text(exc, lang), EXIT_USAGE)
    bad = _undecodable(args.sql)
    if bad is not None:
        return _fail(cli_text(lang, "sql", "query_not_utf8", byte=bad[0], at=bad[1] + 1),
                     EXIT_USAGE)
    try:
        db_path = resolve_db(spec)
    except ValueError as exc:
        return _fail(error_text(exc, lang), EXIT_USAGE)
    try:
        sandbox = Sandbox(db_path, time_limit_s=time_limit, max_rows=max_rows)
    except (OSError, SandboxError) as exc:  # unreadable, or not a SQLite database at all
        return _fail(cli_text(lang, "sql", "db_error", detail=exc), EXIT_USAGE)
    try:
        with sandbox:
            result = sandbox.run(args.sql)
    except SqlError as exc:
        return _fail(cli_text(lang, "sql", "sql_error", detail=exc), EXIT_SQL_FAILED)
    except SandboxError as exc:
        return _fail(str(exc), EXIT_SQL_FAILED)
    text, _ = format_result_for_model(result, max_rows=max_rows)
    print(text)
    print(f"-- {result.elapsed_s:.3f} s")
    return EXIT_OK


def _undecodable(text: str) -> tuple[int, int] | None:
    """(byte, index) of the first character of `text` that was not UTF-8 on the command line,
    else None: Python hands such a byte over as a lone surrogate U+DC80..U+DCFF
    (surrogateescape), which SQLite cannot take (any other lone surrogate neither)."""
    for i, ch in enumerate(text):
        if "\ud800" <= ch <= "\udfff":
            return ord(ch) & 0xFF, i
    return None


def _fail(message: str, status: int) -> int:
    print(f"throughline sql: {message}", file=sys.stderr)
    return status

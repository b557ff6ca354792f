"""`throughline questions import|list|show|check`: question sets from the command line.

    throughline questions import FILE [--format auto|spider|bird|spider2-lite|defog]
        [--db-dir DIR] [--gold-dir DIR] [--db-name NAME] [--name NAME] [--out SET_DIR]
    throughline questions list
    throughline questions show SET [--id ID]
    throughline questions check SET

An imported set goes to `<user data>/questions/<name>` unless `--out` says otherwise, and is
then found by name by `sqleval --questions`, `sql --db SET:KEY`, the GUI and these commands.
Words follow `--lang` (else $THROUGHLINE_LANG, else English). Exit status: 0 done, 1 `check`
found a gold that cannot be used, 2 bad input (one line on stderr).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from desktop_app.core.parsing import InputError

from desktop_app.cli.common import global_options, words_lang
from desktop_app.terminal import control

FORMAT_CHOICES = ("auto", "spider", "bird", "spider2-lite", "defog")


def _w(lang: str, entry: str, /, **values) -> str:
    from desktop_app.report.cli_words import cli_text

    return cli_text(lang, "questions", entry, **values)


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register `questions` and its subcommands."""
    p = sub.add_parser("questions", parents=[global_options()], help="import, list, show and check question sets",
                       description="Question sets: import a public set (Spider, BIRD, "
                       "Spider2-lite, defog sql-eval) in one command, list the sets, show one, "
                       "check that every gold runs.")
    qsub = p.add_subparsers(dest="questions_command", metavar="COMMAND", required=True)
    imp = qsub.add_parser("import", parents=[global_options()], help="import a public question set",
                          description="Import FILE as a question set. Records that cannot be "
                          "imported are listed with the reason; the rest are written.")
    imp.add_argument("file", type=Path, metavar="FILE",
                     help="Spider/BIRD dev.json, Spider2-lite .jsonl or defog .csv")
    imp.add_argument("--format", default="auto", choices=FORMAT_CHOICES)
    imp.add_argument("--db-dir", type=Path, metavar="DIR",
                     help="the databases, as <db>/<db>.sqlite or <db>.sqlite (defog: a SQLite "
                     "file works too)")
    imp.add_argument("--gold-dir", type=Path, metavar="DIR",
                     help="Spider2-lite's gold results: <id>.csv, <id>_a.csv, <id>_b.csv, ... "
                     "(also in DIR/exec_result) and <id>.sql (also in DIR/sql)")
    imp.add_argument("--db-name", metavar="NAME", help="defog: only the rows of this db_name")
    imp.add_argument("--name", metavar="NAME", help="the set's name (default: from FILE)")
    imp.add_argument("--limit", type=int, metavar="N", help="at most N records")
    imp.add_argument("--out", type=Path, metavar="SET_DIR",
                     help="where to write the set (default: <user data>/questions/<name>)")
    qsub.add_parser("list", parents=[global_options()], help="list the question sets")
    show = qsub.add_parser("show", parents=[global_options()], help="show what a set holds")
    show.add_argument("set", metavar="SET", help="a set's name or folder")
    show.add_argument("--id", metavar="ID", help="show this question in full")
    check = qsub.add_parser("check", parents=[global_options()], help="run every gold and report the unusable ones")
    check.add_argument("set", metavar="SET", help="a set's name or folder")
    p.set_defaults(handler=run_questions)




def run_questions(args: argparse.Namespace) -> int:
    """Dispatch to the subcommand; InputError becomes one line on stderr (exit 2)."""
    lang = words_lang(args)
    command = {"import": _import, "list": _list, "show": _show, "check": _check}
    return command[args.questions_command](args, lang)


def _load(name: str, *, check_gold: bool):
    from desktop_app import paths
    from desktop_app.core.sqleval.questions import QuestionSetError, load_question_set

    try:
        return load_question_set(name, sets_dir=paths.question_set_dirs(),
                                 cache_dir=paths.user_data_dir() / "databases",
                                 check_gold=check_gold)
    except QuestionSetError as exc:
        from desktop_app.report.errors import error_text

        lang = os.environ.get("THROUGHLINE_LANG", "en")  # as the parser's own errors
        raise InputError("SET", code="said", text=error_text(exc, lang)) from None


def _named(exc: Exception, file: Path, lang: str) -> InputError:
    """The import's error in `lang`, named by what it is about: a flag the message starts
    with, else the file (once: the core's message may start with the file's path already)."""
    from desktop_app.report.errors import error_text

    text = error_text(exc, lang)
    for colon in (": ", "："):
        head, sep, rest = text.partition(colon)
        # The core names a line as "path:line": that is the file, named once too.
        if sep and (head.startswith("--") or head == str(file) or head.startswith(f"{file}:")):
            return InputError(head, code="said", text=rest)
    return InputError(str(file), code="said", text=text)


def _import(args: argparse.Namespace, lang: str) -> int:
    from desktop_app import paths
    from desktop_app.core.sqleval.importers import (
        FORMAT_NAMES,
        NothingImported,
        check_set_name,
        default_name,
        detect_format,
        import_questions,
    )
    from desktop_app.core.sqleval.questions import QuestionSetError

    if args.limit is not None and args.limit < 1:
        from desktop_app.cli.common import cli_error

        raise cli_error("--limit", "limit_min", value=args.limit)
    try:
        fmt = detect_format(args.file) if args.format == "auto" else args.format
        name = args.name or default_name(args.file, fmt, args.db_name)
        check_set_name(name)  # before it names the folder written below
        out = args.out or paths.user_questions_dir() / name
        interactive = sys.stderr.isatty()

        def progress(done: int, total: int) -> None:
            if interactive:
                control(sys.stderr, "\r")  # past the terminal's gate (terminal.py)
                print(_w(lang, "progress", done=done, total=total), end="",
                      file=sys.stderr, flush=True)

        report = import_questions(args.file, out, format=fmt, db_dir=args.db_dir,
                                  gold_dir=args.gold_dir, db_name=args.db_name, name=name,
                                  limit=args.limit, on_progress=progress)
        if interactive:
            print(file=sys.stderr)
    except NothingImported as exc:
        _print_notes(exc.report, lang, sys.stderr)
        raise _named(exc, args.file, lang) from None
    except QuestionSetError as exc:
        raise _named(exc, args.file, lang) from None
    print(_w(lang, "imported", n=report.imported, fmt=FORMAT_NAMES[report.format],
             file=args.file.name, name=report.name, out=report.out_dir))
    print(_w(lang, "databases", names=", ".join(report.databases)))
    if report.other_databases:
        print(_w(lang, "other_dbs", n=report.other_databases, db=args.db_name))
    _print_notes(report, lang, sys.stdout)
    print(_w(lang, "no_columns"))
    print(_w(lang, "run_it", name=report.name if args.out is None else report.out_dir))
    return 0


def _print_notes(report, lang: str, stream) -> None:
    from desktop_app.report.question_words import note_text

    for key, notes in (("skipped", report.skipped), ("warnings", report.warnings)):
        if notes:
            print(_w(lang, key, n=len(notes)), file=stream)
            for note in notes:
                print(f"  {note_text(note, lang)}", file=stream)


def _list(args: argparse.Namespace, lang: str) -> int:
    from desktop_app import paths
    from desktop_app.core.sqleval.questions import list_question_sets

    print(_w(lang, "list_head", dir=paths.user_questions_dir()))
    sets = list_question_sets(paths.question_set_dirs())
    for name, description in sets:
        print(f"  {name:<24} {' '.join(description.split())[:100]}")
    if not sets:
        print("  " + _w(lang, "none"))
    return 0


def _tiers(questions) -> str:
    from collections import Counter

    counts = Counter(q.tier for q in questions)
    return ", ".join(f"{counts[t]} {t}" for t in ("trivial", "easy", "medium", "hard")
                     if counts[t])


def _golds(q) -> int:
    return int(bool(q.gold_sql.strip())) + len(q.gold_alternatives) + len(q.gold_files)


def _show(args: argparse.Namespace, lang: str) -> int:
    qset = _load(args.set, check_gold=False)
    if args.id:
        q = next((q for q in qset.questions if q.id == args.id), None)
        if q is None:
            raise InputError("--id", _w(lang, "no_question", set=qset.name, id=args.id,
                                        ids=", ".join(x.id for x in qset.questions[:20])))
        print(_w(lang, "q_id", id=q.id, tier=q.tier, db=q.database, source=q.source))
        print(_w(lang, "q_text", text=q.text_en))
        if q.text_zh:
            print(_w(lang, "q_text_zh", text=q.text_zh))
        if q.gold_sql.strip():
            print(_w(lang, "q_gold", sql=q.gold_sql))
        for n, sql in enumerate(q.gold_alternatives, start=1):
            print(_w(lang, "q_alt", n=n, sql=sql))
        for path in q.gold_files:
            print(_w(lang, "q_file", path=path))
        print(_w(lang, "q_columns", cols=", ".join(q.required_columns) or "-"))
        print(_w(lang, "q_rounding", rounding=", ".join(
            f"{c}: {n}" for c, n in q.rounding.items()) or "-"))
        print(_w(lang, "q_order", yes=_w(lang, "yes" if q.order_matters else "no")))
        return 0
    print(_w(lang, "set", name=qset.name, n=len(qset.questions), tiers=_tiers(qset.questions),
             path=qset.path))
    print(_w(lang, "description", text=" ".join(qset.description.split())))
    for key, path in qset.databases.items():
        print(_w(lang, "database", key=key, path=path))
        print(_w(lang, "db_note", text=qset.database_note(key)))
    print(_w(lang, "asks_columns" if qset.asks_columns else "no_columns"))
    for q in qset.questions:
        text = " ".join(q.text(lang).split())
        print("  " + _w(lang, "q_line", id=q.id, tier=q.tier, db=q.database, golds=_golds(q),
                        text=text[:70] + ("..." if len(text) > 70 else "")))
    return 0


def _check(args: argparse.Namespace, lang: str) -> int:
    from desktop_app.core.sqleval.golds import check_set
    from desktop_app.report.question_words import problem_text

    qset = _load(args.set, check_gold=False)
    result = check_set(qset.databases, qset.questions, asks_columns=qset.asks_columns)
    print(_w(lang, "checked", name=qset.name, n=result.questions, golds=result.golds))
    for p in result.problems:
        print("  " + problem_text(p, lang))
    counts = {code: len({p.question_id for p in result.problems if p.code == code})
              for code in ("gold_empty", "gold_null_only")}
    if result.problems:
        print(_w(lang, "summary", failed=len(result.unusable()), empty=counts["gold_empty"],
                 null=counts["gold_null_only"]))
    else:
        print(_w(lang, "ok"))
    print(_w(lang, "asks_columns" if qset.asks_columns else "no_columns"))
    return 1 if result.unusable() else 0

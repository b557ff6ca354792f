"""`throughline judge`: judge one SQL answer against a gold query on a database, without a model.

    throughline judge --db sales.sqlite --gold-sql "SELECT ..." --sql "SELECT ..." \\
        [--round avg_price=2 ...] [--order-sensitive] [--mode strict|tolerant|full] \\
        [--ignore-names] [--tolerance 1e-6] [--json OUT] [--lang en|zh]

Both queries run in the read-only sandbox. The question is synthesized from the gold result: its
column names are the required columns, `--round` gives the rounding, `--order-sensitive` says the
order matters. Exit 0 whether the answer passes or not (the candidate failing to run is a
`sql_error` verdict); exit 2 only when it could not judge (missing database, a failing gold
query, a bad option), with one line naming the problem. The printed verdict is in --lang
(default $THROUGHLINE_LANG, else English); the JSON keeps English `message` and
`counterfactual_text`, with each finding's `params` and the line's `headline` beside them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from desktop_app.cli.common import cli_error, global_options, words_lang


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the `judge` subcommand."""
    # No global --db here: this command's own --db names the database it judges on.
    p = sub.add_parser(
        "judge", parents=[global_options(db=False)],
        help="judge one SQL answer against a gold query on a SQLite database",
        description="Run a gold query and a candidate query in the read-only sandbox and judge "
        "the candidate under one judge (strict by default), with the verdict of every judge as "
        "a counterfactual. Exit 0 whether or not it passes; 2 when it cannot judge.",
    )
    # dest differs from the top-level --db (the results store) so the two never collide.
    p.add_argument("--db", dest="judge_db", type=Path, required=True, metavar="DB",
                   help="the SQLite database")
    p.add_argument("--gold-sql", required=True, metavar="SQL", help="the reference query")
    p.add_argument("--sql", required=True, metavar="SQL", help="the answer to judge")
    p.add_argument("--round", action="append", default=[], metavar="COL=N",
                   help="the question asks for column COL rounded to N decimals (repeatable)")
    p.add_argument("--order-sensitive", action="store_true",
                   help="the question asks for an order (full then checks it)")
    from desktop_app.core.sqleval.judges import judge_names

    p.add_argument("--mode", choices=judge_names(), default="strict",
                   help="the judge (default strict)")
    p.add_argument("--ignore-names", action="store_true",
                   help="the full judge ignores column names")
    p.add_argument("--tolerance", type=float, default=1e-6, metavar="X",
                   help="numeric tolerance of tolerant and full (default 1e-6; relative above 1, "
                   "absolute below). The rounding the question requires (--round) is applied "
                   "BEFORE the tolerance, so a tolerance of 0, 1e-2 or 1 can all give the same "
                   "verdict")
    p.add_argument("--json", type=Path, metavar="OUT", help="write the verdict as JSON")
    p.add_argument("--time-limit", type=float, default=5.0, metavar="S",
                   help="seconds each query may run (default 5)")
    p.set_defaults(handler=run_judge_command)


def parse_rounding(items: list[str]) -> dict[str, int]:
    """{"avg_price": 2} from ["avg_price=2"]; InputError naming --round otherwise."""
    rounding: dict[str, int] = {}
    for item in items:
        col, sep, digits = item.partition("=")
        col, digits = col.strip(), digits.strip()
        if not sep or not col or not digits.isdigit():
            raise cli_error("--round", "not_rounding", item=repr(item))
        rounding[col] = int(digits)
    return rounding


def judge_verdicts(args: argparse.Namespace) -> tuple[dict, object, object]:
    """(every judge's verdict, the gold result, the answer's result or None) for `args`;
    raises InputError (said by code) when it cannot judge."""
    from desktop_app.core.sqleval.golds import Gold, judge_answer
    from desktop_app.core.parsing import InputError, check_range
    from desktop_app.core.sqleval.sandbox import MAX_TIME_LIMIT_S, Sandbox, SandboxError
    from desktop_app.core.sqleval.types import Question

    rounding = parse_rounding(args.round or [])
    check_range("--time-limit", args.time_limit, 0, MAX_TIME_LIMIT_S, unit="s")
    if args.tolerance is None or not args.tolerance >= 0:
        raise InputError("--tolerance", code="not_negative_number", item=repr(args.tolerance))
    db = Path(getattr(args, "judge_db", None) or args.db)
    if not db.is_file():
        raise cli_error("--db", "no_db_file", spec=db)
    with Sandbox(db, time_limit_s=args.time_limit) as box:
        try:
            gold = box.run(args.gold_sql)
        except SandboxError as exc:
            raise cli_error("--gold-sql", "gold_query_failed", error=str(exc)) from None
        try:
            actual, error = box.run(args.sql), None
        except SandboxError as exc:
            actual, error = None, str(exc)
        question = Question(
            id="cli", tier="easy", text_en="(judge command)", gold_sql=args.gold_sql,
            database=db.name, required_columns=tuple(gold.columns), rounding=rounding,
            order_matters=bool(args.order_sensitive))
        # With the sandbox, results over its row cap are read whole before judging. Our own
        # judges always, and the one asked for when it is a benchmark's rule.
        from desktop_app.core.sqleval.judges import default_judges

        modes = tuple(dict.fromkeys((*default_judges(True), args.mode)))
        verdicts = judge_answer(question, (Gold("gold SQL", gold, args.gold_sql),), actual,
                                sandbox=box, modes=modes, final_sql=args.sql, error=error,
                                tolerance=args.tolerance, ignore_names=bool(args.ignore_names))
    return verdicts, gold, actual


def _document(args: argparse.Namespace, verdicts: dict, gold, actual) -> dict:
    """The --json document: English words (`message`, `counterfactual_text`) with the values
    beside them (`params`, `headline`)."""
    from desktop_app.core.sqleval.export import finding_json, headline_json
    from desktop_app.core.sqleval.judge import counterfactual
    from desktop_app.report.judge_words import ENGLISH

    chosen = verdicts[args.mode]
    line = counterfactual(verdicts)
    return {
        "mode": args.mode,
        "passed": chosen.passed,
        "findings": [finding_json(f, ENGLISH) for f in chosen.findings],
        "counterfactual": {m: v.passed for m, v in verdicts.items()},
        "counterfactual_text": ENGLISH.headline(line),
        "headline": headline_json(line, ENGLISH),
        "tolerance": chosen.tolerance,
        "gold": {"columns": list(gold.columns), "rows": gold.total_rows},
        "answer": None if actual is None else {"columns": list(actual.columns),
                                               "rows": actual.total_rows},
    }


def run_judge_command(args: argparse.Namespace) -> int:
    """`throughline judge`: prints a short summary in --lang, writes --json; 0 judged, 2 could
    not."""
    from desktop_app.core.parsing import InputError
    from desktop_app.core.sqleval.judge import counterfactual
    from desktop_app.report.judge_words import JudgeWords

    words = JudgeWords(words_lang(args))
    try:
        verdicts, gold, actual = judge_verdicts(args)
    except InputError as exc:
        from desktop_app.report.errors import error_text

        print(f"throughline judge: {error_text(exc, words.lang)}", file=sys.stderr)
        return 2
    doc = _document(args, verdicts, gold, actual)
    chosen = verdicts[args.mode]
    print(words.verdict(args.mode, chosen.passed))
    for finding in chosen.findings:
        print(f"  {finding.code}: {words.finding(finding)}")
    print(words.across_judges(counterfactual(verdicts)))
    if args.json:
        try:
            Path(args.json).write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n",
                                       encoding="utf-8")
        except OSError as exc:
            print(f"throughline judge: --json: cannot write {args.json}: {exc}", file=sys.stderr)
            return 2
    return 0

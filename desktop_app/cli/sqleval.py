"""`throughline sqleval`: the SQL-agent evaluation from the command line.

Same core as the GUI (`desktop_app.core.sqleval.runner`). Bad input raises InputError naming
the flag; the lead's `cli.py` turns it into one line and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from pathlib import Path

from desktop_app.cli.common import (
    refield,
    ProgressLine,
    global_options,
    api_key_from_env,
    checked_base_url,
    endpoint_or_simulator,
    warn_long_model_ids,
    words_lang,
)
from desktop_app.core.parsing import InputError


TOLERANCE_HELP = (
    "numeric tolerance of the tolerant and full judges (default 1e-6; relative above 1, "
    "absolute below). The rounding the question requires is applied BEFORE the tolerance, so a "
    "tolerance of 0, 1e-2 or 1 can all give the same count")


def _names(text: str | None, flag: str, known: tuple[str, ...]) -> tuple[str, ...]:
    """A comma list of names from `known`; InputError naming `flag` for anything else."""
    if text is None:
        return ()
    items = [t.strip() for t in text.split(",") if t.strip()]
    bad = [t for t in items if t not in known]
    if not items:
        raise InputError(flag, code="choose_from", choices=", ".join(known))
    if bad:
        raise InputError(flag, code="unknown_choice", items=", ".join(bad),
                         choices=", ".join(known))
    return tuple(dict.fromkeys(items))


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the `sqleval` subcommand."""
    from desktop_app.core.sqleval.judges import judge_names

    p = sub.add_parser(
        "sqleval", parents=[global_options()], help="evaluate a model as a text-to-SQL agent on a question set",
        description="Run the SQL agent (tools: list_tables, describe_table, run_sql, "
        "submit_answer) on every question of a set, judge each answer (strict, tolerant, full), "
        "print the per-tier table, store every step, and write JSON with --json.")
    target = p.add_argument_group("endpoint")
    target.add_argument("--base-url", metavar="URL", help="server root or its /v1")
    target.add_argument("--simulator", metavar="PROFILE",
                        help="start the built-in simulated endpoint with this profile instead "
                        "(its SQL personas: --model sim/careful or sim/seed-reference)")
    target.add_argument("--model", help="model name (default: the endpoint's first model)")
    target.add_argument("--api-key-env", metavar="VAR",
                        help="environment variable holding the API key (never stored)")
    target.add_argument("--insecure", action="store_true", help="do not verify TLS certificates")
    ev = p.add_argument_group("evaluation")
    ev.add_argument("--questions", default="sales-25", metavar="SET|PATH",
                    help="a bundled set's name or a set folder (default: sales-25)")
    ev.add_argument("--tiers", metavar="LIST", help="only these tiers, e.g. hard or easy,medium")
    ev.add_argument("--ids", metavar="LIST", help="only these question ids, e.g. t01,h03")
    ev.add_argument("--judge", metavar="LIST", default=None,
                    help=f"judges to summarise, from {','.join(judge_names())} (default: "
                    "strict, tolerant and full; on a set imported from a public benchmark, full "
                    "with names ignored and that benchmark's own rule: spider2, bird or "
                    "test-suite, with the questions where it and full disagree listed). Full "
                    "compares columns in the gold's order, by choice: test-suite's rule takes "
                    "them in any order")
    ev.add_argument("--tolerance", type=float, default=1e-6, metavar="X", help=TOLERANCE_HELP)
    ev.add_argument("--ignore-names", action=argparse.BooleanOptionalAction, default=None,
                    help="the full judge ignores column names (default: only on a set whose "
                    "questions do not name their columns)")
    ev.add_argument("--strategy", metavar="LIST",
                    help="format-guard,examples,glossary,validate-retry,layered (default: "
                    "none). layered: one request without tools first (the fast path), the "
                    "tool loop only when that answer fails the harness's checks")
    ev.add_argument("--layered-route", metavar="ROUTE", default=None,
                    help="with --strategy layered: validate (default: the tool loop only when "
                    "the fast answer fails the checks), tier:hard,medium (those tiers go "
                    "straight to the tool loop) or always-loop")
    ev.add_argument("--max-steps", type=int, default=20, metavar="N",
                    help="model calls per question at most (default 20)")
    ev.add_argument("--max-tokens", type=int, metavar="N",
                    help="prompt + completion tokens per question at most (default: no limit)")
    ev.add_argument("--time-limit", type=float, default=600.0, metavar="S",
                    help="wall time per question in seconds (default 600)")
    ev.add_argument("--sql-time-limit", type=float, default=5.0, metavar="S",
                    help="time limit of each query in the sandbox (default 5)")
    ev.add_argument("--concurrency", type=int, default=1, metavar="N",
                    help="questions at once (default 1)")
    ev.add_argument("--epochs", type=int, default=1, metavar="K",
                    help="run every question K times; reports the spread (default 1)")
    ev.add_argument("--retries", type=int, default=0, metavar="N",
                    help="retry a model call that failed transiently (no answer, 429, 5xx) up "
                    "to N times, backing off 1 s, 2 s, 4 s ... and at least the server's "
                    "Retry-After (default 0: a fault ends the question where it happened)")
    ev.add_argument("--language", choices=["en", "zh"], default="en",
                    help="the language the questions are asked in (default en); --lang sets "
                    "the language of the printed words")
    ev.add_argument("--tool-mode", choices=["native", "text"], default="native",
                    help="native tool calls, or text: the answer is a fenced ```sql block")
    ev.add_argument("--name", help="a name for the run")
    ev.add_argument("--note", metavar="TEXT", help="a note kept with the run")
    ev.add_argument("--setting", action="append", default=[], metavar="KEY=VALUE",
                    help="a server setting the engine does not report, e.g. --setting "
                    "max-num-seqs=2; recorded with the run")
    p.add_argument("--json", type=Path, metavar="OUT", help="write every verdict as JSON")
    p.add_argument("--no-store", action="store_true", help="do not keep the run in the store")
    p.set_defaults(handler=run_sqleval)


def build_config(args: argparse.Namespace, base_url: str):
    """The EvalConfig from the flags; InputError names the flag at fault."""
    from desktop_app.core.endpoint.server_settings import user_settings
    from desktop_app.core.endpoint.types import EndpointConfig
    from desktop_app.core.sqleval.runner import EvalConfig
    from desktop_app.core.sqleval.judges import judge_names
    from desktop_app.core.sqleval.types import STRATEGIES, TIERS

    api_key = api_key_from_env(args)
    url = checked_base_url(base_url, api_key, words_lang(args))
    ids = tuple(t.strip() for t in (args.ids or "").split(",") if t.strip())
    config = EvalConfig(
        endpoint=EndpointConfig(url, model=args.model or "", api_key=api_key,
                                verify_tls=not args.insecure),
        questions=args.questions, tiers=_names(args.tiers, "--tiers", TIERS), question_ids=ids,
        judges=None if args.judge is None else _names(args.judge, "--judge", judge_names()),
        tolerance=args.tolerance,
        ignore_names=args.ignore_names,
        strategies=_names(args.strategy, "--strategy", STRATEGIES),
        max_steps=args.max_steps, max_tokens=args.max_tokens, time_limit_s=args.time_limit,
        sql_time_limit_s=args.sql_time_limit, concurrency=args.concurrency, epochs=args.epochs,
        language=args.language, tool_mode=args.tool_mode, name=args.name or "",
        retries=args.retries, notes=(args.note or "").strip(),
        layered_route=args.layered_route or "validate",
        server_settings=user_settings(args.setting))
    if args.layered_route is not None and "layered" not in config.strategies:
        from desktop_app.cli.common import cli_error

        raise cli_error("--layered-route", "layered_route")
    try:
        config.validate()
    except InputError as exc:  # name the flag, not the field
        flag = _FLAGS.get(exc.field, exc.field)
        raise refield(exc, flag) from None
    return config


# EvalConfig.validate's field names -> the flags that set them.
_FLAGS = {"questions": "--questions", "tiers": "--tiers", "judges": "--judge",
          "strategies": "--strategy", "tolerance": "--tolerance", "max steps": "--max-steps",
          "max tokens": "--max-tokens", "concurrency": "--concurrency", "epochs": "--epochs",
          "time limit": "--time-limit", "SQL time limit": "--sql-time-limit",
          "language": "--language", "tool mode": "--tool-mode", "question ids": "--ids",
          "model": "--model", "retries": "--retries", "layered route": "--layered-route"}


class EvalProgressLine(ProgressLine):
    """Questions done, passes so far, and the question and step in flight."""

    def urgent(self, p) -> bool:
        return p.phase != "running" or p.latest is not None

    def text(self, p) -> str:
        if p.phase != "running":
            return f"{p.phase}..."
        passed = "  ".join(f"{j} {n}" for j, n in p.passed.items())
        where = f"  {p.question_id} step {p.step.index + 1}" if p.step else ""
        return f"{p.done}/{p.total} questions  passed: {passed}{where}"


def _dirs() -> tuple[Path, Path]:
    from desktop_app import paths

    return paths.question_set_dirs(), paths.user_data_dir() / "databases"


def run_sqleval(args: argparse.Namespace) -> int:
    """Run the evaluation; exit 0 when it ran (failed questions included)."""
    from desktop_app.cli.jobs import run_job
    from desktop_app.core.endpoint.client import EndpointError
    from desktop_app.core.store import resolve_db_path

    words_lang(args)  # a bad $THROUGHLINE_LANG is said before the simulator starts
    with ExitStack() as stack:
        # A set named by its folder is handed to the simulator's personas: they know the
        # bundled and imported sets by themselves.
        named = Path(args.questions).expanduser()
        sets = (named,) if args.simulator and (named / "set.toml").is_file() else ()
        base_url = endpoint_or_simulator(stack, args.base_url, args.simulator, sets,
                                         words_lang(args))
        config = build_config(args, base_url)
        try:
            return run_job(_run(args, config), lang=words_lang(args),
                           store_path=None if args.no_store else resolve_db_path(None))
        except EndpointError as exc:
            from desktop_app.report.endpoint_words import endpoint_error_text

            raise InputError("endpoint", code="said",
                             text=endpoint_error_text(exc, words_lang(args))) from None
        except InputError as exc:
            if exc.field in _FLAGS:
                raise refield(exc, _FLAGS[exc.field]) from None
            raise


async def _run(args: argparse.Namespace, config) -> int:
    from desktop_app.core.sqleval.runner import run_eval
    from desktop_app.cli.common import open_results_store
    from desktop_app.core.store import resolve_db_path

    sets_dir, cache_dir = _dirs()
    progress = EvalProgressLine()
    # Opened before run_eval contacts the server.
    store = None if args.no_store else open_results_store(lang=words_lang(args))
    try:
        result = await run_eval(config, store, progress, sets_dir=sets_dir, cache_dir=cache_dir)
    finally:
        progress.close()
        if store is not None:
            store.close()
    if result.info is not None:
        from desktop_app.report.cli_words import cli_text, engine_text

        lang = words_lang(args)
        print(cli_text(lang, "run", "sql_endpoint_line", url=config.endpoint.v1_url,
                       engine=engine_text(result.info, lang), model=result.model,
                       set=result.set_name), file=sys.stderr)
        warn_long_model_ids(result.info, words_lang(args))
    if result.run_id is not None:
        from desktop_app.report.cli_words import cli_text

        print(cli_text(words_lang(args), "run", "stored", run=result.run_id,
                       path=resolve_db_path(None)))
    _print_summary(args, result)
    return 0


def _print_summary(args: argparse.Namespace, result) -> None:
    """The per-tier table (with its epochs and layered lines) and the seeds' "15 of 25 answers
    omit ROUND(x, n)" where the table is read, in --lang; the JSON in English (findings'
    `message` and the counterfactual lines, with their `params` beside them)."""
    from desktop_app.core.sqleval.export import eval_to_json
    from desktop_app.core.sqleval.official import official_judges, result_disagreements
    from desktop_app.report.judge_words import (
        ENGLISH,
        disagreement_lines,
        missing_round_line,
        tier_table,
    )

    lang = words_lang(args)
    print(tier_table(result, lang))
    omitted = missing_round_line(result.items, lang)
    if omitted:
        print(omitted)
    if "full" in result.judges:
        for line in disagreement_lines(result_disagreements(result),
                                       official_judges(result.judges), len(result.items), lang):
            print(line)
    _write_json(args.json, eval_to_json(result, ENGLISH), words_lang(args))


def _write_json(path: Path | None, data: dict, lang: str = "en") -> None:
    if path is None:
        return
    try:
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as exc:
        raise InputError("--json", code="cannot_write", path=path,
                         error=exc.strerror or exc) from None
    from desktop_app.report.cli_words import cli_text

    print(cli_text(lang, "run", "json_written", path=path))

"""`throughline resume RUN_ID`: finish an interrupted throughput sweep into the same run."""

from __future__ import annotations

import argparse
from contextlib import ExitStack
from pathlib import Path

from desktop_app.cli.common import (
    said,
    cli_error,
    global_options,
    api_key_from_env,
    checked_base_url,
    endpoint_or_simulator,
    words_lang,
)
from desktop_app.core.parsing import InputError


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the `resume` subcommand."""
    p = sub.add_parser(
        "resume", parents=[global_options()],
        help="finish an interrupted (or cancelled) throughput sweep into the same run",
        description="Finish a throughput run that was interrupted (the process died), cancelled "
        "or failed: finished cells are kept, the cell that was cut is run again from scratch, "
        "the missing cells run, and the diagnosis is recomputed over every cell. The sweep's "
        "settings come from the stored run; the endpoint is the stored URL unless --base-url "
        "or --simulator says otherwise (stored URLs have credentials removed; the API key is "
        "never stored, so give --api-key-env again).",
    )
    p.add_argument("run_id", type=int, metavar="RUN_ID", help="the run (see `throughline runs`)")
    target = p.add_argument_group("endpoint")
    target.add_argument("--base-url", metavar="URL", help="send to this server instead")
    target.add_argument("--simulator", metavar="PROFILE",
                        help="start the built-in simulated endpoint with this profile")
    target.add_argument("--api-key-env", metavar="VAR",
                        help="environment variable holding the API key (never stored)")
    target.add_argument("--insecure", action="store_true", help="do not verify TLS certificates")
    p.add_argument("--json", type=Path, metavar="OUT", help="write every figure as JSON")
    p.set_defaults(handler=run_resume)


def run_resume(args: argparse.Namespace) -> int:
    """Resume the run; exit 0 when it finished, 2 when it could not be resumed."""
    from desktop_app.cli.jobs import run_job
    from desktop_app.core.endpoint.discovery import EndpointError
    from desktop_app.cli.common import open_results_store
    from desktop_app.core.store import resolve_db_path
    from desktop_app.core.throughput.resume import ResumeError, check_resumable

    if args.base_url and args.simulator:
        raise cli_error("--base-url", "endpoint_and_simulator")
    path = resolve_db_path(None)
    if not path.exists():
        raise cli_error("--db", "db_missing", path=path)
    store = open_results_store(path, lang=words_lang(args))
    with store, ExitStack() as stack:
        try:
            run = check_resumable(store, args.run_id)
        except ResumeError as exc:
            raise said("RUN_ID", exc, args) from None
        if args.base_url or args.simulator:
            base_url = endpoint_or_simulator(stack, args.base_url, args.simulator, (),
                                             words_lang(args))
        else:
            base_url = run.endpoint_url or ""
        try:
            return run_job(_resume(args, store, base_url), store_path=path,
                           lang=words_lang(args))
        except ResumeError as exc:
            raise said("RUN_ID", exc, args) from None
        except EndpointError as exc:
            from desktop_app.report.endpoint_words import endpoint_error_text, resume_hint

            lang = words_lang(args)
            hint = ""
            if not (args.base_url or args.simulator):
                from desktop_app.core.runs import is_simulated

                hint = resume_hint(is_simulated(run.engine, run.model), lang)
            raise InputError("endpoint", code="said",
                             text=endpoint_error_text(exc, lang) + hint) from None


async def _resume(args: argparse.Namespace, store, base_url: str) -> int:
    from desktop_app.cli.throughput import SweepProgressLine, predict_effects, print_sweep
    from desktop_app.core.endpoint.types import EndpointConfig
    from desktop_app.core.throughput.resume import resume_sweep

    api_key = api_key_from_env(args)
    endpoint = EndpointConfig(checked_base_url(base_url, api_key, words_lang(args)),
                              api_key=api_key, verify_tls=not args.insecure)
    progress = SweepProgressLine()
    try:
        result = await resume_sweep(store, args.run_id, endpoint, progress)
    finally:
        progress.close()
    from desktop_app.report.cli_words import cli_text
    from desktop_app.report.strings import text

    lang = words_lang(args)
    print(cli_text(lang, "run", "resumed", run=result.run_id,
                   status=text(lang, f"status_{result.status}"), path=store.path))
    await predict_effects(result, words_lang(args))
    print_sweep(result, args.json, words_lang(args))
    return 0

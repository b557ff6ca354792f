"""`throughline whatif`: what a sweep would measure on a simulator profile (or a model fitted to
a stored sweep), in virtual time."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from desktop_app.cli.common import CliError, cli_error, global_options, words_lang
from desktop_app.core.parsing import InputError


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the `whatif` subcommand."""
    whatif = sub.add_parser(
        "whatif", parents=[global_options()],
        help="what a sweep would measure on a simulator profile, in virtual time")
    whatif.add_argument("--profile", default="seed-reference", help="profile name or .toml path")
    whatif.add_argument("--input-tokens", default="2k,4k,8k,16k,32k", metavar="LIST")
    whatif.add_argument("--concurrency", default="1,2,4,6", metavar="LIST")
    whatif.add_argument("--output-tokens", default="256", metavar="LIST")
    whatif.add_argument(
        "--requests",
        default="wave",
        metavar="wave|sweep|N",
        help="wave (default): each client sends one request, all at once, as the seed reports "
        "measured; sweep: closed loop of max(4 x concurrency, 8) requests like the throughput "
        "sweep; N: closed loop of N requests per cell",
    )
    whatif.add_argument("--json", type=Path, metavar="OUT", help="also write every metric as JSON")
    whatif.add_argument("--from-run", type=int, metavar="RUN_ID",
                        help="fit the engine model to this stored sweep instead of a profile, "
                        "print how well it fits, and (with --set) what a change would do")
    whatif.add_argument("--set", action="append", metavar="KEY=VALUE",
                        help="with --from-run: max_num_seqs=4, max_num_batched_tokens=8192, "
                        "kv_capacity=x1.5 (SGLang's and llama.cpp's names work too); repeatable")
    whatif.set_defaults(handler=run_whatif)


def run_whatif(args: argparse.Namespace) -> int:
    if args.from_run is not None:
        from desktop_app.cli.fit import run_fit

        return run_fit(args)
    if args.set:
        raise cli_error("--set", "set_needs_fit")
    from desktop_app.core.parsing import parse_int_list
    from desktop_app.core.whatif import SWEEP, WAVE, requests_plan

    lang = words_lang(args)
    input_tokens = parse_int_list(args.input_tokens, "--input-tokens")
    concurrency = parse_int_list(args.concurrency, "--concurrency", max_value=4096)
    output_tokens = parse_int_list(args.output_tokens, "--output-tokens")
    requests: int | str = args.requests
    if requests not in (WAVE, SWEEP):
        try:
            requests = parse_int_list(args.requests, "--requests")[0]
        except InputError:
            requests_plan(requests)  # says what --requests takes
            raise
    try:
        return print_profile_whatif(args.profile, input_tokens, concurrency, output_tokens,
                                    requests, args.json, sys.stdout, lang)
    except InputError:
        raise
    except (ValueError, OSError) as exc:
        from desktop_app.report.errors import error_text

        raise CliError(error_text(exc, lang)) from None


def print_profile_whatif(profile_name: str, input_tokens, concurrency, output_tokens,
                         requests: int | str, json_path: Path | None, out: TextIO,
                         lang: str = "en") -> int:
    """`whatif --profile`: the simulated table in `lang` (its first line says the figures are
    simulated, and how requests were sent), the JSON to `json_path` if given; 0."""
    from desktop_app.core.whatif import format_table, whatif_profile
    from desktop_app.report.strings import lookup
    from desktop_app.report.sweep_table_words import table_headers
    from desktop_app.report.whatif_words import WORDS

    profile, cells, document = whatif_profile(profile_name, input_tokens, concurrency,
                                              output_tokens, requests)
    plan = document["requests_method"]
    method = lookup(WORDS, lang, f"method_{plan}", n=document["requests_per_cell"])
    out.write(lookup(WORDS, lang, "simulated", profile=profile.name, method=method))
    out.write(format_table(cells, table_headers(lang)) + "\n")
    if json_path is not None:
        try:
            json_path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            raise InputError("--json", code="cannot_write", path=str(json_path),
                             error=str(exc.strerror or exc)) from None
        out.write(lookup(WORDS, lang, "json_written", path=json_path))
    return 0

"""`throughline throughput`: a sweep from the command line, with the same core as the GUI."""

from __future__ import annotations

import argparse
import dataclasses
import asyncio
import json
import sys
from contextlib import ExitStack
from pathlib import Path

from desktop_app.cli.common import (
    cli_error,
    global_options,
    ProgressLine,
    api_key_from_env,
    checked_base_url,
    endpoint_or_simulator,
    warn_long_model_ids,
    words_lang,
)
from desktop_app.core.parsing import InputError, parse_float_list, parse_int_list


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the `throughput` subcommand."""
    p = sub.add_parser(
        "throughput", parents=[global_options()],
        help="run a throughput sweep against an endpoint (or the built-in simulator)",
        description="Sweep prompt length x concurrency (or request rate) x output length against "
        "an OpenAI-compatible endpoint; prints the cell table and the diagnosis, stores every "
        "request, and writes JSON with --json.",
    )
    target = p.add_argument_group("endpoint")
    target.add_argument("--base-url", metavar="URL", help="server root or its /v1")
    target.add_argument("--simulator", metavar="PROFILE",
                        help="start the built-in simulated endpoint with this profile instead")
    target.add_argument("--model", help="model name (default: the endpoint's first model)")
    target.add_argument("--api", choices=["chat", "completions"], default="chat")
    target.add_argument("--api-key-env", metavar="VAR",
                        help="environment variable holding the API key (never stored)")
    target.add_argument("--insecure", action="store_true", help="do not verify TLS certificates")
    target.add_argument("--connect-timeout", type=float, metavar="S",
                        help="seconds to connect (default 10)")
    target.add_argument("--first-byte-timeout", type=float, metavar="S",
                        help="longest silence: before the first byte and between reads "
                        "(default 600)")
    target.add_argument("--request-timeout", type=float, metavar="S",
                        help="one request, start to end, at most (default 3600)")
    sweep = p.add_argument_group("sweep")
    sweep.add_argument("--config", type=Path, metavar="TOML", help="read the options from a file")
    sweep.add_argument("--input-tokens", metavar="LIST",
                       help="prompt lengths, e.g. 512,2k; or distributions each request draws "
                            "from: N(mean,sd), N(mean,sd,min,max), U(min,max), F(file)")
    sweep.add_argument("--workload", type=Path, metavar="FILE",
                       help="replay a workload file instead of the length axes: ShareGPT JSON, "
                            "a JSONL of prompt or messages (and max_tokens), or a Mooncake "
                            "trace; one cell per concurrency")
    sweep.add_argument("--on-schedule", action="store_true",
                       help="with --workload: send each record at its own timestamp, in one "
                            "cell, and report how late each send was")
    sweep.add_argument("--speedup", type=float, metavar="X",
                       help="with --on-schedule: replay the trace X times faster (default 1)")
    sweep.add_argument("--find-max", action="store_true",
                       help="search concurrency for the highest load at which --slo-share of "
                            "the requests meet --ttft-target/--tpot-target, instead of sweeping "
                            "--concurrency")
    sweep.add_argument("--slo-share", type=float, metavar="P",
                       help="with --find-max: the share of requests that must meet the targets "
                            "(default 0.9)")
    sweep.add_argument("--max-concurrency", type=int, metavar="N",
                       help="with --find-max: the highest concurrency tried (default 1024)")
    sweep.add_argument("--turns", type=int, metavar="N",
                       help="multi-turn sessions: each of --concurrency conversations sends N "
                            "turns of --input-tokens new tokens, each reply in the next turn's "
                            "history (chat API)")
    sweep.add_argument("--think-time", type=float, metavar="S",
                       help="with --turns: seconds between a reply and the next turn "
                            "(default 0)")
    sweep.add_argument("--system-tokens", type=int, metavar="N",
                       help="with --turns: a system prompt of N tokens shared by a cell's "
                            "sessions (default none)")
    sweep.add_argument("--replay-eval", type=int, metavar="RUN_ID",
                       help="replay a stored SQL evaluation's conversations as load, as "
                            "--sessions concurrent agents, and report tasks per hour")
    sweep.add_argument("--beside-sweep", type=int, metavar="RUN_ID",
                       help="with --replay-eval: the capacity model's tasks per hour from this "
                            "stored sweep of the same server, beside each measured figure")
    sweep.add_argument("--sessions", metavar="LIST",
                       help="with --replay-eval: concurrent agents, e.g. 1,4,8 (default 1)")
    sweep.add_argument("--concurrency", metavar="LIST", help="requests in flight, e.g. 1,2,4")
    sweep.add_argument("--request-rate", metavar="LIST",
                       help="open loop instead: Poisson arrivals per second, e.g. 0.5,1,2")
    sweep.add_argument("--output-tokens", metavar="LIST",
                       help="output lengths (default 128); distributions as for --input-tokens")
    sweep.add_argument("--requests", type=int, metavar="N",
                       help="measured requests per cell (default max(4 x concurrency, 8))")
    sweep.add_argument("--warmup", type=int, metavar="N", help="warm-up requests (default 2)")
    sweep.add_argument("--time-budget", type=float, metavar="S",
                       help="seconds per cell at most: requests still in flight then are cut")
    sweep.add_argument("--ttft-target", type=float, metavar="S", help="goodput: TTFT target")
    sweep.add_argument("--tpot-target", type=float, metavar="S", help="goodput: TPOT target")
    sweep.add_argument("--same-prompts", action="store_true",
                       help="identical prompts per length (measures prefix-cache hits)")
    sweep.add_argument("--no-metrics", action="store_true", help="do not scrape /metrics")
    sweep.add_argument("--name", help="a name for the run")
    sweep.add_argument("--note", metavar="TEXT", help="a note kept with the run")
    sweep.add_argument("--workers", type=int, metavar="N",
                       help="load-generating processes a cell's streams are spread over "
                            "(default: CPU count minus one, at least 1; 1 = this process); "
                            "with --ray, Ray actors (default: each node's CPUs minus one)")
    sweep.add_argument("--ray", metavar="ADDRESS",
                       help="send from the actors of a Ray cluster: auto, local, "
                            "ray://HOST:10001 or HOST:6379 (needs pip install "
                            "'throughline[ray]'; see docs/PERFORMANCE.md)")
    sweep.add_argument("--http-client", choices=["lean", "httpx"],
                       help="how streams are received: the lean HTTP/1.1 path (default) or "
                            "httpx (always used through a proxy)")
    sweep.add_argument("--setting", action="append", default=[], metavar="KEY=VALUE",
                       help="a server setting the engine does not report, e.g. --setting "
                       "max-num-seqs=2; recorded with the run")
    p.add_argument("--json", type=Path, metavar="OUT", help="write every figure as JSON")
    p.add_argument("--no-store", action="store_true", help="do not keep the run in the store")
    p.set_defaults(handler=run_throughput)


def _option(args, raw: dict, attr: str, key: str, default=None):
    value = getattr(args, attr, None)
    if value is not None and value is not False:
        return value
    return raw.get(key, default)


MAX_REQUESTS = 10_000_000  # per cell, and warm-up requests: more is a typo, not a benchmark
MAX_SECONDS = 366 * 86400.0  # a timeout or budget beyond a year is a typo


def _seconds(args, raw: dict, attr: str, key: str, default, flag: str) -> float:
    """A time in seconds from a flag or the sweep file, finite and positive, else InputError
    naming the flag (`--connect-timeout nan` is refused, not passed on to the HTTP client)."""
    value = _option(args, raw, attr, key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            0 < value <= MAX_SECONDS):
        raise InputError(flag, code="seconds_at_most",
                         item=f"{value!r:.40}", high=MAX_SECONDS)
    return float(value)


# A sweep file's keys for the options read from `args` below, by the flag's attribute.
_FILE_OPTIONS = {"workload": "workload", "on_schedule": "on_schedule", "speedup": "speedup",
                 "turns": "turns", "think_time": "think_s", "system_tokens": "system_tokens",
                 "find_max": "find_max", "slo_share": "slo_share",
                 "max_concurrency": "max_concurrency"}


def _file_options(args: argparse.Namespace, raw: dict) -> None:
    """The sweep file's workload, session and search keys where no flag gave them (a flag
    wins); a workload path in the file is read beside the file."""
    for attr, key in _FILE_OPTIONS.items():
        if getattr(args, attr, None) in (None, False) and key in raw:
            value = raw[key]
            if attr == "workload":
                value = Path(args.config).parent / Path(value).expanduser()
            setattr(args, attr, value)


def _workload(args: argparse.Namespace, default_output: int):
    """The --workload file, read and said (what it holds, what was left out, in --lang)."""
    from desktop_app.core.throughput.workload import load_workload, summarize
    from desktop_app.report.cli_words import cli_text
    from desktop_app.report.errors import error_text

    lang = words_lang(args)
    workload = load_workload(args.workload, "--workload")
    summary = summarize(workload, default_output)
    print(cli_text(lang, "run", "workload_line", label=workload.label, n=len(workload.records),
                   input=round(sum(summary.input_tokens) / summary.records),
                   output=round(sum(summary.output_tokens) / summary.records)),
          file=sys.stderr)
    if workload.skipped_total:
        from desktop_app.core.parsing import CodedError

        first = workload.skipped[0].phrase()
        said = error_text(CodedError(code=first.code, **first.params), lang)
        print(cli_text(lang, "run", "workload_skipped", n=workload.skipped_total, first=said),
              file=sys.stderr)
    if args.on_schedule and not workload.timed:
        raise InputError("--on-schedule", code="workload_untimed", path=str(args.workload))
    return workload.ref(default_output)


def _file_base(args: argparse.Namespace, attr: str) -> Path | None:
    """Where an F(file) of a length axis is read from: beside the sweep file when the axis
    came from it, else the working folder."""
    return Path(args.config).parent if args.config and getattr(args, attr) is None else None


def _ints(value, field: str) -> tuple[int, ...]:
    if isinstance(value, list):
        value = ",".join(str(v) for v in value)
    return tuple(parse_int_list(str(value), field))


def build_config(args: argparse.Namespace, base_url: str, model: str):
    """The SweepConfig from flags (which win) and an optional --config file."""
    from desktop_app.core.endpoint.server_settings import user_settings
    from desktop_app.core.endpoint.types import EndpointConfig
    from desktop_app.core.throughput.config import SweepConfig, axis_fields, load_sweep_toml

    raw = load_sweep_toml(args.config) if args.config else {}
    _file_options(args, raw)
    api_key = api_key_from_env(args)
    url = checked_base_url(base_url, api_key, words_lang(args))
    endpoint = EndpointConfig(
        base_url=url, model=model, api=_option(args, raw, "api", "api", "chat"),
        api_key=api_key, verify_tls=not args.insecure and raw.get("verify_tls", True),
        connect_timeout_s=_seconds(args, raw, "connect_timeout", "connect_timeout_s", 10.0,
                                   "--connect-timeout"),
        first_byte_timeout_s=_seconds(args, raw, "first_byte_timeout", "first_byte_timeout_s",
                                      600.0, "--first-byte-timeout"),
        total_timeout_s=_seconds(args, raw, "request_timeout", "total_timeout_s", 3600.0,
                                 "--request-timeout"),
    )
    for attr, key, flag in (("time_budget", "cell_time_budget_s", "--time-budget"),
                            ("ttft_target", "ttft_target_s", "--ttft-target"),
                            ("tpot_target", "tpot_target_s", "--tpot-target")):
        if _option(args, raw, attr, key) is not None:
            _seconds(args, raw, attr, key, None, flag)
    for attr, key, flag, top in (("requests", "requests_per_cell", "--requests", MAX_REQUESTS),
                                 ("warmup", "warmup", "--warmup", MAX_REQUESTS)):
        value = _option(args, raw, attr, key)
        if value is not None and not 0 <= value <= top:
            raise InputError(flag, code="out_of_bounds", item=f"{value!r:.40}", low=0, high=top)
    rates = _option(args, raw, "request_rate", "request_rates")
    ray = _ray_address(_option(args, raw, "ray", "ray"))
    input_tokens = _option(args, raw, "input_tokens", "input_tokens")
    output_tokens = axis_fields(_option(args, raw, "output_tokens", "output_tokens", 128),
                                "--output-tokens", "output", _file_base(args, "output_tokens"))
    if args.workload is not None:
        lengths = {"input_tokens": (), "speedup": (args.speedup or 1.0) if args.on_schedule else None,
                   "workload": _workload(args, output_tokens["output_tokens"][0]
                                         if "output_lengths" not in output_tokens else 128)}
    elif input_tokens is None:
        raise InputError("--input-tokens", code="need_input_tokens")
    else:
        lengths = {**axis_fields(input_tokens, "--input-tokens", "input",
                                 _file_base(args, "input_tokens")), **output_tokens}
    if args.workload is None and (args.on_schedule or args.speedup is not None):
        raise cli_error("--on-schedule", "needs_workload")
    if args.turns is not None:
        lengths.update(turns=args.turns, think_s=args.think_time or 0.0,
                       system_tokens=args.system_tokens or 0)
    elif args.think_time is not None or args.system_tokens is not None:
        raise cli_error("--think-time", "needs_turns")
    if args.find_max:
        from desktop_app.core.throughput.findmax import FindMax

        lengths["find_max"] = FindMax(args.slo_share if args.slo_share is not None else 0.9,
                                      args.max_concurrency or 1024)
    elif args.slo_share is not None or args.max_concurrency is not None:
        raise cli_error("--slo-share", "needs_find_max")
    return SweepConfig(
        endpoint=endpoint,
        **lengths,
        concurrency=_ints(_option(args, raw, "concurrency", "concurrency", 1), "--concurrency"),
        request_rates=tuple(parse_float_list(",".join(map(str, rates)) if isinstance(rates, list) else rates, "--request-rate")) if rates else (),
        requests_per_cell=_option(args, raw, "requests", "requests_per_cell"),
        warmup=_option(args, raw, "warmup", "warmup", 2),
        cell_time_budget_s=_option(args, raw, "time_budget", "cell_time_budget_s"),
        ttft_target_s=_option(args, raw, "ttft_target", "ttft_target_s"),
        metrics_interval_s=_option(args, raw, "metrics_interval", "metrics_interval_s", 0.5),
        tpot_target_s=_option(args, raw, "tpot_target", "tpot_target_s"),
        unique_prompts=not (args.same_prompts or raw.get("unique_prompts") is False),
        scrape_metrics=not (args.no_metrics or raw.get("scrape_metrics") is False),
        name=_option(args, raw, "name", "name", ""),
        notes=(args.note or "").strip(),
        server_settings=user_settings(args.setting),
        http_client=_option(args, raw, "http_client", "http_client", "lean"),
        workers=_workers(_option(args, raw, "workers", "workers"), ray),
        ray=ray,
    ), raw


async def _replay(args: argparse.Namespace, base_url: str) -> int:
    """`--replay-eval RUN_ID`: the run's recorded conversations sent again at each of
    `--sessions`, a line per number of agents (and --json)."""
    from desktop_app.cli.common import open_results_store
    from desktop_app.core.parsing import parse_int_list
    from desktop_app.core.store import StoreError
    from desktop_app.core.throughput.replay import MAX_AGENTS, tasks_to_replay
    from desktop_app.report.errors import error_text

    lang = words_lang(args)
    sessions = parse_int_list(args.sessions or "1", "--sessions", max_value=MAX_AGENTS)
    try:
        with open_results_store(lang=lang) as store:
            tasks = tasks_to_replay(store, args.replay_eval, "--replay-eval")
            model = _capacity_model(store, args) if args.beside_sweep is not None else None
            return await _replay_into(args, base_url, lang, store, tasks, sessions, model)
    except StoreError as exc:
        raise InputError("--replay-eval", code="said", text=error_text(exc, lang)) from None


async def _replay_into(args: argparse.Namespace, base_url: str, lang: str, store, tasks,
                       sessions: list[int], model) -> int:
    """The replay itself, stored in `store` as a run of kind "replay"."""
    from desktop_app.core.endpoint.client import make_client
    from desktop_app.core.endpoint.discovery import choose_model, discover
    from desktop_app.core.endpoint.types import EndpointConfig
    from desktop_app.core.throughput.replay import replay
    from desktop_app.report.cli_words import cli_text

    api_key = api_key_from_env(args)
    endpoint = EndpointConfig(checked_base_url(base_url, api_key, lang), model=args.model or "",
                              api_key=api_key, verify_tls=not args.insecure,
                              first_byte_timeout_s=args.first_byte_timeout or 600.0,
                              total_timeout_s=args.request_timeout or 3600.0)
    async with make_client(endpoint, 1) as client:
        info = await discover(endpoint, client)
    endpoint = choose_model(endpoint, info, field="--model")
    print(cli_text(lang, "run", "replay_head", n=len(tasks), run=args.replay_eval,
                   steps=sum(len(t.steps) for t in tasks), model=endpoint.model),
          file=sys.stderr)

    def said(point) -> None:
        def num(value, scale=1.0, spec=".0f"):
            return "-" if value is None else format(value * scale, spec)

        tph = point.tasks_per_hour
        print(cli_text(lang, "run", "replay_line", sessions=point.sessions, tasks=point.tasks,
                       wall=f"{point.wall_s:.1f}", tph=num(tph and tph.value, spec=",.0f"),
                       low=num(tph and tph.low, spec=",.0f"),
                       high=num(tph and tph.high, spec=",.0f"),
                       ttft=num(point.step_ttft_p50_s, 1000), task=num(point.task_s_mean,
                                                                     spec=".2f"),
                       failed=point.failed), flush=True)
        if model is not None:
            at = model.point(point.sessions)
            if at is None:
                print(cli_text(lang, "run", "replay_no_model", sessions=point.sessions,
                               run=args.beside_sweep), flush=True)
            elif at.tasks_per_hour is None:
                from desktop_app.report.strings import text

                why = text(lang, f"cap_reason_{at.reason_code}") if at.reason_code else "-"
                print(cli_text(lang, "run", "replay_no_figure", sessions=point.sessions,
                               run=args.beside_sweep, why=why), flush=True)
            else:
                ratio = f"{100 * tph.value / at.tasks_per_hour:.0f}" if tph else "-"
                print(cli_text(lang, "run", "replay_model", tph=f"{at.tasks_per_hour:,.0f}",
                               sessions=point.sessions, run=args.beside_sweep, share=ratio),
                      flush=True)

    result = await replay(endpoint, info, tasks, sessions, on_point=said, store=store,
                          sql_run=args.replay_eval, beside_sweep=args.beside_sweep)
    print(cli_text(lang, "run", "replay_stored", run=result.run_id), file=sys.stderr)
    if args.json:
        doc = {"format": "throughline-replay", "run_id": args.replay_eval,
               "replay_run_id": result.run_id,
               "model": endpoint.model, "engine": info.engine, "tasks": len(tasks),
               "points": [p.to_json() for p in result.points],
               "capacity_model": None if model is None else {
                   "sweep_run_id": args.beside_sweep,
                   "tasks_per_hour": {p.concurrency: p.tasks_per_hour for p in model.points}}}
        args.json.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return 0


def _capacity_model(store, args: argparse.Namespace):
    """The capacity model (`compare.capacity`) of the --beside-sweep sweep and the replayed
    evaluation, or a refusal naming --beside-sweep."""
    from desktop_app.core.compare.capacity import capacity
    from desktop_app.core.sqleval.records import load_eval
    from desktop_app.core.throughput.records import load_sweep

    if store.get_run(args.beside_sweep).kind != "throughput":
        raise cli_error("--beside-sweep", "not_sweep_run", run=args.beside_sweep)
    return capacity(load_sweep(store, args.beside_sweep, requests=True),
                    load_eval(store, args.replay_eval, steps=True))


def _ray_address(value) -> str | None:
    """--ray (or the file's `ray`), checked: InputError naming --ray."""
    from desktop_app.core.throughput.config import check_ray_address

    check_ray_address(value, "--ray")
    return value


def _workers(value: int | None, ray: str | None = None) -> int:
    """--workers, or the default: CPU count minus one, at least 1; with --ray, 0 (the pool
    starts one actor per CPU of each node, less one per node)."""
    from desktop_app.core.throughput.config import MAX_WORKERS
    from desktop_app.core.throughput.workers import default_workers

    if value is None:
        return 0 if ray is not None else default_workers()
    if not 1 <= value <= MAX_WORKERS:
        raise InputError("--workers", code="out_of_bounds", item=f"{value!r:.40}", low=1,
                         high=MAX_WORKERS)
    return value


class SweepProgressLine(ProgressLine):
    """The current cell, its requests, the run's share done and the ETA."""

    def urgent(self, p) -> bool:
        return p.phase != "running" or p.done >= p.total

    def text(self, p) -> str:
        if p.phase != "running" or p.cell is None:
            return f"{p.phase}..."
        eta = "" if p.eta_s is None else f"  ETA {int(p.eta_s) // 60}:{int(p.eta_s) % 60:02d}"
        share = 100 * p.run_done / max(p.run_total, 1)
        return (f"cell {p.cell_index + 1}/{p.cells_total} ({p.cell.label}): "
                f"{p.done}/{p.total} requests  run {share:.0f}%{eta}")


def run_throughput(args: argparse.Namespace) -> int:
    """Run the sweep; exit 0 when it ran (failed requests included), 1 when its results could
    not all be stored, 2 when it could not run."""
    from desktop_app.core.endpoint.discovery import EndpointError

    words_lang(args)  # a bad $THROUGHLINE_LANG is said before the sweep, not after it

    from desktop_app.core.throughput.config import load_sweep_toml

    raw = load_sweep_toml(args.config) if args.config else {}
    base_url = args.base_url or raw.get("base_url")
    if args.model is None and raw.get("model"):
        args.model = raw["model"]
    from desktop_app.cli.common import check_results_store
    from desktop_app.cli.jobs import run_job
    from desktop_app.core.store import resolve_db_path

    check_results_store(args)  # an unusable results file stops here, before any request
    with ExitStack() as stack:
        base_url = endpoint_or_simulator(stack, base_url, args.simulator, (),
                                         words_lang(args))
        try:
            job = _replay(args, base_url) if args.replay_eval is not None else _run(args, base_url)
            return run_job(job, lang=words_lang(args),
                           store_path=None if args.no_store else resolve_db_path(None))
        except EndpointError as exc:
            from desktop_app.report.endpoint_words import endpoint_error_text

            raise InputError("endpoint", code="said",
                             text=endpoint_error_text(exc, words_lang(args))) from None


# SweepConfig.validate's field names -> the flags that set them.
_FLAGS = {"input tokens": "--input-tokens", "output tokens": "--output-tokens",
          "concurrency": "--concurrency", "request rate": "--request-rate",
          "requests per cell": "--requests", "warm-up requests": "--warmup",
          "speedup": "--speedup", "workers": "--workers", "workload": "--workload",
          "find max": "--find-max", "SLO share": "--slo-share", "turns": "--turns",
          "think time": "--think-time", "system tokens": "--system-tokens",
          "max concurrency": "--max-concurrency"}


async def _run(args: argparse.Namespace, base_url: str) -> int:
    from desktop_app.core.endpoint.client import make_client
    from desktop_app.core.endpoint.discovery import choose_model, discover
    from desktop_app.core.redact import redact_url
    from desktop_app.cli.common import open_results_store
    from desktop_app.core.store import resolve_db_path
    from desktop_app.core.throughput.sweep import run_sweep

    config, _raw = build_config(args, base_url, args.model or "")
    # Bounds first, before the server is asked anything (the model is chosen after), in the
    # flags' names.
    try:
        dataclasses.replace(config, endpoint=dataclasses.replace(
            config.endpoint, model=config.endpoint.model or "-")).validate()
    except InputError as exc:
        flag = _FLAGS.get(exc.field)
        if flag is None:
            raise
        raise InputError(flag, exc.message, code=exc.code, **exc.params) from None
    async with make_client(config.endpoint, 1) as client:
        info = await discover(config.endpoint, client)
    warn_long_model_ids(info, words_lang(args))
    config = dataclasses.replace(
        config, endpoint=choose_model(config.endpoint, info, field="--model"))
    config.validate()
    from desktop_app.report.cli_words import cli_text, engine_text

    lang = words_lang(args)
    if info.models and config.endpoint.model not in info.models:
        print(cli_text(lang, "run", "model_not_listed", model=config.endpoint.model,
                       models=", ".join(info.models)), file=sys.stderr)
    print(cli_text(lang, "run", "endpoint_line", url=redact_url(config.endpoint.v1_url),
                   engine=engine_text(info, lang), version=info.engine_version or "",
                   model=config.endpoint.model,
                   tokenizer=info.tokenizer or cli_text(lang, "run", "no_tokenizer"),
                   metrics=cli_text(lang, "run", "yes" if info.has_metrics else "no")),
          file=sys.stderr)
    progress = SweepProgressLine()
    store = None if args.no_store else open_results_store()
    try:
        result = await run_sweep(config, store, progress, info=info)
    finally:
        progress.close()
        if store is not None:
            store.close()
    if result.run_id is not None:
        from desktop_app.report.diagnosis_words import cell_table_words

        print(cell_table_words(words_lang(args))["stored"].format(
            run=result.run_id, path=resolve_db_path(None)))
    await predict_effects(result, words_lang(args))
    print_sweep(result, args.json, words_lang(args))
    return 1 if result.status == "failed" else 0


async def predict_effects(result, lang: str) -> None:
    """Give the suggestions of `result`'s diagnosis their effect as the engine model fitted
    to the sweep predicts it (`core.throughput.effects`), and keep them with the run. Seconds
    of CPU, in a thread; said on stderr. A sweep the model cannot be fitted to, or one too
    large to fit quickly (`effects.MAX_SIM_STEPS`), keeps its suggestions without numbers;
    nothing here can sink a sweep that ran."""
    from desktop_app.cli.common import open_results_store
    from desktop_app.core.throughput.effects import TRIALS, annotate_sweep
    from desktop_app.report.diagnosis_words import cell_table_words

    if not any(f.suggestion_code in TRIALS for f in result.findings):
        return
    w = cell_table_words(lang)
    print(w["predicting"], file=sys.stderr)
    try:
        if result.run_id is None:
            outcome = await asyncio.to_thread(annotate_sweep, result)
        else:
            with open_results_store(lang=lang) as store:
                outcome = await asyncio.to_thread(annotate_sweep, result, store)
    except Exception as exc:  # noqa: BLE001 - the sweep ran and is stored: say it, go on
        print(w["predict_error"].format(error=f"{type(exc).__name__}: {exc}"), file=sys.stderr)
        return
    if outcome.status in ("fit_failed", "too_large"):
        print(w[f"predict_{outcome.status}"].format(
            run=result.run_id if result.run_id is not None else "RUN_ID"), file=sys.stderr)


def _turns_text(cell, lang: str) -> str:
    """A multi-turn cell's figures per turn, in `lang`: TTFT, prompt tokens, cache share."""
    from desktop_app.report.cli_words import cli_text

    def ms(v):
        return "-" if v is None else f"{1000 * v:.0f}"

    parts = [cli_text(lang, "run", "turn_part", turn=t["turn"], ttft=ms(t["ttft_p50_s"]),
                      prompt="-" if t["prompt_tokens_mean"] is None
                      else f"{t['prompt_tokens_mean']:,.0f}",
                      cached=cli_text(lang, "run", "no_cache_report")
                      if t["cached_share"] is None else f"{100 * t['cached_share']:.0f} %")
             for t in cell.turn_figures]
    return cli_text(lang, "run", "turns_line", cell=cell.spec.load_label,
                    sessions=cell.spec.requests // (cell.spec.turns or 1),
                    turns=cli_text(lang, "run", "turn_sep").join(parts))


def print_sweep(result, json_path: Path | None, lang: str | None = None) -> None:
    """The cell table and the diagnosis on stdout, the diagnosis in `lang` (default:
    $THROUGHLINE_LANG, else English); every figure as JSON into `json_path`, each finding with
    its message and suggestion in the same language."""
    from desktop_app.core.throughput.export import cells_table, sweep_to_json
    from desktop_app.report.diagnosis_words import (
        cell_table_words,
        finding_text,
        findings_text,
        suggestion_text,
    )
    from desktop_app.report.cli_words import cli_text
    from desktop_app.report.sweep_table_words import table_headers

    lang = lang or words_lang(argparse.Namespace())
    w = cell_table_words(lang)
    print(cells_table(result.cells, table_headers(lang), lambda code: w.get(code, code)))
    if result.config.find_max is not None:
        from desktop_app.report.findmax_words import knee_text

        print(knee_text(result.cells, result.config.find_max, lang))
    if result.reply_chars_per_token:
        print(cli_text(lang, "run", "reply_ratio_line", n=result.replies_counted,
                       ratio=f"{result.reply_chars_per_token:.2f}"))
    for cell in result.cells:
        if cell.turn_figures:
            print(_turns_text(cell, lang))
        reuse = cell.prefix_cache
        if reuse is not None and (cell.turn_figures or reuse["hits"]):
            print(cli_text(lang, "run", "prefix_cache_line", cell=cell.spec.load_label,
                           share=f"{100 * reuse['share']:.0f}", hits=f"{reuse['hits']:,.0f}",
                           queries=f"{reuse['queries']:,.0f}", source=reuse["source"]))
    for cell in result.cells:
        late = cell.send_lateness
        if late and late.get("n"):
            print(cli_text(lang, "run", "schedule_line", speedup=f"{cell.spec.speedup:g}",
                           n=int(late["n"]), p50=late["p50"] * 1000, p99=late["p99"] * 1000,
                           max=late["max"] * 1000))
    print()
    print(findings_text(result.findings, lang))
    if json_path:
        doc = sweep_to_json(result, lambda f: (finding_text(f, lang), suggestion_text(f, lang)))
        json_path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n",
                             encoding="utf-8")
        print(w["json"].format(path=json_path))

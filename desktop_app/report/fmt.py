"""Numbers, cell values with their intervals, run settings and configurations in the report's
language (the verdicts' words are `desktop_app.report.verdicts`)."""

from __future__ import annotations

from html import escape

from desktop_app.core.compare import DimensionRow, DimValue
from desktop_app.core.engines import label_parts
from desktop_app.core.endpoint.server_settings import USER_PREFIX
from desktop_app.core.runs import RunInfo
from desktop_app.report.strings import judge_name, text
from desktop_app.report.verdicts import value_text


def num(v: float) -> str:
    """tok/s and token counts: thousands separated, one decimal below 100."""
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.1f}"


NBSP = "\u00a0"  # keeps a number and its unit on one line in narrow table cells


def secs(v: float) -> str:
    return f"{v:.2f}{NBSP}s" if v >= 1 else f"{v * 1000:.0f}{NBSP}ms"


def pct(v: float) -> str:
    return f"{v * 100:.0f}{NBSP}%"


def change(v: float, sep: str = NBSP) -> str:
    """A relative change: "+12 %", "-3 %"; one that rounds to nothing is "0 %", never "-0 %"
    (`sep` between the number and "%": the PDF's no-break space, "" in the window's tables)."""
    rounded = round(v * 100)
    return f"{rounded:+d}{sep}%" if rounded else f"0{sep}%"




def cell_html(lang: str, row: DimensionRow, v: DimValue) -> str:
    """One run's value in a row as `verdicts.value_text` writes it (with its 95 % interval and
    the client-bound mark), the details in a smaller second line: the number of observations,
    passed/judged details, the diagnosis' doubts."""
    if not v.available:
        return f'<span style="color:#888">{text(lang, "na")}</span>'
    d = v.detail
    small: list[str] = []
    if row.key == "bottleneck" and d.get("doubts"):
        small.append(text(lang, "doubt", codes=", ".join(d["doubts"])))
    elif row.key in ("pass_rate", "tier_pass_rate"):
        if "tolerant_passed" in d:
            small.append(text(lang, "tolerant_short", n=d["tolerant_passed"]))
        if d.get("unfinished"):
            small.append(text(lang, "unfinished", n=d["unfinished"]))
        if d.get("epochs"):
            e = d["epochs"]
            small.append(text(lang, "epochs_spread", lo=pct(e["min"]), hi=pct(e["max"]),
                              n=len(e["rates"])))
    elif row.key not in ("bottleneck", "failure_classes"):
        if v.n:
            small.append(text(lang, "n_obs", n=f"{v.n:,}"))
        if row.key == "tier_tokens" and "prompt" in d:
            small.append(text(lang, "prompt_completion", p=num(d["prompt"]),
                              c=num(d["completion"])))
    main = escape(value_text(row, v, lang))
    if v.client_bound:  # the mark value_text adds, made to stand out
        main = f'<span style="color:#a04000">{main}</span>'
    return _two(main, small)


def _two(main: str, small: list[str]) -> str:
    if not small:
        return main
    return f'{main}<br/><span style="font-size:7pt;color:#555">{escape("; ".join(small))}</span>'


# --------------------------------------------------------------------------- the cover


def engine_label(engine: str, lang: str) -> str:
    """A run's engine as the report shows it: "vllm", or for the built-in simulator (stored as
    "simulated vllm") "vllm (simulated)" / "vllm（模拟）"; empty stays empty."""
    if not engine:
        return ""
    name, simulated = label_parts(engine)
    return text(lang, "engine_simulated", engine=name) if simulated else engine


def setting_value(v: object) -> str:
    """A server setting's value as the engine's flags write it (true/false, 0.9, 2048)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def settings_groups(lang: str, info: RunInfo) -> list[tuple[str, list[str]]]:
    """A run's server settings as (heading, ["key = value", ...]): those read from the server
    first, then those the user entered; [] when the run recorded none. A value the user entered
    that the server contradicted (stored as "user:<key>") is shown beside the server's."""
    settings, source = info.settings, info.settings_source
    server, user = [], []
    for key, value in settings.items():
        if key.startswith(USER_PREFIX):
            base = key.removeprefix(USER_PREFIX)
            user.append(text(lang, "settings_contradicted", name=base, value=setting_value(value),
                             server=setting_value(settings.get(base, "?"))))
        elif source.get(key) == "user":
            user.append(f"{key} = {setting_value(value)}")
        else:  # "server", or a record from before sources were kept
            server.append(f"{key} = {setting_value(value)}")
    return [(text(lang, h), items) for h, items in (("settings_server", server),
                                                     ("settings_user", user)) if items]


def _plain(v: object) -> str:
    """A configured number as typed: 2,048 tokens, 0.5 requests/s (never "64.0")."""
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:,.0f}" if v == int(v) and abs(v) >= 1000 else f"{v:g}"
    return str(v)


def _list(values: object) -> str:
    if isinstance(values, list | tuple):
        return ", ".join(_plain(v) for v in values)
    return _plain(values)


def _duration(seconds: float) -> str:
    """A configured limit: "600 s", "1.5 s", "250 ms"."""
    return f"{seconds:g}{NBSP}s" if seconds >= 1 else f"{seconds * 1000:g}{NBSP}ms"


def config_phrases(lang: str, kind: str, cfg: dict) -> list[str]:
    """What a run was asked to do, in words: the choices that shape its figures, defaults that
    nobody chose left out (a sweep's unique prompts, /metrics scraping, temperature 0)."""
    cfg = cfg if isinstance(cfg, dict) else {}
    out: list[str] = []

    def add(key: str, **kw) -> None:
        out.append(text(lang, key, **kw))

    if kind == "throughput":
        if cfg.get("imported_from"):
            add("cfg_imported", tool=cfg["imported_from"], file=cfg.get("file") or "?")
            if cfg.get("missing"):
                add("cfg_missing", v=_list(cfg["missing"]))
        if cfg.get("input_tokens"):
            add("cfg_lengths", v=_list(cfg["input_tokens"]))
        if cfg.get("output_tokens"):
            add("cfg_output", v=_list(cfg["output_tokens"]))
        if cfg.get("request_rates"):
            add("cfg_rates", v=_list(cfg["request_rates"]))
        elif cfg.get("concurrency"):
            add("cfg_concurrency", v=_list(cfg["concurrency"]))
        if cfg.get("requests_per_cell"):
            add("cfg_requests", n=cfg["requests_per_cell"])
        elif "requests_per_cell" in cfg and not cfg.get("request_rates"):
            add("cfg_requests_default")
        if cfg.get("warmup"):
            add("cfg_warmup", n=cfg["warmup"])
        if cfg.get("cell_time_budget_s"):
            add("cfg_budget", v=_duration(cfg["cell_time_budget_s"]))
        if cfg.get("unique_prompts") is False:
            add("cfg_same_prompts")
        if cfg.get("scrape_metrics") is False:
            add("cfg_no_metrics")
        targets = [f"{name} {_duration(cfg[k])}" for name, k in (("TTFT", "ttft_target_s"),
                                                             ("TPOT", "tpot_target_s"))
                   if cfg.get(k)]
        if targets:
            add("cfg_goodput", v=", ".join(targets))
        if cfg.get("ignore_eos") is not None:
            add("cfg_ignore_eos", v=setting_value(cfg["ignore_eos"]))
    else:
        if cfg.get("set_name") or cfg.get("questions"):
            add("cfg_questions", v=cfg.get("set_name") or cfg["questions"])
        if cfg.get("tiers"):
            add("cfg_tiers", v=", ".join(text(lang, f"tier_{t}") for t in cfg["tiers"]))
        if cfg.get("question_ids"):
            ids = list(cfg["question_ids"])
            add("cfg_ids", v=", ".join(ids[:8]) + (" ..." if len(ids) > 8 else ""))
        if cfg.get("judges"):
            add("cfg_judges", v=", ".join(judge_name(lang, j) for j in cfg["judges"]))
        if cfg.get("tolerance") is not None:
            add("cfg_tolerance", v=f"{cfg['tolerance']:g}")
        if cfg.get("ignore_names"):
            add("cfg_ignore_names")
        if cfg.get("strategies"):
            add("cfg_strategies", v=_list(cfg["strategies"]))
        if cfg.get("max_steps"):
            add("cfg_steps", n=cfg["max_steps"])
        if cfg.get("max_tokens"):
            add("cfg_max_tokens", n=_plain(cfg["max_tokens"]))
        if cfg.get("time_limit_s"):
            add("cfg_time_limit", v=_duration(cfg["time_limit_s"]))
        if cfg.get("concurrency"):
            add("cfg_sql_concurrency", n=cfg["concurrency"])
        if cfg.get("epochs", 1) != 1:
            add("cfg_epochs", n=cfg["epochs"])
        if cfg.get("language") in ("en", "zh"):
            add("cfg_language", v=text(lang, f"lang_{cfg['language']}"))
        if cfg.get("tool_mode") in ("native", "text"):
            add("cfg_tool_mode", v=text(lang, f"tool_{cfg['tool_mode']}"))
        if cfg.get("retries"):
            add("cfg_retries", n=cfg["retries"])
    if cfg.get("temperature"):
        add("cfg_temperature", v=f"{cfg['temperature']:g}")
    return out

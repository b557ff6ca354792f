"""A finding's evidence in the reader's words, English and Simplified Chinese.

The core keeps with each finding the numbers behind it (`Finding.evidence`: a JSON mapping of
snake_case keys, cell indices counted from 0, cell shapes as "512/64", a few codes as values).
The window unfolds it under the finding; `evidence_rows(evidence, lang)` turns it into rows a
reader can take in: every key named in words ("queued_cells" is "cells that queued", 出现排队的
单元), a cell index as the cell's number as the progress line counts them (from 1), a shape as
"512 in / 64 out", a concurrency as "c=4", a length in tokens, the codes as words. A key with no
words here is shown as it is (a check in the tests names every key the core writes).

The evidence is read from the results file: hostile until checked, so depth and breadth are
bounded and every value is shown as text, never interpreted.
"""

from __future__ import annotations

import json
import re

__all__ = ["EVIDENCE_KEYS", "EVIDENCE_VALUES", "evidence_rows"]

# key: (English, Chinese)
EVIDENCE_KEYS: dict[str, tuple[str, str]] = {
    "actors": ("Ray actors", "Ray actor 数"),
    "actors_beyond": ("actors beyond the tolerance", "超出容差的 actor 数"),
    "baseline_ttft_s": ("TTFT at concurrency 1 (s)", "并发 1 时的 TTFT（秒）"),
    "best_concurrency": ("highest concurrency on target", "达标的最高并发"),
    "by_cell": ("by cell", "按单元"),
    "by_class": ("failures by kind", "按类型的失败"),
    "by_code": ("by kind", "按类型"),
    "cap": ("concurrency cap", "并发上限"),
    "cell": ("cell", "单元"),
    "cell_drift_max_ms": ("largest clock drift in a cell (ms)", "单元内最大时钟漂移（毫秒）"),
    "cells": ("cells", "单元"),
    "change": ("change", "变化"),
    "concurrency": ("concurrency", "并发"),
    "cpu_percent": ("client CPU (%)", "客户端 CPU（%）"),
    "decode_tps": ("decode tok/s per request", "每请求解码 tok/s"),
    "end_errors": ("errors of the closing clock check", "结束时时钟检查的错误"),
    "end_failed": ("closing clock check failed", "结束时时钟检查失败"),
    "estimate": ("estimated from", "估算方式"),
    "failed": ("failed requests", "失败的请求数"),
    "from_tokens": ("from (tokens)", "起始长度（token）"),
    "goodput": ("goodput (share on target)", "有效吞吐（达标占比）"),
    "hosts": ("hosts", "主机数"),
    "hosts_beyond": ("hosts beyond the tolerance", "超出容差的主机"),
    "input_tokens": ("prompt length (tokens)", "提示长度（token）"),
    "intercept_s": ("intercept (s)", "截距（秒）"),
    "itl_p50_s": ("ITL p50 (s)", "ITL p50（秒）"),
    "kv_cache_peak": ("KV cache peak", "KV 缓存峰值"),
    "limit": ("the server's known limit", "服务器已知上限"),
    "loop_lag_max_ms": ("client event-loop lag, max (ms)", "客户端事件循环延迟最大值（毫秒）"),
    "loop_lag_p99_ms": ("client event-loop lag, p99 (ms)", "客户端事件循环延迟 p99（毫秒）"),
    "max_client_concurrency": ("highest concurrency sent", "发送的最高并发"),
    "max_waiting": ("most requests waiting", "最多等待请求数"),
    "mean_change_by_concurrency": ("mean change by concurrency", "按并发的平均变化"),
    "mean_in_flight": ("mean requests in flight", "平均在途请求数"),
    "mean_queue_s": ("mean time queued (s)", "平均排队时间（秒）"),
    "mean_ttft_s": ("mean TTFT (s)", "平均 TTFT（秒）"),
    "metric": ("metric", "指标"),
    "pearson_r": ("Pearson r", "皮尔逊相关系数 r"),
    "preemptions": ("preemptions", "抢占次数"),
    "preemptions_by_cell": ("preemptions by cell", "按单元的抢占次数"),
    "prefill_tps_by_length": ("prefill tok/s by prompt length", "按提示长度的预填充 tok/s"),
    "queue_scrapes": ("scrapes at the cap with requests waiting", "达到上限且有请求等待的采样次数"),
    "queue_share": ("share of TTFT spent queued", "TTFT 中排队所占比例"),
    "queued_cells": ("cells that queued", "出现排队的单元"),
    "refill_delay_s": ("delay before a free slot is refilled (s)", "空位补发前的延迟（秒）"),
    "requests": ("requests", "请求数"),
    "resent": ("requests resent", "重发的请求数"),
    "run_drift_max_ms": ("largest clock drift over the run (ms)", "整次运行最大时钟漂移（毫秒）"),
    "scrapes": ("/metrics scrapes", "/metrics 采样次数"),
    "seconds": ("over (s)", "时长（秒）"),
    "sessions": ("Ray sessions", "Ray 会话数"),
    "share": ("share", "占比"),
    "slope_s_per_1k_tokens": ("slope (s per 1k prompt tokens)", "斜率（秒/千个提示 token）"),
    "source": ("seen in", "依据"),
    "strength": ("strength", "确定程度"),
    "to_tokens": ("to (tokens)", "目标长度（token）"),
    "tolerance_ms": ("tolerance (ms)", "容差（毫秒）"),
    "ttft_s_by_length": ("TTFT (s) by prompt length", "按提示长度的 TTFT（秒）"),
    "uncertainty_max_ms": ("largest clock uncertainty (ms)", "最大时钟不确定度（毫秒）"),
    "window_s": ("window (s)", "时间窗（秒）"),
    "worst": ("worst", "最差"),
    "worst_change": ("worst change", "最差变化"),
    "worst_error_ms": ("worst clock error (ms)", "最大时钟误差（毫秒）"),
}

# (key, code): (English, Chinese) - the codes the core writes as values.
EVIDENCE_VALUES: dict[tuple[str, str], tuple[str, str]] = {
    ("source", "metrics"): ("the server's /metrics", "服务器的 /metrics"),
    ("source", "client_timeline"): ("the client's timeline", "客户端时间线"),
    ("source", "timeline_and_gauge"): ("the client's timeline and the running gauge",
                                       "客户端时间线与 running 指标"),
    ("strength", "strong"): ("strong", "确定"),
    ("strength", "possible"): ("possible", "可能"),
    ("estimate", "server_queue_time"): ("the server's queue time", "服务器的排队时间"),
    ("estimate", "ttft_minus_concurrency_1_ttft"): ("TTFT minus TTFT at concurrency 1",
                                                    "TTFT 减去并发 1 时的 TTFT"),
}

_FORMS = {"en": {"cell": "cell {n}", "shape": "{input} in / {output} out", "c": "c={c}",
                 "tokens": "{n} tokens", "yes": "yes", "no": "no", "none": "none",
                 "more": "... ({n:,} in all)", "line": "{key}: {value}", "list": ", "},
          "zh": {"cell": "单元 {n}", "shape": "输入 {input} / 输出 {output}", "c": "并发 {c}",
                 "tokens": "{n} 个 token", "yes": "是", "no": "否", "none": "无",
                 "more": "...（共 {n:,} 项）", "line": "{key}：{value}", "list": "、"}}

# Keys whose children are keyed by a cell's index, by a prompt length, or by a concurrency
# (and under a cell shape "512/64", a concurrency); `queued_cells` lists indices, `cell` is one.
_BY_CELL = {"cells", "by_cell", "preemptions_by_cell"}
_BY_LENGTH = {"prefill_tps_by_length", "ttft_s_by_length"}
_BY_CONCURRENCY = {"mean_change_by_concurrency", "goodput", "decode_tps"}
_INDEX_VALUES = {"queued_cells", "cell"}
# Shown as percentages: relative changes (signed), and shares of a whole.
_CHANGES = {"change", "worst_change"}
_CHANGES_BENEATH = {"mean_change_by_concurrency", "by_cell"}  # numbers under them are changes
_SHARES = {"share", "kv_cache_peak"}
_SHAPE = re.compile(r"^(\d{1,9})/(\d{1,9})$")
_DIGITS = re.compile(r"^\d{1,9}$")
_MAX_ITEMS = 50  # a list or mapping from a hostile file is shown in part, and says so
_MAX_DEPTH = 3
_MAX_TEXT = 200


def _lang(lang: str) -> str:
    return lang if lang in _FORMS else "en"


def key_text(key: str, lang: str = "en", parent: str | None = None) -> str:
    """One evidence key in words; `parent` is the key it sits under (a number's meaning
    depends on it)."""
    f, i = _FORMS[_lang(lang)], 0 if _lang(lang) == "en" else 1
    if key in EVIDENCE_KEYS:
        return EVIDENCE_KEYS[key][i]
    shape = _SHAPE.match(key)
    if shape:
        return f["shape"].format(input=shape[1], output=shape[2])
    if _DIGITS.match(key):
        if parent in _BY_LENGTH:
            return f["tokens"].format(n=key)
        if parent in _BY_CONCURRENCY or (parent is not None and _SHAPE.match(parent)):
            return f["c"].format(c=key)
        if parent in _BY_CELL:
            return f["cell"].format(n=int(key) + 1)
    return key[:_MAX_TEXT]


def _percent(value: float, signed: bool) -> str:
    if value == 0:
        return "0 %"
    return f"{value * 100:+.1f} %" if signed else f"{value * 100:.1f} %"


def _scalar(key: str, value, lang: str, change: bool = False) -> str:
    f, i = _FORMS[_lang(lang)], 0 if _lang(lang) == "en" else 1
    if value is None:
        return f["none"]
    if isinstance(value, bool):
        return f["yes"] if value else f["no"]
    if key in _INDEX_VALUES and isinstance(value, int) and 0 <= value < 10**9:
        return str(value + 1)
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        if key in _CHANGES or change:
            return _percent(value, signed=True)
        if key in _SHARES:
            return _percent(value, signed=False)
        return f"{value:.4g}"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        words = EVIDENCE_VALUES.get((key, value))
        return words[i] if words else value[:_MAX_TEXT]
    return json.dumps(value, ensure_ascii=False, default=str)[:_MAX_TEXT]


def _row(key: str, value, lang: str, parent: str | None, depth: int,
         change: bool = False) -> tuple[str, list]:
    f = _FORMS[_lang(lang)]
    name = key_text(key, lang, parent)
    change = change or key in _CHANGES_BENEATH
    if isinstance(value, dict) and depth < _MAX_DEPTH:
        items = list(value.items())
        children = [_row(str(k), v, lang, key, depth + 1, change)
                    for k, v in items[:_MAX_ITEMS]]
        if len(items) > _MAX_ITEMS:
            children.append((f["more"].format(n=len(items)), []))
        return name, children
    if isinstance(value, list) and depth < _MAX_DEPTH:
        if all(not isinstance(v, (dict, list)) for v in value):
            shown = f["list"].join(_scalar(key, v, lang, change) for v in value[:_MAX_ITEMS])
            if len(value) > _MAX_ITEMS:
                shown += f["list"] + f["more"].format(n=len(value))
            return f["line"].format(key=name, value=shown), []
        children = [_row(str(n + 1), v, lang, None, depth + 1, change)
                    for n, v in enumerate(value[:_MAX_ITEMS])]
        if len(value) > _MAX_ITEMS:
            children.append((f["more"].format(n=len(value)), []))
        return name, children
    return f["line"].format(key=name, value=_scalar(key, value, lang, change)), []


def evidence_rows(evidence, lang: str = "en") -> list[tuple[str, list]]:
    """`evidence` as rows (text, child rows) in `lang`: a scalar or a list of scalars on its
    key's line ("cells that queued: 2, 4"), a mapping or a list of mappings as rows beneath
    it; empty entries left out. Anything but a mapping gives no rows."""
    if not isinstance(evidence, dict):
        return []
    return [_row(str(key), value, lang, None, 0) for key, value in evidence.items()
            if not (value is None or value == [] or value == {})]

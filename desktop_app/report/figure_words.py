"""The words of a cell's figures (`core/throughput/figures.py`), in English and Simplified
Chinese: each figure's name as the comparison's rows say it, and each of its cell-table columns'
header and tooltip, as the window, the terminal and the PDF show them.

A figure added as a module adds its words here with `add` (tests/toy_figure.py does); a figure
or column without words is shown by its key.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["FigureWords", "add", "column_header", "column_tip", "figure_name", "remove",
           "WORDS"]


@dataclass(frozen=True)
class FigureWords:
    """A figure's words in one language: `name` (saying whom it serves: "TTFT p50 (per
    user)"), and its columns' (header, tooltip) by column key."""

    name: str
    columns: dict[str, tuple[str, str]] = field(default_factory=dict)


WORDS: dict[str, dict[str, FigureWords]] = {
    "output_tps": {
        "en": FigureWords("Total output (tok/s, system)", {
            "output_tps": ("Output tok/s", "completion tokens of the cell / its wall time")}),
        "zh": FigureWords("总输出（tok/s，系统）", {
            "output_tps": ("输出 tok/s", "该单元的生成 token 总数 / 实际耗时")}),
    },
    "request_rate": {
        "en": FigureWords("Requests per second (system)"),
        "zh": FigureWords("每秒请求数（系统）"),
    },
    "goodput": {
        "en": FigureWords("Goodput (share meeting the targets, system)"),
        "zh": FigureWords("有效吞吐（满足目标的请求占比，系统）"),
    },
    "ttft": {
        "en": FigureWords("TTFT p50 (per user)", {
            "ttft_p50": ("TTFT p50 s", "median time to first token (seconds)"),
            "ttft_p90": ("TTFT p90 s", "90th percentile time to first token (seconds)")}),
        "zh": FigureWords("TTFT 中位数（单用户）", {
            "ttft_p50": ("TTFT p50 秒", "首 token 时间（TTFT）中位数（秒）"),
            "ttft_p90": ("TTFT p90 秒", "首 token 时间（TTFT）第 90 百分位（秒）")}),
    },
    "tpot": {
        "en": FigureWords("TPOT p50 (per user)", {
            "tpot_ms": ("TPOT ms", "mean time per output token after the first (milliseconds)")}),
        "zh": FigureWords("TPOT 中位数（单用户）", {
            "tpot_ms": ("TPOT 毫秒", "首个之后每个输出 token 的平均时间（毫秒）")}),
    },
    "decode": {
        "en": FigureWords("Decode (mean tok/s per request, per user)", {
            "decode": ("Decode tok/s", "mean (completion tokens - 1) / decode time per request")}),
        "zh": FigureWords("Decode（单请求平均 tok/s，单用户）", {
            "decode": ("Decode tok/s", "单请求（生成 token 数 - 1）/ Decode 时间 的均值")}),
    },
    "prefill": {
        "en": FigureWords("Prefill (mean tok/s per request, per user)", {
            "prefill": ("Prefill tok/s", "mean prompt tokens / TTFT per request, queueing "
                                         "included")}),
        "zh": FigureWords("Prefill（单请求平均 tok/s，单用户）", {
            "prefill": ("Prefill tok/s", "每个请求的提示 token 数 / TTFT 的均值，含排队时间")}),
    },
    "prefill_change": {
        "en": FigureWords("Prefill change vs 1 concurrent (per user)", {
            "vs_c1": ("vs c=1", "mean prefill tok/s against the concurrency-1 cell of the same "
                                "lengths")}),
        "zh": FigureWords("相对单并发的 Prefill 变化（单用户）", {
            "vs_c1": ("相对 c=1", "Prefill tok/s 均值相对于相同长度、并发为 1 的单元的变化")}),
    },
}


def add(key: str, en: FigureWords, zh: FigureWords) -> None:
    """The words of a figure added as a module."""
    WORDS[key] = {"en": en, "zh": zh}


def remove(key: str) -> None:
    WORDS.pop(key, None)


def _words(key: str, lang: str) -> FigureWords | None:
    by_lang = WORDS.get(key)
    if by_lang is None:
        return None
    return by_lang.get(lang, by_lang["en"])


def figure_name(key: str, lang: str = "en") -> str:
    """A compared figure's name, saying whom it serves: "TTFT p50 (per user)"."""
    words = _words(key, lang)
    return key if words is None else words.name


def _column(key: str, lang: str) -> tuple[str, str] | None:
    for by_lang in WORDS.values():
        words = by_lang.get(lang, by_lang["en"])
        if key in words.columns:
            return words.columns[key]
    return None


def column_header(key: str, lang: str = "en") -> str:
    """A cell-table column's header ("TTFT p50 s")."""
    words = _column(key, lang)
    return key if words is None else words[0]


def column_tip(key: str, lang: str = "en") -> str:
    """A cell-table column's tooltip (what the number is)."""
    words = _column(key, lang)
    return "" if words is None else words[1]

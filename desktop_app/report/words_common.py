"""What the report's catalogues share: the separators a finding or a predicted effect joins its
parts with, a cell's load in words (the one home of "c=4" / "load unknown" for every view: the
window's tables, the diagnosis, the PDF), and the English plural ending.

`diagnosis_words` (the findings and suggestions) and `effect_words` (a suggestion's predicted
effect) both look these up; they live here so neither module imports the other's words back.
"""

from __future__ import annotations

__all__ = ["SHARED_WORDS", "load_text", "plural_s"]

SHARED_WORDS = {
    "en": {"sep": "; ", "list": ", ",
           "load_c": "c={c}", "load_rate": "{rate} req/s", "load_unknown": "load unknown"},
    "zh": {"sep": "；", "list": "、",
           "load_c": "并发 {c}", "load_rate": "{rate} 请求/秒", "load_unknown": "负载未知"},
}


def load_text(concurrency: int | None, request_rate: float | None, lang: str = "en") -> str:
    """A cell's load as every view says it: "c=4" (closed loop), "2 req/s" (open loop), or
    "load unknown" (an imported result that does not say, e.g. AIPerf's JSONL without its
    summary); in Chinese 并发 4, 2 请求/秒, 负载未知."""
    words = SHARED_WORDS.get(lang, SHARED_WORDS["en"])
    if concurrency is not None:
        return words["load_c"].format(c=concurrency)
    if request_rate is not None:
        return words["load_rate"].format(rate=f"{request_rate:g}")
    return words["load_unknown"]


def plural_s(n: int) -> str:
    """English plural ending (the Chinese words do not use it)."""
    return "" if n == 1 else "s"

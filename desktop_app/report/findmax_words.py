"""What the search for the highest load found (`core.throughput.findmax.Knee`), in English or
Simplified Chinese: one sentence for the command line and the window."""

from __future__ import annotations

from desktop_app.core.throughput.findmax import FindMax, knee
from desktop_app.report.strings import lookup

WORDS = {
    "en": {
        "knee": "Highest load meeting the targets for {share} % of requests: {load} concurrent "
                "({got} % met them [{low}-{high} %], {n} requests)",
        "knee_noisy": "Highest load meeting the targets for {share} % of requests: {load} "
                      "concurrent, within the noise ({got} % met them [{low}-{high} %], {n} "
                      "requests: a rerun may find it lower)",
        "knee_missed": "; at {load} concurrent {got} % met them",
        "knee_top": "; no load tried missed them",
        "knee_none": "No load meets the targets for {share} % of requests: not even one request "
                     "at a time",
    },
    "zh": {
        "knee": "满足目标（{share} % 的请求）的最高负载：并发 {load}（{got} % 满足 [{low}-{high} %]，"
                "共 {n} 个请求）",
        "knee_noisy": "满足目标（{share} % 的请求）的最高负载：并发 {load}，但在噪声范围内（{got} % 满足 "
                      "[{low}-{high} %]，共 {n} 个请求：重跑可能得到更低的值）",
        "knee_missed": "；并发 {load} 时只有 {got} % 满足",
        "knee_top": "；所试的负载都满足",
        "knee_none": "没有任何负载能让 {share} % 的请求满足目标：即使一次只发一个请求也不行",
    },
}


def knee_text(cells, search: FindMax, lang: str = "en") -> str:
    """The knee the probes among `cells` bound, said with the share's interval and, when the
    share is within its interval of the target, that a rerun may find it lower."""
    found = knee(cells, search)
    share = f"{100 * search.share:g}"
    if found is None or found.at is None:
        return lookup(WORDS, lang, "knee_none", share=share)
    at = found.at
    text = lookup(WORDS, lang, "knee_noisy" if found.within_noise else "knee", share=share,
                  load=found.meets, got=f"{100 * at.share:.0f}", low=f"{100 * at.low:.0f}",
                  high=f"{100 * at.high:.0f}", n=at.n)
    if found.misses is None:
        return text + lookup(WORDS, lang, "knee_top")
    missed = next(p for p in found.probes if p.concurrency == found.misses)
    return text + lookup(WORDS, lang, "knee_missed", load=found.misses,
                         got=f"{100 * missed.share:.0f}")

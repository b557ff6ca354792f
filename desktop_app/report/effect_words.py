"""A suggestion's effect as the model fitted to the run predicts it, in English and Simplified
Chinese.

`core/throughput/effects.py` keeps a prediction with the finding whose suggestion it tries
(`params["predicted"]`, as `Effect.to_json` writes it): the setting, from and to, and per prompt
length the most loaded cell's (before, after) figures, its verdict (gain, tradeoff, no_gain,
loss) and, where TTFT did not gain, the reason. `effect_of(finding, lang)` puts it in words and
says whether the model withdraws the suggestion; `diagnosis_words` joins it to the suggestion.
`EFFECT_WORDS` is part of `diagnosis_words.WORDS`, the one catalogue its checks read.
"""

from __future__ import annotations

from desktop_app.report.strings import LANGS, lookup
from desktop_app.report.words_common import SHARED_WORDS, plural_s

__all__ = ["EFFECT_WORDS", "effect_of"]

# Its verdicts and reasons are the eff_<code> entries.
EFFECT_WORDS = {
    "en": {
        "effect": "Raising {knob} to {after} (model fitted to this run): {lengths}.{extra}",
        "effect_withdrawn": "Leave {knob} at {before}: the model fitted to this run predicts no "
                            "gain from raising it to {after} ({lengths}).",
        "effect_kv": "A KV cache {factor} times as large{how} (model fitted to this run): "
                     "{lengths}.",
        "effect_kv_withdrawn": "Giving the KV cache more memory{how} is not suggested: the model "
                               "fitted to this run predicts no gain from a cache {factor} times "
                               "as large ({lengths}).",
        "kv_how": " (raising {knob})",
        "seqs_any": "the running-request limit",
        "budget_knob_any": "the per-step token budget",
        "eff_join": " ",
        "eff_at_cell": "at {input} tokens x {c} concurrent",
        "eff_at_cell_out": "at {input} tokens, {output} out x {c} concurrent",
        "eff_at_length": "at {input}",
        "eff_gain": "{at}, TTFT p50 {ttft}, decode per request {decode}, total output {output}",
        "eff_tradeoff": "{at}, a trade-off: TTFT p50 {ttft}, decode per request {decode}, total "
                        "output {output}",
        "eff_loss": "{at}, worse: TTFT p50 {ttft}, decode per request {decode}, total output "
                    "{output}{why}",
        "eff_no_gain": "{at} no gain{why}",
        "eff_why": ": {reason}",
        "eff_secs": "{x} s",
        "eff_pair": "{before} -> {after}",
        "eff_tps_pair": "{before} -> {after} tok/s",
        "eff_not_queued": "no request waited for a slot at {c} concurrent",
        "eff_kv_bound": "the KV cache holds only {n} request{s} of this length",
        "eff_cap_bound": "the limit of {cap} running requests holds them back, not the cache",
        "eff_fits_one_step": "each prompt fits in one step's {budget} tokens already",
        "eff_prefill_compute_bound": "prefill is compute-bound at about {tps} tok/s",
        "eff_saturated": "the server computes all the time at this load; more at once only "
                         "shares it",
        "eff_extrapolated": " Decode in batches above {n} is extrapolated beyond what the sweep "
                            "measured.",
    },
    "zh": {
        "effect": "将 {knob} 调到 {after}（按本次运行拟合的模型）：{lengths}。{extra}",
        "effect_withdrawn": "保持 {knob} 为 {before}：按本次运行拟合的模型，调到 {after} 没有收益"
                            "（{lengths}）。",
        "effect_kv": "KV 缓存扩大到 {factor} 倍{how}（按本次运行拟合的模型）：{lengths}。",
        "effect_kv_withdrawn": "不建议给 KV 缓存更多显存{how}：按本次运行拟合的模型，缓存扩大到 "
                               "{factor} 倍没有收益（{lengths}）。",
        "kv_how": "（调高 {knob}）",
        "seqs_any": "同时运行请求数上限",
        "budget_knob_any": "每步 token 预算",
        "eff_join": "",
        "eff_at_cell": "{input} tokens、{c} 并发时",
        "eff_at_cell_out": "{input} tokens、输出 {output}、{c} 并发时",
        "eff_at_length": "{input} 时",
        "eff_gain": "{at} TTFT p50 {ttft}，每请求 Decode {decode}，总输出 {output}",
        "eff_tradeoff": "{at}有得有失：TTFT p50 {ttft}，每请求 Decode {decode}，总输出 {output}",
        "eff_loss": "{at}反而变差：TTFT p50 {ttft}，每请求 Decode {decode}，总输出 {output}{why}",
        "eff_no_gain": "{at}无收益{why}",
        "eff_why": "：{reason}",
        "eff_secs": "{x} 秒",
        "eff_pair": "{before} -> {after}",
        "eff_tps_pair": "{before} -> {after} tok/s",
        "eff_not_queued": "并发 {c} 时没有请求在等待空闲槽位",
        "eff_kv_bound": "KV 缓存只放得下 {n} 个这一长度的请求",
        "eff_cap_bound": "限制来自同时运行请求数上限 {cap}，而不是缓存",
        "eff_fits_one_step": "每个提示已能放进一步的 {budget} 个 token 预算",
        "eff_prefill_compute_bound": "Prefill 受算力限制，约 {tps} tok/s",
        "eff_saturated": "在此负载下服务端一直满负荷计算，同时运行更多请求只是分摊算力",
        "eff_extrapolated": "大于 {n} 的批次的 Decode 开销是超出实测范围的外推。",
    },
}
# The separators the effect shares with the findings' words, looked up with its own.
_CATALOGUE = {lang: {**SHARED_WORDS[lang], **EFFECT_WORDS[lang]} for lang in LANGS}


def _w(lang: str, key: str, /, **values) -> str:
    return lookup(_CATALOGUE, lang, key, **values)


_MAX_LENGTHS = 24  # a stored run cannot make one suggestion a page long
_NO_GAIN = ("no_gain", "loss")


def _tokens(n) -> str:
    """2048 -> "2k", as the seed reports write prompt lengths; other counts as they are."""
    n = int(n)
    return f"{n // 1024}k" if n >= 1024 and n % 1024 == 0 else f"{n:,}"


def _eff_secs(lang: str, x: float) -> str:
    if x < 1:
        return f"{x * 1000:.0f} ms"
    return _w(lang, "eff_secs", x=f"{x:.0f}" if x >= 10 else f"{x:.1f}")


def _rate(x: float) -> str:
    return f"{x:.0f}" if x >= 10 else f"{x:.1f}"


def _eff_pair(lang: str, pair, fmt, key: str = "eff_pair") -> str:
    before, after = pair
    return _w(lang, key, before=fmt(float(before)), after=fmt(float(after)))


def _length_effect(lang: str, e: dict, p: dict, inputs: str | None = None) -> str:
    why = ""
    if e.get("reason"):
        n = e.get("kv_requests")
        tps = e.get("prefill_tps")
        why = _w(lang, "eff_why", reason=_w(
            lang, f"eff_{e['reason']}", c=e["concurrency"], n=n, s=plural_s(n or 0),
            cap=p.get("cap"), budget=p.get("budget"),
            tps=_rate(float(tps)) if tps is not None else "n/a"))
    inp = inputs or _tokens(e["input_tokens"])
    if e["verdict"] == "no_gain":
        return _w(lang, "eff_no_gain", at=_w(lang, "eff_at_length", input=inp), why=why)
    at = _w(lang, "eff_at_cell_out" if p.get("several_outputs") else "eff_at_cell", input=inp,
            output=int(e["output_tokens"]), c=int(e["concurrency"]))
    return _w(lang, f"eff_{e['verdict']}", at=at, why=why,
              ttft=_eff_pair(lang, e["ttft_p50_s"], lambda x: _eff_secs(lang, x)),
              decode=_eff_pair(lang, e["decode_tps"], _rate, "eff_tps_pair"),
              output=_eff_pair(lang, e["output_tps"], _rate, "eff_tps_pair"))


def _effect(lang: str, p: dict) -> tuple[str, bool]:
    """(the effect in words, whether the model withdraws the suggestion)."""
    lengths = p["lengths"][:_MAX_LENGTHS]
    if not lengths:
        raise ValueError("no lengths")
    verdicts = [e["verdict"] for e in lengths]
    withdrawn = all(v in _NO_GAIN for v in verdicts)
    # Neighbouring lengths with no gain for the same reason are said once: "at 2k, 4k no gain".
    groups: list[tuple[str, list[dict]]] = []
    for e in lengths:
        same = _length_effect(lang, e, p, inputs="\0")  # the words without the length
        if e["verdict"] == "no_gain" and groups and groups[-1][0] == same:
            groups[-1][1].append(e)
        else:
            groups.append((same if e["verdict"] == "no_gain" else "", [e]))
    text = _w(lang, "sep").join(
        _length_effect(lang, group[0], p, inputs=_w(lang, "list").join(
            _tokens(e["input_tokens"]) for e in group)) for _, group in groups)
    # A stored run is read as hostile: a setting the model does not change, or a name no
    # engine spells, is not said.
    if p["setting"] not in ("max_num_seqs", "max_num_batched_tokens", "kv_capacity") or not (
            p.get("knob") is None or isinstance(p["knob"], str) and len(p["knob"]) <= 40):
        raise ValueError("not a setting")
    if p["setting"] == "kv_capacity":
        how = _w(lang, "kv_how", knob=p["knob"]) if p.get("knob") else ""
        return _w(lang, "effect_kv_withdrawn" if withdrawn else "effect_kv",
                  factor=f"{float(p['factor']):g}", how=how, lengths=text), withdrawn
    knob = p.get("knob") or _w(lang, "seqs_any" if p["setting"] == "max_num_seqs"
                               else "budget_knob_any")
    before, after = str(int(p["before"])), str(int(p["after"]))  # as the flag is typed
    if withdrawn:
        return _w(lang, "effect_withdrawn", knob=knob, before=before, after=after,
                  lengths=text), True
    n = p.get("extrapolated_beyond_batch")
    extra = _w(lang, "eff_extrapolated", n=int(n)) if n else ""
    return _w(lang, "effect", knob=knob, after=after, lengths=text, extra=extra), False


def effect_of(finding, lang: str = "en") -> tuple[str, bool] | None:
    """(the predicted effect of `finding`'s suggestion in `lang`, whether the model withdraws
    the suggestion: no gain at any prompt length), or None when the finding carries no
    prediction or one of a shape these words do not know."""
    p = finding.params.get("predicted") if isinstance(finding.params, dict) else None
    if not isinstance(p, dict) or not isinstance(p.get("lengths"), list):
        return None
    try:
        return _effect(lang, p)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, ArithmeticError):
        return None  # a prediction of a shape these words do not know: none shown

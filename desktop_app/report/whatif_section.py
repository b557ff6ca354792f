"""What if: the engine model fitted to each throughput run, in the PDF (HTML in the style of
`report.sections`), English ("en") or Simplified Chinese ("zh"). No widgets.

The core (`desktop_app.core.fit`) fits the model, reports each parameter's source with a code,
the per-cell error, and the change the diagnosis suggests (`suggested_changes`: max_num_seqs
doubled when requests queued behind a cap); this module only says it. Fitting costs about a
second of CPU per run of a dozen small cells (FIT_ROUNDS, docs/WHATIF.md); each run is fitted
once.
"""

from __future__ import annotations

from html import escape

from desktop_app.core.fit import FitError, FitParam, fit_run, suggested_changes, whatif_cells
from desktop_app.report.fmt import change, num, secs
from desktop_app.report.strings import lookup

__all__ = ["STRINGS", "param_note", "whatif"]

EN = {
    "title": "What if: the engine model fitted to each sweep",
    "intro": "The simulator's engine model (prefill and decode cost, the running-request cap, "
             "the token budget per step, the KV capacity) is fitted to each sweep's requests, "
             "then runs the same cells, the same number of requests, in virtual time. Every "
             "predicted figure is simulated. The fit's error per cell is predicted / measured "
             "- 1.",
    "cannot_fit": "The model cannot be fitted to this run: {reason}",
    "worst": "Worst cell error of the fit: TTFT p50 {ttft}, prefill {prefill}, decode {decode}.",
    "limits": "Limits the model runs with: {items}.",
    "not_identified": "Not identified by this sweep:",
    "suggested": "The diagnosis suggests raising {setting} from {before} to {after}; the model "
                 "predicts per cell:",
    "no_suggestion": "The diagnosis suggests no setting the model can try; the fit per cell:",
    "extrapolated": "Extrapolated: the sweep measured batches of at most {n} requests, so the "
                    "decode cost of larger batches is the fitted line carried past what was "
                    "measured (docs/WHATIF.md says how well that held on llama.cpp).",
    "col_input": "Prompt tokens", "col_load": "Concurrency",
    "col_fit": "Fit error TTFT / prefill / decode",
    "col_ttft": "TTFT p50", "col_decode": "Decode tok/s per request",
    "col_out": "Output tok/s",
    "src_server": "reported by the server", "src_sweep": "from the sweep",
    "src_assumed": "assumed", "src_fit": "fitted",
    "unlimited": "unlimited",
    "note_queue_cap": "{name}: {value}, the cap the diagnosis saw requests queue behind",
    "note_no_queue": "{name}: at least {value} (the largest concurrency run; no queue was "
                     "seen); a sweep at higher concurrency would identify it",
    "note_vllm_default": "{name}: {value}, vLLM's default (the server did not report it)",
    "note_kv_never_reached": "{name}: the server did not report it and the sweep never filled "
                             "it (at most {tokens} tokens held at once); longer prompts at "
                             "higher concurrency would identify it",
    "note_needs_lengths": "{name}: needs three prompt lengths or more at concurrency 1 whose "
                          "TTFT grows faster than the length; taken as no slowdown",
}

ZH = {
    "title": "假设分析：按每次扫描拟合的引擎模型",
    "intro": "用每次扫描的请求拟合模拟器的引擎模型（Prefill 与 Decode 的开销、同时运行请求数上限、"
             "每步 token 预算、KV 容量），再以虚拟时间运行相同的单元、相同数量的请求。所有预测数字"
             "均为模拟结果。拟合误差按单元计算：预测值 / 实测值 - 1。",
    "cannot_fit": "无法用此运行拟合模型：{reason}",
    "worst": "拟合的最大单元误差：TTFT p50 {ttft}，Prefill {prefill}，Decode {decode}。",
    "limits": "模型采用的上限：{items}。",
    "not_identified": "此次扫描无法确定：",
    "suggested": "诊断建议将 {setting} 从 {before} 提高到 {after}；模型对各单元的预测：",
    "no_suggestion": "诊断没有提出模型可以尝试的设置；各单元的拟合：",
    "extrapolated": "外推：压测实测的批次最多为 {n} 个请求，更大批次的 Decode 开销是把拟合直线"
                    "延伸到实测范围之外得到的（在 llama.cpp 上的准确度见 docs/WHATIF.md）。",
    "col_input": "提示 token 数", "col_load": "并发数",
    "col_fit": "拟合误差 TTFT / Prefill / Decode",
    "col_ttft": "TTFT p50", "col_decode": "每请求 Decode tok/s",
    "col_out": "输出 tok/s",
    "src_server": "服务器报告", "src_sweep": "来自扫描",
    "src_assumed": "假定", "src_fit": "拟合",
    "unlimited": "不限",
    "note_queue_cap": "{name}：{value}，诊断观察到请求在此上限后排队",
    "note_no_queue": "{name}：至少 {value}（所测的最大并发数；未观察到排队）；更高并发的扫描可确定它",
    "note_vllm_default": "{name}：{value}，vLLM 的默认值（服务器未报告）",
    "note_kv_never_reached": "{name}：服务器未报告，扫描也从未占满（同时最多占用 {tokens} 个 "
                             "token）；更长提示、更高并发的扫描可确定它",
    "note_needs_lengths": "{name}：需要在并发 1 下有三个以上的提示长度，且 TTFT 的增长快于长度；"
                          "按无减速处理",
}

STRINGS = {"en": EN, "zh": ZH}
_TABLE = ('<table width="100%" cellspacing="0" cellpadding="3" border="1" '
          'style="border-collapse:collapse;border-color:#999">')
_BREAK = '<h2 style="page-break-before:always">'
_LIMITS = ("max_num_seqs", "max_num_batched_tokens", "kv_cache_tokens")
# Refinement rounds for the report's fits: on the sweeps measured (9 cells of 8 requests) four
# rounds gave the same worst errors as twelve at about half the time (docs/WHATIF.md).
FIT_ROUNDS = 4


def _t(lang: str, key: str, **values) -> str:
    return escape(lookup(STRINGS, lang, key, **values))


def _value(lang: str, param: FitParam) -> str:
    if param.code == "kv_never_reached" or param.value == float("inf"):
        return lookup(STRINGS, lang, "unlimited")
    return f"{param.value:,.0f}"


def param_note(lang: str, param: FitParam) -> str | None:
    """Why `param` came from the sweep or was assumed, in words; None when it needs none."""
    if not param.code:
        return None
    return lookup(STRINGS, lang, f"note_{param.code}", name=param.name,
                  value=_value(lang, param), tokens=f"{param.held_tokens or 0:,}")


def _pct(value: float | None) -> str:
    return "-" if value is None else change(value)


def _pair(before: float | None, after: float | None, fmt) -> str:
    if before is None or after is None:
        return "-"
    text = f"{fmt(before)} → {fmt(after)}"
    if before:
        text += f" ({change(after / before - 1)})"
    return escape(text)


def _run(run, lang: str) -> list[str]:
    out = [f"<h3>{escape(run.info.label)}</h3>"]
    try:
        fit, cells = fit_run(run, rounds=FIT_ROUNDS)
    except FitError as exc:
        return out + [f'<p style="color:#666">{_t(lang, "cannot_fit", reason=str(exc))}</p>']
    out.append("<p>" + _t(lang, "worst", ttft=_pct(fit.worst("ttft")),
                          prefill=_pct(fit.worst("prefill")),
                          decode=_pct(fit.worst("decode"))))
    limits = [p for p in fit.params if p.name in _LIMITS and p.source != "assumed"]
    if limits:
        items = "; ".join(f"{p.name} {_value(lang, p)} "
                          f"({lookup(STRINGS, lang, 'src_' + p.source)})" for p in limits)
        out.append("<br/>" + _t(lang, "limits", items=items))
    out.append("</p>")
    unknown = [n for p in fit.params if p.source == "assumed" and (n := param_note(lang, p))]
    if unknown:
        out.append(f"<p>{_t(lang, 'not_identified')}</p><ul>" +
                   "".join(f"<li>{escape(n)}</li>" for n in unknown) + "</ul>")
    changes = suggested_changes(fit, run.findings)
    if changes:
        (setting, after), = changes.items()
        out.append("<p>" + _t(lang, "suggested", setting=setting,
                              before=f"{getattr(fit.profile, setting):,}",
                              after=f"{after:,}") + "</p>")
        beyond = fit.extrapolated_batch(changes)
        if beyond is not None:
            out.append(f'<p style="color:#a04000">{_t(lang, "extrapolated", n=beyond)}</p>')
    else:
        out.append("<p>" + _t(lang, "no_suggestion") + "</p>")
    errors = {(e.input_tokens, e.concurrency): e for e in fit.errors}
    head = [_t(lang, k) for k in ("col_input", "col_load", "col_fit")]
    if changes:
        head += [_t(lang, k) for k in ("col_ttft", "col_decode", "col_out")]
    # "Concurrency" broke as "Concurrenc/y" in a column of 11 %.
    widths = [11, 14, 19, 19, 19, 18] if changes else [20, 20, 60]
    out.append(_TABLE + "<thead><tr>" + "".join(
        f'<th bgcolor="#e8eef5" align="left" width="{w}%">{h}</th>'
        for h, w in zip(head, widths)) + "</tr></thead>")
    rows = whatif_cells(fit, cells, changes) if changes else []
    for i, cell in enumerate(cells):
        e = errors.get((cell.input_tokens, cell.concurrency))
        fit_text = " / ".join(_pct(v) for v in ((e.ttft, e.prefill, e.decode) if e
                                                 else (None, None, None)))
        texts = [str(cell.input_tokens), str(cell.concurrency), escape(fit_text)]
        if rows:
            w = rows[i]
            texts += [
                _pair(w.before.ttft_s and w.before.ttft_s.p50, w.after.ttft_s
                      and w.after.ttft_s.p50, secs),
                _pair(w.before.decode_tps and w.before.decode_tps.mean,
                      w.after.decode_tps and w.after.decode_tps.mean, num),
                _pair(w.before.output_tps, w.after.output_tps, num)]
        bg = ' bgcolor="#f7f7f7"' if i % 2 else ""
        out.append(f"<tr{bg}>" + "".join(f'<td valign="top">{t}</td>' for t in texts) + "</tr>")
    out.append("</table>")
    return out


def whatif(comp, lang: str, add_image) -> str:
    """The What-if section: per throughput run of `comp`, the fit's error per cell, what the
    sweep could not identify, and the predicted effect of the diagnosis's suggested change per
    cell. Empty without throughput runs. `add_image` is unused for now (tables only)."""
    if not comp.throughput:
        return ""
    out = [f"{_BREAK}{_t(lang, 'title')}</h2>", f"<p>{_t(lang, 'intro')}</p>"]
    for run in comp.throughput:
        out += _run(run, lang)
    return "\n".join(out)

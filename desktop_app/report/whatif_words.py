"""The words of `throughline whatif`, in English and Simplified Chinese: a profile's simulated
figures (`--profile`) and a model fitted to a stored sweep (`--from-run`, `cli/fit.py`).
"""

from __future__ import annotations

WORDS: dict[str, dict[str, str]] = {
    "en": {
        "fitted": "Engine model fitted to run {run} ({name}): {n} cells. Predicted figures are "
                  "simulated in virtual time.\n",
        "params_head": "parameter                     value        source   note\n",
        "fit_head": "Goodness of fit (predicted / measured - 1):\n",
        "errors_head": "input  load  TTFT p50  prefill  decode\n",
        "worst": "worst: TTFT {ttft}, prefill {prefill}, decode {decode}\n",
        "whatif": "\nWhat if {what} (fitted model before -> after, virtual time):\n",
        "whatif_head": "input  load  TTFT p50 s            decode tok/s/req      output tok/s\n",
        "extrapolated": "Extrapolated: the sweep measured batches of at most {n} requests, so the "
                        "decode cost of larger batches is the fitted line carried past what was "
                        "measured (how well that held on a real engine: docs/WHATIF.md).\n",
        "unlimited": "unlimited",
        "suggestions": "\nThe diagnosis's suggestions, with their effect as the model fitted to "
                       "this run predicts it:\n",
        "not_kept": "warning: the predictions were not kept with run {run}: {error}",
        "suggestions_kept": "(Kept with the run's diagnosis: the window, the PDF and the "
                            "export show them too.)\n",
        "src_server": "server", "src_sweep": "sweep", "src_assumed": "assumed", "src_fit": "fit",
        # `whatif --profile`: a profile's figures.
        "simulated": "Simulated figures (virtual time, no server contacted) for profile "
                     "'{profile}'; {method}.\n",
        "method_wave": "one wave: each client sends one request, all at once (as the seed "
                       "reports measured)",
        "method_sweep": "closed loop, max(4 x concurrency, 8) requests per cell (the sweep's "
                        "default)",
        "method_closed_loop": "closed loop, {n} requests per cell",
        "json_written": "JSON written to {path}\n",
    },
    "zh": {
        "fitted": "已将引擎模型拟合到运行 {run}（{name}）：{n} 个单元。预测值均在虚拟时间中模拟"
                  "得出。\n",
        "params_head": "参数                          取值         来源     说明\n",
        "fit_head": "拟合优度（预测值 / 实测值 - 1）：\n",
        "errors_head": "输入   并发  TTFT p50  Prefill  Decode\n",
        "worst": "最差：TTFT {ttft}，Prefill {prefill}，Decode {decode}\n",
        "whatif": "\n假如 {what}（拟合模型，调整前 -> 调整后，虚拟时间）：\n",
        "whatif_head": "输入   并发  TTFT p50 s            单请求 Decode tok/s   输出 tok/s\n",
        "extrapolated": "外推：压测实测的批次最多为 {n} 个请求，更大批次的 Decode 开销是把拟合直线"
                        "延伸到实测范围之外得到的（在真实引擎上的准确度见 docs/WHATIF.md）。\n",
        "unlimited": "无上限",
        "suggestions": "\n诊断的建议，以及按本次运行拟合的模型预测的效果：\n",
        "not_kept": "警告：预测未能随运行 {run} 保存：{error}",
        "suggestions_kept": "（已随运行的诊断保存：窗口、PDF 和导出中也会显示。）\n",
        "src_server": "服务端", "src_sweep": "压测", "src_assumed": "假定", "src_fit": "拟合",
        # A parameter's note, by its code (core/fit.NOTE_CODES).
        "note_queue_cap": "诊断发现请求排在这么多个运行中的请求之后",
        "note_no_queue": "未观察到排队：至少为测过的最大并发；在更高并发下压测即可"
                                     "确定",
        "note_vllm_default": "服务端未报告：取 vLLM 的默认值",
        "note_kv_never_reached": "服务端未报告且从未达到：压测中同时最多占用 {held} 个 "
                                        "token；在更高并发下使用更长的提示即可确定",
        "note_needs_lengths": "需要在单并发下测三种或更多提示长度",
        "simulated": "配置 '{profile}' 的模拟结果（虚拟时间，未连接任何服务端）；{method}。\n",
        "method_wave": "一轮：每个客户端同时发送一个请求（与种子报告的测法相同）",
        "method_sweep": "闭环，每个单元 max(4 x 并发数, 8) 个请求（压测的默认值）",
        "method_closed_loop": "闭环，每个单元 {n} 个请求",
        "json_written": "JSON 已写入 {path}\n",
    },
}

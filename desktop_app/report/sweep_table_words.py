"""The words of `throughline throughput`'s cell table and the lines printed around it (the run
stored, the JSON written, the suggestions' predicted effects on stderr), in English and
Simplified Chinese. `diagnosis_words` re-exports them, where the CLI imports them from.
"""

from __future__ import annotations

from desktop_app.core.tables import LEAD, TRAIL, table_columns
from desktop_app.report.figure_words import column_header

__all__ = ["CELL_TABLE", "cell_table_words", "table_headers"]

# The terminal's cell table's first columns (core/tables.LEAD; the figures' are
# figure_words'), its notes, and the lines around it.
CELL_TABLE = {
    "en": {"lead": ("input", "load", "output", "ok/n"),
           "client_bound": "client-bound", "time_budget": "time budget", "cancelled": "cancelled",
           "failed": "failed", "incomplete": "incomplete",
           "stored": "Run {run} stored in {path}", "json": "JSON written to {path}",
           # The suggestions' predicted effects (core/throughput/effects.py), on stderr.
           "predicting": "Fitting the engine model to this sweep to predict what each "
                         "suggestion would do...",
           "predict_fit_failed": "The suggestions carry no predicted effect: the engine model "
                                 "could not be fitted to this sweep (throughline whatif "
                                 "--from-run {run} says why).",
           "predict_too_large": "The suggestions carry no predicted effect: fitting the engine "
                                "model to a sweep this large would take minutes (throughline "
                                "whatif --from-run {run} computes them).",
           "predict_error": "The suggestions carry no predicted effect: the prediction failed "
                            "({error})."},
    "zh": {"lead": ("输入", "负载", "输出", "成功/总数"),
           "client_bound": "受客户端限制", "time_budget": "时间预算用尽", "cancelled": "已取消",
           "failed": "失败", "incomplete": "不完整",
           "stored": "运行 {run} 已保存到 {path}", "json": "JSON 已写入 {path}",
           "predicting": "正在用此次压测拟合引擎模型，预测每条建议的效果……",
           "predict_fit_failed": "建议未附预测效果：无法用此次压测拟合引擎模型（throughline "
                                 "whatif --from-run {run} 会说明原因）。",
           "predict_too_large": "建议未附预测效果：压测规模太大，拟合引擎模型需要数分钟"
                                "（throughline whatif --from-run {run} 可以算出）。",
           "predict_error": "建议未附预测效果：预测失败（{error}）。"},
}


def cell_table_words(lang: str = "en") -> dict:
    """The words of `throughput`'s cell table and its lines in `lang`."""
    return CELL_TABLE.get(lang, CELL_TABLE["en"])


def table_headers(lang: str = "en") -> list[str]:
    """The headers of the cell table in `lang`, one per `core.tables.table_columns()`."""
    lead = dict(zip(LEAD, cell_table_words(lang)["lead"]))
    return [lead[k] if k in lead else "" if k in TRAIL else column_header(k, lang)
            for k in table_columns()]

"""What the command line says when it refuses two credentials at once, when a signal stops a job,
and when it leaves a server's overlong model ids out: English and Simplified Chinese.

The core hands codes and values (a signal's name, run ids and statuses, a count); these are the
words. `{signal}` is the signal's own name (SIGTERM), the same in both languages.
"""

from __future__ import annotations

from desktop_app.report.strings import lookup

__all__ = ["WORDS", "safety_text", "stopped_text"]

WORDS: dict[str, dict[str, str]] = {
    "en": {
        "two_credentials": "the base URL carries a user name and password (HTTP Basic "
                           "authentication) and --api-key-env names a key (a Bearer token); a "
                           "request has one Authorization header, so give one of them: drop "
                           "the user:password@ from the URL, or --api-key-env",
        "stopped_nothing": "stopped by {signal}; no run was stored",
        "stopped_run": "stopped by {signal}; run {run} is stored as {status}",
        "resume_hint": " (throughline resume {run} finishes it)",
        "long_model_ids": "warning: the server listed {count} model id(s) longer than {limit:,} "
                          "characters; they are not offered (name the model with --model)",
        "status_cancelled": "cancelled",
        "status_completed": "completed",
        "status_failed": "failed",
        "status_interrupted": "interrupted",
    },
    "zh": {
        "two_credentials": "基础 URL 中带有用户名和密码（HTTP Basic 认证），--api-key-env "
                           "又指定了密钥（Bearer 令牌）；一个请求只有一个 Authorization 头，"
                           "请二选一：去掉 URL 中的 user:password@，或去掉 --api-key-env",
        "stopped_nothing": "已因 {signal} 停止；尚未记录任何运行",
        "stopped_run": "已因 {signal} 停止；运行 {run} 已记录为{status}",
        "resume_hint": "（throughline resume {run} 可将其完成）",
        "long_model_ids": "警告：服务器列出的模型 ID 中有 {count} 个超过 {limit:,} 个字符，"
                          "未予采用（请用 --model 指定模型）",
        "status_cancelled": "已取消",
        "status_completed": "已完成",
        "status_failed": "失败",
        "status_interrupted": "已中断",
    },
}


def safety_text(lang: str, key: str, **values) -> str:
    """The entry `key` in `lang` (English when a language lacks it), formatted with `values`."""
    return lookup(WORDS, lang, key, **values)


def stopped_text(lang: str, signal_name: str, runs: list[tuple[int, str, str]]) -> str:
    """What a job stopped by `signal_name` says: the run it was writing (of `runs`, the (id,
    kind, status) of the runs this process stored, the last one not completed, else the last)
    and its status, with how to finish a cancelled sweep."""
    if not runs:
        return safety_text(lang, "stopped_nothing", signal=signal_name)
    cut = [r for r in runs if r[2] != "completed"]
    run_id, kind, status = (cut or runs)[-1]
    word = WORDS["en"].get(f"status_{status}") and safety_text(lang, f"status_{status}")
    text = safety_text(lang, "stopped_run", signal=signal_name, run=run_id,
                       status=word or status)
    if kind == "throughput" and status != "completed":
        text += safety_text(lang, "resume_hint", run=run_id)
    return text

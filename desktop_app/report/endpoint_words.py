"""What an endpoint said, in English or Simplified Chinese: the errors that stop a run before it
starts (`core.endpoint.client.EndpointError` with a code) and discovery's notes
(`core.endpoint.types.DiscoveryNote`).

English is the core's own (`ENDPOINT_MESSAGES`, `NOTE_MESSAGES`: one template for the
exception's message and for the reader). URLs, paths, flags, HTTP statuses and what the server
or the system said (`detail`, `start`) are quoted as they came. An error without a code keeps
its English message: nothing the core said is lost.
"""

from __future__ import annotations

from desktop_app.core.endpoint.messages import ENDPOINT_MESSAGES, NOTE_MESSAGES
from desktop_app.report.input_words import WORDS as INPUT_WORDS
from desktop_app.report.input_words import field_text
from desktop_app.report.strings import lookup

ERRORS: dict[str, dict[str, str]] = {
    "en": dict(ENDPOINT_MESSAGES),
    "zh": {
        "tls": "无法为 {url} 建立 TLS 连接：“{detail}”",
        "tls_env": "无法为 {url} 建立 TLS 连接：“{detail}”（请检查 {where}）",
        "no_answer_within": "{url} 在 {seconds:g} 秒内没有应答",
        "connect_within": "{seconds:g} 秒内未能连接到 {url}",
        "no_free_connection": "{seconds:g} 秒内没有空闲连接",
        "drip": "服务端迟迟没有发完应答（读取超时）：“{detail}”",
        "read_timeout": "服务端 {seconds:g} 秒内没有发送任何内容（读取超时）",
        "request_failed": "请求 {url} 失败：“{detail}”",
        "http_status": "{url} 返回 {status}：“{detail}”",
        "http_auth": "{url} 返回 {status}：请检查 API 密钥。服务端说：“{detail}”",
        "not_json_object": "{url} 的应答不是 JSON 对象：{start}",
        "discovery_deadline": "{url} 对探测请求应答太慢：{seconds:g} 秒内未能完成发现",
        "models_too_deep": "{url} 返回的模型列表嵌套过深（“{detail}”）",
        "no_model_list": "{url} 的应答不是模型列表（没有 'data' 数组）：{start}",
        "connect_timeout": "无法连接到 {url}：{seconds:g} 秒内没有应答（请检查基础 URL）",
        "get_drip": "GET {url}：服务端迟迟没有发完应答：“{detail}”",
        "models_timeout": "{url} 在 {seconds:g} 秒内没有应答",
        "cannot_connect": "无法连接到 {url}：“{detail}”（服务端是否在运行？基础 URL 是否正确？）",
        "get_failed": "GET {url} 失败：“{detail}”",
        "models_auth": "{url} 返回 {status}：请检查 API 密钥",
        "no_api": "{url} 返回 404 Not Found：那里没有 OpenAI 兼容的 API（基础 URL 应为服务端根地址或其 /v1）",
        "models_status": "{url} 返回 {status}：“{detail}”",
    },
}

NOTES: dict[str, dict[str, str]] = {
    "en": dict(NOTE_MESSAGES),
    "zh": {
        "engine_unknown": "未能识别推理引擎：已尝试 {paths}、/tokenize 和 /extras/tokenize",
        "engine_unknown_server": "未能识别推理引擎：已尝试 {paths}、/tokenize 和 /extras/tokenize；"
                                 "服务端自称 {server}",
        "model_not_listed": "模型 {model} 不在服务端的模型列表 {models} 中",
        "no_models": "服务端没有列出任何模型",
        "no_tokenizer": "没有分词端点：提示长度将用 1 个 token 的补全请求及 usage.prompt_tokens 校准",
        "metrics_unread_seen": "/metrics 有应答，但没有本应用读取的指标（{seen}）",
        "metrics_unread": "/metrics 有应答，但没有本应用读取的指标（没有 {known}）",
        "no_metrics_switch": "没有 /metrics：以 `{switch}` 启动服务端即可看到其排队情况",
        "no_metrics": "没有 /metrics：排队情况将根据客户端的时间线推断",
        "health_failing": "/health 返回 {status}：服务端可能正在加载或已过载",
        "stream_habits_llamacpp-python": "llama-cpp-python 的流式应答不带 usage（token 数由客户端统计），"
                                         "会忽略 ignore_eos，并且默认情况下新请求会中断正在进行的流",
        "prompt_cache_off": "{engine} 默认缓存提示：当提示应当各不相同时，请求会带上 {fields}",
    },
}


# What `throughline resume` adds when the run's endpoint no longer answers.
HINTS: dict[str, dict[str, str]] = {
    "en": {"simulated": "; the run used the built-in simulator: give --simulator PROFILE",
           "moved": "; give --base-url (and --api-key-env) if it moved or needs a key"},
    "zh": {"simulated": "；该运行使用的是内置模拟端点：请给出 --simulator PROFILE",
           "moved": "；如果端点已迁移或需要密钥，请给出 --base-url（以及 --api-key-env）"},
}


def resume_hint(simulated: bool, lang: str) -> str:
    return lookup(HINTS, lang, "simulated" if simulated else "moved")


def endpoint_error_text(exc: Exception, lang: str = "en") -> str:
    """`exc` in `lang`: an EndpointError's code in words; a base URL refused as typed as the
    form's own error; anything else as its own message."""
    code = getattr(exc, "code", "")
    params = dict(getattr(exc, "params", {}) or {})
    if code.startswith("url:") and code[4:] in INPUT_WORDS["en"]:
        values = {("url" if k == "typed_url" else k): v for k, v in params.items()}
        values.pop("field", None)
        message = lookup(INPUT_WORDS, lang, code[4:], **values)
        return lookup(INPUT_WORDS, lang, "error",
                      field=field_text(params.get("field", "base URL"), lang), message=message)
    if not code or code not in ERRORS["en"]:
        return str(exc)
    return lookup(ERRORS, lang, code, url=getattr(exc, "url", None) or "", **params)


def discovery_note_text(note, lang: str = "en") -> str:
    """A discovery note in `lang` (its English when the code has no words)."""
    code = getattr(note, "code", "")
    if code not in NOTES["en"]:
        return str(note)
    return lookup(NOTES, lang, code, **dict(note.params))

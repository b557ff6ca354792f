"""Reading a request: validation of chat, completions and /tokenize bodies.

`parse_request` turns a raw chat or completions body into a `ParsedRequest` (model and responder
resolved, prompt rendered and counted with the simulator's tokenizer, limits checked against the
profile) or raises `ApiError`, which the server sends back in OpenAI's error shape
(`{"error": {"message", "type", "param", "code"}}`, 400 or 404) before any SSE.
`parse_tokenize_request` does the same for `/tokenize`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from desktop_app.core.simulator import tokenizer
from desktop_app.core.simulator.engine import Profile
from desktop_app.core.simulator.responders import Responder, lookup

class ApiError(Exception):
    """A request the server refuses, as an OpenAI-style error (`{"error": {...}}`)."""

    def __init__(self, message: str, param: str | None = None, status: int = 400,
                 code: str | None = None, type_: str = "invalid_request_error",
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.status = status
        self.code = code
        self.type = type_
        self.headers = headers


@dataclass
class ParsedRequest:
    """A validated chat or completions request. Token counts are simulator tokens."""

    body: dict
    endpoint: str  # "chat" or "completions"
    model: str
    responder: Responder
    prompt_text: str
    prompt_tokens: int
    max_tokens: int
    min_tokens: int
    ignore_eos: bool
    stream: bool
    include_usage: bool


def _load_json(raw: bytes) -> dict:
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ApiError(f"Invalid JSON in request body: {exc}") from None
    if not isinstance(body, dict):
        raise ApiError("The request body must be a JSON object")
    return body


def _int(body: dict, key: str, minimum: int) -> int | None:
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(f"'{key}' must be an integer, got {value!r}", param=key)
    if value < minimum:
        raise ApiError(f"'{key}' must be at least {minimum}, got {value}", param=key)
    return value


def _bool(body: dict, key: str) -> bool:
    value = body.get(key)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise ApiError(f"'{key}' must be a boolean, got {value!r}", param=key)
    return value


def _messages_text(body: dict) -> str:
    messages = body.get("messages")
    if messages is None:
        raise ApiError("'messages' is required", param="messages")
    if not isinstance(messages, list) or not messages:
        raise ApiError("'messages' must be a non-empty list", param="messages")
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise ApiError(f"messages[{i}] must be an object with a string 'role'",
                           param="messages")
        content = message.get("content")
        if content is not None and not isinstance(content, (str, list)):
            raise ApiError(f"messages[{i}].content must be a string, a list of parts or null",
                           param="messages")
        calls = message.get("tool_calls")
        if calls is not None and not isinstance(calls, list):
            raise ApiError(f"messages[{i}].tool_calls must be a list", param="messages")
    tools = body.get("tools")  # checked after; a malformed list is refused with 400 there
    return tokenizer.render_chat(messages, tools if isinstance(tools, list) else None)


def _prompt(body: dict) -> tuple[str, int]:
    """The completion prompt as text (for hashing) and its token count."""
    prompt = body.get("prompt")
    if prompt is None:
        raise ApiError("'prompt' is required", param="prompt")
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], (str, list)):
        prompt = prompt[0]  # a batch of one
    if isinstance(prompt, str):
        return prompt, tokenizer.count_tokens(prompt)
    if isinstance(prompt, list) and prompt and all(
        isinstance(t, int) and not isinstance(t, bool) for t in prompt
    ):
        return " ".join(map(str, prompt)), len(prompt)  # token ids
    if isinstance(prompt, list) and len(prompt) > 1:
        raise ApiError("a batch of several prompts is not supported by the simulator; send "
                       "one request per prompt", param="prompt")
    raise ApiError("'prompt' must be a string or a list of token ids", param="prompt")


def _check_tools(body: dict) -> None:
    tools = body.get("tools")
    choice = body.get("tool_choice")
    if tools is not None:
        if not isinstance(tools, list):
            raise ApiError("'tools' must be a list", param="tools")
        for i, tool in enumerate(tools):
            fn = tool.get("function") if isinstance(tool, dict) else None
            if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
                raise ApiError(f"tools[{i}] must be {{'type': 'function', 'function': "
                               "{'name': ..., 'parameters': {...}}}", param="tools")
            if fn.get("parameters") is not None and not isinstance(fn["parameters"], dict):
                raise ApiError(f"tools[{i}].function.parameters must be an object",
                               param="tools")
    if choice is None or choice in ("none", "auto"):
        return
    if choice == "required" or isinstance(choice, dict):
        if not tools:
            raise ApiError("'tool_choice' requires 'tools'", param="tool_choice")
        if isinstance(choice, dict):
            name = (choice.get("function") or {}).get("name") if isinstance(
                choice.get("function"), dict) else None
            names = [t["function"]["name"] for t in tools]
            if name not in names:
                raise ApiError(f"tool_choice names function {name!r}, which is not in 'tools' "
                               f"({', '.join(names)})", param="tool_choice")
        return
    raise ApiError("'tool_choice' must be 'none', 'auto', 'required' or "
                   "{'type': 'function', 'function': {'name': ...}}", param="tool_choice")


def parse_request(raw: bytes, endpoint: str, profile: Profile) -> ParsedRequest:
    """Validate a chat (`endpoint="chat"`) or completions body; raises ApiError (400/404)."""
    body = _load_json(raw)
    model = body.get("model", profile.model)
    if not isinstance(model, str):
        raise ApiError("'model' must be a string", param="model")
    responder = lookup(model, profile)
    if responder is None:
        raise ApiError(f"The model `{model}` does not exist.", param="model", status=404,
                       code="model_not_found")
    if endpoint == "chat":
        prompt_text = _messages_text(body)
        prompt_tokens = tokenizer.count_tokens(prompt_text)
        _check_tools(body)
    else:
        prompt_text, prompt_tokens = _prompt(body)
    n = _int(body, "n", 1)
    if n is not None and n > 1:
        raise ApiError("n > 1 is not supported by the simulator", param="n")
    stream = _bool(body, "stream")
    options = body.get("stream_options")
    if options is not None:
        if not isinstance(options, dict):
            raise ApiError("'stream_options' must be an object", param="stream_options")
        if not stream:
            raise ApiError("Stream options can only be defined when `stream=True`.",
                           param="stream_options")
    include_usage = _bool(options or {}, "include_usage")
    temperature = body.get("temperature")
    if temperature is not None and (isinstance(temperature, bool) or not isinstance(
            temperature, (int, float)) or temperature < 0):
        raise ApiError(f"'temperature' must be a number >= 0, got {temperature!r}",
                       param="temperature")
    max_tokens = _int(body, "max_completion_tokens", 1)
    if max_tokens is None:
        max_tokens = _int(body, "max_tokens", 1)
    min_tokens = _int(body, "min_tokens", 0) or 0
    ignore_eos = _bool(body, "ignore_eos")
    limit = profile.max_model_len
    if max_tokens is None:
        max_tokens = limit - prompt_tokens  # vLLM's default: the rest of the context
    if max_tokens < 1 or prompt_tokens + max_tokens > limit:
        raise ApiError(
            f"This model's maximum context length is {limit} tokens. However, you requested "
            f"{prompt_tokens + max(max_tokens, 1)} tokens ({prompt_tokens} in the messages, "
            f"{max(max_tokens, 1)} in the completion). Please reduce the length of the "
            "messages or completion.", param="max_tokens", code="context_length_exceeded")
    if prompt_tokens + max_tokens > profile.kv_cache_tokens:
        raise ApiError(f"prompt plus max_tokens ({prompt_tokens + max_tokens}) exceeds the "
                       f"simulated KV cache ({profile.kv_cache_tokens} tokens)",
                       param="max_tokens")
    if min_tokens > max_tokens:
        raise ApiError(f"min_tokens ({min_tokens}) must be less than or equal to max_tokens "
                       f"({max_tokens})", param="min_tokens")
    return ParsedRequest(body, endpoint, model, responder, prompt_text, prompt_tokens,
                         max_tokens, min_tokens, ignore_eos, stream, include_usage)


def parse_tokenize_request(raw: bytes, profile: Profile) -> str:
    """The text a `/tokenize` body asks about (vLLM's `prompt` or `messages` form)."""
    body = _load_json(raw)
    model = body.get("model")
    if model is not None and (not isinstance(model, str) or lookup(model, profile) is None):
        raise ApiError(f"The model `{model}` does not exist.", param="model", status=404,
                       code="model_not_found")
    if "messages" in body:
        return _messages_text(body)
    if isinstance(body.get("prompt"), str):
        return body["prompt"]
    raise ApiError("/tokenize needs 'prompt' (a string) or 'messages'", param="prompt")

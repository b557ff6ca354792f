"""What the simulated model says: responders, and the token script the server streams.

A responder is a callable `(body, ctx) -> Plan`: it gets the parsed request body (chat or
completions) and a `ResponderContext`, and returns the answer it would give if nothing cut it
short: text and/or tool calls, and the natural finish reason. The server then fits that answer to
the request's limits (`fit_script`): `max_tokens` cuts it (finish_reason "length"), `min_tokens`
pads it with filler words, `ignore_eos` makes it exactly `max_tokens` long (finish "length").

The profile's `model` is served by `default_responder`. Other models register themselves under
ids of the form `sim/NAME`; every registered id is listed by `/v1/models`:

    from desktop_app.core.simulator import responders
    responders.register("sim/sql-agent", my_sql_responder)   # the scripted SQL agent's hook

Token accounting (what `usage.completion_tokens` counts) follows the simulator's tokenizer:
content text is split into tokenizer pieces, one token each; a tool call costs one token for its
header (the chunk carrying its id and name) plus one per piece of its JSON arguments.
"""

from __future__ import annotations

import json
import random
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

from desktop_app.core.simulator import tokenizer
from desktop_app.core.simulator.engine import Profile

OWNED_BY = "throughline-simulator"


@dataclass(frozen=True)
class ToolCall:
    """One function call: its name and its JSON arguments as a string."""

    name: str
    arguments: str


@dataclass(frozen=True)
class Plan:
    """A responder's natural answer, before max_tokens/min_tokens/ignore_eos are applied."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str = "stop"  # "stop" or "tool_calls"


@dataclass(frozen=True)
class ResponderContext:
    """What a responder may need besides the body: the profile, the kind of endpoint, the
    prompt as counted (the rendered chat template or the completion prompt) and its tokens."""

    profile: Profile
    endpoint: str  # "chat" or "completions"
    prompt_text: str
    prompt_tokens: int
    rng: random.Random  # the server's own seeded generator, for sampling at temperature > 0


Responder = Callable[[dict, ResponderContext], Plan]

# A token of the script: a content piece (str), or (call index, arguments piece); a piece of
# None is the call's header (id, type, name).
ScriptToken = str | tuple[int, str | None]


@dataclass
class Script:
    """The exact tokens the server will send, and why the answer ends."""

    tokens: list[ScriptToken]
    tool_calls: tuple[ToolCall, ...]
    finish_reason: str
    natural_tokens: int  # the plan's own length, before cutting or padding
    padded: int = 0  # filler tokens added by min_tokens / ignore_eos
    extra: dict = field(default_factory=dict)


_REGISTRY: dict[str, Responder] = {}


def register(model_id: str, responder: Responder) -> None:
    """Serve `model_id` (which must look like `sim/NAME`) with `responder`; replaces any other."""
    if not model_id.startswith("sim/") or len(model_id) <= 4:
        raise ValueError(f"simulated model ids look like 'sim/NAME', got {model_id!r}")
    _REGISTRY[model_id] = responder


def unregister(model_id: str) -> None:
    """Stop serving a registered model id (mainly for tests)."""
    _REGISTRY.pop(model_id, None)


def model_ids(profile: Profile) -> list[str]:
    """Every model id served: the profile's model first, then the registered ones."""
    return [profile.model, *(m for m in sorted(_REGISTRY) if m != profile.model)]


def lookup(model_id: str, profile: Profile) -> Responder | None:
    """The responder for `model_id`, or None if this server does not serve it."""
    if model_id in _REGISTRY:
        return _REGISTRY[model_id]
    if model_id == profile.model:
        return default_responder
    return None


# --- the default responder --------------------------------------------------------------
def default_responder(body: dict, ctx: ResponderContext) -> Plan:
    """Call a tool when the request asks for one, else answer with words of a natural length.

    A tool is called when `tools` are given and `tool_choice` is "required" or names a
    function, or is "auto" (the default) while the last message is not a tool result. The
    named function (else the first) is called with arguments synthesized from its JSON schema.
    Text is made of tokenizer.WORDS, of a length around `profile.natural_output_tokens`
    (between half and one and a half times it), chosen from a hash of the prompt; a temperature
    above 0 varies it: seeded from the prompt hash and the request's `seed` if it has one, else
    from the server's own seeded generator.
    """
    prompt_hash = zlib.crc32(ctx.prompt_text.encode("utf-8"))
    call = _tool_to_call(body) if ctx.endpoint == "chat" else None
    if call is not None:
        fn = call.get("function") or {}
        args = synthesize_arguments(fn.get("parameters") or {}, fn.get("name", ""))
        return Plan(tool_calls=(ToolCall(fn.get("name", ""), args),), finish_reason="tool_calls")
    temperature = body.get("temperature") or 0
    seed = prompt_hash
    if temperature > 0:
        req_seed = body.get("seed")
        extra = ctx.rng.getrandbits(32) if not isinstance(req_seed, int) else req_seed
        seed = prompt_hash * 1_000_003 + extra
    rng = random.Random(seed)
    mean = max(1, ctx.profile.natural_output_tokens)
    n = max(1, round(mean * (0.5 + rng.random())))
    words = [" " + rng.choice(tokenizer.WORDS) for _ in range(n - 1)]
    return Plan(text="".join(words) + ".", finish_reason="stop")


def _tool_to_call(body: dict) -> dict | None:
    """The tool definition the default responder calls, or None to answer in text."""
    tools = body.get("tools") or []
    if not tools:
        return None
    choice = body.get("tool_choice", "auto")
    if choice == "none":
        return None
    if isinstance(choice, dict):
        wanted = (choice.get("function") or {}).get("name")
        return next((t for t in tools if (t.get("function") or {}).get("name") == wanted), None)
    if choice == "auto":
        messages = body.get("messages") or []
        if messages and isinstance(messages[-1], dict) and messages[-1].get("role") == "tool":
            return None
    return tools[0]


def synthesize_arguments(schema: dict, name: str = "") -> str:
    """JSON arguments that satisfy the common parts of a JSON schema (types, enums, required)."""
    return json.dumps(_example(schema, name))


def _example(schema: object, key: str) -> object:
    if not isinstance(schema, dict):
        return "example"
    if "enum" in schema and schema["enum"]:
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "object":
        props = schema.get("properties") or {}
        required = schema.get("required") or list(props)
        return {k: _example(props.get(k, {}), k) for k in required}
    if kind == "array":
        return [_example(schema.get("items") or {}, key)]
    if kind == "integer":
        return max(1, int(schema.get("minimum", 1)))
    if kind == "number":
        return float(schema.get("minimum", 1.0))
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    lowered = key.lower()
    if "sql" in lowered or "query" in lowered:
        return "SELECT 1"
    if "table" in lowered:
        return "orders"
    return "example"


# --- fitting a plan to the request ----------------------------------------------------------
def plan_tokens(plan: Plan) -> list[ScriptToken]:
    """The plan as tokens: content pieces first, then each call's header and argument pieces."""
    tokens: list[ScriptToken] = list(tokenizer.pieces(plan.text)) if plan.text else []
    for i, call in enumerate(plan.tool_calls):
        tokens.append((i, None))
        tokens.extend((i, piece) for piece in tokenizer.pieces(call.arguments))
    return tokens


def fit_script(plan: Plan, max_tokens: int, min_tokens: int = 0, ignore_eos: bool = False,
               filler_offset: int = 0) -> Script:
    """Cut or pad the plan to the length the engine will generate (always >= 1 token).

    `ignore_eos`: exactly `max_tokens`, finish "length". Otherwise the natural length, raised
    to `min_tokens` with filler and cut at `max_tokens` (finish "length" when cut). Filler
    tokens are content words (also after tool calls).
    """
    tokens = plan_tokens(plan)
    natural = len(tokens)
    finish = plan.finish_reason
    target = max(natural, min_tokens, 1)
    if ignore_eos:
        target, finish = max_tokens, "length"
    elif target > max_tokens:
        target, finish = max_tokens, "length"
    padded = 0
    if target > natural:
        padded = target - natural
        filler = tokenizer.filler_text(padded, filler_offset)
        tokens.extend(tokenizer.pieces(filler))
    del tokens[target:]
    return Script(tokens, plan.tool_calls, finish, natural, padded)


# --- reading a request ----------------------------------------------------------------------
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
    return tokenizer.render_chat(messages)


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

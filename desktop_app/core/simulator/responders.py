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

Validating the request itself (and resolving its model to a responder) is requests.py's job.
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

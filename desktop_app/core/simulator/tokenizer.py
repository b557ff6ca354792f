"""The simulator's own deterministic tokenizer.

Real engines count tokens with the model's tokenizer; the simulator needs one rule that
`/tokenize`, `usage` and the scheduler all share, so that a client that builds prompts of an
exact length against the simulator exercises the same code path it would against vLLM.

The rule (documented in docs/SIMULATOR.md): text is split left to right into pieces, each
piece being one token:

* an optional single leading space followed by 1-6 ASCII letters (`" hello"`, `"world"`);
* an optional single leading space followed by 1-3 ASCII digits (`" 204"`, `"8"`);
* an optional single leading space followed by one other non-space character (`"."`, `" 中"`);
* any other run of whitespace (`"\\n\\n"`, `"   "`).

Every character belongs to exactly one piece, so `"".join(pieces(text)) == text`.
Token ids are a stable hash of the piece, in `[0, VOCAB_SIZE)`.
"""

from __future__ import annotations

import json
import re
import zlib

VOCAB_SIZE = 32_000

_PIECE = re.compile(r" ?[A-Za-z]{1,6}| ?[0-9]{1,3}| ?[^\sA-Za-z0-9]|\s+")

# Words of at most six letters: " " + word is always exactly one token.
WORDS: tuple[str, ...] = (
    "the", "model", "serve", "token", "batch", "cache", "queue", "decode", "fill", "rate",
    "sample", "lorem", "ipsum", "dolor", "sit", "amet", "value", "table", "query", "result",
    "stream", "signal", "kernel", "layer", "weight", "vector", "matrix", "input", "output",
    "answer", "number", "order", "region", "sales", "price", "month", "year", "total",
)


def pieces(text: str) -> list[str]:
    """Split `text` into token pieces; joining them gives `text` back."""
    return _PIECE.findall(text)


def count_tokens(text: str) -> int:
    """Number of tokens in `text` under the simulator's rule."""
    return sum(1 for _ in _PIECE.finditer(text))


def token_ids(text: str) -> list[int]:
    """Stable token ids for `text` (same text, same ids, in every process)."""
    return [zlib.crc32(p.encode("utf-8")) % VOCAB_SIZE for p in pieces(text)]


# How the Hermes-style templates of the tool-calling models vLLM serves (Qwen 2.5/3 and others)
# present the request's `tools`: real servers count these tokens in usage.prompt_tokens.
_TOOLS_HEAD = ("# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
               "You are provided with function signatures within <tools></tools> XML tags:\n"
               "<tools>")
_TOOLS_TAIL = ("\n</tools>\n\nFor each function call, return a json object with function name "
               "and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
               '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>')


def render_chat(messages: list[dict], tools: list | None = None) -> str:
    """The simulator's chat template: what a chat request's prompt tokens are counted on.

    The request's `tools`, if any, come first as a system block holding each tool's JSON (as
    vLLM's chat templates render them, so they count as prompt tokens there too). Each message
    becomes `<|role|>\\ncontent<|end|>\\n`; tool calls are rendered as their JSON arguments;
    the assistant header closes the prompt.
    """
    out: list[str] = []
    if tools:
        listed = "".join("\n" + json.dumps(tool, ensure_ascii=False) for tool in tools)
        out.append(f"<|system|>\n{_TOOLS_HEAD}{listed}{_TOOLS_TAIL}<|end|>\n")
    for message in messages:
        role = str(message.get("role", "user"))
        content = message.get("content")
        if isinstance(content, list):  # OpenAI content parts: keep the text ones
            content = "".join(
                str(part.get("text", "")) for part in content if isinstance(part, dict)
            )
        text = "" if content is None else str(content)
        for call in message.get("tool_calls") or []:
            fn = call.get("function", {}) if isinstance(call, dict) else {}
            text += f"{fn.get('name', '')}({fn.get('arguments', '')})"
        out.append(f"<|{role}|>\n{text}<|end|>\n")
    out.append("<|assistant|>\n")
    return "".join(out)


def filler_text(n_tokens: int, offset: int = 0) -> str:
    """Text of exactly `n_tokens` tokens (each word with its leading space is one token)."""
    return "".join(" " + WORDS[(offset + i) % len(WORDS)] for i in range(n_tokens))

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


def render_chat(messages: list[dict]) -> str:
    """The simulator's chat template: what a chat request's prompt tokens are counted on.

    Each message becomes `<|role|>\\ncontent<|end|>\\n`; tool calls are rendered as their JSON
    arguments; the assistant header closes the prompt.
    """
    out: list[str] = []
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

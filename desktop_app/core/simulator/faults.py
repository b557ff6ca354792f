"""Fault injection for the simulator: what can go wrong on the wire, and how often.

A fault spec is a comma-separated list, for example `reset=0.1,http429=0.05,seed=7`:

* `KIND=P` injects fault KIND into a fraction P (0..1) of requests; a bare `KIND` means 1.0.
  The probabilities of all kinds must add up to at most 1: each request gets at most one fault,
  drawn from one categorical distribution, so `reset=0.1,http429=0.05` injects exactly those
  shares in expectation and the kinds never compete.
* `seed=N` seeds the per-server random generator (the same seed and the same request order give
  the same faults); `retry_after=S` is the Retry-After header of `http429` (seconds, default 1);
  `stall_s=S` is how long `stall` stops sending (seconds, default 30); `after=N` is how many
  tokens a mid-stream fault lets through first (default 2).

A client can force a fault on one request with the header `X-Sim-Fault: KIND` (or prevent any with
`X-Sim-Fault: none`), whatever the spec says. Kinds that cannot apply to a request (a stream-only
fault on a non-streaming request, `bad_tool_json` on an answer without tool calls) are not
injected, and the trace records no fault for that request: the trace is the ground truth.

This module also holds the two connection-level actions the server needs (close before any
header, reset mid-stream); they work on the asyncio transport that the server's HTTP protocol
puts into the ASGI scope under `TRANSPORT_KEY`.
"""

from __future__ import annotations

import math
import random
import socket
import struct
from dataclasses import dataclass, field

from desktop_app.core.parsing import CodedError

# What each kind does, as the client sees it.
KINDS: dict[str, str] = {
    "disconnect": "the connection is closed before any response header",
    "reset": "the connection is reset (TCP RST) after `after` tokens",
    "http500": "HTTP 500 with an error body",
    "http429": "HTTP 429 with a Retry-After header",
    "stall": "the stream stops for `stall_s` seconds after `after` tokens, then goes on",
    "bad_sse": "one malformed SSE event after `after` tokens, then the stream goes on",
    "no_usage": "the stream ends without the usage chunk even when include_usage is asked",
    "bad_tool_json": "invalid JSON in the tool-call arguments (streamed or not)",
}
# Kinds that only make sense on a streamed response.
STREAM_ONLY = frozenset({"bad_sse", "no_usage", "stall"})
PARAMS = {"seed", "retry_after", "stall_s", "after"}
FAULT_HEADER = "x-sim-fault"
TRANSPORT_KEY = "throughline.transport"


class FaultSpecError(CodedError, ValueError):
    """A fault spec that cannot be parsed: a code (`core.parsing.INPUT_MESSAGES`) naming the bad
    item, said in the reader's language by `report.errors.error_text`."""


@dataclass(frozen=True)
class FaultSpec:
    """Parsed fault spec. Probabilities are 0..1 per kind; times are seconds."""

    probabilities: dict[str, float] = field(default_factory=dict)
    seed: int | None = None
    retry_after_s: float = 1.0
    stall_s: float = 30.0
    after_tokens: int = 2

    def describe(self) -> str:
        """The spec back in its own grammar (for logs and /version)."""
        items = [f"{k}={_num(p)}" for k, p in self.probabilities.items()]
        if self.seed is not None:
            items.append(f"seed={self.seed}")
        items += [f"retry_after={_num(self.retry_after_s)}", f"stall_s={_num(self.stall_s)}",
                  f"after={self.after_tokens}"]
        return ",".join(items)


def parse_faults(spec: str) -> FaultSpec:
    """Parse `kind[=p],...,seed=N,retry_after=S,stall_s=S,after=N`; raises FaultSpecError."""
    probabilities: dict[str, float] = {}
    params: dict[str, float] = {}
    for raw in spec.split(","):
        item = raw.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        name = name.strip().lower()
        value = value.strip()
        if name in KINDS:
            if not sep:
                p = 1.0
            else:
                try:
                    p = float(value)
                except ValueError:
                    raise FaultSpecError(code="fault_not_number", item=repr(item)) from None
            if not 0.0 <= p <= 1.0:
                raise FaultSpecError(code="fault_probability", item=repr(item))
            if name in probabilities:
                raise FaultSpecError(code="fault_twice", item=repr(item), name=name)
            probabilities[name] = p
        elif name in PARAMS:
            if not sep or not value:
                raise FaultSpecError(code="fault_option_value", item=repr(item), name=name)
            params[name] = _option(item, name, value)
        else:
            known = ", ".join([*KINDS, *sorted(PARAMS)])
            raise FaultSpecError(code="fault_unknown", name=repr(name), item=repr(item), known=known)
    total = sum(probabilities.values())
    if total > 1.0 + 1e-9:
        raise FaultSpecError(code="fault_sum", total=f"{total:g}")
    return FaultSpec(
        probabilities=probabilities,
        seed=int(params["seed"]) if "seed" in params else None,
        retry_after_s=float(params.get("retry_after", 1.0)),
        stall_s=float(params.get("stall_s", 30.0)),
        after_tokens=int(params.get("after", 2)),
    )


def _option(item: str, name: str, value: str) -> float | int:
    """The value of a `name=value` option: a whole number (seed, after; taken exactly as
    written, never through a float) or a finite number of seconds, never negative."""
    whole = name in ("seed", "after")
    try:
        if len(value) > 40:  # int() refuses 4,300 digits; no sane option is this long
            raise ValueError(value)
        number: float | int = int(value) if whole else float(value)
    except ValueError:
        raise FaultSpecError(code="fault_option_whole" if whole else "fault_option_number",
                             item=repr(item[:60])) from None
    if number < 0 or not math.isfinite(number):
        raise FaultSpecError(code="fault_option_whole" if whole else "fault_option_number",
                             item=repr(item[:60]))
    return number


def _num(x: float) -> str:
    """A number as short as `:g` writes it, unless that would change its value."""
    return f"{x:g}" if float(f"{x:g}") == x else repr(x)


class FaultPicker:
    """Chooses each request's fault: one draw per request from a seeded generator."""

    def __init__(self, spec: FaultSpec | None) -> None:
        self.spec = spec or FaultSpec()
        self._rng = random.Random(self.spec.seed)
        self._table = list(self.spec.probabilities.items())

    def pick(self, forced: str | None = None) -> str | None:
        """The fault for the next request; `forced` (a header value) wins over the spec.

        Raises FaultSpecError for a forced kind that does not exist. A forced fault does not
        consume a random draw, so forcing one request leaves the others' faults unchanged.
        """
        if forced is not None:
            kind = forced.strip().lower()
            if kind in ("", "none"):
                return None
            if kind not in KINDS:
                raise FaultSpecError(code="fault_header", fault=repr(kind), header=FAULT_HEADER,
                                     known=", ".join(KINDS))
            return kind
        if not self._table:
            return None
        u = self._rng.random()
        for kind, p in self._table:
            if u < p:
                return kind
            u -= p
        return None


def applicable(kind: str | None, stream: bool, has_tool_calls: bool) -> str | None:
    """`kind` if it can strike this request, else None (and nothing is injected)."""
    if kind is None:
        return None
    if kind in STREAM_ONLY and not stream:
        return None
    if kind == "bad_tool_json" and not has_tool_calls:
        return None
    return kind


def close_connection(scope: dict) -> bool:
    """Close the client's connection with a FIN and no response; False without a transport."""
    transport = scope.get(TRANSPORT_KEY)
    if transport is None:
        return False
    transport.close()
    return True


def reset_connection(scope: dict) -> bool:
    """Reset the client's connection (SO_LINGER 0, then close: the kernel sends RST)."""
    transport = scope.get(TRANSPORT_KEY)
    if transport is None:
        return False
    sock = transport.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass  # already closed by the peer: nothing left to reset
    transport.abort()
    return True

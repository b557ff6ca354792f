"""Workload files a sweep replays instead of prompts of one length (#29): the user's own
traffic, or a public dataset or trace, each format detected and named.

- **ShareGPT** (a JSON list of `{"conversations": [{"from": "human", "value": ...},
  {"from": "gpt", "value": ...}, ...]}`, as vLLM's `benchmark_serving` reads it): the first
  human turn is the prompt, the reply that follows it sets the output length.
- **JSONL** of `{"prompt": ...}` or `{"messages": [...]}`, with an optional `max_tokens`
  (output length) and `timestamp` (milliseconds since the trace began).
- **Mooncake trace** JSONL (`{"timestamp", "input_length", "output_length", "hash_ids"}`,
  as AIPerf and Mooncake's FAST'25 traces write it): no text, only lengths; prompts are built
  from blocks of `BLOCK_TOKENS` tokens, one per hash id, so equal hash ids share a prefix.

A record that cannot be used (not JSON, the wrong shape, too long) is left out and named by
its line (`skipped`); the rest of the file still loads. A file with no usable record, or in no
format known here, is refused by an InputError naming the file.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from desktop_app.core.endpoint.limits import loads_limited
from desktop_app.core.files import read_text
from desktop_app.core.parsing import InputError, Phrase

Format = Literal["sharegpt", "jsonl", "mooncake"]
FORMATS: tuple[Format, ...] = ("sharegpt", "jsonl", "mooncake")
MAX_FILE_BYTES = 1024 * 1024 * 1024  # ShareGPT's V3 file (as vLLM's benchmark uses it) is 670 MB
MAX_RECORDS = 1_000_000
MAX_PROMPT_CHARS = 4_000_000  # one prompt: about a million tokens
MAX_TOKENS = 10_000_000  # a length a record asks for (as config.MAX_INPUT_TOKENS)
MAX_HASH_IDS = 20_000  # blocks of one Mooncake record: 10M tokens of 512
MAX_SKIPPED_KEPT = 100  # skipped lines named one by one; the rest are counted
CHARS_PER_TOKEN = 4  # a text's length in tokens when no tokenizer counts it (English, BPE)
# ShareGPT replies whose text is kept, so a sweep can count them with the server's tokenizer
# and size every reply by the characters a token it finds (the rest keep only their length).
REPLY_SAMPLE = 64
BLOCK_TOKENS = 512  # a Mooncake hash id's block (the traces' own block size)


@dataclass(frozen=True)
class WorkloadRecord:
    """One request of a workload. `line` is where it is in the file (1-based; a JSON list's
    element number for ShareGPT). A text record has `prompt` or `messages`; a Mooncake one has
    `input_tokens` and `hash_ids` instead. `output_tokens` is None where the file does not say
    (the sweep's output length then applies); `output_chars` is a ShareGPT reply's length,
    counted in tokens when the sweep starts. `timestamp_s` is when the trace sent it."""

    line: int
    prompt: str | None = None
    messages: tuple[dict[str, str], ...] | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    output_chars: int | None = None
    timestamp_s: float | None = None
    hash_ids: tuple[int, ...] = ()
    reply: str | None = None  # the first REPLY_SAMPLE ShareGPT records' reply text

    @property
    def text(self) -> str:
        """All the prompt's text (a chat's messages joined), for its length."""
        if self.messages is not None:
            return "\n".join(m["content"] for m in self.messages)
        return self.prompt or ""

    def estimated_input(self, chars_per_token: float = CHARS_PER_TOKEN) -> int:
        """The prompt's length in tokens as far as the file tells (a text's, estimated at
        `chars_per_token`)."""
        if self.input_tokens is not None:
            return self.input_tokens
        return max(1, math.ceil(len(self.text) / chars_per_token))

    def estimated_output(self, default: int, chars_per_token: float = CHARS_PER_TOKEN) -> int:
        """The reply's length in tokens: the file's, a ShareGPT reply's characters at
        `chars_per_token`, else `default`."""
        if self.output_tokens is not None:
            return self.output_tokens
        if self.output_chars is not None:
            return max(1, math.ceil(self.output_chars / chars_per_token))
        return default


@dataclass(frozen=True)
class Skipped:
    """A record left out: its line, a code (INPUT_MESSAGES' `workload_<code>`) and values."""

    line: int
    code: str
    params: dict[str, Any] = field(default_factory=dict)

    def phrase(self) -> Phrase:
        """"line 3: not JSON", in the reader's language (`report.input_words`)."""
        return Phrase("workload_skipped_line",
                      {"line": self.line, "why": Phrase(f"workload_skip_{self.code}",
                                                        dict(self.params))})


@dataclass(frozen=True)
class Workload:
    """A loaded workload file. `digest` is the first 16 hex digits of the file's SHA-256: a
    resumed sweep replays the same file or none."""

    path: str
    format: Format
    records: tuple[WorkloadRecord, ...]
    digest: str
    skipped: tuple[Skipped, ...] = ()
    skipped_total: int = 0

    @property
    def name(self) -> str:
        return Path(self.path).name

    @property
    def label(self) -> str:
        """What names the cells that replay it: `sharegpt:conversations.json`."""
        return f"{self.format}:{self.name}"

    @property
    def timed(self) -> bool:
        """Whether every record says when it was sent (a schedule can be replayed)."""
        return bool(self.records) and all(r.timestamp_s is not None for r in self.records)

    def ref(self, default_output: int = 128) -> WorkloadRef:
        """The workload as a sweep keeps it: the file, and what its cells are named by."""
        s = summarize(self, default_output)
        return WorkloadRef(self.path, self.format, self.digest, len(self.records),
                           round(sum(s.input_tokens) / s.records),
                           round(sum(s.output_tokens) / s.records), s.duration_s)


@dataclass(frozen=True)
class WorkloadRef:
    """A workload as a sweep's config keeps it (and stores with the run): where it is and
    which file it was, not its records."""

    path: str
    format: Format
    digest: str
    records: int
    input_tokens: int  # the records' mean prompt length (a text's estimated): the cells' nominal
    output_tokens: int
    duration_s: float | None = None  # first to last timestamp; None: not every record has one

    @property
    def label(self) -> str:
        return f"{self.format}:{Path(self.path).name}"

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "format": self.format, "digest": self.digest,
                "records": self.records, "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens, "duration_s": self.duration_s}

    @classmethod
    def from_json(cls, data: Any) -> WorkloadRef:
        if not isinstance(data, dict) or data.get("format") not in FORMATS:
            raise ValueError(f"not a workload: {data!r:.80}")
        duration = data.get("duration_s")
        return cls(str(data["path"]), data["format"], str(data["digest"]), int(data["records"]),
                   int(data["input_tokens"]), int(data["output_tokens"]),
                   None if duration is None else float(duration))


def load_workload(path: Path | str, field_name: str = "--workload", *,
                  max_records: int = MAX_RECORDS) -> Workload:
    """The workload file at `path`, its format detected. Raises InputError naming
    `field_name` when the file cannot be read, is in no known format or holds no usable
    record; a bad record is left out (`Workload.skipped`) and the rest loads."""
    shown = str(path)
    data, text = read_text(path, MAX_FILE_BYTES, field_name, what="a workload file")
    digest = hashlib.sha256(data).hexdigest()[:16]
    reader = _Reader(max_records)
    if text.lstrip().startswith("["):
        fmt: Format = "sharegpt"
        reader.sharegpt(text, shown, field_name)
    else:
        fmt = reader.jsonl(text, shown, field_name)
    if not reader.records:
        first = reader.skipped[0].phrase() if reader.skipped else "-"
        raise InputError(field_name, code="workload_empty", path=shown, format=fmt,
                         skipped=reader.total_skipped, first=first)
    return Workload(shown, fmt, tuple(reader.records), digest, tuple(reader.skipped),
                    reader.total_skipped)


class _Reader:
    def __init__(self, max_records: int) -> None:
        self.max_records = max_records
        self.records: list[WorkloadRecord] = []
        self.skipped: list[Skipped] = []
        self.total_skipped = 0

    def skip(self, line: int, code: str, **params: Any) -> None:
        self.total_skipped += 1
        if len(self.skipped) < MAX_SKIPPED_KEPT:
            self.skipped.append(Skipped(line, code, params))

    def check_room(self, field_name: str) -> None:
        if len(self.records) >= self.max_records:
            raise InputError(field_name, code="too_many_values", n=len(self.records) + 1,
                             high=self.max_records)

    # ---- ShareGPT

    def sharegpt(self, text: str, shown: str, field_name: str) -> None:
        for number, item in _list_items(text, self):
            turns = item.get("conversations") if isinstance(item, dict) else None
            if not isinstance(turns, list):
                self.skip(number, "no_conversations")
                continue
            pair = _first_exchange(turns)
            if pair is None:
                self.skip(number, "no_exchange")
                continue
            prompt, reply = pair
            if len(prompt) > MAX_PROMPT_CHARS:
                self.skip(number, "too_long", chars=len(prompt), high=MAX_PROMPT_CHARS)
                continue
            self.check_room(field_name)
            self.records.append(WorkloadRecord(
                number, prompt=prompt, output_chars=len(reply),
                reply=reply if len(self.records) < REPLY_SAMPLE else None))

    # ---- JSONL (ours and Mooncake's)

    def jsonl(self, text: str, shown: str, field_name: str) -> Format:
        fmt: Format | None = None
        for number, line in enumerate(io.StringIO(text), 1):  # one line at a time
            if not line.strip():
                continue
            try:
                obj = loads_limited(line)
            except ValueError:
                self.skip(number, "not_json")
                continue
            if not isinstance(obj, dict):
                self.skip(number, "not_object")
                continue
            if fmt is None:
                fmt = _format_of(obj)
                if fmt is None:
                    self.skip(number, "no_prompt")
                    continue
            record = (_mooncake(obj, number) if fmt == "mooncake" else _text_record(obj, number))
            if isinstance(record, Skipped):
                self.skip(record.line, record.code, **record.params)
                continue
            self.check_room(field_name)
            self.records.append(record)
        if fmt is None:
            raise InputError(field_name, code="workload_unknown", path=shown)
        return fmt


_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _past_space(text: str, at: int) -> int:
    match = _WS.match(text, at)
    return match.end() if match else at


def _list_items(text: str, reader: _Reader) -> Iterator[tuple[int, Any]]:
    """The elements of the JSON list `text` holds, one at a time with their number (from 1):
    a ShareGPT file is hundreds of megabytes, and only the records kept stay in memory. An
    element that cannot be read (not JSON, nested past Python's limit, the file cut short)
    is left out as that element, and the list ends there: what follows has no known start."""
    at = _past_space(text, text.index("[") + 1)
    number = 0
    while at < len(text) and text[at] != "]":
        if number:
            if text[at] != ",":
                reader.skip(number + 1, "list_broken")
                return
            at = _past_space(text, at + 1)
        number += 1
        try:
            item, end = _DECODER.raw_decode(text, at)
        except (ValueError, RecursionError):
            reader.skip(number, "list_broken")
            return
        yield number, item
        at = _past_space(text, end)


def _first_exchange(turns: list) -> tuple[str, str] | None:
    """The first human turn and the reply after it, as ShareGPT writes them."""
    for a, b in zip(turns, turns[1:]):
        if not (isinstance(a, dict) and isinstance(b, dict)):
            continue
        if a.get("from") in ("human", "user") and b.get("from") in ("gpt", "assistant", "chatgpt"):
            prompt, reply = a.get("value"), b.get("value")
            if isinstance(prompt, str) and isinstance(reply, str) and prompt.strip():
                return prompt, reply
    return None


def _format_of(obj: dict) -> Format | None:
    if "input_length" in obj and ("hash_ids" in obj or "timestamp" in obj):
        return "mooncake"
    if "prompt" in obj or "messages" in obj:
        return "jsonl"
    return None


def _whole(value: Any, low: int, high: int) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        return None
    return value


def _timestamp(obj: dict, number: int) -> float | None | Skipped:
    """A record's `timestamp` (milliseconds) in seconds; None when it has none."""
    if "timestamp" not in obj:
        return None
    value = obj["timestamp"]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            0 <= value < 1e13):  # ms: three centuries
        return Skipped(number, "bad_timestamp", {"value": f"{value!r:.40}"})
    return value / 1000


def _mooncake(obj: dict, number: int) -> WorkloadRecord | Skipped:
    n_in = _whole(obj.get("input_length"), 1, MAX_TOKENS)
    n_out = _whole(obj.get("output_length"), 1, MAX_TOKENS)
    if n_in is None or n_out is None:
        return Skipped(number, "bad_lengths", {"high": MAX_TOKENS})
    stamp = _timestamp(obj, number)
    if isinstance(stamp, Skipped):
        return stamp
    hashes = obj.get("hash_ids", [])
    if not isinstance(hashes, list) or len(hashes) > MAX_HASH_IDS or not all(
            _whole(h, 0, 2**62) is not None for h in hashes):
        return Skipped(number, "bad_hash_ids", {"high": MAX_HASH_IDS})
    if len(hashes) > math.ceil(n_in / BLOCK_TOKENS):
        return Skipped(number, "hash_ids_longer", {"blocks": len(hashes), "input": n_in})
    return WorkloadRecord(number, input_tokens=n_in, output_tokens=n_out, timestamp_s=stamp,
                          hash_ids=tuple(hashes))


def _text_record(obj: dict, number: int) -> WorkloadRecord | Skipped:
    prompt, messages = obj.get("prompt"), obj.get("messages")
    kept: tuple[dict[str, str], ...] | None = None
    if messages is not None:
        if not isinstance(messages, list) or not messages or not all(
                isinstance(m, dict) and isinstance(m.get("role"), str)
                and isinstance(m.get("content"), str) for m in messages):
            return Skipped(number, "bad_messages")
        kept = tuple({"role": m["role"], "content": m["content"]} for m in messages)
        size = sum(len(m["content"]) for m in kept)
    elif isinstance(prompt, str) and prompt:
        size = len(prompt)
    else:
        return Skipped(number, "no_prompt")
    if size > MAX_PROMPT_CHARS:
        return Skipped(number, "too_long", {"chars": size, "high": MAX_PROMPT_CHARS})
    n_out = obj.get("max_tokens", obj.get("output_length"))
    if n_out is not None and _whole(n_out, 1, MAX_TOKENS) is None:
        return Skipped(number, "bad_max_tokens", {"value": f"{n_out!r:.40}", "high": MAX_TOKENS})
    stamp = _timestamp(obj, number)
    if isinstance(stamp, Skipped):
        return stamp
    return WorkloadRecord(number, prompt=prompt if kept is None else None, messages=kept,
                          output_tokens=n_out, timestamp_s=stamp)


# --------------------------------------------------------------------------- what it holds


@dataclass(frozen=True)
class WorkloadSummary:
    """What a workload holds, for its preview and the run: how many records, their lengths as
    the file tells (a text's estimated, `CHARS_PER_TOKEN`), how long the trace lasts and the
    share of prompt blocks that repeat an earlier record's (Mooncake's prefix reuse)."""

    records: int
    input_tokens: tuple[int, ...]
    output_tokens: tuple[int, ...]
    duration_s: float | None
    shared_prefix_share: float | None

    def histogram(self, axis: str, bins: int = 10) -> list[tuple[int, int, int]]:
        """(low, high, count) of `bins` equal-width bins of one axis's lengths."""
        values = self.input_tokens if axis == "input" else self.output_tokens
        if not values:
            return []
        low, high = min(values), max(values)
        width = max(1, math.ceil((high - low + 1) / bins))
        counts = [0] * bins
        for v in values:
            counts[min(bins - 1, (v - low) // width)] += 1
        return [(low + i * width, low + (i + 1) * width - 1, n) for i, n in enumerate(counts)
                if n or i < (high - low) // width + 1]


def summarize(workload: Workload, default_output: int = 128) -> WorkloadSummary:
    records = workload.records
    stamps = [r.timestamp_s for r in records if r.timestamp_s is not None]
    duration = (max(stamps) - min(stamps)) if workload.timed and stamps else None
    share = None
    if workload.format == "mooncake":
        seen: set[int] = set()
        blocks = reused = 0
        for r in records:
            blocks += len(r.hash_ids)
            reused += sum(1 for h in r.hash_ids if h in seen)
            seen.update(r.hash_ids)
        share = reused / blocks if blocks else 0.0
    return WorkloadSummary(len(records), tuple(r.estimated_input() for r in records),
                           tuple(r.estimated_output(default_output) for r in records),
                           duration, share)


def schedule(records: Sequence[WorkloadRecord], speedup: float = 1.0) -> list[float]:
    """Each record's send time in seconds from the first, the trace sped up `speedup` times."""
    stamps = [r.timestamp_s or 0.0 for r in records]
    start = min(stamps, default=0.0)
    return [(t - start) / speedup for t in stamps]

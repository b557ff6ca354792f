"""A sweep's prompt and output lengths: a fixed count per cell, or a distribution that each
request of the cell draws its own length from (#29).

Written in an axis as a count (`512`, `4k`) or as one of
  `N(mean,sd)` / `N(mean,sd,min,max)`  normal, rounded, drawn again outside [min, max]
                                       (default: mean - 3 sd to mean + 3 sd, at least 1);
  `U(min,max)`                         uniform over the whole numbers min..max;
  `F(path)`                            the lengths of a file, one whole number per line (`#`
                                       starts a comment), each sent once per pass in a shuffled
                                       order.
The cell's `input_tokens`/`output_tokens` is the distribution's nominal length (its mean,
rounded); its figures are computed from what each request actually sent.

Draws are seeded per cell: the same sweep sends the same lengths in the same order.
"""

from __future__ import annotations

import math
import random
import re
import statistics

import numpy as np
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from desktop_app.core.files import read_text
from desktop_app.core.parsing import InputError, parse_int_list

if TYPE_CHECKING:
    from desktop_app.core.metrics import RequestTiming
    from desktop_app.core.throughput.types import CellSpec

Kind = Literal["fixed", "normal", "uniform", "file"]
KINDS: tuple[Kind, ...] = ("fixed", "normal", "uniform", "file")
MAX_FILE_BYTES = 16 * 1024 * 1024  # a lengths file: a million lines is 8 MB
MAX_FILE_VALUES = 1_000_000
_REDRAWS = 1000  # a normal's draws outside its bounds before the bound is taken instead
_ITEM = re.compile(r"^\s*([A-Za-z]+)\s*\((.*)\)\s*$", re.DOTALL)
_NAMES: dict[str, Kind] = {"n": "normal", "normal": "normal", "u": "uniform",
                           "uniform": "uniform", "f": "file", "file": "file"}


@dataclass(frozen=True)
class Lengths:
    """One value of a length axis. `value` is the nominal length (a fixed count, or the
    distribution's mean rounded): the cell's `input_tokens` or `output_tokens`."""

    kind: Kind
    value: int
    mu: float = 0.0  # normal: the mean as written (N(512.5,...) keeps its half)
    sd: float = 0.0
    low: int = 0
    high: int = 0
    values: tuple[int, ...] = ()  # file: every length it holds, in its order
    source: str = ""  # file: its name as the user gave it

    @classmethod
    def fixed(cls, n: int) -> Lengths:
        return cls("fixed", n, low=n, high=n)

    @property
    def is_fixed(self) -> bool:
        return self.kind == "fixed"

    @property
    def label(self) -> str:
        """The value as it is written in an axis (`512`, `N(512,128)`, `U(256,768)`,
        `F(lengths.txt)`): what names the cell."""
        if self.kind == "fixed":
            return str(self.value)
        if self.kind == "normal":
            mean = _num(self.mean)
            default = _default_bounds(self.mean, self.sd)
            bounds = "" if (self.low, self.high) == default else f",{self.low},{self.high}"
            return f"N({mean},{_num(self.sd)}{bounds})"
        if self.kind == "uniform":
            return f"U({self.low},{self.high})"
        return f"F({Path(self.source).name})"

    @property
    def mean(self) -> float:
        """The distribution's own mean (a normal's as written, before its bounds)."""
        if self.kind == "normal":
            return self.mu
        if self.kind == "uniform":
            return (self.low + self.high) / 2
        if self.kind == "file":
            return statistics.fmean(self.values)
        return float(self.value)

    def draw(self, n: int, rng: random.Random) -> list[int]:
        """`n` lengths for one cell's requests, in the order they are sent."""
        if self.kind == "fixed":
            return [self.value] * n
        if self.kind == "uniform":
            return [rng.randint(self.low, self.high) for _ in range(n)]
        if self.kind == "file":
            out: list[int] = []
            while len(out) < n:  # each length once per pass, every pass shuffled
                batch = list(self.values)
                rng.shuffle(batch)
                out.extend(batch[: n - len(out)])
            return out
        drawn = []
        for _ in range(n):
            for _ in range(_REDRAWS):
                x = round(rng.gauss(self.mu, self.sd))
                if self.low <= x <= self.high:
                    break
            else:  # bounds far in a tail: the nearer bound, not an endless loop
                x = min(max(x, self.low), self.high)
            drawn.append(x)
        return drawn

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "label": self.label, "value": self.value}
        if self.kind == "normal":
            data.update(mean=self.mu, sd=self.sd, low=self.low, high=self.high)
        elif self.kind == "uniform":
            data.update(low=self.low, high=self.high)
        elif self.kind == "file":
            data.update(source=self.source, values=list(self.values))
        return data

    @classmethod
    def from_json(cls, data: Any) -> Lengths:
        """A stored Lengths (`to_json`); a plain count is a fixed length. Raises ValueError
        for a value that is none of them (a stored config edited by hand)."""
        if isinstance(data, int) and not isinstance(data, bool):
            return cls.fixed(data)
        if not isinstance(data, dict) or data.get("kind") not in KINDS:
            raise ValueError(f"not a length: {data!r:.80}")
        kind, value = data["kind"], int(data["value"])
        if kind == "fixed":
            return cls.fixed(value)
        if kind == "normal":
            return cls("normal", value, mu=float(data["mean"]), sd=float(data["sd"]),
                       low=int(data["low"]), high=int(data["high"]))
        if kind == "uniform":
            return cls("uniform", value, low=int(data["low"]), high=int(data["high"]))
        values = tuple(int(v) for v in data["values"])
        return cls("file", value, low=min(values), high=max(values), values=values,
                   source=str(data.get("source", "")))


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _default_bounds(mean: float, sd: float) -> tuple[int, int]:
    return max(1, math.ceil(mean - 3 * sd)), max(1, math.floor(mean + 3 * sd))


def split_items(text: str) -> list[str]:
    """An axis's items: separated by commas or spaces outside parentheses (`512, N(1k,256)`)."""
    items: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        if depth == 0 and (ch == "," or ch.isspace()):
            if current:
                items.append("".join(current))
            current = []
            continue
        current.append(ch)
    if current:
        items.append("".join(current))
    return items


def parse_lengths(text: str, field: str, *, max_value: int, base: Path | None = None
                  ) -> tuple[Lengths, ...]:
    """An axis as typed (`512,2k`, `N(512,128)`, `512 U(100,900)`): InputError naming `field`
    and the item otherwise. A file's path is read relative to `base` (default: the working
    folder). Duplicates are dropped, the order kept."""
    items = split_items(str(text))
    if not items:
        raise InputError(field, code="empty_int_list")
    out: list[Lengths] = []
    for item in items:
        value = _parse_item(item, field, max_value, base)
        if value not in out:
            out.append(value)
    return tuple(out)


def _parse_item(item: str, field: str, max_value: int, base: Path | None) -> Lengths:
    match = _ITEM.match(item)
    if match is None:
        if "(" in item or ")" in item:
            raise InputError(field, code="lengths_syntax", item=_shown(item))
        return Lengths.fixed(parse_int_list(item, field, max_value=max_value)[0])
    kind = _NAMES.get(match.group(1).lower())
    if kind is None:
        raise InputError(field, code="lengths_syntax", item=_shown(item))
    inside = match.group(2).strip()
    if kind == "file":
        return _from_file(inside, field, item, max_value, base)
    args = [a for a in re.split(r"\s*,\s*", inside) if a]
    if kind == "uniform":
        if len(args) != 2:
            raise InputError(field, code="lengths_syntax", item=_shown(item))
        low, high = (_whole(a, field, max_value) for a in args)
        if low > high:
            raise InputError(field, code="lengths_bounds", item=_shown(item), low=low, high=high)
        return Lengths("uniform", round((low + high) / 2), low=low, high=high)
    if len(args) not in (2, 4):
        raise InputError(field, code="lengths_syntax", item=_shown(item))
    mean, sd = (_number(a, field, item, max_value) for a in args[:2])
    if mean < 1:
        raise InputError(field, code="below_min", item=_shown(args[0]), low=1)
    low, high = (_default_bounds(mean, sd) if len(args) == 2
                 else tuple(_whole(a, field, max_value) for a in args[2:]))
    high = min(high, max_value)
    if low > high:
        raise InputError(field, code="lengths_bounds", item=_shown(item), low=low, high=high)
    if not low <= mean <= high:
        raise InputError(field, code="lengths_mean_outside", item=_shown(item), low=low,
                         high=high)
    return Lengths("normal", round(mean), mu=mean, sd=sd, low=low, high=high)


def _whole(text: str, field: str, max_value: int) -> int:
    return parse_int_list(text, field, max_value=max_value)[0]


def _number(text: str, field: str, item: str, max_value: int) -> float:
    """A mean or a standard deviation: a whole count (`1k` too) or a finite decimal >= 0."""
    if re.fullmatch(r"\d+\s*[kK]", text):
        return float(_whole(text, field, max_value))
    try:
        value = float(text)
    except ValueError:
        raise InputError(field, code="not_number", item=_shown(text)) from None
    if not math.isfinite(value) or value < 0:
        raise InputError(field, code="not_negative_number", item=_shown(text))
    if value > max_value:
        raise InputError(field, code="above_max", item=_shown(text), high=max_value)
    return value


def _from_file(name: str, field: str, item: str, max_value: int, base: Path | None) -> Lengths:
    if not name:
        raise InputError(field, code="lengths_syntax", item=_shown(item))
    path = Path(name).expanduser()
    if base is not None and not path.is_absolute():
        path = base / path
    _, text = read_text(path, MAX_FILE_BYTES, field, what="a lengths file", shown=name)
    values: list[int] = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if not re.fullmatch(r"\d{1,18}", line) or not 1 <= int(line) <= max_value:
            raise InputError(field, code="lengths_file_line", path=name, line=number,
                             item=_shown(line), high=max_value)
        values.append(int(line))
        if len(values) > MAX_FILE_VALUES:
            raise InputError(field, code="too_many_values", n=len(values), high=MAX_FILE_VALUES)
    if not values:
        raise InputError(field, code="lengths_file_empty", path=name)
    return Lengths("file", round(statistics.fmean(values)), low=min(values), high=max(values),
                   values=tuple(values), source=name)


def _shown(item: str) -> str:
    return repr(item) if len(item) <= 40 else f"{item[:40]!r}..."


def spread(lengths: Sequence[int]) -> dict[str, float] | None:
    """What a cell's requests sent, for the cell to show: mean, standard deviation, the 5th,
    50th and 95th percentiles (linear interpolation, as `metrics.distribution`'s), min and max
    (None for no requests)."""
    if not lengths:
        return None
    arr = np.asarray(lengths, dtype=float)
    p5, p50, p95 = np.percentile(arr, [5, 50, 95])
    return {"mean": float(arr.mean()), "sd": float(arr.std()), "p5": float(p5),
            "p50": float(p50), "p95": float(p95), "min": float(arr.min()),
            "max": float(arr.max())}


def sent_lengths(timings: Sequence[RequestTiming]) -> dict[str, dict[str, float] | None]:
    """What a cell's requests sent, per axis (`spread`): the prompt tokens each counted (the
    server's usage, else the target) and the completion tokens each completed request got. The
    figures of a cell whose lengths were drawn are computed from these, request by request."""
    return {"input": spread([t.prompt_tokens for t in timings]),
            "output": spread([t.completion_tokens for t in timings
                              if t.ok and t.completion_tokens is not None])}


def length_text(spec: CellSpec, timings: Sequence[RequestTiming], axis: str) -> str:
    """A cell's length as a table shows it: "512", or a distribution with what its requests
    sent, "N(512,128): 509 [301-716]" (mean, 5th to 95th percentile)."""
    lengths = spec.input_lengths if axis == "input" else spec.output_lengths
    if spec.workload is not None or spec.turns is not None:
        # A replayed file or sessions: named on the input side, what was sent on both.
        label = spec.input_label if axis == "input" else ""
    elif lengths is None:
        return str(spec.input_tokens if axis == "input" else spec.output_tokens)
    else:
        label = lengths.label
    sent = sent_lengths(timings)[axis] if timings else None
    if sent is None:
        return label or str(spec.output_tokens)
    spread_text = f"{sent['mean']:.0f} [{sent['p5']:.0f}-{sent['p95']:.0f}]"
    return f"{label}: {spread_text}" if label else spread_text

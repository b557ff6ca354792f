"""Parsers for what users type: lists of token counts, concurrency levels, durations.

Each parser raises `InputError` whose message names the field and the offending item, so the
command line and the forms can show it as is.
"""

from __future__ import annotations

import math
import re


class InputError(ValueError):
    """User input that cannot be used; `field` names where it came from.

    `message` is the English sentence (logs, tests, and the words of a caller not yet given a
    code); `code` and `params`, where given, are what the CLI, the window and the PDF put in
    the reader's language (`report.input_words`), as a `Finding` is."""

    def __init__(self, field: str, message: str, *, code: str = "", **params) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
        self.code = code
        self.params = params


_INT_ITEM = re.compile(r"^(\d+)\s*([kK]?)$")
_MAX_DIGITS = 18
_SHOWN_CHARS = 40


def _shown(item: str) -> str:
    """An item as quoted in a message: a pasted screenful is cut, so the message stays a line."""
    if len(item) <= _SHOWN_CHARS:
        return repr(item)
    return f"{item[:_SHOWN_CHARS]!r}... ({len(item):,} characters)"


def parse_int_list(
    text: str, field: str, *, min_value: int = 1, max_value: int | None = None
) -> list[int]:
    """Parse `"2048, 4k,32k"` into `[2048, 4096, 32768]`.

    Items are separated by commas or spaces; a `k` suffix multiplies by 1024 (token counts are
    talked about in powers of two: a "4k prompt" is 4096 tokens). Duplicates are dropped, the
    order given is kept.
    """
    items = [item for item in re.split(r"[,\s]+", text.strip()) if item]
    if not items:
        raise InputError(field, "give at least one value, e.g. 1,2,4", code="empty_int_list")
    values: list[int] = []
    for item in items:
        match = _INT_ITEM.match(item)
        if not match:
            raise InputError(field, f"{_shown(item)} is not a whole number "
                             "(examples: 512, 2048, 4k)", code="not_whole", item=_shown(item))
        if len(match.group(1)) > _MAX_DIGITS:  # int() refuses over 4,300 digits; none is sane
            raise InputError(field, f"{_shown(item)} is too large", code="too_large",
                             item=_shown(item))
        value = int(match.group(1)) * (1024 if match.group(2) else 1)
        if value < min_value:
            raise InputError(field, f"{_shown(item)} is below the minimum of {min_value}",
                             code="below_min", item=_shown(item), low=min_value)
        if max_value is not None and value > max_value:
            raise InputError(field, f"{_shown(item)} is above the maximum of {max_value}",
                             code="above_max", item=_shown(item), high=max_value)
        if value not in values:
            values.append(value)
    return values


def parse_float_list(text: str, field: str, *, min_value: float = 0.0) -> list[float]:
    """Parse `"0.5, 1,2"` into `[0.5, 1.0, 2.0]`: positive finite numbers, order kept."""
    items = [item for item in re.split(r"[,\s]+", str(text).strip()) if item]
    if not items:
        raise InputError(field, "give at least one value, e.g. 0.5,1,2",
                         code="empty_float_list")
    values: list[float] = []
    for item in items:
        try:
            value = float(item)
        except ValueError:
            raise InputError(field, f"{_shown(item)} is not a number", code="not_number",
                             item=_shown(item)) from None
        if not (value > min_value) or value != value or value == float("inf"):
            raise InputError(field, f"{_shown(item)} must be a number above {min_value:g}",
                             code="not_above", item=_shown(item), low=min_value)
        if value not in values:
            values.append(value)
    return values


def check_range(field: str, value, low: float, high: float, *, unit: str = "") -> float:
    """``value`` when it is a finite number with ``low < value <= high``; InputError naming
    ``field`` otherwise (``unit`` "s": a number of seconds). For limits a user gives: NaN would switch a deadline off (every
    comparison with it is false), inf means never, 0 or a negative means always."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not (low < value <= high):
        shown = f"{value:g}" if isinstance(value, float) else str(value)[:40]
        raise InputError(field, f"{shown} must be a number above {low:g} and at most "
                         f"{high:g}{' seconds' if unit == 's' else ''}",
                         code="out_of_range_s" if unit == "s" else "out_of_range", item=shown,
                         low=low, high=high)
    return value


_INT_TEXT = re.compile(r"[+-]?\d{1,18}")


def number_or_text(text: str) -> int | float | str:
    """Text read from a file or a server as the number it spells (an integer of at most 18
    digits, or a finite float), else the text itself."""
    if _INT_TEXT.fullmatch(text):
        return int(text)
    try:
        number = float(text)
    except ValueError:
        return text
    return number if math.isfinite(number) else text

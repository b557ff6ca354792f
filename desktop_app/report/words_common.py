"""What the diagnosis's catalogues share: the separators a finding or a predicted effect joins
its parts with, and the English plural ending.

`diagnosis_words` (the findings and suggestions) and `effect_words` (a suggestion's predicted
effect) both look these up; they live here so neither module imports the other's words back.
"""

from __future__ import annotations

__all__ = ["SHARED_WORDS", "plural_s"]

SHARED_WORDS = {
    "en": {"sep": "; ", "list": ", "},
    "zh": {"sep": "；", "list": "、"},
}


def plural_s(n: int) -> str:
    """English plural ending (the Chinese words do not use it)."""
    return "" if n == 1 else "s"

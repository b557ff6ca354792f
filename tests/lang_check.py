"""Does a Chinese rendering leave an English sentence behind?

#12 asks that a zh text hold no English sentence outside quoted SQL, identifiers and units.
`english_runs(text)` returns the English word runs left after those are taken out; a test
asserts it is empty. A run is three or more plain English words in a row ("the server ran"),
which no identifier, unit, model name or SQL fragment produces once they are removed.
"""

from __future__ import annotations

import re

# Quoted material is the user's or the server's own text: SQL, column names, messages.
_QUOTED = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"|“[^”]*”|‘[^’]*’|「[^」]*」")
# SQL keeps its keywords in any language: a clause from the first keyword to the end of the
# clause (a CJK character or closing punctuation ends it).
_SQL = re.compile(r"\b(SELECT|WITH|ROUND|CAST|COUNT|SUM|AVG|GROUP BY|ORDER BY)\b[^\u3000-\u9fff。；，]*")
# Identifiers (snake_case, dotted, colon-named metrics, flags, paths, URLs), numbers with
# units, and known abbreviations and product names are not sentences.
_TOKENS = re.compile(
    r"https?://\S+|--?[a-z][\w-]*|\S*[_:/.\\]\S*|\b\d[\d,.]*\s*\w*|"
    r"\b(tok/s|tok|ms|s|KV|TTFT|ITL|TPOT|p\d+|n/a|vLLM|vllm|SGLang|sglang|llama\.cpp|TGI|"
    r"Ollama|OpenAI|SQL|SQLite|GPU|CPU|JSON|CSV|PDF|HTTP|API|Prefill|Decode|prefill|decode|"
    r"Throughline|ROUND|NULL|McNemar|Wilson|max-num-seqs|max-num-batched-tokens)\b",
    re.IGNORECASE)
_RUN = re.compile(r"\b[A-Za-z][a-z]+(?:[ ,]+[A-Za-z][a-z]+){2,}\b")


def english_runs(text: str, allowed: tuple[str, ...] = ()) -> list[str]:
    """English sentences (runs of 3+ words) left in `text` once quoted text, SQL, identifiers,
    units and `allowed` (e.g. run names the user typed) are taken out."""
    for a in allowed:
        text = text.replace(a, " ")
    text = _QUOTED.sub(" ", text)
    text = _SQL.sub(" ", text)
    text = _TOKENS.sub(" ", text)
    return _RUN.findall(text)


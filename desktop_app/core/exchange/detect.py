"""Which tool wrote a results file, from its content (never from its name), and reading it.

Known: ``vllm bench serve`` JSON (one object, or one per line with ``--append-result``),
AIPerf ``profile_export_aiperf.json`` / ``.csv`` and its per-request ``profile_export.jsonl``,
GuideLLM ``benchmarks.json``. A Throughline
export is recognised and refused with a word on why: imports are for other tools' results.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from desktop_app.core.exchange.errors import ExchangeError, parse_json, parse_json_lines, read_text
from desktop_app.core.parsing import Phrase
from desktop_app.core.exchange.export import EXPORT_FORMAT
from desktop_app.core.exchange.importers import aiperf, aiperf_records, guidellm, vllm
from desktop_app.core.exchange.importers.common import ImportedRun, check_plausible

TOOLS = ("vllm bench serve", "AIPerf", "GuideLLM")


def _unknown(path: Path, *, code: str, **params) -> ExchangeError:
    tools = Phrase("tools_or", {"first": ", ".join(TOOLS[:-1]), "last": TOOLS[-1]})
    return ExchangeError(str(path), code=code, tools=tools, **params)


def detect_and_read(path: Path) -> ImportedRun:
    """Read ``path`` with the importer its content calls for.

    Raises ExchangeError naming the file for: unreadable or non-UTF-8 bytes, cut or broken JSON
    (with the line), a format of an unknown tool, a newer format version of a known tool (naming
    the tool and the version), or a known format holding a value of the wrong type.
    """
    path = Path(path)
    text = read_text(path)
    label, read = _reader(path, text)
    del text  # the parsed documents are what is read now (a 135 MB file's text held 135 MB)
    try:
        run = read()
        check_plausible(run, str(path))
        return run
    except ExchangeError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError) as exc:
        # A file of the right shape with a value of the wrong type (a string where a number
        # belongs): one line, not a traceback.
        raise ExchangeError(str(path), code="import_wrong_value", label=label,
                            detail=f"{type(exc).__name__}: {exc}") from None


def _reader(path: Path, text: str) -> tuple[str, Callable[[], ImportedRun]]:
    """The tool that wrote ``text`` and a function reading it; ExchangeError when none did."""
    where = str(path)
    stripped = text.lstrip()
    if not stripped.startswith(("{", "[")):
        if aiperf.looks_like_csv(stripped):
            return aiperf.LABEL, lambda: aiperf.read_csv(stripped, where)
        first = stripped.split("\n", 1)[0][:60]
        raise _unknown(path, code="import_not_json_or_csv", first=repr(first))
    lines = [line for line in stripped.split("\n") if line.strip()]  # not splitlines: U+2028
    # JSON lines: a complete object on the first line and every line opening one (a cut last
    # line is then reported as cut, not as "extra data" after the first object).
    if len(lines) > 1 and lines[0].rstrip().endswith("}") \
            and all(line.lstrip().startswith("{") for line in lines):
        docs = parse_json_lines(path, stripped)
        if all(vllm.looks_like(d) for d in docs):
            return vllm.LABEL, lambda: vllm.read(docs, where)
        if all(aiperf_records.looks_like(d) for d in docs):
            return aiperf.LABEL, lambda: aiperf_records.read(docs, path)
        raise _unknown(path, code="import_json_lines_unknown", n=len(docs))
    doc = parse_json(path, text)
    if isinstance(doc, dict) and doc.get("format") == EXPORT_FORMAT:
        raise ExchangeError(where, code="import_own_export")
    if guidellm.looks_like(doc):
        return guidellm.LABEL, lambda: guidellm.read(doc, where)
    if aiperf.looks_like(doc):
        return aiperf.LABEL, lambda: aiperf.read_json(doc, where)
    if vllm.looks_like(doc):
        return vllm.LABEL, lambda: vllm.read([doc], where)
    if aiperf_records.looks_like(doc):
        return aiperf.LABEL, lambda: aiperf_records.read([doc], path)
    if isinstance(doc, list) and doc and all(vllm.looks_like(d) for d in doc):
        return vllm.LABEL, lambda: vllm.read(doc, where)
    if isinstance(doc, dict) and doc:
        keys = ", ".join(k if k.isprintable() else repr(k) for k in sorted(doc)[:6])
        raise _unknown(path, code="import_json_keys_unknown", keys=keys)
    if isinstance(doc, dict):
        raise _unknown(path, code="import_json_empty")
    kind = ("json_list" if isinstance(doc, list) else "json_text" if isinstance(doc, str)
            else "json_null" if doc is None else "json_bool" if isinstance(doc, bool)
            else "json_number")
    raise _unknown(path, code="import_json_kind", kind=Phrase(kind))

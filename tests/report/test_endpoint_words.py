"""An endpoint that cannot be used, and what discovery noticed, in the reader's language (#27):
every code the endpoint modules raise or note has words in English (the core's own message)
and Chinese, and a Chinese rendering holds no English sentence beyond what the server or
the system said (quoted)."""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest

from desktop_app.core.endpoint.client import EndpointError
from desktop_app.core.endpoint.discovery import discover, note
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.report.endpoint_words import (ERRORS, NOTES, discovery_note_text,
                                               endpoint_error_text)
from desktop_app.report.errors import error_text
from tests.lang_check import english_runs

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = {"url": "http://gpu-box:8000/v1/models", "detail": "All connection attempts failed",
          "where": "SSL_CERT_FILE=/x.pem", "seconds": 10.0, "status": "503 Service Unavailable",
          "start": "'<html>'", "paths": "/version, /metrics", "server": "'nginx'",
          "model": "'m'", "models": "['a', 'b']", "seen": "vllm:", "known": "vllm:, tgi_",
          "switch": "llama-server --metrics", "engine": "llama.cpp",
          "fields": "cache_prompt: false"}


def _coded(kind: str) -> set[str]:
    """Every code given to EndpointError(code=...) or note("...") in the core."""
    found = set()
    for path in (ROOT / "desktop_app" / "core").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", "")
            if kind == "error" and name == "EndpointError":
                for kw in node.keywords:
                    if kw.arg == "code":
                        found |= _constants(kw.value)
            if kind == "note" and name == "note" and path.name == "discovery.py":
                for arg in node.args[:1]:
                    found |= _constants(arg)
        if kind == "error" and path.name == "client.py":  # {"code": ...} handed to one
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Dict):
                    for k, v in zip(node.keys, node.values):
                        if isinstance(k, ast.Constant) and k.value == "code":
                            found |= _constants(v)
    return found


def _constants(node) -> set[str]:
    """The code(s) an expression gives: "x", "a" if ... else "b"; a built one ("url:" + an
    InputError's code, worded by the input words) gives none."""
    if isinstance(node, ast.Constant):
        return {node.value}
    if isinstance(node, ast.IfExp):
        return _constants(node.body) | _constants(node.orelse)
    return set()


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


def test_every_code_has_words_in_both_languages_and_none_is_unused():
    raised = _coded("error")
    assert len(raised) >= 15
    assert raised == set(ERRORS["en"]) == set(ERRORS["zh"])
    noted = _coded("note") | {"stream_habits_llamacpp-python"}  # an engine's `notes`
    assert noted == set(NOTES["en"]) == set(NOTES["zh"])
    for catalogue in (ERRORS, NOTES):
        for code, template in catalogue["en"].items():
            assert _fields(catalogue["zh"][code]) == _fields(template), code


@pytest.mark.parametrize("code", sorted(ERRORS["en"]))
def test_an_endpoint_error_in_chinese_keeps_the_url_and_the_servers_words(code):
    params = {k: v for k, v in SAMPLE.items() if k in _fields(ERRORS["en"][code]) and k != "url"}
    exc = EndpointError(code=code, url=SAMPLE["url"], **params)
    assert endpoint_error_text(exc, "en") == str(exc)
    zh = error_text(exc, "zh")
    assert english_runs(zh) == [], zh
    for value in params.values():
        assert str(value).strip("'") in zh or f"{value:g}" in zh, (code, zh)


@pytest.mark.parametrize("code", sorted(NOTES["en"]))
def test_a_discovery_note_in_chinese(code):
    n = note(code, **{k: v for k, v in SAMPLE.items() if k in _fields(NOTES["en"][code])})
    assert discovery_note_text(n, "en") == str(n)
    assert english_runs(discovery_note_text(n, "zh"), allowed=("llama-cpp-python",)) == []


@pytest.mark.asyncio
async def test_a_url_refused_as_typed_is_the_forms_error_in_chinese():
    with pytest.raises(EndpointError) as caught:
        await discover(EndpointConfig("http://u:secret@a b"))
    assert str(caught.value).startswith("base URL: contains a space")
    zh = error_text(caught.value, "zh")
    assert zh.startswith("基础 URL：包含空格") and "secret" not in zh, zh

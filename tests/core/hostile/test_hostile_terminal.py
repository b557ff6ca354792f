"""What a server says reaches a terminal, a table and the PDF harmless: terminal escapes, C1
controls and bidi overrides in a model id, a version or an error are replaced (one for one, so
tables stay aligned) where they are shown and kept as listed where they are stored; a model id
of a megabyte is not offered, and the command says so. See docs/RELIABILITY.md, "Hostile
servers" (secrets, signals and terminals).
"""

from __future__ import annotations

import json
import sqlite3
import subprocess

import pytest

from tests.core.hostile.server import ESCAPES, HostileServer
from tests.core.hostile.test_hostile_sweep import SMALL, cli

# What must never reach a terminal from a server (the app's own output holds none of them).
ACTIVE = ("\x1b", "\x07", "\x9b", "\u202e", "\r")


@pytest.fixture(scope="module")
def server():
    with HostileServer() as srv:
        yield srv


def _active(text: str) -> list[str]:
    return [repr(c) for c in ACTIVE if c in text]


def test_escapes_in_a_model_id_and_version_are_shown_harmless(server, tmp_path):
    url = server.url("escape")
    sweep = cli(tmp_path, "throughput", "--base-url", url, *SMALL,
                "--json", str(tmp_path / "sweep.json"))
    sql = cli(tmp_path, "sqleval", "--base-url", url, "--ids", "t01", timeout=90)
    runs = cli(tmp_path, "runs")
    for proc in (sweep, sql, runs):
        assert proc.returncode == 0, proc.stderr
        assert _active(proc.stdout + proc.stderr) == []
    shown = ESCAPES.replace("\x1b", "\ufffd").replace("\x07", "\ufffd").replace(
        "\x9b", "\ufffd").replace("\u202e", "\ufffd")
    assert f"model m{shown}x, tokenizer vllm" in sweep.stderr
    assert f"vllm 0.1{shown}," in sweep.stderr
    assert f"model m{shown}x; set sales-25" in sql.stderr
    # A table keeps its columns: the id's replacement is as wide as the id.
    lines = runs.stdout.splitlines()
    head = lines[0]
    row = next(line for line in lines if line.startswith("1 "))
    assert row.index("http://") == head.index("endpoint")
    # Stored as the server listed it: the model id is what requests must name.
    with sqlite3.connect(tmp_path / "r.db") as db:
        models = {m for (m,) in db.execute("SELECT model FROM runs")}
    assert models == {f"m{ESCAPES}x"}
    assert json.loads((tmp_path / "sweep.json").read_text())["model"] == f"m{ESCAPES}x"


def test_escapes_in_a_discovery_error_are_shown_harmless(server, tmp_path):
    for command, args in (("throughput", SMALL), ("sqleval", ("--ids", "t01"))):
        proc = cli(tmp_path, command, "--base-url", server.url("escape.error"), *args)
        assert proc.returncode == 2
        assert _active(proc.stderr) == [], proc.stderr
        assert "500 Internal Server Error" in proc.stderr and "\ufffdend" in proc.stderr


def test_the_pdf_shows_a_model_id_with_a_right_to_left_override_in_order(server, tmp_path):
    for _ in range(2):
        assert cli(tmp_path, "throughput", "--base-url", server.url("escape"),
                   *SMALL).returncode == 0
    pdf = tmp_path / "runs.pdf"
    proc = cli(tmp_path, "report", "--runs", "1,2", "--pdf", str(pdf), timeout=120)
    assert proc.returncode == 0, proc.stderr
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    assert "Comparison" in text
    # U+202E reversed the rest of the run's name ("16 tokens" read "snekot 61").
    assert "snekot" not in text and "\ufffdx 16" in text
    assert _active(text) == []


def test_a_megabyte_model_id_is_not_offered(server, tmp_path):
    url = server.url("long_model")
    for lang, words in (("en", "1 model id(s) longer than 1,024 characters; they are not "
                               "offered"), ("zh", "有 1 个超过 1,024 个字符")):
        proc = cli(tmp_path, "throughput", "--base-url", url, *SMALL, "--no-store",
                   "--lang", lang, "--json", str(tmp_path / "sweep.json"))
        assert proc.returncode == 0, proc.stderr
        assert words in proc.stderr
        assert len(proc.stdout) + len(proc.stderr) < 20_000  # the id is in neither
        assert json.loads((tmp_path / "sweep.json").read_text())["model"] == "m"
    sql = cli(tmp_path, "sqleval", "--base-url", url, "--ids", "t01", timeout=90)
    assert sql.returncode == 0, sql.stderr
    assert "model m; set sales-25" in sql.stderr and "not offered" in sql.stderr
    assert len(sql.stdout) + len(sql.stderr) < 20_000

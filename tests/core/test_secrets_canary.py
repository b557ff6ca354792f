"""A canary API key used for a sweep, a SQL run, exports, a PDF and a crash never appears in any
file the app writes. The simulator demands the key (THROUGHLINE_SIM_API_KEY), so the runs prove
it was sent; the key has no sk- or Bearer shape, so only knowing it keeps it out."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from desktop_app import cli
from desktop_app.cli.common import api_key_from_env
from desktop_app.core.simulator.server import API_KEY_ENV

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "desktop_app", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=240)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def _files_under(*folders: Path) -> list[Path]:
    return [p for folder in folders if folder.exists() for p in folder.rglob("*") if p.is_file()]


@pytest.mark.slow
def test_the_canary_key_is_in_no_file_the_app_wrote(tmp_path, monkeypatch, capsys):
    canary = f"tl-canary-{uuid.uuid4().hex}"
    monkeypatch.setenv(API_KEY_ENV, canary)
    monkeypatch.setenv("CANARY_KEY", canary)
    home = Path(os.environ["HOME"])  # the test's own home: settings, data, logs
    out = tmp_path / "out"
    out.mkdir()

    refused = _cli("throughput", "--simulator", "instant", "--input-tokens", "128",
                   "--concurrency", "1", "--output-tokens", "8", "--requests", "2", check=False)
    assert refused.returncode != 0 and "401" in refused.stderr + refused.stdout

    _cli("throughput", "--simulator", "instant", "--api-key-env", "CANARY_KEY",
         "--input-tokens", "128,256", "--concurrency", "1,2", "--output-tokens", "8",
         "--requests", "4", "--json", str(out / "sweep.json"))
    _cli("sqleval", "--simulator", "instant", "--model", "sim/seed-reference",
         "--api-key-env", "CANARY_KEY", "--ids", "t01,m01,h01", "--json", str(out / "sql.json"))
    listed = _cli("runs", "--status", "completed").stdout
    ids = [line.split()[0] for line in listed.splitlines()[1:] if line.split()[0].isdigit()]
    assert len(ids) == 2, listed  # the sweep and the SQL run (the refused one failed)
    for run_id in ids:
        for fmt in ("csv", "json"):
            _cli("export", "--run", run_id, "--format", fmt, "--out", str(out / fmt))
    _cli("report", "--runs", ",".join(ids), "--pdf", str(out / "summary.pdf"))

    # A crash whose message quotes the key, written to the log file by the crash handler.
    def crash(args):
        key = api_key_from_env(args)
        raise ConnectionError(f"key {key} refused (Authorization: {key}, http://u:{key}@h/)")

    monkeypatch.setattr("desktop_app.cli.throughput.run_throughput", crash)
    assert cli.main(["throughput", "--base-url", "http://127.0.0.1:9", "--api-key-env",
                     "CANARY_KEY"]) == 1
    assert canary not in capsys.readouterr().err

    written = _files_under(home, out)
    names = {p.name for p in written}
    assert {"results.db", "sweep.json", "sql.json", "summary.pdf", "throughline.log"} <= names
    assert any(p.suffix == ".csv" for p in written)
    leaks = [str(p) for p in written if canary.encode() in p.read_bytes()]
    pdf_text = subprocess.run(["pdftotext", str(out / "summary.pdf"), "-"], capture_output=True,
                              text=True, check=True).stdout
    assert "Comparison" in pdf_text  # the PDF's text is really read, not a compressed blob
    if canary in pdf_text:
        leaks.append("summary.pdf (text)")
    assert leaks == [], f"the API key was written to: {leaks}"

"""`throughline demo`: one command leaves runs, a comparison PDF and exports in a folder, and
refuses a folder that already holds a demo. Sizes are cut down here; the demo's own size and
its time are measured in docs/PERFORMANCE.md."""

import sqlite3

import pytest

from desktop_app import cli
from desktop_app.core import demo


@pytest.fixture
def small_demo(monkeypatch):
    monkeypatch.setattr(demo, "INPUT_TOKENS", (256,))
    monkeypatch.setattr(demo, "CONCURRENCY", (1, 4))
    monkeypatch.setattr(demo, "OUTPUT_TOKENS", (16,))
    monkeypatch.setattr(demo, "QUESTION_IDS", ("t01", "m01"))


def test_demo_writes_runs_pdf_and_exports_and_never_overwrites(small_demo, tmp_path, capsys,
                                                               qapp):
    # qapp: the PDF needs a Qt application; made here it is the QApplication the GUI tests
    # later in this process expect, not the report's own QGuiApplication.
    out = tmp_path / "demo"
    assert cli.main(["demo", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "comparison.pdf" in printed and "results.db" in printed

    with sqlite3.connect(out / "results.db") as db:
        runs = db.execute("SELECT kind, status, name FROM runs ORDER BY id").fetchall()
    assert [(k, s) for k, s, _ in runs] == [("throughput", "completed")] * 2 + [
        ("sql", "completed")] * 2
    assert {name for *_, name in runs} == {"demo: fast server", "demo: fast-capped server",
                                          "demo: sim/careful", "demo: sim/seed-reference"}
    pdf = out / "comparison.pdf"
    assert pdf.read_bytes().startswith(b"%PDF") and pdf.stat().st_size > 10_000
    exported = sorted(p.name for p in (out / "exports").rglob("*") if p.is_file())
    assert any(name.endswith("-requests.csv") for name in exported)
    assert any(name.endswith("-steps.csv") for name in exported)
    assert sum(name.endswith(".json") for name in exported) == 4

    before = pdf.stat().st_mtime_ns
    assert cli.main(["demo", "--out", str(out)]) == 2
    assert "already holds a demo" in capsys.readouterr().err
    assert pdf.stat().st_mtime_ns == before

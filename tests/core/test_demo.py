"""`throughline demo`: one command leaves runs, a comparison PDF and exports in a folder, and
refuses a folder that already holds a demo. Sizes are cut down here; the demo's own size and
its time are measured in docs/PERFORMANCE.md."""

import sqlite3

import pytest

from desktop_app import cli
from desktop_app.core import demo
from desktop_app.core.compare import compare
from desktop_app.core.store import Store


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
        ("sql", "completed")] * 3
    assert {name for *_, name in runs} == {
        "demo: fast server", "demo: fast-capped server", "demo: sim/careful on fast",
        "demo: sim/seed-reference on fast", "demo: sim/seed-reference on fast-capped"}
    with Store.open(out / "results.db") as store:
        comp = compare(store, [1, 2, 3, 4, 5])
    # Every sweep plans capacity in tasks with a SQL run of its own server: none drops out.
    assert {c.throughput_id for c in comp.capacities} == {1, 2}
    assert not [n for n in comp.notes if n.code == "sweep_without_sql"]
    pdf = out / "comparison.pdf"
    assert pdf.read_bytes().startswith(b"%PDF") and pdf.stat().st_size > 10_000
    exported = sorted(p.name for p in (out / "exports").rglob("*") if p.is_file())
    assert any(name.endswith("-requests.csv") for name in exported)
    assert any(name.endswith("-steps.csv") for name in exported)
    assert sum(name.endswith(".json") for name in exported) == 5

    before = pdf.stat().st_mtime_ns
    assert cli.main(["demo", "--out", str(out)]) == 2
    assert "already holds a demo" in capsys.readouterr().err
    assert pdf.stat().st_mtime_ns == before

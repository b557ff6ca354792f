"""A figure is one descriptor plus its words (`core/throughput/figures.py`,
`report/figure_words.py`): a toy one written as a module of its own (tests/toy_figure.py, the
end-to-end time's median) appears in the terminal's cell table, `compare --json`, cells.csv and
the PDF in both languages, computed from the requests as the summary computes the same
median; removed, it is in none of them."""

import contextlib
import csv
import io
import json
import shutil
import subprocess

import pytest

from desktop_app.cli import main
from desktop_app.core.throughput import figures
from tests.toy_figure import toy_figure

SWEEP = ("throughput", "--simulator", "fast", "--input-tokens", "256", "--concurrency", "1,4",
         "--output-tokens", "16", "--requests", "8")


def _cli(capsys, db, *argv) -> str:
    capsys.readouterr()
    assert main(["--db", str(db), *argv]) == 0
    return capsys.readouterr().out


def _column(table: str, header: str, lang: str) -> list[str]:
    """A column of the terminal's cell table (its two rows), found by its header."""
    from desktop_app.report.sweep_table_words import table_headers

    i = table_headers(lang).index(header)
    lines = table.splitlines()
    head = next(n for n, line in enumerate(lines) if header in line)
    return [line.split()[i] for line in lines[head + 1:head + 3]]


@pytest.fixture(scope="module")
def toy_runs(tmp_path_factory):
    """Two sweeps of the fast simulator with the toy figure registered: (db, tables (en, zh),
    folder). The figure stays registered for the module's tests."""
    folder = tmp_path_factory.mktemp("toy_figure")
    db = folder / "results.db"
    with toy_figure(folder):
        tables = []
        for lang in ("en", "zh"):
            with contextlib.redirect_stdout(io.StringIO()) as out:
                assert main(["--db", str(db), "--lang", lang, *SWEEP]) == 0
            tables.append(out.getvalue())
        yield db, tables, folder


def test_the_toy_figure_is_a_column_of_the_cell_table_in_both_languages(toy_runs):
    _, (en, zh), _ = toy_runs
    assert [float(v) > 0 for v in _column(en, "E2E p50 s", "en")] == [True, True], en
    assert [float(v) > 0 for v in _column(zh, "端到端 p50 秒", "zh")] == [True, True], zh
    # Where its rank puts it: after TTFT p90, before Prefill.
    head = next(line for line in en.splitlines() if "E2E p50 s" in line)
    assert head.index("TTFT p90 s") < head.index("E2E p50 s") < head.index("Prefill tok/s")


def test_the_toy_figure_is_compared_cell_by_cell(toy_runs, capsys, tmp_path):
    db = toy_runs[0]
    out = tmp_path / "cmp.json"
    _cli(capsys, db, "compare", "--runs", "1,2", "--json", str(out))
    rows = [r for r in json.loads(out.read_text())["rows"] if r["dimension"] == "e2e"]
    assert {r["scope"] for r in rows} == {"tally", "cell"}
    cells = [r for r in rows if r["scope"] == "cell"]
    assert {r["params"]["concurrency"] for r in cells} == {1, 4}
    assert all(r["label"].startswith("End-to-end p50 (per user): 256 tokens in") for r in cells)
    for r in cells:
        assert r["unit"] == "s" and r["audience"] == "user" and len(r["values"]) == 2
        assert all(v["low"] <= v["value"] <= v["high"] for v in r["values"])
    _cli(capsys, db, "--lang", "zh", "compare", "--runs", "1,2", "--json", str(out))
    labels = [r["label"] for r in json.loads(out.read_text())["rows"] if r["dimension"] == "e2e"]
    assert len(labels) == 3 and all(label.startswith("端到端延迟中位数（单用户）：")
                                    for label in labels), labels


def test_the_toy_figure_has_its_columns_in_cells_csv(toy_runs, capsys, tmp_path):
    db = toy_runs[0]
    _cli(capsys, db, "export", "--run", "1", "--format", "csv", "--out", str(tmp_path))
    (path,) = tmp_path.glob("*-cells.csv")
    with path.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2
    for row in rows:
        value = float(row["e2e_p50_s"])
        # The figure's median of the requests is the summary's p50 of the same requests.
        assert value == pytest.approx(float(row["e2e_s_p50"]), rel=1e-9)
        assert float(row["e2e_p50_s_low"]) <= value <= float(row["e2e_p50_s_high"])


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext is not installed")
@pytest.mark.parametrize("lang, name", [("en", "End-to-end p50"), ("zh", "端到端延迟中位数")])
def test_the_toy_figure_is_in_the_pdfs_side_by_side_table(toy_runs, capsys, tmp_path, lang,
                                                          name):
    db = toy_runs[0]
    pdf = tmp_path / f"cmp-{lang}.pdf"
    _cli(capsys, db, "--lang", lang, "report", "--runs", "1,2", "--pdf", str(pdf))
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True,
                          capture_output=True, text=True, timeout=60).stdout
    # A row of the side-by-side table per cell and one for the tally (the table wraps the
    # rest of the label).
    rows = [line for line in text.splitlines() if line.lstrip().startswith(name)]
    assert len(rows) == 3, text


def test_without_the_toy_module_no_view_knows_the_figure(toy_runs, capsys, tmp_path):
    db, (en, _), _ = toy_runs
    toy = figures.get("e2e")
    assert toy is not None
    figures.unregister("e2e")
    try:
        out = tmp_path / "cmp.json"
        _cli(capsys, db, "compare", "--runs", "1,2", "--json", str(out))
        assert "e2e" not in {r["dimension"] for r in json.loads(out.read_text())["rows"]}
        _cli(capsys, db, "export", "--run", "1", "--format", "csv", "--out", str(tmp_path))
        (path,) = tmp_path.glob("*-cells.csv")
        assert "e2e_p50_s" not in path.read_text(encoding="utf-8").splitlines()[0].split(",")
        from desktop_app.report.sweep_table_words import table_headers

        assert "E2E p50 s" not in table_headers("en")
    finally:
        figures.register(toy)  # for any test of this module that runs after this one

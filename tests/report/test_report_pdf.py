"""The comparison PDF end to end: real runs on the built-in simulator, English and Chinese PDFs
read back with pdftotext, the CLI headless in a fresh interpreter, and bad input.

The store is built once for the module (about 5 s): on the `fast` profile a sweep of
sim/careful and a SQL run of sim/careful (a capacity pair with measured decode); on the `instant`
profile a sweep of sim/seed-reference (tokens arrive all at once: decode is n/a) and a SQL run
of sim/seed-reference.
"""

import asyncio
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_app import paths
from desktop_app.cli import main
from desktop_app.core.compare import SqlRun, compare
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.sqleval.runner import EvalConfig, run_eval
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.sweep import run_sweep

pytestmark = pytest.mark.skipif(shutil.which("pdftotext") is None,
                                reason="poppler-utils (pdftotext) is not installed")
QUESTIONS = ("t01", "e01", "m01", "h01", "h02")


async def _fill(store: Store, url: str, model: str, concurrency: tuple[int, ...],
                cache: Path) -> tuple[int, int]:
    sweep = SweepConfig(EndpointConfig(url, model=model), input_tokens=(256, 1024),
                        concurrency=concurrency, output_tokens=(16,), requests_per_cell=4,
                        warmup=1, metrics_interval_s=0.05, name=f"sweep {model}")
    tp = await run_sweep(sweep, store)
    ev = EvalConfig(EndpointConfig(url, model=model), question_ids=QUESTIONS, concurrency=5,
                    name=f"eval {model}")
    sql = await run_eval(ev, store, sets_dir=paths.questions_dir(), cache_dir=cache)
    return tp.run_id, sql.run_id


@pytest.fixture(scope="module")
def store_ids(tmp_path_factory, qapp):
    # qapp: pytest-qt's QApplication exists before the report looks for one, so GUI tests in
    # the same session still find a QApplication (not a bare QGuiApplication).
    folder = tmp_path_factory.mktemp("report")
    db = folder / "results.db"
    with Store.open(db) as store:
        with start_simulator("fast") as sim:
            fast = asyncio.run(_fill(store, sim.url, "sim/careful", (1, 2), folder / "dbs"))
        with start_simulator("instant") as sim:
            instant = asyncio.run(_fill(store, sim.url, "sim/seed-reference", (1, 4),
                                        folder / "dbs"))
    return db, fast, instant


@pytest.fixture(scope="module")
def capped_id(store_ids):
    """A sweep of the `fast-capped` server (max_num_seqs 2; `fast` has 16), with a note."""
    db = store_ids[0]
    sweep = None
    with Store.open(db) as store, start_simulator("fast-capped") as sim:
        sweep = SweepConfig(EndpointConfig(sim.url, model="sim/careful"), input_tokens=(256,),
                            concurrency=(1, 2), output_tokens=(16,), requests_per_cell=4,
                            warmup=1, metrics_interval_s=0.05, name="capped sweep",
                            notes="same server, max_num_seqs lowered to 2")
        return asyncio.run(run_sweep(sweep, store)).run_id


@pytest.fixture(scope="module")
def pdfs(store_ids, tmp_path_factory):
    from desktop_app.report import write_comparison_pdf

    db, fast, instant = store_ids
    out = tmp_path_factory.mktemp("pdfs")
    ids = [fast[0], instant[0], fast[1], instant[1]]
    with Store.open(db) as store:
        en = write_comparison_pdf(store, ids, out / "en.pdf", "en")
        zh = write_comparison_pdf(store, ids, out / "zh.pdf", "zh")
    return en, zh


def _text(pdf: Path) -> str:
    """The PDF's text with runs of white space as one space (table cells wrap lines)."""
    out = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                         check=True).stdout
    return " ".join(out.split())


def _flat(text: str) -> str:
    """Text without white space and hyphens: pdftotext breaks a wrapped table cell's lines
    apart and joins a word hyphenated at a line end ("fast-\ncapped" reads "fastcapped")."""
    return "".join(text.split()).replace("-", "")


def _reads(flat: str, phrase: str, slack: int = 4) -> bool:
    """`phrase` reads in `flat` (see _flat) in order, allowing the lines of the table cells
    beside it to come in between (pdftotext reads a table row line by line across its cells)."""
    want = _flat(phrase)
    head = want[:5]
    start = flat.find(head)
    while start != -1:
        i, j, end = start, 0, min(len(flat), start + len(want) * slack)
        while i < end and j < len(want):
            j += flat[i] == want[j]
            i += 1
        if j == len(want):
            return True
        start = flat.find(head, start + 1)
    return False


def _pages(pdf: Path) -> int:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    return int(next(line.split()[-1] for line in info.stdout.splitlines()
                    if line.startswith("Pages:")))


def test_english_pdf_has_every_section_and_the_measured_numbers(pdfs, store_ids):
    en, _ = pdfs
    text = _text(en)
    for heading in ("Comparison summary", "What was compared", "Judge definitions",
                    "Side by side", "Speed (throughput runs)", "Quality (SQL evaluation runs)",
                    "Speed and quality together", "Throughput charts", "SQL evaluation charts",
                    "Diagnosis findings", "Top failed questions",
                    "Appendix: methods and metric definitions", "exact McNemar test",
                    "Users don't wait", "Answers usable as they are"):
        assert heading in text, heading
    db, fast, instant = store_ids
    with Store.open(db) as store:
        comp = compare(store, [fast[0], instant[0], fast[1], instant[1]])
    seed = next(r for r in comp.sql if r.info.id == instant[1])
    strict = seed.summary["strict"]
    # The seed-reference persona drops every ROUND: the PDF prints its stored strict count.
    assert f"{strict.passed / strict.total * 100:.0f} % ({strict.passed}/{strict.total})" in text
    assert strict.passed < strict.total and "rounding_only" in text
    # Each capacity figure is printed; where one is missing (the instant profile usually sends
    # every token at once: no decode rate), the row says why instead.
    from desktop_app.report.fmt import num

    for cap in comp.capacities:
        for point in cap.points:
            if point.reason:
                assert f"n/a: {point.reason}" in text
            else:
                assert f"{cap.label} {point.concurrency} " in text
                assert num(point.tasks_per_hour) in text
    assert "Simulated" in text and "prefill_tps" in text  # the warning and the appendix
    assert 6 <= _pages(en) <= 18  # summary and grid first, no split rows: some pages run short


def test_chinese_pdf_renders_chinese_headings(pdfs):
    _, zh = pdfs
    text = _text(zh)
    for heading in ("对比评测摘要", "对比对象", "判定标准", "对比总表", "速度与质量结合",
                    "吞吐图表", "SQL 评测图表", "诊断结论", "附录：方法与指标定义", "用户不等待"):
        assert heading in text, heading
    fonts = subprocess.run(["pdffonts", str(zh)], capture_output=True, text=True).stdout
    assert "WenQuanYi" in fonts and " yes " in fonts  # a CJK font, embedded
    assert _pages(zh) >= 6


def test_a_comparison_of_one_kind_skips_the_other_sections_with_a_note(store_ids, tmp_path):
    from desktop_app.report import write_comparison_pdf

    db, fast, instant = store_ids
    with Store.open(db) as store:
        pdf = write_comparison_pdf(store, [fast[0], instant[0]], tmp_path / "tp.pdf", "en")
    text = _text(pdf)
    assert "Section skipped: no SQL run among the compared runs." in text
    assert "Section skipped: no throughput run and SQL run of the same endpoint" in text


def test_cli_writes_the_pdf_headless_without_widgets(store_ids, tmp_path):
    db, fast, instant = store_ids
    out = tmp_path / "cli.pdf"
    code = ("import sys; from desktop_app.cli import main; rc = main(sys.argv[1:]); "
            "assert 'PySide6.QtWidgets' not in sys.modules; sys.exit(rc)")
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY")}
    done = subprocess.run(
        [sys.executable, "-c", code, "report", "--runs", f"{fast[0]},{fast[1]}", "--lang", "zh",
         "--pdf", str(out), "--db", str(db)],
        capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"已写入 {out}" in done.stdout and "速度与质量结合" in _text(out)  # --lang zh


def test_bad_input_is_one_line_and_leaves_nothing(store_ids, tmp_path, capsys):
    db, fast, _ = store_ids
    out = tmp_path / "out.pdf"
    cases = [
        (["--runs", f"{fast[0]},9998,9999"], "no run 9998, 9999 in"),
        (["--runs", str(fast[0])], "at least two different run ids"),
        (["--runs", f"{fast[0]},{fast[0]}"], "at least two different run ids"),
        (["--runs", f"{fast[0]},x1"], "'x1' is not a run id"),
    ]
    for args, message in cases:
        assert main(["report", *args, "--pdf", str(out), "--db", str(db)]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    missing = tmp_path / "no-such-folder" / "out.pdf"
    assert main(["--db", str(db), "report", "--runs", f"{fast[0]},{fast[1]}",
                 "--pdf", str(missing)]) == 2
    assert f"cannot write {missing}" in capsys.readouterr().err
    assert main(["report", "--runs", f"{fast[0]},{fast[1]}", "--pdf", str(out),
                 "--db", str(tmp_path / "absent.db")]) == 2
    assert "no results database" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # no PDF, no temporary file, no database created


def test_a_pdf_that_cannot_be_finished_leaves_the_old_file_alone(store_ids, tmp_path,
                                                                 monkeypatch):
    from desktop_app.report import pdf as report_pdf

    db, fast, _ = store_ids
    out = tmp_path / "keep.pdf"
    out.write_bytes(b"%PDF-old")

    def broken(*_args):
        raise RuntimeError("disk full while painting")

    monkeypatch.setattr(report_pdf, "_paint", broken)
    with Store.open(db) as store, pytest.raises(RuntimeError):
        report_pdf.write_comparison_pdf(store, [fast[0], fast[1]], out, "en")
    assert out.read_bytes() == b"%PDF-old" and [p.name for p in tmp_path.iterdir()] == [
        "keep.pdf"]


def test_sql_summary_matches_the_stored_questions(store_ids):
    db, fast, _ = store_ids
    with Store.open(db) as store:
        comp = compare(store, [fast[0], fast[1]])
        rows = store.sql_questions(fast[1])
    sql = next(r for r in comp.runs if isinstance(r, SqlRun))
    assert sql.summary["strict"].total == len(rows) == len(QUESTIONS)
    # sim/careful submits the gold SQL: every judge passes, and the pair has a capacity.
    assert sql.pass_rate("strict") == 1.0
    cap = comp.capacities[0]
    assert all(p.tasks_per_hour and p.tasks_per_hour > 0 for p in cap.points)
    assert [p.concurrency for p in cap.points] == [1, 2]


def test_the_pdf_is_readable_by_others_as_the_umask_allows(tmp_path):
    """The temporary file the PDF is written into is private; the PDF itself is for sharing."""
    import os
    import stat

    from desktop_app.core.compare import Comparison
    from desktop_app.report.pdf import render_comparison_pdf

    old = os.umask(0o022)
    try:
        out = render_comparison_pdf(Comparison(runs=(), rows=()), tmp_path / "empty.pdf")
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


@pytest.fixture(scope="module")
def capped_pdfs(store_ids, capped_id, tmp_path_factory):
    """The English and Chinese PDFs of the fast sweep against the fast-capped one."""
    from desktop_app.report import write_comparison_pdf

    db, fast, _ = store_ids
    out = tmp_path_factory.mktemp("capped")
    with Store.open(db) as store:
        comp = compare(store, [fast[0], capped_id])
        en = write_comparison_pdf(store, [fast[0], capped_id], out / "en.pdf", "en")
        zh = write_comparison_pdf(store, [fast[0], capped_id], out / "zh.pdf", "zh")
    return comp, en, zh


def test_a_capped_server_shows_what_differs_and_each_verdict_in_words(capped_pdfs):
    from desktop_app.report.verdicts import render_row, row_label

    comp, en, _ = capped_pdfs
    text = _text(en)
    fast, capped = comp.runs
    assert comp.settings_differ["max_num_seqs"] == {fast.info.id: 16, capped.info.id: 2}
    # The differs table comes before the dimension rows, one column per run.
    differs = text[text.index("What differs between these runs"):text.index("Speed (throughput")]
    assert "max_num_seqs 16 2" in differs
    # The cover: names, the note, the settings read from the server, no Python reprs.
    for words in (fast.info.label, capped.info.label, "same server, max_num_seqs lowered to 2",
                  "Server settings read from the server", "max_num_seqs = 2",
                  "max_num_seqs = 16", "prompt lengths 256 tokens"):
        assert words in text, words
    assert "=True" not in text and "unique_prompts" not in text
    # Every row: its name, and its verdict as report/verdicts.py words it.
    flat = _flat(text)
    for row in comp.rows:
        assert _reads(flat, row_label(row, "en")), row.key
        assert _reads(flat, render_row(row, comp.runs, "en")), row.key
    # Values carry their intervals and observation counts.
    prefill = next(r for r in comp.rows if r.key == "prefill" and r.cell).values[0]
    # Without spaces: when the machine was busy the sweep's cells are client-bound, their
    # "(client-bound)" marks crowd the columns and pdftotext reads the small print "n=4".
    assert prefill.estimate.has_interval and _flat(f"n = {prefill.n}") in flat
    assert "bootstrap percentile interval" in text  # the appendix states the method


def test_the_chinese_pdf_says_the_verdicts_in_chinese(capped_pdfs):
    from desktop_app.report.verdicts import render_row

    comp, _, zh = capped_pdfs
    flat = _flat(_text(zh))
    assert "各运行之间的差异" in flat and "从服务端读取的参数" in flat
    for row in comp.rows:
        assert _reads(flat, render_row(row, comp.runs, "zh")), row.key
    assert any(word in flat for word in ("胜出", "大致持平（在噪声范围内）", "受客户端限制"))
    assert "自助法" in flat and "Serversettings" not in flat


def test_settings_read_and_typed_are_told_apart_and_identical_settings_said_so():
    from desktop_app.core.compare import Comparison, ThroughputRun
    from desktop_app.core.runs import RunInfo
    from desktop_app.report.fmt import settings_groups
    from desktop_app.report.sections import differs

    def run(run_id: int, settings: dict, source: dict) -> ThroughputRun:
        info = RunInfo(run_id, "throughput", f"run {run_id}", "http://x", "m", "vllm",
                       "completed", "2026-01-01T00:00:00", "", {
                           "server_settings": settings, "server_settings_source": source})
        return ThroughputRun(info, ())

    a = run(1, {"max_num_seqs": 2, "user:max_num_seqs": 4, "quantization": "fp8"},
            {"max_num_seqs": "server", "user:max_num_seqs": "user", "quantization": "user"})
    groups = dict(settings_groups("en", a.info))
    assert groups["Server settings read from the server"] == ["max_num_seqs = 2"]
    assert groups["Server settings entered by the user"] == [
        "max_num_seqs = 4 (the server reported 2)", "quantization = fp8"]
    assert settings_groups("en", run(2, {}, {}).info) == []
    same = Comparison(runs=(a, run(3, a.info.settings, a.info.settings_source)), rows=())
    assert "The recorded server settings are identical in every run." in differs(same, "en")
    assert "各运行记录的服务端参数完全相同。" in differs(same, "zh")
    none = Comparison(runs=(run(4, {}, {}), run(5, {}, {})), rows=())
    assert "No run recorded server settings" in differs(none, "en")


# --------------------------------------------------------------------------- page flow


def _page_lines(pdf: Path) -> list[list[str]]:
    """Each page's lines of text (pdftotext -layout, white space runs as one space), without
    the footer every page carries."""
    out = []
    for n in range(1, _pages(pdf) + 1):
        text = subprocess.run(["pdftotext", "-layout", "-f", str(n), "-l", str(n), str(pdf), "-"],
                              capture_output=True, text=True, check=True).stdout
        lines = [" ".join(line.split()) for line in text.splitlines()]
        out.append([line for line in lines if line and "Throughline ·" not in line])
    return out


def _images_per_page(pdf: Path) -> dict[int, int]:
    listing = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True,
                             check=True).stdout.splitlines()[2:]
    counts: dict[int, int] = {}
    for line in listing:
        page = int(line.split()[0])
        counts[page] = counts.get(page, 0) + 1
    return counts


def _page_flow_problems(pdf: Path, comp, lang: str) -> list[str]:
    """What a reader would notice at the page breaks: text hidden outside a page's printed area
    (a line drawn twice, once clipped), a page holding a single line and no chart, a heading
    left last on a page, a line repeated across a page break."""
    import re
    from html import unescape

    from desktop_app.report.pdf import MARGIN_MM, _html

    problems = []
    bbox = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    margin = MARGIN_MM / 25.4 * 72  # points
    foot = {}  # page -> how far down its text (above the footer) reaches, as a share
    for n, page in enumerate(bbox.split("<page ")[1:], 1):
        height = float(re.search(r'height="([\d.]+)"', page).group(1))
        words = re.findall(r'yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)</word>',
                           page)
        for y0, y1, word in words:
            if float(y0) < margin - 1 or float(y1) > height - margin + 1:
                problems.append(f"page {n}: hidden text {word!r} at y {y0}")
                break
        body = [float(y1) for _y0, y1, _w in words if float(y1) < height - margin - 12]
        foot[n] = max(body, default=0.0) / height
    html = _html(comp, lang, "2026-01-01 00:00", lambda _image: "chart.png")
    headings = {" ".join(unescape(re.sub(r"<[^>]+>", "", h)).split())
                for h in re.findall(r"<h[123][^>]*>(.*?)</h[123]>", html, re.S)}
    pages = _page_lines(pdf)
    images = _images_per_page(pdf)
    for n, lines in enumerate(pages, 1):
        if len(lines) < 2 and not images.get(n):
            problems.append(f"page {n} holds only {lines}")
        # A heading as the last text is fine above a chart; at the foot of a page it is stranded.
        if lines and lines[-1] in headings and foot[n] > 0.75:
            problems.append(f"page {n} ends with the heading {lines[-1]!r}")
    for n, (a, b) in enumerate(zip(pages, pages[1:]), 1):
        for line in set(a[-3:]) & set(b[:3]):
            # Two table rows may measure the same ("111 ms 111 ms 111 ms"); a line drawn twice
            # across a break always carries words, a row label or a sentence.
            if _carries_words(line):
                problems.append(f"pages {n}-{n + 1}: {line!r} on both")
    return problems


_FIGURE = re.compile(r"[-+−]?[\d.,]+|ms|s|%|tok/s|x|×|—|–|-|\(|\)|n/a")


def _carries_words(line: str) -> bool:
    return not all(_FIGURE.fullmatch(token.strip("()")) or not token.strip("()")
                   for token in line.split())


def test_a_repeated_line_is_flagged_when_it_carries_words_not_when_it_only_measures():
    assert not _carries_words("111 ms 111 ms 111 ms")
    assert not _carries_words("1,234.5 tok/s (+3 %) \u2014")
    assert _carries_words("2 concurrent 111 ms")
    assert _carries_words("\u9884\u6d4b\u6548\u679c 111 ms")


def test_page_breaks_split_no_row_strand_no_heading_and_repeat_no_line(pdfs, capped_pdfs,
                                                                       store_ids):
    db, fast, instant = store_ids
    with Store.open(db) as store:
        mixed = compare(store, [fast[0], instant[0], fast[1], instant[1]])
    comp, capped_en, capped_zh = capped_pdfs
    for pdf, c, lang in ((pdfs[0], mixed, "en"), (pdfs[1], mixed, "zh"),
                         (capped_en, comp, "en"), (capped_zh, comp, "zh")):
        assert _page_flow_problems(pdf, c, lang) == [], pdf


def test_page_one_sums_up_and_the_grid_gives_each_cell(capped_pdfs, pdfs, store_ids):
    from desktop_app.report.fmt import num

    comp, en, zh = capped_pdfs
    pages = _page_lines(en)
    first = " ".join(pages[0])
    for words in ("Comparison summary", "What was compared", "What differs between these runs",
                  "Verdicts", "Verdict per scenario", "Many concurrent users",
                  "Speed (throughput runs)", "Total output (tok/s, system)", "TTFT p50 (per user)",
                  "Decode (mean tok/s per request, per user)", "1 concurrent", "2 concurrent"):
        assert words in first, words
    assert "vllm (simulated)" in first and "simulated vllm" not in _text(en)
    assert "vllm（模拟）" in " ".join(_page_lines(zh)[0])
    # The grid: every cell's measured figures, on the page after the summary.
    grid = " ".join(pages[1])
    assert grid.startswith("Prefill, decode and TTFT by prompt length and concurrency")
    for run in comp.throughput:
        for cell in run.closed_loop_cells:
            assert num(cell.prefill_tps) in grid and num(cell.decode_tps) in grid
            if cell.concurrency > 1:
                assert f"({cell.prefill_change * 100:+.0f}\u00a0%)".replace("\u00a0", " ") in grid
    # The SQL part states the answers that omitted a ROUND asked for, as such.
    db, fast, instant = store_ids
    with Store.open(db) as store:
        seed = next(r for r in compare(store, [instant[0], instant[1]]).sql)
    omitted = seed.explained().get("missing_round", 0)
    assert omitted > 0
    summary = " ".join(_page_lines(pdfs[0])[0])
    assert "Answers that omit the ROUND(x, n) their question asks for:" in summary
    assert f"{seed.info.label} {omitted} of {len(seed.judged)} judged" in summary
    zh = _text(pdfs[1])
    assert "遗漏了题目要求的 ROUND(x, n) 的答案" in zh and "不适用" in zh

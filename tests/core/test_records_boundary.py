"""Only the records modules read a run's stored rows: a view that parses them itself is how the
same run came to show 6/9 on one page and 6/6 on another (issue #11)."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "desktop_app"
# The Store's reads of raw rows (dicts in the stored shapes).
RAW_READS = {"cells", "sql_questions", "sql_steps", "metric_samples", "requests", "request_ids",
             "requests_by_id", "count_requests", "diagnosis"}
ALLOWED = {
    ROOT / "core" / "throughput" / "records.py",
    ROOT / "core" / "sqleval" / "records.py",
}


def _offences(path: Path, base: Path = ROOT.parent) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in RAW_READS:
            owner = ast.unparse(node.value)
            if re.search(r"(^|[._])store$", owner):
                found.append(f"{path.relative_to(base)}:{node.lineno}: "
                             f"{owner}.{node.attr}")
    return found


def test_no_module_but_the_records_reads_stored_rows():
    offences = []
    for path in sorted(ROOT.rglob("*.py")):
        if path in ALLOWED or (ROOT / "core" / "store") in path.parents:
            continue
        offences += _offences(path)
    assert not offences, ("read these through core/throughput/records.py or "
                          "core/sqleval/records.py:\n" + "\n".join(offences))


def test_the_check_finds_a_raw_read(tmp_path):
    bad = tmp_path / "view.py"
    bad.write_text("def f(store, config):\n    config.cells()\n"
                   "    return store.sql_questions(1)\n", encoding="utf-8")
    assert _offences(bad, tmp_path) == ["view.py:3: store.sql_questions"]


# The records modules' own raw-row helpers (stored rows as dicts, for code that writes those
# rows out or back as they are). Views (the window, the PDF, the CLI, the comparison) get typed
# values: `StoredRequest`, `MetricSample`, `StoredQuestion`, `StoredCell`.
RAW_HELPERS = {"sample_rows", "iter_request_rows", "question_rows", "step_rows",
               "request_rows_by_id"}
HELPER_USERS = {
    # The exports write the stored columns out as they are (docs/EXPORTS.md).
    ROOT / "core" / "exchange" / "tp_export.py",
    ROOT / "core" / "exchange" / "sql_export.py",
    ROOT / "core" / "exchange" / "export.py",
    # Resume rebuilds a sweep's requests; re-judging rewrites a run's question rows.
    ROOT / "core" / "throughput" / "resume.py",
    ROOT / "core" / "sqleval" / "runner.py",
}


def _helper_uses(path: Path, base: Path = ROOT.parent) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith(".records"):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.Attribute) and ast.unparse(node.value).endswith("records"):
            names = [node.attr]
        found += [f"{path.relative_to(base)}:{node.lineno}: {n}" for n in names
                  if n in RAW_HELPERS]
    return found


def test_no_view_gets_raw_rows_from_the_records_modules():
    offences = []
    for path in sorted(ROOT.rglob("*.py")):
        if path in ALLOWED or path in HELPER_USERS:
            continue
        offences += _helper_uses(path)
    assert not offences, "use the typed reads of the records modules:\n" + "\n".join(offences)


def test_the_check_finds_a_raw_helper(tmp_path):
    bad = tmp_path / "page.py"
    bad.write_text("from desktop_app.core.throughput.records import load_sweep, sample_rows\n"
                   "from desktop_app.core.sqleval import records\n"
                   "rows = records.step_rows(store, 1)\n", encoding="utf-8")
    assert _helper_uses(bad, tmp_path) == ["page.py:1: sample_rows", "page.py:3: step_rows"]

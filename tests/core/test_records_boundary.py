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

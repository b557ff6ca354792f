"""How quickly the SQL sandbox stops a runaway query once its time limit has passed.

Builds a throwaway database (one table of --rows rows), then runs each runaway query --repeat
times through `Sandbox` with a --limit second time limit and prints how far past the limit each
call returned (the overshoot; target: under 1 s). The cases:

- recursive CTE: an unbounded counter, aggregated so no row ever reaches Python;
- cross join: a three-way cross join of the table, aggregated;
- sorted cross join: a two-way cross join ordered by random() (the sorter's own loops);
- streamed CTE: the unbounded counter returned as rows, stopped by the row cap rather than the
  clock (its "overshoot" is negative: it returns before the limit, with total_rows = None).

    .venv/bin/python bench/sandbox_runaway.py [--limit 1.0] [--repeat 5] [--rows 20000]
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_app.core.sqleval.sandbox import Sandbox, SqlTimeout  # noqa: E402

CASES = {
    "recursive CTE": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                     "SELECT count(*) FROM c",
    "cross join": "SELECT count(*) FROM t a, t b, t c",
    "sorted cross join": "SELECT a.id, b.id FROM t a, t b ORDER BY random() LIMIT 1",
    "streamed CTE": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                    "SELECT x FROM c",
}


def build(path: Path, rows: int) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, amount REAL)")
    conn.executemany("INSERT INTO t VALUES (?, ?, ?)",
                     ((i, f"name {i}", i * 0.25) for i in range(rows)))
    conn.commit()
    conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=float, default=1.0, help="time limit, seconds")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rows", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "runaway.sqlite"
        build(db, args.rows)
        print(f"time limit {args.limit:.1f} s, {args.repeat} runs each, table of {args.rows:,} "
              f"rows, SQLite {sqlite3.sqlite_version}")
        print(f"{'case':20} {'outcome':28} {'overshoot p50':>14} {'max':>8}")
        with Sandbox(db, time_limit_s=args.limit) as sandbox:
            for name, sql in CASES.items():
                overshoots, outcome = [], ""
                for _ in range(args.repeat):
                    started = time.monotonic()
                    try:
                        result = sandbox.run(sql)
                        outcome = f"{len(result.rows):,} rows, total {result.total_rows}"
                    except SqlTimeout:
                        outcome = "interrupted (SqlTimeout)"
                    overshoots.append(time.monotonic() - started - args.limit)
                print(f"{name:20} {outcome:28} {statistics.median(overshoots):>+13.3f}s "
                      f"{max(overshoots):>+7.3f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

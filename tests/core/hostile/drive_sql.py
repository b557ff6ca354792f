"""Run the SQL agent loop on one question against a base URL in this process and print what
happened as one JSON line (peak RSS in MiB: /proc's VmHWM, else `resource.getrusage`; see
`rss_mib`). Used by the hostile-server tests in a subprocess, so each behaviour's memory is
measured alone (as drive.py does for the sweep).

    python drive_sql.py BASE_URL '{"limits": {"MAX_BODY_BYTES": 4194304}, "time_limit_s": 5}'
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from tests.core.hostile.drive import rss_mib


def main() -> None:
    base_url, spec = sys.argv[1], json.loads(sys.argv[2] if len(sys.argv) > 2 else "{}")
    from desktop_app.core.endpoint import limits
    from desktop_app.core.endpoint.client import make_client
    from desktop_app.core.endpoint.types import EndpointConfig
    from desktop_app.core.sqleval.agent import run_question
    from desktop_app.core.sqleval.sandbox import Sandbox
    from desktop_app.core.sqleval.types import Question

    for name, value in spec.get("limits", {}).items():
        assert hasattr(limits, name), name
        setattr(limits, name, value)
    question = Question(id="q1", tier="easy", text_en="How many sales? Columns: n.",
                        text_zh="销售有多少笔？列：n。",
                        gold_sql="SELECT count(*) AS n FROM sales", database="main",
                        required_columns=("n",))
    config = EndpointConfig(base_url, model="m")
    base_rss = rss_mib()[0]
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "shop.sqlite"
        with sqlite3.connect(db) as conn:
            conn.execute("CREATE TABLE sales (region TEXT, amount REAL)")
            conn.execute("INSERT INTO sales VALUES ('north', 1.0)")
        conn.close()

        async def go():
            async with make_client(config, 1) as client:
                with Sandbox(db, time_limit_s=1.0) as box:
                    return await run_question(
                        client, config, question, box,
                        time_limit_s=spec.get("time_limit_s", 10),
                        max_steps=spec.get("max_steps", 20),
                        context_tokens=spec.get("context_tokens"))

        steps, stop, _ = asyncio.run(go())
    print(json.dumps({
        "elapsed_s": time.perf_counter() - t0,
        "base_rss_mib": base_rss,
        "peak_rss_mib": rss_mib()[1],
        "stop": stop,
        "steps": len(steps),
        "last_error": (steps[-1].error or "")[:1000] if steps else "",
    }))


if __name__ == "__main__":
    main()

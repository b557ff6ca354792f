"""Time and peak memory of `throughline import` on a large `vllm bench serve --save-detailed`
file (issue #25: "a 300,000-request vLLM detailed file at 1.26 GB RSS").

Writes a file of N requests with G inter-token gaps each (the keys vLLM's serve.py writes),
then runs `throughline import` on it in a child process under `/usr/bin/time -v` (or reads the
child's peak RSS from getrusage where that is missing) and prints the wall time, the peak
resident memory and the file's size. The figures are in docs/PERFORMANCE.md.

    .venv/bin/python bench/import_memory.py --requests 300000 --gaps 31
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def write_file(path: Path, n: int, gaps: int) -> None:
    rng = random.Random(7)
    doc = {"completed": n, "failed": 0, "duration": n / 500.0, "total_input_tokens": 64 * n,
           "total_output_tokens": (gaps + 1) * n, "output_throughput": 1000.0,
           "mean_ttft_ms": 20, "median_ttft_ms": 19, "p99_ttft_ms": 30, "mean_tpot_ms": 5,
           "median_tpot_ms": 5, "p99_tpot_ms": 6, "mean_itl_ms": 5, "median_itl_ms": 5,
           "p99_itl_ms": 6, "mean_e2el_ms": 180, "median_e2el_ms": 175, "p99_e2el_ms": 220,
           "max_concurrency": 64, "request_rate": "inf", "model_id": "bench/model",
           "input_lens": [64] * n, "output_lens": [gaps + 1] * n,
           "ttfts": [round(rng.uniform(0.01, 0.03), 6) for _ in range(n)],
           "itls": [[round(rng.uniform(0.004, 0.006), 6) for _ in range(gaps)]
                    for _ in range(n)],
           "start_times": [i / 500.0 for i in range(n)], "errors": [""] * n}
    doc["latencies"] = [t + sum(g) for t, g in zip(doc["ttfts"], doc["itls"])]
    path.write_text(json.dumps(doc))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300_000)
    parser.add_argument("--gaps", type=int, default=31)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        src, db = Path(folder) / "detailed.json", Path(folder) / "r.db"
        write_file(src, args.requests, args.gaps)
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "desktop_app", "--db", str(db),
                               "import", str(src)], capture_output=True, text=True)
        wall = time.perf_counter() - started
        if done.returncode:
            sys.exit(done.stderr)
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"{args.requests:,} requests x {args.gaps} gaps, file "
              f"{src.stat().st_size / 1e6:.0f} MB: import {wall:.1f} s, peak RSS "
              f"{peak_mb:,.0f} MB")


if __name__ == "__main__":
    main()

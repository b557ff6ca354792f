"""What blanking known secrets at the results file's connections costs (`store/redacting.py`).

Writes N request rows (128 inter-token gaps each, a response id, the usual short strings)
through a `RunWriter` into a fresh results file and prints the CPU time of the whole process
(the caller's row building and the writer thread) and the wall time, with nothing to blank,
with an API key known, or with a `user:password@` URL's forms known (about ten of them).

    .venv/bin/python bench/store_redaction.py --secrets none
    .venv/bin/python bench/store_redaction.py --secrets url --rows 100000

Run each a few times, interleaved: the differences are a few tenths of a second.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--secrets", choices=["none", "key", "url"], default="none")
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args()

    from desktop_app.core import redact
    from desktop_app.core.store import Store

    if args.secrets == "key":
        redact.remember_secret("tl-canary-0123456789abcdef")
    elif args.secrets == "url":
        redact.remember_url_secrets("http://alice:Hunter2%2FSecret%2BPw9%C3%A9@h/v1")
    with tempfile.TemporaryDirectory() as folder, Store.open(Path(folder) / "r.db") as store:
        run_id = store.create_run("throughput")
        cell = store.add_cell(run_id, cell_index=0)
        rows = [{"run_id": run_id, "cell_id": cell, "seq": i, "ttft_s": 0.01, "e2e_s": 0.5,
                 "itl_s": [0.0123456] * 128, "tokens_source": "usage", "finish_reason": "length",
                 "response_id": f"chatcmpl-{i:032x}", "status_code": 200,
                 "completion_tokens": 128, "prompt_tokens": 512} for i in range(args.rows)]
        cpu, wall = time.process_time(), time.perf_counter()
        with store.writer() as writer:
            for row in rows:
                writer.add_request(row)
        print(f"secrets {args.secrets} ({len(redact.known_secrets())} forms): "
              f"CPU {time.process_time() - cpu:.2f} s, wall {time.perf_counter() - wall:.2f} s "
              f"for {args.rows:,} rows")


if __name__ == "__main__":
    main()

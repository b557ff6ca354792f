"""Throughline's throughput client beside NVIDIA AIPerf, on the same cells of the same simulator.

AIPerf is never a dependency of Throughline: install it in a venv of its own and give its
`aiperf` executable.

    python3 -m venv /tmp/aiperf-venv && /tmp/aiperf-venv/bin/pip install aiperf
    .venv/bin/python bench/aiperf_side_by_side.py --aiperf /tmp/aiperf-venv/bin/aiperf
    .venv/bin/python bench/aiperf_side_by_side.py --aiperf /tmp/aiperf-venv/bin/aiperf \\
        --concurrency 16 64 --input-tokens 256 --output-tokens 64 --out side_by_side.md

Starts the built-in simulator (`launcher.start_simulator`, profile `fast` by default) in its own
process and, for each concurrency, runs one closed-loop cell with each tool as a command of its
own (`throughline throughput --json`, `aiperf profile`), one after the other, clearing the
simulator's `GET /sim/trace` before each. What is compared:

* **TTFT error**: each tool's TTFT for a request minus the simulator's (`first_token_s -
  arrival_s` of its trace record), matched by response id (Throughline's JSON has it; AIPerf's
  raw export carries the response chunks, whose `id` is the simulator's). When a tool's
  records cannot be matched, the row says so and compares percentiles instead: the tool's
  TTFT p50 / p99 minus the trace's over the same number of measured requests (warm-up
  requests, the first ones the simulator saw, are left out).
* **Harness overhead**: CPU seconds of the tool's whole process tree (`RUSAGE_CHILDREN`, every
  process it started and waited for), per request; and wall time outside the serving (the
  command's wall time minus the span from the trace's first arrival to its last end:
  start-up, tokenizer and dataset preparation, warm-up, reports, shutting down).
* **Wall time** of the command.

Fair terms, as issue #13 asks: AIPerf runs with `--use-server-token-count` (token counts from the
server's `usage`, as Throughline takes them, instead of its own tokenizer) and a warm-up
(`--warmup-request-count`, the same number Throughline's `--warmup` sends); both send the same
prompt length and output length with `ignore_eos`, at the same concurrency, the same number of
measured requests, with the same (`builtin`, tiktoken) tokenizer for AIPerf's prompts.
Throughline runs with `--workers 1` unless `--workers` says otherwise; AIPerf picks its own
worker count. Both share the machine's cores with the simulator: run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktop_app.core.simulator.launcher import start_simulator  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TARGET_P99_MS = 10.0  # issue #13: TTFT error p99 under 10 ms at c=64


def pct(values, q) -> float:
    return float(np.percentile(np.asarray(values, dtype=float), q)) if len(values) else float("nan")


def load_avg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def sim_trace(url: str) -> list[dict]:
    return httpx.get(url + "/sim/trace", timeout=30).json()["records"]


def clear_trace(url: str) -> None:
    httpx.delete(url + "/sim/trace", timeout=30)


def model_of(url: str) -> str:
    return httpx.get(url + "/v1/models", timeout=30).json()["data"][0]["id"]


def timed(cmd: list[str], log: Path, env: dict | None = None) -> tuple[float, float, int]:
    """Run `cmd` to its end: (wall s, CPU s of it and every process it waited for, exit code);
    its output goes to `log`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with log.open("w") as out:
        code = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, env=env,
                              stdin=subprocess.DEVNULL).returncode
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, code


# ---- the tools' records: (response id or None, TTFT in seconds or None)

def throughline_records(doc: dict) -> list[tuple[str | None, float | None]]:
    """The measured requests of Throughline's `--json` (warm-up requests are not in it)."""
    out = []
    for r in doc.get("requests") or []:
        if isinstance(r, dict):
            ttft = r.get("ttft_s")
            out.append((r.get("response_id") if isinstance(r.get("response_id"), str) else None,
                        float(ttft) if isinstance(ttft, (int, float)) else None))
    return out


def _ms_metric(metrics: dict, name: str) -> float | None:
    """An AIPerf record metric in seconds: {"value": v, "unit": "ms"|"ns"|"s"} or a number (ms)."""
    m = metrics.get(name)
    value, unit = (m.get("value"), m.get("unit", "ms")) if isinstance(m, dict) else (m, "ms")
    if not isinstance(value, (int, float)):
        return None
    return value / {"ns": 1e9, "us": 1e6, "ms": 1e3, "s": 1.0}.get(unit, 1e3)


def _response_id(raw: dict) -> str | None:
    """The first `"id"` of a streamed response found anywhere in an AIPerf raw record."""
    stack = [raw]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key in ("value", "text", "raw", "data", "body"):
                text = node.get(key)
                if isinstance(text, str) and '"id"' in text:
                    for line in text.splitlines():
                        line = line.removeprefix("data:").strip()
                        try:
                            doc = json.loads(line)
                        except ValueError:
                            continue
                        if isinstance(doc, dict) and isinstance(doc.get("id"), str):
                            return doc["id"]
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return None


def _phase_records(path: Path):
    """The measured (not warm-up) records of an AIPerf JSONL export, as dicts."""
    for line in path.read_text().splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        meta = rec.get("metadata") if isinstance(rec, dict) else None
        meta = meta if isinstance(meta, dict) else {}
        if str(meta.get("benchmark_phase", "profiling")).lower() in ("profiling", "profile"):
            yield rec, meta


def aiperf_records(artifacts: Path) -> tuple[list[tuple[str | None, float | None]], str]:
    """AIPerf's measured requests from its artifact folder (`time_to_first_token` of each
    record in profile_export.jsonl), and where they came from. Response ids come from the raw
    export (`*_raw.jsonl`, `--export-level raw`: the response chunks), joined on X-Request-ID."""
    records = sorted(artifacts.rglob("profile_export.jsonl"))
    if not records:
        return [], f"no profile_export.jsonl under {artifacts}"
    ids: dict[str, str | None] = {}
    for raw in sorted(artifacts.rglob("*_raw.jsonl"))[:1]:
        for rec, meta in _phase_records(raw):
            ids[str(meta.get("x_request_id"))] = _response_id(rec.get("responses"))
    out = [(ids.get(str(meta.get("x_request_id"))),
            _ms_metric(rec.get("metrics") or {}, "time_to_first_token"))
           for rec, meta in _phase_records(records[0])]
    return out, records[0].name


def ttft_error(records: list[tuple[str | None, float | None]], trace: list[dict],
               warmup: int) -> dict:
    """TTFT error against the trace, in ms: per request by response id when the records have
    ids, else the percentile difference over the measured requests."""
    done = [r for r in trace if r.get("first_token_s") is not None and r.get("arrival_s")]
    by_id = {r["id"]: r for r in done if r.get("id")}
    matched = [(ttft - (by_id[rid]["first_token_s"] - by_id[rid]["arrival_s"])) * 1000
               for rid, ttft in records if rid in by_id and ttft is not None]
    tool = [t * 1000 for _, t in records if t is not None]
    measured = sorted(done, key=lambda r: r["arrival_s"])[warmup:]
    server = [(r["first_token_s"] - r["arrival_s"]) * 1000 for r in measured]
    seen = [by_id[rid] for rid, _ in records if rid in by_id] or measured
    out = {"tool_p50": pct(tool, 50), "tool_p99": pct(tool, 99), "server_p50": pct(server, 50),
           "server_p99": pct(server, 99), "matched": len(matched), "n": len(tool),
           "prompt": pct([r.get("prompt_tokens") or 0 for r in seen], 50)}
    if matched and len(matched) >= 0.9 * len(tool):
        out.update(how="per request", err_p50=pct(matched, 50), err_p99=pct(matched, 99))
    else:
        out.update(how="percentiles", err_p50=out["tool_p50"] - out["server_p50"],
                   err_p99=out["tool_p99"] - out["server_p99"])
    span = ([min(r["arrival_s"] for r in done), max(r.get("end_s") or r["last_token_s"] or 0
                                                     for r in done)] if done else [0, 0])
    out["serving_s"] = span[1] - span[0]
    return out


# ---- the runs

def run_throughline(args, url: str, model: str, c: int, n: int, tmp: Path) -> dict:
    out = tmp / f"throughline-c{c}.json"
    cmd = [sys.executable, "-m", "desktop_app", "throughput", "--base-url", url, "--model", model,
           "--input-tokens", str(args.input_tokens), "--concurrency", str(c),
           "--output-tokens", str(args.output_tokens), "--requests", str(n),
           "--warmup", str(args.warmup), "--workers", str(args.workers), "--no-metrics",
           "--no-store", "--json", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    wall, cpu, code = timed(cmd, tmp / f"throughline-c{c}.log", env)
    if code != 0 or not out.exists():
        log = (tmp / f"throughline-c{c}.log").read_text()
        raise SystemExit(f"throughline failed ({code}); its output:\n{log[-3000:]}")
    return {"wall": wall, "cpu": cpu, "records": throughline_records(json.loads(out.read_text())),
            "source": "--json"}


def aiperf_command(args, url: str, model: str, c: int, n: int, artifacts: Path) -> list[str]:
    """The AIPerf command for one cell, on the fair terms the module docstring lists."""
    return [args.aiperf, "profile", "--model", model, "--url", url, "--endpoint-type", "chat",
            "--streaming", "--concurrency", str(c), "--request-count", str(n),
            "--warmup-request-count", str(args.warmup),
            "--prompt-input-tokens-mean", str(args.input_tokens),
            "--prompt-input-tokens-stddev", "0",
            "--prompt-output-tokens-mean", str(args.output_tokens),
            "--prompt-output-tokens-stddev", "0",
            "--extra-inputs", "ignore_eos:true", "--use-server-token-count",
            "--tokenizer", str(args.tokenizer), "--ui-type", "none", "--export-level", "raw",
            "--random-seed", "1", "--output-artifact-dir", str(artifacts), *args.aiperf_arg]


def simulator_tokenizer(folder: Path, aiperf: str) -> Path:
    """A HuggingFace tokenizer (tokenizer.json, no network) that counts as the simulator does
    (`simulator.tokenizer`: its piece rule as the pre-tokenizer, one token per piece), with a
    vocabulary of the pieces of AIPerf's own prompt corpus; so AIPerf's prompts of N tokens are
    N tokens for the simulator, as Throughline's are. (AIPerf's `builtin` tokenizer downloads
    tiktoken's o200k_base on first use; an offline machine has no other.)"""
    from desktop_app.core.simulator import tokenizer as sim_tokenizer

    corpora = sorted(Path(aiperf).resolve().parent.parent.glob(
        "lib/python*/site-packages/aiperf/dataset/generator/assets/*.txt"))
    text = "".join(c.read_text(errors="replace") for c in corpora)
    text += " " + " ".join(sim_tokenizer.WORDS) + " 0 1 2 3 4 5 6 7 8 9 . , ; : ! ? ' \" - ( )\n"
    text += "a.a,a;a:a!a?a'a\"a-a(a)a"  # punctuation without a space before it
    vocab = {"[UNK]": 0}
    for piece in sim_tokenizer.pieces(text):
        vocab.setdefault(piece, len(vocab))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tokenizer.json").write_text(json.dumps({
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": 0, "content": "[UNK]", "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": True}],
        "normalizer": None,
        "pre_tokenizer": {"type": "Split", "pattern": {"Regex": sim_tokenizer._PIECE.pattern},
                          "behavior": "Isolated", "invert": False},
        "post_processor": None, "decoder": {"type": "Fuse"},
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"}}))
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "PreTrainedTokenizerFast", "unk_token": "[UNK]",
        "model_max_length": 1_000_000}))
    return folder


def run_aiperf(args, url: str, model: str, c: int, n: int, tmp: Path) -> dict:
    artifacts = tmp / f"aiperf-c{c}"
    log = tmp / f"aiperf-c{c}.log"
    wall, cpu, code = timed(aiperf_command(args, url, model, c, n, artifacts), log)
    if code != 0:
        raise SystemExit(f"aiperf failed ({code}); its output:\n{log.read_text()[-3000:]}")
    records, source = aiperf_records(artifacts)
    return {"wall": wall, "cpu": cpu, "records": records, "source": source}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--aiperf", required=True,
                        help="the aiperf executable of a separate venv (never a dependency)")
    parser.add_argument("--profile", default="fast", help="simulator profile (default fast)")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64])
    parser.add_argument("--input-tokens", type=int, default=256)
    parser.add_argument("--output-tokens", type=int, default=64)
    parser.add_argument("--requests", type=int, default=None,
                        help="measured requests per cell (default 10 x concurrency)")
    parser.add_argument("--warmup", type=int, default=8, help="warm-up requests, both tools")
    parser.add_argument("--workers", type=int, default=1, help="Throughline's --workers")
    parser.add_argument("--tools", nargs="+", default=["throughline", "aiperf"],
                        choices=["throughline", "aiperf"])
    parser.add_argument("--aiperf-arg", action="append", default=[],
                        help="one more argument for aiperf profile (repeatable)")
    parser.add_argument("--tokenizer", help="AIPerf's --tokenizer (default: one counting as "
                        "the simulator does, built here; 'builtin' needs the network once)")
    parser.add_argument("--keep", type=Path, help="keep the tools' outputs in this folder")
    parser.add_argument("--out", type=Path, help="also write the table (markdown) here")
    args = parser.parse_args(argv)
    if "aiperf" in args.tools and not Path(args.aiperf).exists():
        parser.error(f"--aiperf {args.aiperf}: no such file")
    lines = [f"# {time.strftime('%Y-%m-%d %H:%M:%S %Z')}, {os.cpu_count()} CPUs, load average "
             f"before {load_avg()}; simulator {args.profile}, prompt {args.input_tokens}, "
             f"output {args.output_tokens} tokens, warm-up {args.warmup}",
             "| tool | c | requests | matched | prompt tokens (server, p50) | TTFT p50 / p99 ms "
             "(tool) | TTFT p50 / p99 ms (server) | TTFT error p50 / p99 ms | CPU s (per request ms) | wall s | wall outside "
             "serving s |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    print(lines[0], flush=True)
    with start_simulator(args.profile) as sim, tempfile.TemporaryDirectory() as scratch:
        tmp = args.keep or Path(scratch)
        tmp.mkdir(parents=True, exist_ok=True)
        model = model_of(sim.url)
        if "aiperf" in args.tools and not args.tokenizer:
            args.tokenizer = simulator_tokenizer(tmp / "tokenizer", args.aiperf)
        for c in args.concurrency:
            n = args.requests or 10 * c
            for tool in args.tools:
                clear_trace(sim.url)
                run = (run_throughline if tool == "throughline" else run_aiperf)(
                    args, sim.url, model, c, n, tmp)
                e = ttft_error(run["records"], sim_trace(sim.url), args.warmup)
                err = (f"{e['err_p50']:.2f} / {e['err_p99']:.2f}"
                       + ("" if e["how"] == "per request" else " (percentiles)"))
                row = (f"| {tool} | {c} | {e['n']} | {e['matched']} | {e['prompt']:.0f} | "
                       f"{e['tool_p50']:.1f} / {e['tool_p99']:.1f} | "
                       f"{e['server_p50']:.1f} / {e['server_p99']:.1f} | {err} | "
                       f"{run['cpu']:.1f} ({run['cpu'] / max(e['n'], 1) * 1000:.1f}) | "
                       f"{run['wall']:.1f} | {run['wall'] - e['serving_s']:.1f} |")
                lines.append(row)
                print(row, flush=True)
    lines.append(f"# load average after {load_avg()}; target: TTFT error p99 under "
                 f"{TARGET_P99_MS:g} ms at c=64")
    print(lines[-1])
    print("\n".join(lines[1:3]))
    print("\n".join(lines[3:-1]))
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

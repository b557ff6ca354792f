#!/usr/bin/env bash
# Start two real llama.cpp servers, run tests/real against them, always stop them:
#   - a random-weight model with 2 slots on PORT (exact token counts, fixed output lengths):
#     THROUGHLINE_REAL_URL
#   - SmolLM2-135M-Instruct, a real instruct model with its own chat template, 2 slots, on
#     PORT+1 (the SQL agent as a real model answers): THROUGHLINE_REAL_MODEL_URL
#   bash tests/real/run.sh [PORT] [pytest args...]      (from the repo root; `make test-real`)
# The first run compiles llama.cpp's server (about 7 min on a quiet 2-core machine, 25 under
# load); later runs reuse $TMPDIR/real-engine-noamx (W=... to keep it elsewhere).
set -euo pipefail
cd "$(dirname "$0")/../.."
# start-real-server.sh compiles with -march=native. On a VM whose CPU advertises AMX but whose
# hypervisor does not enable the tiles, that build dies with SIGILL (tilezero, in ggml's AMX Q4_1
# kernel) as soon as SmolLM2's Q4_1 weights load, while the F16 random model runs: CI failed so.
# GCC lets an explicit -mno-* win over -march=native in either order, and a folder of its own
# keeps a native-AMX binary built earlier from being reused.
export W="${W:-${TMPDIR:-/tmp}/real-engine-noamx}"
export CFLAGS="${CFLAGS:-} -mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
export CXXFLAGS="${CXXFLAGS:-} -mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
PORT="${1:-${REAL_PORT:-18090}}"
MODEL_PORT=$((PORT + 1))
PIDS=()
stop() {
  for pid in "${PIDS[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true
      echo "[test-real] stopped llama.cpp server (pid $pid)" >&2
    fi
  done
}
trap stop EXIT INT TERM
start() {  # start PORT ENV...: the server's pid, or fail loudly
  local port=$1 out pid; shift
  out="$(env "$@" bash ../shared/real-engine/start-real-server.sh "$port")"
  pid="$(printf '%s\n' "$out" | tail -n 1)"
  case "$pid" in ''|*[!0-9]*) echo "[test-real] no server PID from start-real-server.sh for port $port" >&2; exit 1;; esac
  PIDS+=("$pid")
  echo "[test-real] llama.cpp server pid $pid on port $port ($*)" >&2
}
start "$PORT" NP=2
start "$MODEL_PORT" NP=2 SIZE=smollm2
QT_QPA_PLATFORM=offscreen THROUGHLINE_REAL_URL="http://127.0.0.1:$PORT" \
  THROUGHLINE_REAL_MODEL_URL="http://127.0.0.1:$MODEL_PORT" \
  .venv/bin/pytest tests/real -q -p no:cacheprovider "${@:2}"

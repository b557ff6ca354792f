#!/usr/bin/env bash
# Start a real llama.cpp server (2 slots) on PORT, run tests/real against it, always stop it.
#   bash tests/real/run.sh [PORT]      (from the repo root; `make test-real` does this)
# The first run compiles llama.cpp (about 7 min on 2 cores); later runs reuse $TMPDIR/real-engine.
set -euo pipefail
cd "$(dirname "$0")/../.."
PORT="${1:-${REAL_PORT:-18090}}"
SERVER_PID=""
stop() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$SERVER_PID" 2>/dev/null || true
    echo "[test-real] stopped llama.cpp server (pid $SERVER_PID)" >&2
  fi
}
trap stop EXIT INT TERM
OUT="$(NP=2 bash ../shared/real-engine/start-real-server.sh "$PORT")"
SERVER_PID="$(printf '%s\n' "$OUT" | tail -n 1)"
case "$SERVER_PID" in ''|*[!0-9]*) echo "[test-real] no server PID from start-real-server.sh" >&2; exit 1;; esac
echo "[test-real] llama.cpp server pid $SERVER_PID on port $PORT" >&2
QT_QPA_PLATFORM=offscreen THROUGHLINE_REAL_URL="http://127.0.0.1:$PORT" \
  .venv/bin/pytest tests/real -q "${@:2}"

#!/usr/bin/env bash
# Prove a frozen build holds everything: run it as a user would, with nothing from the source
# tree or the venv on its path. Usage: packaging/check-bundle.sh dist/throughline
#   1. --version, then `demo` (a sweep, SQL evaluations and the PDF, on its own simulator);
#   2. the window offscreen: `gui --screenshots` saves every page as PNG (en and zh_CN);
#   3. its own `sim` in the background, and a short `throughput` sweep against it over HTTP;
#   4. start-up to the first painted window (offscreen), three times.
set -euo pipefail
BUNDLE=$(cd "${1:-dist/throughline}" && pwd)
EXE="$BUNDLE/throughline"
OUT=${OUT:-$(mktemp -d /tmp/throughline-bundle.XXXXXX)}
mkdir -p "$OUT"
# Nothing of the checkout: a clean environment, another working directory, throwaway homes.
run() { (cd "$OUT" && env -i PATH=/usr/bin:/bin HOME="$OUT/home" XDG_CONFIG_HOME="$OUT/config" \
          XDG_DATA_HOME="$OUT/data" XDG_CACHE_HOME="$OUT/cache" QT_QPA_PLATFORM=offscreen \
          LANG=C.UTF-8 ${EXTRA_ENV:-} "$EXE" "$@"); }
say() { echo "package-check: $*"; }

say "bundle $(du -sh "$BUNDLE" | cut -f1) at $BUNDLE; output in $OUT"
run --version

say "demo"
run demo --out "$OUT/demo" > "$OUT/demo.log" 2>&1 || { tail -20 "$OUT/demo.log"; exit 1; }
ls "$OUT/demo"/*.pdf > /dev/null
say "demo wrote $(ls "$OUT/demo" | tr '\n' ' ')"

for lang in en zh_CN; do
  say "screenshots ($lang)"
  run --db "$OUT/shots-$lang.db" gui --screenshots "$OUT/shots-$lang" --lang "$lang" > "$OUT/shots-$lang.log" 2>&1 \
    || { tail -20 "$OUT/shots-$lang.log"; exit 1; }
  n=$(ls "$OUT/shots-$lang"/*.png | wc -l)
  [ "$n" -ge 4 ] || { say "only $n screenshots in $OUT/shots-$lang"; exit 1; }
  say "$n PNGs in $OUT/shots-$lang"
done

say "sim + sweep over HTTP"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
run sim --port "$PORT" --profile instant > "$OUT/sim.log" 2>&1 &
SIM=$!
trap 'kill $SIM 2>/dev/null || true' EXIT
python3 - "$PORT" <<'PY'
import sys, time, urllib.request
for _ in range(150):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/v1/models", timeout=1)
        break
    except OSError:
        time.sleep(0.2)
else:
    sys.exit("the frozen simulator did not answer within 30 s")
PY
run --db "$OUT/sweep.db" throughput --base-url "http://127.0.0.1:$PORT" --input-tokens 256 \
  --output-tokens 32 --concurrency 1,4 --requests 8 > "$OUT/sweep.log" 2>&1 \
  || { tail -20 "$OUT/sweep.log"; exit 1; }
tail -5 "$OUT/sweep.log"
run --db "$OUT/sweep.db" runs | head -3

say "start-up to the first painted window (offscreen)"
for i in 1 2 3; do
  t0=$(python3 -c 'import time; print(time.monotonic())')
  line=$(EXTRA_ENV=THROUGHLINE_FIRST_PAINT_EXIT=1 run --db "$OUT/startup.db" gui 2>/dev/null | grep first_paint_monotonic || true)
  t1=${line##* }
  [ -n "$t1" ] || { say "no first paint reported"; exit 1; }
  python3 -c "print(f'package-check: run $i: first paint {($t1 - $t0) * 1000:.0f} ms after exec')"
done
say "ok"

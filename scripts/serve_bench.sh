#!/usr/bin/env bash
# bench serve's figures for a closing note, as a small table with the CPU
# model: the latency from a case's end (its TEST_END ts) to the live page
# showing its row (median and max over one run), the server's CPU share while
# it streams that run, and its RSS with 100 SSE clients connected. Needs
# chromium, chromium-driver and python3-selenium (scripts/setup-debian.sh test).
#
#   scripts/serve_bench.sh [RUN ARGS...]    default: --preset smoke
#   BENCH=build/bin/bench (the default)
#
# e.g. scripts/serve_bench.sh --preset smoke --plugin cpu_gemm,membw_cpu
# Everything stays on 127.0.0.1; the results go to a temporary folder.
set -u
BENCH=${BENCH:-build/bin/bench}
REPO=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$BENCH" ] || { echo "serve_bench: no bench at $BENCH (build it, or set BENCH)" >&2; exit 2; }
BENCH=$(cd "$(dirname "$BENCH")" && pwd)/$(basename "$BENCH")
PY=
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import selenium' 2>/dev/null; then PY=$(command -v "$p"); break; fi
done
[ -n "$PY" ] || { echo "serve_bench: needs python3-selenium (and chromium-driver)" >&2; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/serve-bench.XXXXXX")
export SERVE_PIDS=$T/pids
: >"$SERVE_PIDS"
cleanup() {
  local pid
  # the processes it started and did not reap ("-PID" lines: reaped)
  for pid in $(grep -E '^[0-9]+$' "$SERVE_PIDS" | grep -vxF -f <(sed -n 's/^-//p' "$SERVE_PIDS"; echo x)); do
    kill -TERM "$pid" 2>/dev/null
  done
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
[ $# -gt 0 ] || set -- --preset smoke
RUN_ARGS=$(printf '%s\n' "$@")
export BENCH T REPO RUN_ARGS PYTHONDONTWRITEBYTECODE=1
"$PY" "$REPO/scripts/serve_bench.py"

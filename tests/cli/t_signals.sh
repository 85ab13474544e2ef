#!/usr/bin/env bash
# SIGINT, SIGTERM and SIGHUP at random moments of a short multi-case run
# (seeded; BENCH_SIGNAL_SEED, BENCH_SIGNAL_RUNS override): every result file
# is valid JSON, the rollup agrees with the result files, the terminal's
# INTERRUPTED line names the case that was running, and no process of the
# run is left behind.
. "$(dirname "$0")/lib.sh"
RANDOM=${BENCH_SIGNAL_SEED:-2811}
RUNS=${BENCH_SIGNAL_RUNS:-8}
MODES="backend plugin case"
sigs=(INT TERM HUP)
started() { grep -q '"TEST_START"' "$1" 2>/dev/null; }
# procs_of MARK: pids of live processes whose environment holds MARK.
procs_of() {
  local f p st
  for f in $(grep -lzx "BENCH_SIGNAL_MARK=$1" /proc/[0-9]*/environ 2>/dev/null); do
    p=${f#/proc/}; p=${p%/environ}
    st=$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)
    [ -n "$st" ] && [ "$st" != Z ] && echo "$p"
  done
}
none_left() { [ -z "$(procs_of "$1")" ]; }

i=0
for iso in $MODES; do
  for ((r = 0; r < RUNS; r++)); do
    i=$((i + 1))
    sig=${sigs[$((i % 3))]}
    delay=$(printf '0.%03d' $((RANDOM % 1000)))
    d="$T/run$i"
    mkdir -p "$d"
    BENCH_SIGNAL_MARK="$d" "$BENCH" --preset "$SRC/tests/cli/presets/fast.ini" --plugin-dir "$FX_GOOD" \
      --plugin fx_ok,fx_noisy --param n=1,2,3,4 --isolation "$iso" --results-dir "$d/r" \
      --events "$d/ev.jsonl" >"$d/out" 2>"$d/err" &
    pid=$!
    wait_for 60 started "$d/ev.jsonl" || fail "run $i: no case started"
    sleep "$delay" # the random moment (what is checked holds at any moment)
    kill -"$sig" "$pid" 2>/dev/null
    wait "$pid"
    RC=$?
    case $RC in 0 | 130) ok ;; *) fail "run $i ($iso, SIG$sig after ${delay}s): exit status $RC"; cat "$d/err" ;; esac
    python3 - "$d" "$RC" <<'PY' && ok || fail "run $i ($iso, SIG$sig after ${delay}s)"
import csv, glob, json, re, sys
d, rc = sys.argv[1], int(sys.argv[2])
cases = []
for p in sorted(glob.glob(d + "/r/*.json")):
    cases += json.load(open(p))["cases"]  # every file whole and valid
assert cases, "no case in the result files"
key = lambda plugin, params: (plugin, ",".join("%s=%s" % kv for kv in sorted(params.items())))
rows = {(r["plugin"], r["params"]): r["status"] for r in csv.DictReader(open(d + "/r/rollup.csv", newline=""))}
got = {key(c["plugin"], c["params"]): c["status"] for c in cases}
assert rows == got, ("rollup differs from the result files", rows, got)
intr = [c for c in cases if c["status"] == "INTERRUPTED"]
assert len(intr) <= 1, intr
out = open(d + "/out").read()
lines = re.findall(r"\] (\S+) (\S+) +INTERRUPTED", out)
if rc == 130 and intr:
    c = intr[0]
    want = (c["plugin"], " ".join("%s=%s" % kv for kv in c["params"].items()))
    assert lines == [want], ("terminal names", lines, "the JSON", want)
else:
    assert not lines, lines
PY
    if wait_for 30 none_left "$d"; then ok; else
      fail "run $i ($iso): processes left: $(procs_of "$d")"; kill -9 $(procs_of "$d") 2>/dev/null
    fi
  done
done
finish

#!/usr/bin/env bash
# --events: JSON lines with the documented events; progress lines on a
# non-terminal stderr are whole lines without carriage returns.
. "$(dirname "$0")/lib.sh"

run_bench --preset "$SRC/tests/cli/presets/fast.ini" --plugin-dir "$FX_GOOD" --plugin fx_ok,fx_noisy,fx_hang \
  --results-dir "$T/r" --events "$T/ev.jsonl"
expect_rc 1
python3 - "$T/ev.jsonl" <<'PY' && ok || fail "events"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
kinds = [e["event"] for e in ev]
assert all("ts" in e for e in ev)
assert kinds[0] == "SUITE_START" and kinds[-1] == "SUITE_END", kinds
s = ev[0]
assert s["total_cases"] == 3 and s["plugins"] == ["fx_hang", "fx_noisy", "fx_ok"] and s["preset"] == "fast", s
starts = [e for e in ev if e["event"] == "TEST_START"]
ends = [e for e in ev if e["event"] == "TEST_END"]
assert len(starts) == 3 and len(ends) == 3
assert starts[0]["plugin"] == "fx_hang" and starts[0]["case"] == "n=8" and starts[0]["timeout_s"] == 3
st = {e["plugin"]: e for e in ends}
assert st["fx_hang"]["status"] == "TIMEOUT" and st["fx_hang"]["gflops"] is None
assert st["fx_ok"]["status"] == "OK" and st["fx_ok"]["gflops"] > 0 and st["fx_ok"]["median_ms"] > 0
assert st["fx_ok"]["exit_code"] == 0 and st["fx_ok"]["wall_s"] > 0
hb = [e for e in ev if e["event"] == "HEARTBEAT"]
assert len(hb) >= 5, len(hb)  # the hang lasts 3 s at 0.2 s heartbeats
for h in hb:
    for k in ("elapsed_s", "percent", "eta_s", "suite_percent", "suite_eta_s"):
        assert k in h, (k, h)
e = ev[-1]
assert e["completed"] == 3 and e["failed"] == 1 and e["total"] == 3 and e["wall_s"] > 3
PY
expect_in "$T/err" '^PROGRESS: \([0-9]+/3\) ETA [0-9hms>-]+ \[[#.]{20}\] +[0-9]+% fx_'
if grep -q $'\r' "$T/err"; then fail "carriage return in non-terminal progress"; else ok; fi

# Events on stdout: the per-case lines move to stderr.
run_bench --preset "$SRC/tests/cli/presets/fast.ini" --plugin-dir "$FX_GOOD" --plugin fx_ok \
  --results-dir "$T/r" --events -
expect_rc 0 "events to stdout"
python3 -c "import json,sys; [json.loads(l) for l in open('$T/out')]" && ok || fail "stdout is not pure JSON lines"
expect_in "$T/err" 'fx_ok n=8  *OK'
finish

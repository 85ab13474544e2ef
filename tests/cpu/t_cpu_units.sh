#!/usr/bin/env bash
# Issue 39: each CPU plugin's one throughput is what bounds it. membw_cpu's
# triad states 2 FLOPs per 24 bytes and shows GB/s (it said GFLOP/s);
# memlat_cpu, a pointer chase, shows ns per load (it said GB/s at 64 B per
# load); peak_cpu_lat likewise; cpu_spin's dependent integer chain shows
# ns per step (it said GFLOP/s, a step counted as a FLOP); every figure
# stays in the JSON.
. "$(dirname "$0")/cpu_lib.sh"

printf '[run]\ntier = smoke\nmin_samples = 2\nmin_time = 0\nmax_time = 0.05s\nwarmup_time = 0\nbatch_min_time = 0\n[membw_cpu]\nkernel = scale,triad\nsize = 1MiB\nthreads = 1\n[memlat_cpu]\nsize = 64KiB\nloads = 1000\n' >"$T/p.ini"
run_bench --preset "$T/p.ini" --plugin membw_cpu,memlat_cpu --results-dir "$T/r"
expect_rc 0 "membw_cpu and memlat_cpu"
expect_in "$T/out" 'membw_cpu kernel=triad .* OK .* [0-9.]+ GB/s ' "triad: GB/s"
expect_in "$T/out" 'membw_cpu kernel=scale .* OK .* [0-9.]+ GB/s ' "scale: GB/s"
expect_not_in "$T/out" 'membw_cpu.*GFLOP/s' "membw_cpu: never GFLOP/s"
expect_in "$T/out" 'memlat_cpu size=64KiB loads=1000 +OK .* [0-9.]+ (ns|us)/load ' "memlat_cpu: time per load"
expect_not_in "$T/out" 'memlat_cpu.*GB/s' "memlat_cpu: not GB/s"
expect_in "$(ls "$T"/r/*memlat_cpu*.txt)" 'size=64KiB loads=1000 +OK .* [0-9.]+ (ns|us)/load ' ".txt: the throughput column"
python3 - "$T/r" <<'PY' && ok || fail "json: primary, and every figure kept"
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/*.json"):
    for c in json.load(open(f))["cases"]:
        if c["plugin"] == "membw_cpu":
            assert c["primary"] == "bytes" and c["gflops"] > 0 and c["gbps"] > 0, c
        else:
            assert c["primary"] == "latency" and c["item_unit"] == "loads" and c["items"] == 1000, c
            assert c["ns_per_item"] > 0 and c["gbps"] > 0, c
PY
# the rollup and the report carry the same one figure (primary, throughput, unit)
python3 - "$T/r/rollup.csv" <<'PY' && ok || fail "rollup: primary, throughput, unit"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert rows, "no rows"
for r in rows:
    if r["plugin"] == "membw_cpu":
        assert r["primary"] == "bytes" and r["throughput_unit"] == "GB/s", r
        assert abs(float(r["throughput"]) - float(r["gbps"])) <= 1e-9 * float(r["gbps"]), r
    else:
        assert r["primary"] == "latency" and r["throughput_unit"] == "ns/load", r
        assert abs(float(r["throughput"]) - float(r["ns_per_item"])) <= 1e-6 * float(r["ns_per_item"]), r
PY
"$BENCH" report --results-dir "$T/r" --output "$T/report.html" >"$T/rep.out" 2>&1
RC=$?
expect_rc 0 "bench report"
python3 - "$T/report.html" <<'PY' && ok || fail "report: the primary figure per case"
import json, sys
html = open(sys.argv[1]).read()
start = html.index("const BENCH = ") + len("const BENCH = ")
data = json.loads(html[start:html.index(";\n</script>", start)])
assert data and data["cases"], "no report data"
for c in data["cases"]:
    want = ("bytes", "GB/s") if c["plugin"] == "membw_cpu" else ("latency", "ns/load")
    assert (c["primary"], c["throughput_unit"]) == want and c["throughput"] > 0, c
PY

printf '[run]\ntier = smoke\nmin_samples = 2\nmin_time = 0\nmax_time = 0.05s\nwarmup_time = 0\nbatch_min_time = 0\n[peak_cpu_lat]\nsize = 16KiB\nloads = 1000\n[cpu_spin]\niters = 1000\n' >"$T/lat.ini"
run_bench --preset "$T/lat.ini" --plugin peak_cpu_lat,cpu_spin --results-dir "$T/r2"
expect_rc 0 "peak_cpu_lat, cpu_spin"
expect_in "$T/out" 'peak_cpu_lat .* OK .* [0-9.]+ (ns|us)/load ' "peak_cpu_lat: time per load"
expect_in "$T/out" 'cpu_spin iters=1000 +OK .* [0-9.]+ ns/step ' "cpu_spin: time per step"
expect_not_in "$T/out" 'cpu_spin.*GFLOP/s' "cpu_spin: no FLOPs"
finish

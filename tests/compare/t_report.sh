# bench report: one self-contained HTML page, loaded in headless Chromium
# (Debian's chromium): the charts render (a canvas and a Chart object
# each), no script error, every case is a table row, "% of roof" is right
# for planted roofs, and a screenshot is saved (build/compare-report.png).
. "$(dirname "$0")/lib.sh"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || { echo "FAIL: chromium not found: install Debian's chromium (scripts/debian-packages.txt)"; exit 1; }

# two dates; a measured CPU roof (membw_cpu copy: 10 GB/s; cpu_gemm: 100
# GFLOP/s at 1000 FLOP/byte, above the ridge point of 10 FLOP/byte) and a
# GPU named MI300X without GEMM or copy measurements (published peaks)
"$GEN" "$T/r" 1 <<'SPEC' || fail gen
run 2026-11-20 cpu_gemm
case m=64,dtype=f32 OK 1000 0.01 30 flops=1e5 bytes=100 check=sampled
case m=32,dtype=f32 OK 1000 0.01 30 flops=5e4 bytes=50 check=sampled
run 2026-11-20 membw_cpu
case kernel=copy OK 1000 0.01 30 bytes=1e4
case kernel=triad OK 1000 0.01 30 bytes=5e3
run 2026-11-20 hip_attention
case m=64,dtype=f32 OK 1000 0.01 30 flops=1.634e7 bytes=1e3 devname=AMD_Instinct_MI300X backend=hip
run 2026-11-21 cpu_gemm
case m=64,dtype=f32 OK 1000 0.01 30 flops=1e5 bytes=100 check=sampled
case m=32,dtype=f32 OK 1300 0.01 30 flops=5e4 bytes=50 check=sampled
case m=16,dtype=f32 WRONG_ANSWER 1000 0.01 30 flops=5e4 bytes=50
run 2026-11-21 membw_cpu
case kernel=copy OK 1000 0.01 30 bytes=1e4
case kernel=triad OK 1000 0.01 30 bytes=5e3
SPEC
run_bench report --results-dir "$T/r" -o "$T/report.html"
expect_rc 0 "report"
expect_in "$T/out" "wrote $T/report.html \(6 cases, 2 dates, 2 devices" "summary line"
expect_not_in "$T/report.html" '<(script|link|img|iframe)[^>]*(src|href)=' "no external resources"
expect_in "$T/report.html" 'Chart.js v[0-9]' "Chart.js inlined"

# the data in the page: % of roof from the planted roofs
python3 - "$T/report.html" <<'PY' && ok || fail "report data"
import json, sys
html = open(sys.argv[1]).read()
start = html.index("const BENCH = ") + len("const BENCH = ")
data = json.loads(html[start:html.index(";\n</script>", start)])
cases = {(c["plugin"], c["params"]): c for c in data["cases"]}
assert len(cases) == 6, len(cases)
roofs = {r["device"]: r for r in data["roofs"]}
cpu = roofs["planted cpu"]
assert abs(cpu["peak_gflops"] - 100) < 2 and abs(cpu["bw_gbps"] - 10) < 0.2, cpu
assert cpu["peak_source"].startswith("measured: cpu_gemm") and cpu["bw_source"].startswith("measured: membw_cpu kernel=copy"), cpu
mi = roofs["AMD Instinct MI300X"]
assert mi["peak_gflops"] == 163400 and mi["bw_gbps"] == 5300 and mi["peak_source"].startswith("published"), mi
best = cases[("cpu_gemm", "m=64 dtype=f32")]
assert abs(best["pct_roof"] - 1.0) < 0.03 and abs(best["ai"] - 1000) < 1e-9, best
slow = cases[("cpu_gemm", "m=32 dtype=f32")]  # 5e4 FLOP in 1.3 us: 38.5 GFLOP/s of 100
assert abs(slow["pct_roof"] - 0.385) < 0.02, slow
triad = cases[("membw_cpu", "kernel=triad")]  # bytes only: 5 GB/s of 10
assert abs(triad["pct_roof"] - 0.5) < 0.02, triad
hip = cases[("hip_attention", "m=64 dtype=f32")]   # 16.34 TFLOP/s of 163.4
assert abs(hip["pct_roof"] - 0.1) < 0.003, hip
assert cases[("cpu_gemm", "m=16 dtype=f32")]["status"] == "WRONG_ANSWER"
cmp = {(r["plugin"], r["params"]): r for r in data["compare"]["rows"]}
assert cmp[("cpu_gemm", "m=32 dtype=f32")]["verdict"] == "SLOWER", cmp
assert cmp[("cpu_gemm", "m=64 dtype=f32")]["verdict"] == "SAME", cmp
assert data["history"]["dates"] == ["2026-11-20", "2026-11-21"]
PY

# in a real browser
CHROME_FLAGS=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
  --disable-background-networking --disable-component-update --disable-sync --disable-dev-shm-usage
  --user-data-dir="$T/chromium" --virtual-time-budget=10000 --hide-scrollbars)
timeout 60 "$CHROMIUM" "${CHROME_FLAGS[@]}" --enable-logging=stderr --v=0 --dump-dom "file://$T/report.html" \
  >"$T/dom.html" 2>"$T/chromium.err"
expect_eq "$?" 0 "chromium --dump-dom"
# 2 compare charts (cpu_gemm, membw_cpu), 3 history charts, 2 rooflines
expect_in "$T/dom.html" '<div id="status" data-charts="7" data-errors="" data-state="done">' "every chart rendered, no script error"
expect_eq "$(grep -o '<canvas' "$T/dom.html" | wc -l)" 7 "a canvas per chart"
expect_eq "$(grep -o '<td class="(OK|WRONG_ANSWER)">' -E "$T/dom.html" | wc -l)" 6 "a table row per case"
expect_in "$T/dom.html" '<td class="num">100\.0</td>' "the best GEMM at 100% of its roof"
expect_not_in "$T/chromium.err" 'Uncaught|CONSOLE.*[Ee]rror' "no console errors"
SHOT="$BUILD/compare-report.png"
rm -f "$SHOT"
timeout 60 "$CHROMIUM" "${CHROME_FLAGS[@]}" --window-size=1400,2600 --screenshot="$SHOT" "file://$T/report.html" \
  >/dev/null 2>&1
[ -s "$SHOT" ] && [ "$(stat -c %s "$SHOT")" -gt 20000 ] && ok || fail "screenshot $SHOT"
echo "screenshot: $SHOT"

# usage
run_bench report --results-dir "$T/r" -o "$T/x.html" --chartjs "$T/nonexistent.js"
expect_rc 2 "Chart.js missing"
expect_in "$T/err" "cannot read Chart.js from .*nonexistent.js" "names the file"
[ ! -e "$T/x.html" ] && ok || fail "no page without Chart.js"
run_bench report --results-dir "$T/empty"
expect_rc 2 "missing folder"
finish

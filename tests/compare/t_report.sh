# bench report: one self-contained HTML page, loaded in headless Chromium
# (Debian's chromium) at 1400 px. Checks the data in the page (% of roof for
# planted roofs, no device row without data, the reason for a missing
# roof), then in the browser: no script error; every chart drew data marks
# inside its plot area (counted from the Chart.js elements by a probe script,
# and matching the data-marks-* the page sets); the compare chart has >= 3
# ticks, a ratio marker and an interval per case and the threshold band,
# one chart per plugin; history charts only for cases with OK runs on two
# dates (the rest in a table), SKIPPED/ERROR-only plugins in a list; a
# roofline per device with its compute and memory roofs, or the missing one
# named in the chart; the results table scrolls inside its box with the case
# column sticky, its number columns visible at 1400 px; the tuning table
# (from --tuning-file, a foreign one left out with one line) read back as
# drawn. Saves a screenshot of each section to $BUILD/report-shots (printed; not in git).
. "$(dirname "$0")/lib.sh"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
  # skip only where Debian's chromium cannot be installed at all
  if command -v apt-cache >/dev/null && apt-cache policy chromium 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    echo "FAIL: chromium not found: install Debian's chromium (scripts/setup-debian.sh test)"; exit 1
  fi
  skip "no chromium on this system and none to install (apt-cache has no candidate for chromium)"
fi

# two dates (cpu_gemm's two cases on two earlier ones too: the history
# that makes one run's change decidable, as in bench compare); a measured
# CPU roof (membw_cpu copy: 10 GB/s; cpu_gemm: 100 GFLOP/s at 1000 FLOP/byte, above the ridge point of 10 FLOP/byte); a GPU
# named MI300X without GEMM or copy measurements (published peaks); a
# Vulkan device with a GEMM but a failed copy (no memory roof); a HIP plugin
# that was only SKIPPED (no device row, no history chart). The newest
# cpu_gemm run left its tunables at auto: m=64 took the tuning cache's
# winner, m=32 ran the defaults.
"$GEN" "$T/r" 1 <<SPEC || fail gen
run 2026-11-18 cpu_gemm
case m=64,dtype=f32 OK 1000 0.01 30 flops=1e5 bytes=100 check=sampled
case m=32,dtype=f32 OK 1000 0.01 30 flops=5e4 bytes=50 check=sampled
run 2026-11-19 cpu_gemm
case m=64,dtype=f32 OK 1000 0.01 30 flops=1e5 bytes=100 check=sampled
case m=32,dtype=f32 OK 1000 0.01 30 flops=5e4 bytes=50 check=sampled
run 2026-11-20 cpu_gemm
case m=64,dtype=f32 OK 1000 0.01 30 flops=1e5 bytes=100 check=sampled
case m=32,dtype=f32 OK 1000 0.01 30 flops=5e4 bytes=50 check=sampled
run 2026-11-20 membw_cpu
case kernel=copy OK 1000 0.01 30 bytes=1e4
case kernel=triad OK 1000 0.01 30 bytes=5e3
run 2026-11-20 hip_attention
case m=64,dtype=f32 OK 1000 0.01 30 flops=1.634e7 bytes=1e3 devname=AMD_Instinct_MI300X backend=hip
run 2026-11-20 hip_gemm
case m=64,dtype=f16 SKIPPED 0 0 0 backend=hip
run 2026-11-21 cpu_gemm
case m=64,dtype=f32 OK 1000 0.01 30 flops=1e5 bytes=100 check=sampled note=tuned_(cache_$T/tuning.tsv)
case m=32,dtype=f32 OK 1300 0.01 30 flops=5e4 bytes=50 check=sampled note=default_(no_tuning_entry)
case m=16,dtype=f32 WRONG_ANSWER 1000 0.01 30 flops=5e4 bytes=50
run 2026-11-21 membw_cpu
case kernel=copy OK 1000 0.01 30 bytes=1e4
case kernel=triad OK 1000 0.01 30 bytes=5e3
run 2026-11-21 hip_gemm
case m=64,dtype=f16 SKIPPED 0 0 0 backend=hip
run 2026-11-21 vk_gemm
case m=256,n=256,k=256,dtype=f32 OK 1e8 0.01 10 flops=3.3554432e7 bytes=786432 devname=llvmpipe_(LLVM_15.0.6,_256_bits) backend=vulkan check=sampled
run 2026-11-21 vk_copy
case size=64MiB ERROR 0 0 0 devname=llvmpipe_(LLVM_15.0.6,_256_bits) backend=vulkan
SPEC
# the tuning cache: cpu_gemm m=64 tuned (winner 1.6x FASTER than the
# default through the paired comparison; 2 measured, 1 wrong, 1 skipped);
# vk_gemm from a record written before the paired comparison (speedup from
# the medians, no verdict); a foreign file given too is left out with one line
K="device=planted cpu;driver=-;arch=x86_64|plugin=cpu_gemm|sha256=$(printf '%064d' 0)|abi=1.4|m=64 dtype=f32"
V="device=llvmpipe (LLVM 15.0.6, 256 bits);driver=1;arch=-|plugin=vk_gemm|sha256=$(printf '%064d' 1)|abi=1.4|m=256 n=256 k=256 dtype=f32"
{
  printf 'bench-tuning 1\n'
  printf 'M\t%s\t%s\tOK\t1500,1510,1490\n' "$K" "mc=0 kc=0"
  printf 'M\t%s\t%s\tOK\t900,910,890\n' "$K" "mc=48 kc=256"
  printf 'M\t%s\t%s\tWRONG_ANSWER\tWRONG_ANSWER: planted\n' "$K" "mc=96 kc=256"
  printf 'M\t%s\t%s\tSKIPPED\tSKIPPED: too big\n' "$K" "mc=192 kc=512"
  printf 'W\t%s\t%s\t900 880 920 1500 4 1 1 halving 1.6 1.5 1.7 FASTER 12 3\n' "$K" "mc=48 kc=256"
  printf 'M\t%s\t%s\tOK\t2e8\n' "$V" "tile=16"
  printf 'W\t%s\t%s\t1e8 0.9e8 1.1e8 2e8 2 0 0 grid\n' "$V" "tile=32"
} >"$T/tuning.tsv"
printf 'not a tuning cache\n' >"$T/foreign.tsv"
run_bench report --results-dir "$T/r" -o "$T/report.html" --tuning-file "$T/tuning.tsv" --tuning-file "$T/foreign.tsv"
expect_rc 0 "report"
expect_in "$T/out" "wrote $T/report.html \(9 cases, 4 dates, 3 devices, 2 tuning entries" "summary line"
expect_eq "$(grep -c 'foreign.tsv. is not a bench tuning cache' "$T/err")" 1 "one line about the foreign file"
expect_not_in "$T/report.html" '<(script|link|img|iframe)[^>]*(src|href)=' "no external resources"
expect_in "$T/report.html" 'Chart.js v[0-9]' "Chart.js inlined"

# the data in the page: % of roof from the planted roofs; the roofs
python3 - "$T/report.html" "$T/r" <<'PY' && ok || fail "report data"
import json, sys
html = open(sys.argv[1]).read()
start = html.index("const BENCH = ") + len("const BENCH = ")
data = json.loads(html[start:html.index(";\n</script>", start)])
cases = {(c["plugin"], c["params"]): c for c in data["cases"]}
assert len(cases) == 9, len(cases)
roofs = {r["device"]: r for r in data["roofs"]}
# a device row only where a case has data: not "hip" for the SKIPPED hip_gemm
assert set(roofs) == {"planted cpu", "AMD Instinct MI300X", "llvmpipe (LLVM 15.0.6, 256 bits)"}, set(roofs)
def line(dev, id):
    got = [l for l in dev["roofs"] if l["id"] == id]
    assert len(got) == 1, (id, dev)
    return got[0]
# no roofs file in this folder: best cases, the data sheet, and how to measure them
for r in roofs.values():
    assert r["measured"] is False and r["file"] is None, r
    assert "no measured roofs for this device" in r["how"] and "bench peak --results-dir " + sys.argv[2] in r["how"], r
cpu = roofs["planted cpu"]
assert abs(line(cpu, "fp32")["value"] - 100) < 2 and abs(line(cpu, "dram")["value"] - 10) < 0.2, cpu
assert line(cpu, "fp32")["source"].startswith("best case: cpu_gemm"), cpu
assert line(cpu, "dram")["source"].startswith("best case: membw_cpu kernel=copy"), cpu
assert line(cpu, "fp32")["origin"] == "best case" and cpu["notes"] == [], cpu
mi = roofs["AMD Instinct MI300X"]
assert line(mi, "fp32")["value"] == 163400 and line(mi, "dram")["value"] == 5300, mi
assert line(mi, "fp16_matrix")["value"] == 1307400 and line(mi, "fp32")["source"].startswith("data sheet: "), mi
lp = roofs["llvmpipe (LLVM 15.0.6, 256 bits)"]
assert abs(line(lp, "fp32")["value"] - 0.3355) < 0.01 and not [l for l in lp["roofs"] if l["kind"] == "bandwidth"], lp
assert lp["notes"] == ["no memory roof: vk_copy size=64MiB ERROR on 2026-11-21"], lp
best = cases[("cpu_gemm", "m=64 dtype=f32")]
assert abs(best["pct_roof"] - 1.0) < 0.03 and abs(best["ai"] - 1000) < 1e-9, best
assert best["roof"] == "fp32+dram" and best["roof_source"].startswith("fp32 best case: cpu_gemm"), best
slow = cases[("cpu_gemm", "m=32 dtype=f32")]  # 5e4 FLOP in 1.3 us: 38.5 GFLOP/s of 100
assert abs(slow["pct_roof"] - 0.385) < 0.02, slow
triad = cases[("membw_cpu", "kernel=triad")]  # bytes only: 5 GB/s of 10
assert abs(triad["pct_roof"] - 0.5) < 0.02 and triad["roof"] == "dram" and triad["roof_note"] is None, triad
hip = cases[("hip_attention", "m=64 dtype=f32")]   # 16.34 TFLOP/s of 163.4
assert abs(hip["pct_roof"] - 0.1) < 0.003, hip
assert cases[("cpu_gemm", "m=16 dtype=f32")]["status"] == "WRONG_ANSWER"
assert cases[("hip_gemm", "m=64 dtype=f16")]["pct_roof"] is None
cmp = {(r["plugin"], r["params"]): r for r in data["compare"]["rows"]}
assert cmp[("cpu_gemm", "m=32 dtype=f32")]["verdict"] == "SLOWER", cmp
assert cmp[("cpu_gemm", "m=64 dtype=f32")]["verdict"] == "SAME", cmp
assert data["history"]["dates"] == ["2026-11-18", "2026-11-19", "2026-11-20", "2026-11-21"]
tu = data["tuning"]
assert len(tu["skipped_files"]) == 1 and "foreign.tsv" in tu["skipped_files"][0], tu["skipped_files"]
rows = {r["plugin"]: r for r in tu["rows"]}
g = rows["cpu_gemm"]
assert (g["device"], g["problem"], g["winner"]) == ("planted cpu", "m=64 dtype=f32", "mc=48 kc=256"), g
assert (g["speedup"], g["speedup_lo"], g["speedup_hi"], g["verdict"], g["rounds"], g["pairs"]) == (1.6, 1.5, 1.7, "FASTER", 12, 3), g
assert (g["measured"], g["disqualified"], g["skipped"]) == (2, 1, 1), g
assert (g["runs_tuned"], g["runs_default"]) == (1, 0), g   # m=32 is another problem
v = rows["vk_gemm"]
assert v["verdict"] is None and abs(v["speedup"] - 2) < 1e-9 and v["pairs"] == 0 and v["measured"] == 1, v
PY

# in a real browser. probe.html is the page with a script after it that
# reads back what was drawn (the page's Chart objects and its layout) into
# <pre id="probe">: the test's own measurement, not the page's word.
sed 's|</body>|<script src="probe.js"></script></body>|' "$T/report.html" >"$T/probe.html"
cat >"$T/probe.js" <<'JS'
(function () {
  const out = {vw: document.documentElement.clientWidth, charts: []};
  for (const box of document.querySelectorAll(".chart")) {
    const canvas = box.querySelector("canvas"), chart = Chart.getChart(canvas), a = chart.chartArea;
    const kinds = {};
    chart.data.datasets.forEach((ds, i) => {
      let n = 0;
      for (const e of chart.getDatasetMeta(i).data) {
        const xs = e.horizontal ? [e.x, e.base] : [e.x];
        if (xs.every((x) => isFinite(x) && x >= a.left - 1 && x <= a.right + 1) &&
            isFinite(e.y) && e.y >= a.top - 1 && e.y <= a.bottom + 1) n++;
      }
      kinds[ds.markKind] = (kinds[ds.markKind] || 0) + n;
    });
    const r = canvas.getBoundingClientRect(), valueAxis = box.dataset.kind === "compare" ? "x" : "y";
    const sub = chart.options.plugins.subtitle;
    out.charts.push({kind: box.dataset.kind, title: box.dataset.title, marks: kinds, attrs: Object.assign({}, box.dataset),
                     ticks: chart.scales[valueAxis].ticks.map((t) => t.label).filter((l) => l !== "" && l !== undefined),
                     left: r.left, right: r.right, width: r.width, height: r.height,
                     subtitle: sub && sub.display ? [].concat(sub.text).join(" | ") : ""});
  }
  const box = document.getElementById("results-box"), br = box.getBoundingClientRect();
  out.table = {boxLeft: br.left, boxRight: br.right, scrollWidth: box.scrollWidth, clientWidth: box.clientWidth,
               position: getComputedStyle(document.querySelector("#results tbody td.case")).position, cols: {}};
  for (const th of document.querySelectorAll("#results th")) {
    const t = th.getBoundingClientRect();
    out.table.cols[th.textContent] = {left: t.left, right: t.right};
  }
  box.scrollLeft = 300;
  const td = document.querySelector("#results tbody td.case").getBoundingClientRect();
  const med = [...document.querySelectorAll("#results th")].find((t) => t.textContent === "median").getBoundingClientRect();
  out.table.scrolled = {scrollLeft: box.scrollLeft, caseLeft: td.left, medianLeft: med.left};
  out.singles = [...document.querySelectorAll("#history-single tbody tr")].map((tr) => tr.cells[0].textContent);
  out.none = [...document.querySelectorAll("#history-none li")].map((li) => li.textContent);
  out.roofRows = [...document.querySelectorAll("#roofs tbody tr")].map((tr) => tr.cells[0].textContent);
  out.tuning = [...document.querySelectorAll("#tuning tbody tr")].map((tr) => [...tr.cells].map((c) => c.textContent));
  out.tuningBad = [...document.querySelectorAll("#tuning-bad li")].map((li) => li.textContent);
  const tb = document.getElementById("tuning-box").getBoundingClientRect();
  const runs = [...document.querySelectorAll("#tuning th")].find((t) => t.textContent === "runs here").getBoundingClientRect();
  out.tuningBox = {left: tb.left, right: tb.right, height: tb.height, runsRight: runs.right};
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
JS
CHROME_FLAGS=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
  --disable-background-networking --disable-component-update --disable-sync --disable-dev-shm-usage
  --user-data-dir="$T/chromium" --virtual-time-budget=10000 --hide-scrollbars --allow-file-access-from-files)
for w in 1400 900; do
  timeout 60 "$CHROMIUM" "${CHROME_FLAGS[@]}" --window-size=$w,1000 --enable-logging=stderr --v=0 --dump-dom \
    "file://$T/probe.html" >"$T/dom$w.html" 2>"$T/chromium$w.err"
  expect_eq "$?" 0 "chromium --dump-dom at $w px"
  expect_not_in "$T/chromium$w.err" 'Uncaught|CONSOLE.*[Ee]rror' "no console errors at $w px"
done
expect_in "$T/dom1400.html" '<div id="status" data-charts="7" data-empty="" data-errors="" data-state="done">' \
  "7 charts, none empty, no script error"
expect_eq "$(grep -oP '<table id="results">.*?</table>' "$T/dom1400.html" |
  grep -oE '<td class="(OK|WRONG_ANSWER|SKIPPED|ERROR)">' | wc -l)" 9 "a table row per case"
expect_in "$T/dom1400.html" '<td class="num"[^>]*>100\.0</td>' "the best GEMM at 100% of its roof"

python3 - "$T/dom1400.html" "$T/dom900.html" <<'PY' && ok || fail "what the browser drew"
import html, json, re, sys
def probe(path):
    m = re.search(r'<pre id="probe">(.*?)</pre>', open(path).read(), re.S)
    assert m, "no probe output in " + path
    return json.loads(html.unescape(m.group(1)))
p = probe(sys.argv[1])
charts = p["charts"]
by = {}
for c in charts:
    by.setdefault(c["kind"], []).append(c)
    # inside the 1400 px page, drawn data, and the page's own count agrees
    assert c["left"] >= 0 and c["right"] <= p["vw"] and c["width"] > 300 and c["height"] > 150, c
    assert sum(c["marks"].values()) > 0, c
    for kind, n in c["marks"].items():
        assert c["attrs"]["marks" + kind[0].upper() + kind[1:]] == str(n), (kind, n, c["attrs"])
# compare: one chart per plugin; a ratio marker and an interval per case, >= 3 ticks, the band
cmp = {c["title"]: c for c in by["compare"]}
assert set(cmp) == {"cpu_gemm", "membw_cpu"}, set(cmp)
for c in cmp.values():
    assert c["marks"]["ratio"] == 2 and c["marks"]["interval"] == 2, c
    assert len(c["ticks"]) >= 3, c["ticks"]
    assert c["attrs"]["band"] == "drawn", c
# history: charts only where a case has OK runs on two dates; the rest listed
hist = sorted(c["title"] for c in by["history"])
assert hist == ["cpu_gemm", "membw_cpu"], hist
for c in by["history"]:
    # points: cases x dates run (cpu_gemm has two earlier dates)
    assert c["marks"]["series"] == {"cpu_gemm": 8, "membw_cpu": 4}[c["title"]] and len(c["ticks"]) >= 3, c
assert sorted(p["singles"]) == ["cpu_gemm m=16 dtype=f32", "hip_attention m=64 dtype=f32",
                                "vk_gemm m=256 n=256 k=256 dtype=f32"], p["singles"]
assert [n.split(":")[0] for n in p["none"]] == ["hip_gemm", "vk_copy"], p["none"]
assert "SKIPPED" in p["none"][0] and "ERROR" in p["none"][1], p["none"]
# roofline: per device, both roofs or the missing one named in the chart
roof = {c["title"]: c for c in by["roofline"]}
assert set(roof) == {"planted cpu", "AMD Instinct MI300X", "llvmpipe (LLVM 15.0.6, 256 bits)"}, set(roof)
# (MI300X: the data sheet's fp32, fp64, fp16_matrix and bf16_matrix roofs)
for name, ncompute in (("planted cpu", 1), ("AMD Instinct MI300X", 4)):
    m = roof[name]["marks"]
    assert m["memroof"] == 2 and m["computeroof"] == 2 * ncompute and m["case"] >= 1, (name, m)
    assert roof[name]["subtitle"].startswith("no measured roofs for this device"), roof[name]
    assert roof[name]["attrs"]["measured"] == "no", roof[name]
assert roof["planted cpu"]["marks"]["case"] == 2
lp = roof["llvmpipe (LLVM 15.0.6, 256 bits)"]
assert lp["marks"].get("memroof", 0) == 0 and lp["marks"]["computeroof"] == 2 and lp["marks"]["case"] == 1, lp
assert "no memory roof: vk_copy size=64MiB ERROR" in lp["subtitle"], lp
assert set(p["roofRows"]) == set(roof), p["roofRows"]
# tuning: a row per entry as drawn: winner, speedup with its interval and
# verdict, the paired rounds, candidates, the runs that used it
tu = {r[0].split(" · ")[1].split(" ")[0]: r for r in p["tuning"]}
assert set(tu) == {"cpu_gemm", "vk_gemm"}, p["tuning"]
g = tu["cpu_gemm"]
assert g[0] == "planted cpu · cpu_gemm m=64 dtype=f32" and g[1] == "mc=48 kc=256" and g[2] == "900 ns", g
assert g[3] == "1.6x [1.5, 1.7]" and g[4] == "FASTER: winner used" and g[5] == "12 rounds, 3 pairs", g
assert g[6] == "2 measured, 1 disqualified, 1 skipped" and g[7] == "1 tuned, 0 default", g
assert tu["vk_gemm"][3] == "2x" and tu["vk_gemm"][4] == "-" and tu["vk_gemm"][5] == "-", tu["vk_gemm"]
assert len(p["tuningBad"]) == 1 and "foreign.tsv" in p["tuningBad"][0], p["tuningBad"]
tb = p["tuningBox"]  # in the page, and the runs column visible at 1400 px
assert tb["right"] <= p["vw"] and tb["height"] > 40 and tb["runsRight"] <= tb["right"], tb
# the results table: in the page, case column sticky, number columns visible at 1400 px
t = p["table"]
assert t["boxRight"] <= p["vw"] and t["position"] == "sticky", t
for col in ("median", "GFLOP/s", "% of roof"):
    assert t["cols"][col]["right"] <= t["boxRight"], (col, t)
# at 900 px the table scrolls inside its box and the case column stays put
q = probe(sys.argv[2])["table"]
assert q["boxRight"] <= 900 and q["scrollWidth"] > q["clientWidth"], q
s = q["scrolled"]
assert s["scrollLeft"] > 0 and abs(s["caseLeft"] - q["boxLeft"]) <= 2, q
assert s["medianLeft"] < q["cols"]["median"]["left"] - s["scrollLeft"] / 2, q
PY

# a screenshot of each section at 1400 px (report.html#section=NAME shows one)
SHOTS="$BUILD/report-shots"
rm -rf "$SHOTS"
mkdir -p "$SHOTS"
for s in results compare history roofline tuning; do
  timeout 60 "$CHROMIUM" "${CHROME_FLAGS[@]}" --window-size=1400,1300 --screenshot="$SHOTS/$s.png" \
    "file://$T/report.html#section=$s" >/dev/null 2>&1
  [ -s "$SHOTS/$s.png" ] && [ "$(stat -c %s "$SHOTS/$s.png")" -gt 20000 ] && ok || fail "screenshot $SHOTS/$s.png"
done
echo "screenshots of each section: $SHOTS"

# one case: the summary line's grammar
run_bench report --results-dir "$T/r" --plugin hip_attention -o "$T/one.html"
expect_rc 0 "report of one case"
expect_in "$T/out" "wrote $T/one.html \(1 case, 1 date, 1 device;" "singular for 1"

# usage
run_bench report --results-dir "$T/r" -o "$T/x.html" --chartjs "$T/nonexistent.js"
expect_rc 2 "Chart.js missing"
expect_in "$T/err" "cannot read Chart.js from .*nonexistent.js" "names the file"
[ ! -e "$T/x.html" ] && ok || fail "no page without Chart.js"
run_bench report --results-dir "$T/empty"
expect_rc 2 "missing folder"
finish

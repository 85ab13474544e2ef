# bench report with measured roofs (issue 41): a results folder with a
# roofs file written by hand (the format of results/roofs_file.h) for one
# device and cases on it and on a second device without one. Reads back
# from the page's data and from what headless Chromium drew: the roofs of
# the file (ids, values, intervals, capacities, data sheet figures, the
# refused ones as notes), one horizontal line per compute roof and one
# slanted line per memory level labelled with id, value and unit, the data
# sheet's figure dashed beside it; each case's "% of roof" against its own
# roof (dtype, one thread, the level its working set fits in), a share over
# 100% with its note; the second device said to have no measured roofs,
# with the bench peak command; a corrupt and a foreign roofs file refused
# with one line each while the page is still written; text from the file
# reaching the page escaped.
. "$(dirname "$0")/lib.sh"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
  if command -v apt-cache >/dev/null && apt-cache policy chromium 2>/dev/null | grep -q 'Candidate: [0-9]'; then
    echo "FAIL: chromium not found: install Debian's chromium (scripts/setup-debian.sh test)"; exit 1
  fi
  skip "no chromium on this system and none to install (apt-cache has no candidate for chromium)"
fi

# planted cpu: the roofs below; Second GPU: a GEMM only, no roofs file
"$GEN" "$T/r" 1 <<SPEC || fail gen
run 2026-12-01 cpu_gemm
case m=64,dtype=f32 OK 2000 0.01 30 flops=1e5 bytes=1e4 check=sampled
case m=64,dtype=f32,threads=1 OK 4000 0.01 30 flops=1e5 bytes=1e4 check=sampled
case m=64,dtype=f64 OK 2000 0.01 30 flops=1e5 check=sampled
run 2026-12-01 membw_cpu
case kernel=triad OK 2000 0.01 30 bytes=3e5
case kernel=scale OK 1e5 0.01 30 bytes=2e6
case kernel=copy OK 1e7 0.01 30 bytes=4e7
run 2026-12-01 vk_gemm
case m=256,dtype=f32 OK 1e6 0.01 10 flops=3.3554432e7 bytes=786432 devname=Second_GPU backend=vulkan check=sampled
SPEC
SHA=$(printf '%064d' 0)
D=2026-12-01T10:00:00Z
mkdir -p "$T/r/roofs"
m() { # plugin params status roof kind unit value low high capacity datasheet how reason
  printf 'M\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\tx\t%s\t%s\t%s\t%s\t%s\n' "$1" "$SHA" "$2" "$3" "$4" "$5" "$6" "$7" \
    "$8" "$9" "${10}" "${11}" "${12}" "$D" "${13}"
}
{
  printf 'bench-roofs 1\nK\tdevice=planted cpu;driver=-;arch=x86_64\tplanted cpu\n'
  m peak_fma kernel=fma OK fp32 compute GFLOP/s 100 98 102 0 120 '2 cores x 2 FMA x 8 lanes x 2 x 3.75 GHz <b>' ''
  m peak_fma 'kernel=fma threads=1' OK fp32.1t compute GFLOP/s 50 49 51 0 0 '' ''
  m peak_fma 'kernel=fma dtype=f64' WRONG_ANSWER fp64 compute GFLOP/s 0 0 0 0 0 '' 'planted mismatch'
  m peak_bw 'size=16KiB tag=</script><img src=x onerror=alert(1)>' OK l1 bandwidth GB/s 400 390 410 32768 0 '' ''
  m peak_bw size=512KiB OK l2 bandwidth GB/s 200 195 205 1048576 0 '' ''
  m peak_bw size=16MiB REFUSED l3 bandwidth GB/s 0 0 0 33554432 0 '' 'its output was not checked'
  m peak_bw size=1GiB OK dram bandwidth GB/s 10 9.5 10.5 0 12.8 '64-bit bus x 1600 MT/s' ''
  m peak_lat size=16KiB OK lat_l1 latency ns 1 0.95 1.05 32768 0 '' ''
} >"$T/r/roofs/planted_cpu.tsv"
printf 'bench-roofs 1\nK\tdevice=x;driver=-;arch=-\tx\nM\tonly\tthree\n' >"$T/r/roofs/corrupt.tsv"
printf 'device,roof,value\nplanted cpu,fp32,1\n' >"$T/r/roofs/foreign.tsv"

printf 'bench-tuning 1\n' >"$T/tuning.tsv" # no tuning entries (never the user's cache)
run_bench report --results-dir "$T/r" -o "$T/report.html" --tuning-file "$T/tuning.tsv"
expect_rc 0 "the report, with a corrupt and a foreign roofs file"
expect_in "$T/out" "wrote $T/report.html \(7 cases, 1 date, 2 devices" "summary line"
expect_eq "$(grep -c 'corrupt.tsv' "$T/err")" 1 "one line about the corrupt roofs file"
expect_eq "$(grep -c 'foreign.tsv' "$T/err")" 1 "one line about the foreign roofs file"
expect_in "$T/err" "warning: '$T/r/roofs/corrupt.tsv' line 3: not a roofs record \(corrupt file\); ignored" "corrupt named"
expect_in "$T/err" "warning: '$T/r/roofs/foreign.tsv' is not a bench roofs file" "foreign named"
# the file's text reaches the page only escaped (the page's one encoder)
expect_not_in "$T/report.html" '<img src=x|<b>' "no markup from the roofs file"
expect_not_in "$T/report.html" '<(script|link|img|iframe)[^>]*(src|href)=' "no external resources"

python3 - "$T/report.html" "$T/r" <<'PY' && ok || fail "report data"
import json, sys
html = open(sys.argv[1]).read()
start = html.index("const BENCH = ") + len("const BENCH = ")
data = json.loads(html[start:html.index(";\n</script>", start)])
roofs = {r["device"]: r for r in data["roofs"]}
assert set(roofs) == {"planted cpu", "Second GPU"}, set(roofs)
cpu = roofs["planted cpu"]
assert cpu["measured"] is True and cpu["file"] == sys.argv[2] + "/roofs/planted_cpu.tsv" and cpu["how"] is None, cpu
lines = {l["id"]: l for l in cpu["roofs"]}
assert [l["id"] for l in cpu["roofs"]] == ["fp32", "fp32.1t", "l1", "l2", "dram", "lat_l1"], cpu["roofs"]
f = lines["fp32"]
assert (f["kind"], f["unit"], f["value"], f["low"], f["high"], f["datasheet"], f["origin"]) == \
    ("compute", "GFLOP/s", 100, 98, 102, 120, "measured"), f
assert f["datasheet_how"] == "2 cores x 2 FMA x 8 lanes x 2 x 3.75 GHz <b>", f
assert f["source"] == "measured 2026-12-01 by peak_fma kernel=fma", f
assert lines["fp32.1t"]["value"] == 50 and lines["fp32.1t"]["datasheet"] is None
assert (lines["l1"]["capacity_bytes"], lines["l2"]["capacity_bytes"], lines["dram"]["capacity_bytes"]) == (32768, 1048576, None)
assert lines["l1"]["source"] == "measured 2026-12-01 by peak_bw size=16KiB tag=</script><img src=x onerror=alert(1)>", lines["l1"]
assert lines["dram"]["datasheet"] == 12.8 and lines["dram"]["kind"] == "bandwidth", lines["dram"]
assert lines["lat_l1"]["kind"] == "latency" and lines["lat_l1"]["unit"] == "ns", lines["lat_l1"]
assert len(cpu["notes"]) == 2 and cpu["notes"][0].startswith("fp64 refused by bench peak: WRONG_ANSWER: planted mismatch"), cpu
assert cpu["notes"][1].startswith("l3 refused by bench peak: REFUSED: its output was not checked"), cpu
gpu = roofs["Second GPU"]
assert gpu["measured"] is False and gpu["file"] is None, gpu
assert gpu["how"] == ("no measured roofs for this device (these are its best cases and the data sheet): run "
                      "'bench peak --results-dir %s' to measure them" % sys.argv[2]), gpu
assert [l["id"] for l in gpu["roofs"]] == ["fp32"] and gpu["roofs"][0]["origin"] == "best case", gpu
assert gpu["notes"][0].startswith("no memory roof: "), gpu

cases = {(c["plugin"], c["params"]): c for c in data["cases"]}
def share(key, pct, roof, note=None):
    c = cases[key]
    assert c["roof"] == roof, (key, c)
    if pct is None: assert c["pct_roof"] is None, (key, c)
    else: assert abs(c["pct_roof"] - pct) < 0.03 * pct, (key, c)
    if note is None: assert c["roof_note"] is None, (key, c)
    else: assert c["roof_note"] and note in c["roof_note"], (key, c)
    assert pct is None or pct <= 1 or c["roof_note"], ("over 100% without a note", c)
# 50 GFLOP/s at 10 FLOP/byte, 10 kB in l1: min(100, 10 x 400) = 100
share(("cpu_gemm", "m=64 dtype=f32"), 0.5, "fp32+l1")
assert cases[("cpu_gemm", "m=64 dtype=f32")]["roof_source"].startswith("fp32 measured 2026-12-01 by peak_fma kernel=fma; l1 measured")
# one thread: fp32.1t (50); 25 GFLOP/s
share(("cpu_gemm", "m=64 dtype=f32 threads=1"), 0.5, "fp32.1t+l1")
# fp64 was refused: no share, the note says so
share(("cpu_gemm", "m=64 dtype=f64"), None, "fp64", "no fp64 roof for this device")
# 300 kB in l2 (1 MiB): 150 GB/s of l2's 200, not of dram's 10
share(("membw_cpu", "kernel=triad"), 0.75, "l2")
# 2 MB in l3, whose roof was refused: dram stands in, 200%, and says why
share(("membw_cpu", "kernel=scale"), 2.0, "dram", "above the measured dram roof: the working set (1.907 MiB) fits in l3, whose roof is not measured")
share(("membw_cpu", "kernel=copy"), 0.4, "dram")
# the second device: its best case is its roof
share(("vk_gemm", "m=256 dtype=f32"), 1.0, "fp32", "no dram roof: against the compute roof alone")
PY

# in a real browser: a probe script after the page reads back each
# roofline's datasets (the page's Chart objects) and the tables
sed 's|</body>|<script src="probe.js"></script></body>|' "$T/report.html" >"$T/probe.html"
cat >"$T/probe.js" <<'JS'
(function () {
  const out = {charts: [], status: Object.assign({}, document.getElementById("status").dataset)};
  for (const box of document.querySelectorAll('.chart[data-kind="roofline"]')) {
    const chart = Chart.getChart(box.querySelector("canvas")), a = chart.chartArea, sets = [];
    chart.data.datasets.forEach((ds, i) => {
      let inside = 0;
      for (const e of chart.getDatasetMeta(i).data)
        if (isFinite(e.x) && e.x >= a.left - 1 && e.x <= a.right + 1 && isFinite(e.y) && e.y >= a.top - 1 && e.y <= a.bottom + 1)
          inside++;
      sets.push({kind: ds.markKind, id: ds.roofId || null, label: ds.label, dashed: !!(ds.borderDash && ds.borderDash.length),
                 ys: ds.data.map((p) => p.y), xs: ds.data.map((p) => p.x), inside: inside});
    });
    const sub = chart.options.plugins.subtitle;
    out.charts.push({title: box.dataset.title, measured: box.dataset.measured, sets: sets,
                     labels: JSON.parse(box.dataset.roofLabels || "[]"),
                     subtitle: sub && sub.display ? [].concat(sub.text).join(" | ") : ""});
  }
  out.unmeasured = [...document.querySelectorAll("#roof-unmeasured li")].map((li) => li.textContent);
  out.roofRows = [...document.querySelectorAll("#roofs tbody tr")].map((tr) => [...tr.cells].map((c) => c.textContent));
  const heads = [...document.querySelectorAll("#results thead th")].map((th) => th.textContent);
  out.results = [...document.querySelectorAll("#results tbody tr")].map((tr) => {
    const o = {};
    [...tr.cells].forEach((c, i) => { o[heads[i]] = c.textContent; o[heads[i] + ".title"] = c.title; });
    return o;
  });
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
JS
timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync --disable-dev-shm-usage \
  --user-data-dir="$T/chromium" --virtual-time-budget=10000 --hide-scrollbars --allow-file-access-from-files \
  --window-size=1400,1000 --enable-logging=stderr --v=0 --dump-dom "file://$T/probe.html" >"$T/dom.html" 2>"$T/chromium.err"
expect_eq "$?" 0 "chromium --dump-dom"
expect_not_in "$T/chromium.err" 'Uncaught|CONSOLE.*[Ee]rror' "no console errors"
python3 - "$T/dom.html" <<'PY' && ok || fail "what the browser drew"
import html, json, re, sys
m = re.search(r'<pre id="probe">(.*?)</pre>', open(sys.argv[1]).read(), re.S)
assert m, "no probe output"
p = json.loads(html.unescape(m.group(1)))
assert p["status"]["state"] == "done" and p["status"]["errors"] == "" and p["status"]["empty"] == "", p["status"]
charts = {c["title"]: c for c in p["charts"]}
assert set(charts) == {"planted cpu", "Second GPU"}, set(charts)
cpu = charts["planted cpu"]
assert cpu["measured"] == "yes" and "no measured roofs" not in cpu["subtitle"], cpu
assert "fp64 refused by bench peak" in cpu["subtitle"], cpu["subtitle"]
roofs = [s for s in cpu["sets"] if s["kind"] in ("computeroof", "memroof", "datasheet")]
for s in roofs:
    assert s["inside"] == 2, ("a roof line not drawn inside the plot", s)
compute = {s["id"]: s for s in roofs if s["kind"] == "computeroof"}
memory = {s["id"]: s for s in roofs if s["kind"] == "memroof"}
sheet = {s["id"]: s for s in roofs if s["kind"] == "datasheet"}
assert set(compute) == {"fp32", "fp32.1t"} and set(memory) == {"l1", "l2", "dram"} and set(sheet) == {"fp32", "dram"}, roofs
for s in list(compute.values()) + list(memory.values()):
    assert not s["dashed"], s
for s in sheet.values():
    assert s["dashed"], s
# horizontal at the roof's value; slanted: GFLOP/s = AI x GB/s
assert compute["fp32"]["ys"] == [100, 100] and compute["fp32.1t"]["ys"] == [50, 50], compute
for sid, v in (("l1", 400), ("l2", 200), ("dram", 10)):
    s = memory[sid]
    assert all(abs(y - x * v) < 1e-9 * y for x, y in zip(s["xs"], s["ys"])) and s["ys"][0] < s["ys"][1], s
assert sheet["fp32"]["ys"] == [120, 120], sheet
assert all(abs(y - x * 12.8) < 1e-9 * y for x, y in zip(sheet["dram"]["xs"], sheet["dram"]["ys"])), sheet
assert compute["fp32"]["label"] == "fp32 100 GFLOP/s" and memory["l2"]["label"] == "l2 200 GB/s", roofs
assert sheet["dram"]["label"] == "dram data sheet 12.8 GB/s" and sheet["fp32"]["label"] == "fp32 data sheet 120 GFLOP/s", sheet
assert sum(s["inside"] for s in cpu["sets"] if s["kind"] == "case") == 2, cpu  # the two GEMMs with FLOPs and bytes
# each roof's label written on the chart, inside its plot area
drawn = {l["label"]: l for l in cpu["labels"]}
assert set(drawn) == {s["label"] for s in roofs}, (drawn, roofs)
assert {"fp32 100 GFLOP/s", "fp32.1t 50 GFLOP/s", "l1 400 GB/s", "l2 200 GB/s", "dram 10 GB/s",
        "fp32 data sheet 120 GFLOP/s", "dram data sheet 12.8 GB/s"} == set(drawn), drawn
assert all(l["inside"] for l in drawn.values()), drawn
gpu = charts["Second GPU"]
assert gpu["measured"] == "no", gpu
assert "no measured roofs for this device" in gpu["subtitle"] and "bench peak --results-dir" in gpu["subtitle"], gpu
g = [s for s in gpu["sets"] if s["kind"] == "computeroof"]
assert len(g) == 1 and re.fullmatch(r"fp32 33\.[0-9]+ GFLOP/s \(best case\)", g[0]["label"]), g
assert len(p["unmeasured"]) == 1 and p["unmeasured"][0].startswith("Second GPU: no measured roofs for this device"), p["unmeasured"]
assert "bench peak --results-dir" in p["unmeasured"][0], p["unmeasured"]
rows = [r for r in p["roofRows"] if r[0] == "planted cpu"]
assert [r[1] for r in rows[:6]] == ["fp32", "fp32.1t", "l1", "l2", "dram", "lat_l1"], rows
assert rows[0][3] == "100 GFLOP/s" and rows[0][4] == "[98, 102]" and rows[0][6] == "120 GFLOP/s", rows[0]
assert rows[2][5] == "32 KiB" and rows[3][5] == "1 MiB", rows
assert "<img src=x onerror=alert(1)>" in rows[2][7], rows[2]   # shown as text
assert any("fp64 refused" in r[7] for r in rows), rows
res = {r["case"]: r for r in p["results"]}
scale = res["membw_cpu kernel=scale"]
assert re.fullmatch(r"(199|20[01])\.[0-9]\*", scale["% of roof"]) and "above the measured dram roof" in scale["% of roof.title"], scale
assert scale["roof"].startswith("dram · above the measured dram roof: the working set (1.907 MiB) fits in l3"), scale
triad = res["membw_cpu kernel=triad"]
assert re.fullmatch(r"7[45]\.[0-9]", triad["% of roof"]) and triad["roof"] == "l2" and "measured 2026-12-01 by peak_bw size=512KiB" in triad["roof.title"], triad
f64 = res["cpu_gemm m=64 dtype=f64"]
assert f64["% of roof"] == "-" and f64["roof"] == "fp64 · no fp64 roof for this device", f64
PY
finish

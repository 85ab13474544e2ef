#!/usr/bin/env bash
# bench peak on this machine's two devices (the CPU and lavapipe) with the
# shipped CPU and Vulkan peak plugins, then what uses their roofs: the
# roofs files hold checked roofs of both, bench report draws them as
# measured (read back from the page's data), and a later run of ordinary
# plugins on both devices sets each case against a measured roof in its
# result file.
. "$(dirname "$0")/lib.sh"
cat >"$T/quick.ini" <<'INI'
[run]
tier = smoke
warmup_iters = 1
warmup_time = 0
min_samples = 3
max_samples = 1000
min_time = 0.02s
max_time = 0.2s
target_noise = 5%
verify = full
timeout = 120s
INI
R=$T/r
run_bench peak --preset "$T/quick.ini" --results-dir "$R" \
  --plugin 'peak_cpu_fma,peak_cpu_bw,vk_peak_fma,vk_peak_bw,vk_peak_launch'
expect_rc 0 "bench peak on the CPU and lavapipe"
files=("$R"/roofs/*.tsv)
expect_nonempty "roofs files" "${files[@]}"
expect_eq "${#files[@]}" 2 "one roofs file per device"
cpu=$(grep -l '^K	device=[^	]*;driver=-;' "${files[@]}" | head -1)
vk=$(grep -l '^K	device=llvmpipe' "${files[@]}" | head -1)
[ -n "$cpu" ] && [ -n "$vk" ] && ok || fail "roofs files of the CPU and of llvmpipe: ${files[*]}"
has_roof() { awk -F'\t' -v id="$2" '$1 == "M" && $5 == "OK" && $6 == id { f = 1 } END { exit !f }' "$1"; }
for id in fp32.1t fp32 fp64.1t l1.1t l2.1t dram.1t; do
  has_roof "$cpu" "$id" && ok || fail "CPU roof $id missing in $cpu"
done
for id in fp32 fp16 dram launch; do
  has_roof "$vk" "$id" && ok || fail "llvmpipe roof $id missing in $vk"
done
expect_not_in "$cpu" '	(WRONG_ANSWER|REFUSED|ERROR)	' "no refused CPU case"
expect_in "$T/out" '^roofs of llvmpipe' "the roofs table names lavapipe"

# the report draws both devices' roofs as measured
printf 'bench-tuning 1\n' >"$T/tuning.tsv"
run_bench report --results-dir "$R" -o "$T/report.html" --tuning-file "$T/tuning.tsv"
expect_rc 0 "report"
python3 - "$T/report.html" "$cpu" "$vk" <<'PY' && ok || fail "the report's roofs"
import json, sys
html = open(sys.argv[1]).read()
start = html.index("const BENCH = ") + len("const BENCH = ")
data = json.loads(html[start:html.index(";\n</script>", start)])
by_file = {r.get("file"): r for r in data["roofs"]}
for path, want in ((sys.argv[2], {"fp32.1t", "fp32", "l1.1t", "dram.1t"}), (sys.argv[3], {"fp32", "fp16", "dram", "launch"})):
    r = by_file.get(path)
    assert r and r["measured"] is True, (path, list(by_file))
    ids = {l["id"] for l in r["roofs"]}
    assert want <= ids, (path, want - ids)
    for l in r["roofs"]:
        assert l["value"] > 0, l
PY

# an ordinary run on both devices is set against the measured roofs
run_bench --preset "$T/quick.ini" --results-dir "$R" --plugin membw_cpu,vk_fill
expect_rc 0 "a run after bench peak"
python3 - "$R" <<'PY' && ok || fail "cases against measured roofs"
import glob, json, sys
seen = set()
for path in glob.glob(sys.argv[1] + "/*membw_cpu*.json") + glob.glob(sys.argv[1] + "/*vk_fill*.json"):
    for c in json.load(open(path))["cases"]:
        if c["status"] != "OK":
            continue
        assert c.get("roof") and c.get("roof_value", 0) > 0 and c.get("pct_of_roof", 0) > 0, c.get("plugin")
        assert "measured" in c.get("roof_source", ""), c.get("roof_source")
        seen.add(c["plugin"])
assert seen == {"membw_cpu", "vk_fill"}, seen
PY
finish

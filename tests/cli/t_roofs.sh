#!/usr/bin/env bash
# A run against the measured roofs of its results folder (issue 41): with a
# roofs file of this machine's CPU (written by hand in the format of
# results/roofs_file.h), each case's .json (roof, roof_value, pct_of_roof,
# roof_source), .txt ("of roof" column, "roofs" line) and rollup (roof,
# pct_of_roof, roof_source) carry the roof it was measured against; a
# corrupt and a foreign roofs file are said once each and ignored; a folder
# without roofs, or with the roofs of another device only, gets none of it.
# shellcheck disable=SC2015 # `test && ok || fail` (ok never fails)
. "$(dirname "$0")/lib.sh"
FAST=$SRC/tests/cli/presets/fast.ini
run() { run_bench --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_ok --param n=8,32 --results-dir "$1"; }

# --- no roofs: nothing about them ---------------------------------------------
run "$T/none"
expect_rc 0 "a run without roofs"
json=$(ls "$T"/none/*.json)
# the device as roofs files name it: the case's "device" info (the fixture
# names one), else the run's CPU model
cpu=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
print(d["cases"][0]["info"].get("device") or d["env"]["cpu"])' "$json")
expect_nonempty "the device" "$cpu"
expect_not_in "$json" '"(roof|roof_value|pct_of_roof|roof_source|roof_note)":' "no roof fields without roofs"
expect_not_in "${json%.json}.txt" 'of roof|^roofs ' "no roof column without roofs"
expect_eq "$(csv_field "$T/none/rollup.csv" fx_ok n=8 roof)|$(csv_field "$T/none/rollup.csv" fx_ok n=8 pct_of_roof)" "|" \
  "empty roof columns without roofs"
expect_not_in "$T/err" "warning|roof" "no warning without roofs"

# --- a roofs file of this device, a corrupt and a foreign one ------------------------
SHA=$(printf '%064d' 0)
roofs() { # DIR DEVICE
  mkdir -p "$1/roofs"
  {
    printf 'bench-roofs 1\nK\tdevice=%s;driver=-;arch=x86_64\t%s\n' "$2" "$2"
    printf 'M\tpeak_fake\t%s\tkernel=fma\tOK\tfp32\tcompute\tGFLOP/s\t1000\t990\t1010\tfma\t0\t0\t\t2026-12-01T10:00:00Z\t\n' "$SHA"
    printf 'M\tpeak_fake_bw\t%s\tsize=16KiB\tOK\tl1\tbandwidth\tGB/s\t2000\t1990\t2010\tcopy\t1048576\t0\t\t2026-12-01T10:00:00Z\t\n' "$SHA"
    printf 'M\tpeak_fake_bw\t%s\tsize=1GiB\tOK\tdram\tbandwidth\tGB/s\t50\t49\t51\tcopy\t0\t0\t\t2026-12-01T10:00:00Z\t\n' "$SHA"
  } >"$1/roofs/$(printf '%s' "$2" | tr -c 'A-Za-z0-9._-' _).tsv"
}
roofs "$T/r" "$cpu"
printf 'bench-roofs 1\nK\tdevice=x;driver=-;arch=-\tx\nM\tbroken\n' >"$T/r/roofs/corrupt.tsv"
printf 'id,value\nfp32,1\n' >"$T/r/roofs/foreign.tsv"
run "$T/r"
expect_rc 0 "a run with roofs"
expect_eq "$(grep -c 'corrupt.tsv' "$T/err")" 1 "one line about the corrupt roofs file"
expect_eq "$(grep -c 'foreign.tsv' "$T/err")" 1 "one line about the foreign roofs file"
expect_in "$T/err" "warning: '.*/roofs/corrupt.tsv' line 3: not a roofs record \(corrupt file\); ignored" "the corrupt file named"
expect_in "$T/err" "warning: '.*/roofs/foreign.tsv' is not a bench roofs file" "the foreign file named"
json=$(ls "$T"/r/*.json)
python3 - "$json" "$T/r/rollup.csv" <<'PY' && ok || fail "the roof in the .json and the rollup"
import csv, json, sys
d = json.load(open(sys.argv[1]))
rows = {r["params"]: r for r in csv.DictReader(open(sys.argv[2], newline=""))}
assert len(d["cases"]) == 2, d["cases"]
for c in d["cases"]:
    assert c["status"] == "OK" and c["gflops"] > 0, c
    # n^3 GEMM: 2n^3 FLOP on 12 n^2 bytes, which fit l1 (1 MiB here): min(1000, AI x 2000)
    ai = c["flops"] / c["bytes"]
    assert c["roof"] == "fp32+l1" and c["roof_unit"] == "GFLOP/s", c
    assert abs(c["roof_value"] - min(1000, ai * 2000)) < 1e-9, c
    assert abs(c["pct_of_roof"] - 100 * c["gflops"] / c["roof_value"]) < 1e-9 * c["pct_of_roof"] + 1e-12, c
    assert c["roof_source"].startswith("fp32 measured 2026-12-01 by peak_fake kernel=fma; l1 measured 2026-12-01 "
                                       "by peak_fake_bw size=16KiB"), c
    assert c["roof_note"] is None, c          # under 100%, nothing stood in for anything
    assert "roof" not in c["info"], c["info"]  # the info's roof is a peak plugin's own
    row = rows["n=" + c["params"]["n"]]
    assert row["roof"] == "fp32+l1" and row["roof_source"] == c["roof_source"] and row["roof_note"] == "", row
    assert abs(float(row["pct_of_roof"]) - c["pct_of_roof"]) <= 1e-12 * c["pct_of_roof"], (row, c)
PY
txt=${json%.json}.txt
expect_in "$txt" '^roofs +fp32\+l1: fp32 measured 2026-12-01 by peak_fake kernel=fma; l1 measured' "the .txt's roofs line"
expect_in "$txt" ' params .* of roof ' "the .txt's roof column"
expect_in "$txt" '^  0  n=8 .* [0-9.]+% fp32\+l1 ' "case 0's share in the .txt"
expect_in "$txt" '^  1  n=32 .* [0-9.]+% fp32\+l1 ' "case 1's share in the .txt"

# --- the roofs of another device only: none of it --------------------------------
roofs "$T/other" "Some Other CPU 9000"
run "$T/other"
expect_rc 0 "a run with another device's roofs"
json=$(ls "$T"/other/*.json)
expect_not_in "$json" '"pct_of_roof":' "no share from another device's roofs"
expect_not_in "${json%.json}.txt" 'of roof' "no roof column from another device's roofs"
finish

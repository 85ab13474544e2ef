#!/bin/bash
# bench compare reads a device-timed case's GPU telemetry (the result
# files' "telemetry" object): a side whose GPU was steady (no power or
# thermal throttling, no other process, a stable SM clock) is
# device-steady whatever the host CPU's calibration loop recorded, and
# takes its backend's GPU figure (cuda, vulkan: 0.7% + 1%/sqrt(samples);
# hip none yet: the CPU's steady 3% + 5%/sqrt(samples)); a side with a
# reason to doubt its GPU is device-busy (the busy figure) and the output
# says why; a throttled side is never FASTER, SLOWER or SAME, and is marked.
# The files are planted through the harness's writer (gen_results gpu=...).
. "$(dirname "$0")/lib.sh"

# gen DIR SEED MEDIAN GPU [BACKEND] [DATE]: one run of pg, its header's CPU
# loop busy (as on the H100 node), one device-timed case of 50 samples
# +-0.6% (about 0.25% sd) of 40 iterations (0.18 s timed)
gen() {
  "$GEN" "$1" "$2" <<SPEC || fail "gen $1"
run ${6:-2026-11-20} pg sha256=aa machine=busy
case c=k OK $3 0.006 50 device=1 batch=40 backend=${5:-cuda} $4
SPEC
}
# row CSV: "verdict old_machine/new_machine old_between old_throttled/new_throttled"
row() {
  python3 - "$1" <<'PY'
import csv, sys
r = [r for r in csv.DictReader(open(sys.argv[1], newline="")) if r["params"] == "c=k"][0]
print(f'{r["verdict"]} {r["old_machine"]}/{r["new_machine"]} {float(r["old_between"]):.4f} '
      f'{r["old_throttled"]}/{r["new_throttled"]}')
PY
}

# 1. a steady GPU on both sides, the CPU's loop busy: the GPU figure
#    (0.007 + 0.01/sqrt(50) = 0.0084); 5% slower is SLOWER at a 2%
#    threshold, NOISY at the default 5% (the interval must lie wholly
#    above 1.05), and 8% slower is SLOWER there
gen "$T/old" 1 100000 gpu=steady:1980
gen "$T/new5" 2 105000 gpu=steady:1975
gen "$T/new8" 3 108000 gpu=steady:1980
run_bench compare "$T/old" "$T/new5" --threshold 2% --format csv
expect_rc 1 "5% slower at 2%: a regression"
expect_eq "$(row "$T/out")" "SLOWER device-steady/device-steady 0.0084 no/no" "5% slower, 2% threshold"
run_bench compare "$T/old" "$T/new5" --format csv
expect_rc 0 "5% slower at the default 5%: not called"
expect_eq "$(row "$T/out")" "NOISY device-steady/device-steady 0.0084 no/no" "5% slower, default threshold"
run_bench compare "$T/old" "$T/new8" --format csv
expect_eq "$(row "$T/out")" "SLOWER device-steady/device-steady 0.0084 no/no" "8% slower, default threshold"
run_bench compare "$T/old" "$T/new8"
expect_in "$T/out" "\(default: 0.7% \+ 1%/sqrt\(samples\) of a run's median: both runs device-steady;" \
  "the note names the GPU figure and the device's state"
expect_not_in "$T/out" "throttled" "no throttle mark on steady sides"

# 2. the same build again (another seed, 1% apart): SAME, never FASTER/SLOWER
gen "$T/same" 4 101000 gpu=steady:1980
run_bench compare "$T/old" "$T/same" --format csv
expect_rc 0 "same build"
expect_eq "$(row "$T/out")" "SAME device-steady/device-steady 0.0084 no/no" "same build"
gen "$T/same34" 5 103400 gpu=steady:1980
run_bench compare "$T/old" "$T/same34" --format csv
[[ "$(row "$T/out")" =~ ^(SAME|NOISY)\  ]] && ok || fail "3.4% apart: $(row "$T/out")"

# 3. a throttled new side, 20% slower: NOISY, marked in every format
gen "$T/thr" 6 120000 gpu=throttled:1080
run_bench compare "$T/old" "$T/thr" --format csv
expect_rc 0 "a throttled side is no regression"
expect_eq "$(row "$T/out")" "NOISY device-steady/device-busy 0.0084 no/yes" "throttled new side"
run_bench compare "$T/old" "$T/thr"
expect_in "$T/out" '^pg +c=k +[0-9.]+ us +[0-9.]+ us \(throttled\) .* NOISY' "the table marks the throttled side"
expect_in "$T/out" '^note: 1 case NOISY whatever its interval: a side was throttled .*old 0, new 1' \
  "the last lines say why"
expect_in "$T/out" '^device-busy \(read from the GPU.s telemetry, not the CPU.s loop\): new 1 case \(throttle_reasons 1, throttled_samples 1\)' \
  "the last lines say why the new side is device-busy"
run_bench compare "$T/old" "$T/thr" --format json
python3 - "$T/out" <<'PY' && ok || fail "json: throttled fields"
import json, sys
c = json.load(open(sys.argv[1]))["cases"][0]
assert c["old_throttled"] is False and c["new_throttled"] is True, c
assert c["new"]["throttled"] is True and "75% of 1980 MHz" in c["new"]["throttled_by"], c
assert c["new"]["between_run"]["machine"] == "device-busy", c
assert c["new"]["between_run"]["device_busy"] == ["throttle_reasons", "throttled_samples"], c
assert c["old"]["between_run"]["machine"] == "device-steady" and "device_busy" not in c["old"]["between_run"], c
assert c["verdict"] == "NOISY", c
PY
# ... and the old side throttled, the new one at its level: not SAME
gen "$T/thr_same" 7 120000 gpu=steady:1980
run_bench compare "$T/thr" "$T/thr_same" --format csv
expect_eq "$(row "$T/out")" "NOISY device-busy/device-steady 0.1283 yes/no" "throttled old side, same level"

# 4. device-busy: a power cap, another process, a moving clock; and two
#    steady GPUs at clocks 4% apart (the clock moved between the runs)
for kind in powercap busy clock; do
  gen "$T/$kind" 8 105000 gpu=$kind:1980
  run_bench compare "$T/old" "$T/$kind" --threshold 2% --format csv
  expect_eq "$(row "$T/out")" "NOISY device-steady/device-busy 0.0084 no/no" "$kind: the busy figure, NOISY"
done
run_bench compare "$T/old" "$T/clock"
expect_in "$T/out" '^device-busy .*: new 1 case \(clock_unstable 1\)' "an unstable clock, named"
expect_in "$T/out" "\(default: 0.7% \+ 1%/sqrt\(samples\) of a run's median where its GPU was steady \(cuda.s figure, measured on a GPU\), 10% \+ 20%/sqrt\(samples\) where busy, not recorded or the case timed under 0.1s \(its run's or its GPU's\): old run device-steady; new run device-busy;" \
  "both figures, and which side took which"
gen "$T/moved" 9 105000 gpu=steady:1900
run_bench compare "$T/old" "$T/moved" --threshold 2% --format csv
expect_eq "$(row "$T/out")" "NOISY device-busy/device-busy 0.1283 no/no" "clocks 4% apart"
run_bench compare "$T/old" "$T/moved"
expect_in "$T/out" '^device-busy .*: old 1 case \(clocks_moved 1\); new 1 case \(clocks_moved 1\)' "clocks moved, named"

# 5. the in-band clock alone classes the device too
gen "$T/ib_old" 1 100000 gpu=inband:1980
gen "$T/ib_new" 2 105000 gpu=inband:1980
run_bench compare "$T/ib_old" "$T/ib_new" --threshold 2% --format csv
expect_eq "$(row "$T/out")" "SLOWER device-steady/device-steady 0.0084 no/no" "in-band clock only"

# 6. hip has no GPU figure: a steady GPU takes the CPU's steady one, and says so
gen "$T/h_old" 1 100000 gpu=steady:1980 hip
gen "$T/h_new" 2 105000 gpu=steady:1980 hip
run_bench compare "$T/h_old" "$T/h_new" --threshold 2% --format csv
expect_eq "$(row "$T/out")" "NOISY device-steady/device-steady 0.0371 no/no" "hip: the CPU's steady figure"
run_bench compare "$T/h_old" "$T/h_new"
expect_in "$T/out" "\(default: 3% \+ 5%/sqrt\(samples\) of a run's median: both runs device-steady;" "hip's note"

# 7. no telemetry: the run header's CPU loop decides, as before (busy here)
gen "$T/n_old" 1 100000 ""
gen "$T/n_new" 2 108000 ""
run_bench compare "$T/n_old" "$T/n_new" --format csv
expect_eq "$(row "$T/out")" "NOISY busy/busy 0.1283 no/no" "no telemetry"

# 8. bench history judges the same way: an 8% step on a steady GPU is a
#    shift, a throttled 20% one is not
mkdir -p "$T/h"
gen "$T/h" 1 100000 gpu=steady:1980 cuda 2026-11-18
gen "$T/h" 2 108000 gpu=steady:1980 cuda 2026-11-19
gen "$T/h" 3 130000 gpu=throttled:1080 cuda 2026-11-20
run_bench history --results-dir "$T/h"
expect_rc 0 "history"
expect_in "$T/out" '^pg +c=k .* 2026-11-19 SLOWER x1\.0[0-9]*$' "history: the steady step only"
finish

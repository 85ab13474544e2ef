#!/usr/bin/env bash
# bench tune on fx_tune (64 configurations: optimum tx=5 ty=3, tx=8 ty=1
# fast but wrong, tx=8 ty=8 over the "device" limit): the wrong one is
# disqualified and listed, never the winner; the one the device cannot run
# is listed as skipped; a run then takes the winner for tunables at auto and
# says so on its line, in the .txt and the JSON; a pinned value stays; a
# changed plugin binary invalidates its entries; a foreign cache file is
# refused with one line and never overwritten.
. "$(dirname "$0")/../cli/lib.sh"

P=(--plugin fx_tune --plugin-dir "$T/plugins")
mkdir -p "$T/plugins"
cp "$FX_TUNE/fx_tune.so" "$T/plugins/"
C="$T/cache.tsv"

# ---- tune: the optimum wins, the wrong and the impossible are listed
run_bench tune "${P[@]}" --tuning-file "$C" --param base_us=30
expect_rc 0 "tune"
expect_in "$T/out" '^fx_tune n=256 base_us=30 noise=0\.08 limit=63: winner tx=5 ty=3 '
expect_in "$T/out" '^  disqualified: tx=8 ty=1 \(WRONG_ANSWER: copy: 1 of 256 elements out of tolerance'
expect_in "$T/out" '^  cannot run here: tx=8 ty=8 \(SKIPPED: work-group of 64 over this device.s limit 63\)'
expect_in "$T/out" '^  64 of 64 candidates tried \([0-9]+ measured now\), 1 disqualified, 1 skipped'
expect_in "$T/out" '^tune: round 1 \(6 samples\): [0-9]+ of 64 candidates left, leader tx=[0-9] ty=[0-9] '
expect_eq "$(grep -c '^M	' "$C")" 64 "one measurement record per candidate"
expect_eq "$(grep -c '^W	' "$C")" 1 "one winner"
expect_in "$C" '^M	.*	tx=8 ty=1	WRONG_ANSWER	'
# the winner against the default: through bench ab's driver (paired rounds
# of separate workers), named in the output and in the winner's record
expect_in "$T/out" '^tune: final: tx=5 ty=3 against the default tx=1 ty=1: [0-9.]+x \[[0-9.]+, [0-9.]+\] FASTER \([0-9]+ rounds, [0-9]+ pairs\)$'
expect_in "$T/out" 'speedup over the default tx=1 ty=1 [0-9.]+x \[[0-9.]+, [0-9.]+\] FASTER \(paired: [0-9]+ rounds, [1-9][0-9]* pairs\)$'
expect_in "$C" '^W	.*	tx=5 ty=3	[^	]* halving [0-9.e+]+ [0-9.e+]+ [0-9.e+]+ FASTER [1-9][0-9]* [1-9][0-9]*$'
expect_in "$C" '^W	device=fx_tune device;driver=1\.0;arch=[^|]*\|plugin=fx_tune\|sha256=[0-9a-f]{64}\|abi=1\.4\|n=256 base_us=30 noise=0\.08 limit=63	tx=5 ty=3	'

# ---- a rerun measures nothing again (every candidate is in the cache)
run_bench tune "${P[@]}" --tuning-file "$C" --param base_us=30
expect_rc 0 "tune again"
expect_in "$T/out" '^tune: 64 of 64 candidates already measured in .*cache\.tsv \(resuming\)$'
expect_in "$T/out" 'winner tx=5 ty=3 '

# ---- runs: tunables at auto take the winner; a pinned value stays
run_bench "${P[@]}" --preset "$SRC/tests/cli/presets/fast.ini" --tuning-file "$C" --param base_us=30 \
  --results-dir "$T/r"
expect_rc 0 "run with the tuned value"
expect_in "$T/out" "fx_tune n=256 base_us=30 noise=0\.08 limit=63 tx=5 ty=3 +OK "
expect_in "$T/out" "note: tuned \(cache $C\)"
expect_in "$(ls "$T"/r/*fx_tune*.txt | head -1)" "tuned \(cache $C\)" ".txt"
expect_eq "$(csv_field "$T/r/rollup.csv" fx_tune "tx=5 ty=3" tuning)" "tuned (cache $C)" "rollup"
python3 - "$T/r" "$C" <<'PY' && ok || fail "JSON: params and note"
import glob, json, sys
(path,) = glob.glob(sys.argv[1] + "/*fx_tune*.json")
(c,) = json.load(open(path))["cases"]
assert c["params"]["tx"] == "5" and c["params"]["ty"] == "3", c["params"]
assert c["info"]["note"] == "tuned (cache %s)" % sys.argv[2], c["info"]
PY
run_bench "${P[@]}" --preset "$SRC/tests/cli/presets/fast.ini" --tuning-file "$C" --param base_us=30 \
  --param tx=2 --results-dir "$T/r"
expect_rc 0 "run with a pinned tx"
expect_in "$T/out" "limit=63 tx=2 ty=3 +OK "
run_bench "${P[@]}" --preset "$SRC/tests/cli/presets/fast.ini" --tuning-file "$C" --param base_us=31 \
  --results-dir "$T/r"
expect_rc 0 "run of another problem"
# an untuned case's line leaves out its tunables at their defaults; the
# summary counts it, the files say so
expect_in "$T/out" "base_us=31 noise=0\.08 limit=63 +OK "
expect_in "$T/out" "^1 case ran tunables at their defaults: no tuning entry for this device"
expect_in "$(ls -t "$T"/r/*fx_tune*.txt | head -1)" "default \(no tuning entry\)"
expect_eq "$(csv_field "$T/r/rollup.csv" fx_tune "base_us=31" tuning)" "default (no tuning entry)" "rollup: default"

# ---- a budget spent before the search's best met the default (every
# candidate resumed from the cache, then 1 ms): nothing is installed, the
# output says so, and runs keep the default (issue 39: a winner never shown
# faster was installed)
grep -v '^W	' "$C" >"$T/unproven.tsv"
run_bench tune "${P[@]}" --tuning-file "$T/unproven.tsv" --param base_us=30 --budget 1ms
expect_rc 0 "tune out of budget before the final comparison"
expect_in "$T/out" 'winner tx=1 ty=1 .*; the best measured, tx=5 ty=3 \([0-9.]+ us\), was not compared with it before the budget ran out: nothing installed'
expect_eq "$(grep -c '^W	' "$T/unproven.tsv")" 0 "no winner record for an unproven pick"
run_bench "${P[@]}" --preset "$SRC/tests/cli/presets/fast.ini" --tuning-file "$T/unproven.tsv" --param base_us=30 \
  --results-dir "$T/ru"
expect_rc 0 "run after an unproven tune"
expect_in "$(ls -t "$T"/ru/*fx_tune*.txt | head -1)" "default \(no tuning entry\)"

# ---- the default file of the device, under $XDG_CACHE_HOME
run_bench tune "${P[@]}" --strategy grid --param base_us=30 --param noise=0
expect_rc 0 "tune into the default file"
expect_in "$T/out" "cache $XDG_CACHE_HOME/bench/tuning/fx_tune_device\.tsv$"
expect_in "$T/out" 'winner tx=5 ty=3 '

# ---- a changed plugin binary: its entries are not found any more
printf 'x' >>"$T/plugins/fx_tune.so"
run_bench "${P[@]}" --preset "$SRC/tests/cli/presets/fast.ini" --tuning-file "$C" --param base_us=30 \
  --results-dir "$T/r"
expect_rc 0 "run of the changed plugin"
expect_in "$T/out" "limit=63 +OK "
expect_in "$T/out" "^1 case ran tunables at their defaults"
run_bench tune "${P[@]}" --tuning-file "$C" --param base_us=30 --strategy grid --param noise=0
expect_rc 0 "tune of the changed plugin"
expect_not_in "$T/out" 'already measured'
expect_in "$T/out" '64 of 64 candidates tried \(64 measured now\)'

# ---- a foreign file: refused with one line, left as it was
printf 'not a tuning cache\n' >"$T/foreign.tsv"
run_bench tune "${P[@]}" --tuning-file "$T/foreign.tsv" --param base_us=30 --strategy grid
expect_rc 1 "tune into a foreign file"
expect_eq "$(cat "$T/foreign.tsv")" "not a tuning cache" "foreign file untouched"
expect_in "$T/err" "is not a bench tuning cache"
run_bench "${P[@]}" --preset "$SRC/tests/cli/presets/fast.ini" --tuning-file "$T/foreign.tsv" \
  --results-dir "$T/r"
expect_rc 0 "a run with a foreign file"
expect_eq "$(grep -c 'not a bench tuning cache' "$T/err")" 1 "one line about it"
expect_in "$T/out" "^1 case ran tunables at their defaults"

# ---- finalists: with noise 0.5 and smoke's few samples the neighbours'
# intervals reach the leader's; each is compared with the leader through
# bench ab's driver; the optimum wins, or on a machine too busy to tell
# them apart within smoke's time a neighbour 15% off tied with it (the
# declared order), never the wrong one
run_bench tune "${P[@]}" --preset smoke --tuning-file "$T/final.tsv" --param base_us=30 --param noise=0.5
expect_rc 0 "tune with finalists"
expect_in "$T/out" '^tune: final: tx=[0-9] ty=[0-9] against the leader tx=[0-9] ty=[0-9]: [0-9.]+x .* \([0-9]+ rounds, [0-9]+ pairs\)$'
expect_in "$T/out" "^  finalists: [1-9][0-9]* compared with the leader through bench ab's driver \([1-9][0-9]* rounds, [1-9][0-9]* pairs\)$"
expect_in "$T/out" '^fx_tune n=256 base_us=30 noise=0\.5 limit=63: winner (tx=5 ty=[234]|tx=[46] ty=3) '

# ---- cpu_gemm's variant: a sweep axis that `variant=auto` tunes; a run
# with variant=auto takes the tuned pick; one that names variants sweeps them
G=(--plugin cpu_gemm --plugin-dir "$BUILD/lib/bench/plugins" --preset smoke --param m=48 --param n=48
   --param k=48 --param dtype=f32 --param threads=1 --tuning-file "$T/gemm.tsv")
run_bench tune "${G[@]}" --param variant=auto --strategy grid
expect_rc 0 "tune cpu_gemm's variant"
expect_in "$T/out" '^cpu_gemm m=48 n=48 k=48 dtype=f32 threads=1 isa=auto: winner variant=(packed|blocked|naive) '
expect_in "$T/out" '108 of 108 candidates tried'
expect_eq "$(grep -c '^M	.*	variant=naive mc=0 kc=0 nc=0	OK	' "$T/gemm.tsv")" 1 "naive measured"
picked=$(awk -F'\t' '$1 == "W" { split($3, a, " "); print a[1] }' "$T/gemm.tsv")
expect_nonempty "winner variant" $picked
run_bench "${G[@]}" --param variant=auto --results-dir "$T/g"
expect_rc 0 "run with variant=auto"
expect_in "$T/out" "cpu_gemm $picked m=n=k=48 f32 threads=1 .* OK "
expect_in "$T/out" "note: tuned \(cache $T/gemm.tsv\)"
run_bench "${G[@]}" --param variant=naive,blocked --results-dir "$T/g"
expect_rc 0 "run naming variants"
expect_in "$T/out" '^\[ ?1/2\] cpu_gemm variant=naive m=n=k=48 '
expect_in "$T/out" '^\[ ?2/2\] cpu_gemm variant=blocked m=n=k=48 '

# ---- usage
run_bench tune --plugin fx_ok --plugin-dir "$FX_GOOD"
expect_rc 2 "a plugin without tunables"
expect_in "$T/err" "plugin fx_ok declares no tunable parameters"
run_bench tune "${P[@]}" --strategy best
expect_rc 2 "bad strategy"
expect_in "$T/err" "--strategy must be grid, random or halving, not 'best'"
finish

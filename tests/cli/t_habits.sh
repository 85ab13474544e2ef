#!/usr/bin/env bash
# Habits users bring from hyperfine and Google Benchmark (issue 39): the
# sampling policy on the command line (--warmup, --min-samples, ...,
# recorded in the header), one export file per run (--export-json,
# --export-csv, --export-md), min and max per case (case line, .txt,
# rollup), the peak RSS of each case in every file, and "did you mean" for
# a mistyped option, plugin or command.
# shellcheck disable=SC2015 # `test && ok || fail` (ok never fails)
. "$(dirname "$0")/lib.sh"
FAST=$SRC/tests/cli/presets/fast.ini
FX_PROC=${FX_PROC:-$FX_GOOD/../proc}

# py EXPR FILE...: a python expression over the JSON documents d[0], d[1], ...
py() {
  local expr=$1
  shift
  python3 - "$expr" "$@" <<'PY'
import csv, json, sys
d = [json.load(open(p)) for p in sys.argv[2:]]
print(eval(sys.argv[1]))
PY
}
one_json() { ls "$1"/*_"$2"_*.json 2>/dev/null | head -1; }

# --- the sampling policy from the command line ---------------------------------
run_bench --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_ok,fx_devtime --results-dir "$T/s" \
  --min-samples 7 --max-samples 7 --warmup 3 --target-noise 0.5% --max-time 2s
expect_rc 0 "a run with the sampling overridden"
expect_in "$T/out" "^bench [^:]*: preset fast \(smoke; overridden: --warmup 3 --min-samples 7 --max-samples 7 --max-time 2s --target-noise 0.5%\), 2 cases" \
  "the first line says the preset was overridden"
J=$(one_json "$T/s" fx_ok)
expect_eq "$(py "[c['nsamples'] for c in d[0]['cases']]" "$J")" "[7]" "7 samples, as --min-samples/--max-samples said"
expect_eq "$(py "d[0]['cases'][0]['target_noise']" "$J")" "0.005" "the case's noise target"
expect_eq "$(py "sorted(d[0]['env']['sampling'].items())" "$J")" \
  "[('max_samples', 7), ('max_time_s', 2.0), ('min_samples', 7), ('min_time_s', 0.2), ('overridden', ['warmup_iters', 'warmup_time', 'min_samples', 'max_samples', 'max_time', 'target_noise']), ('stop_rule', 'ci'), ('target_noise', 0.005), ('warmup_iters', 3), ('warmup_time_s', 0.0)]" \
  "env.sampling: the effective values and which came from the command line"
TXT=${J%.json}.txt
expect_in "$TXT" "^sampling +warmup_iters 3, warmup_time 0, min_samples 7, max_samples 7, min_time 200ms, max_time 2s, target_noise 0.5%$" ".txt sampling line"
expect_in "$TXT" "^overridden +warmup_iters, warmup_time, min_samples, max_samples, max_time, target_noise \(from the command line" ".txt overridden line"
# hyperfine's names, and a duration for --warmup
run_bench --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir "$T/s2" --min-runs 4 --max-runs 4 --warmup 20ms
expect_rc 0 "--min-runs/--max-runs and --warmup DURATION"
J=$(one_json "$T/s2" fx_ok)
expect_eq "$(py "(d[0]['cases'][0]['nsamples'], d[0]['env']['sampling']['warmup_iters'], d[0]['env']['sampling']['warmup_time_s'])" "$J")" \
  "(4, 0, 0.02)" "samples and warm-up"
# A preset alone: nothing overridden, and the header says so.
run_bench --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir "$T/s3"
expect_not_in "$T/out" "overridden" "a run without overrides"
J=$(one_json "$T/s3" fx_ok)
expect_eq "$(py "(d[0]['env']['sampling']['min_samples'], d[0]['env']['sampling']['overridden'])" "$J")" "(3, [])" "the preset's own values"
expect_not_in "${J%.json}.txt" "^overridden" ".txt of a run without overrides"

# Bad values and min above max: exit 2, one line, nothing run or written.
bad() { # WHAT PATTERN ARGS...
  local what=$1 pat=$2
  shift 2
  run_bench --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir "$T/bad" "$@"
  expect_rc 2 "$what"
  expect_in "$T/err" "$pat" "$what"
  expect_eq "$(wc -l <"$T/err")" 1 "$what: one line"
  [ ! -e "$T/bad" ] && ok || fail "$what: something was written"
}
bad "--min-samples 0" "^bench: error: bad value '0' for --min-samples: expected an integer from 1 to 1000000" --min-samples 0
bad "--max-time 2m" "bad value '2m' for --max-time: expected a duration" --max-time 2m
bad "--target-noise 5" "bad value '5' for --target-noise: must be from 0.001% to 100%.*write 5%" --target-noise 5
bad "--warmup 0.5" "bad value '0.5' for --warmup: expected a whole number of warm-up iterations .* or a duration with its unit" --warmup 0.5
bad "--min-samples above the preset's max" "error: --min-samples 9 is more than max_samples \(5\) of preset fast" --min-samples 9
bad "--min-samples above --max-samples" "error: --min-samples 9 is more than --max-samples 8" --min-samples 9 --max-samples 8
bad "--min-time above the preset's max_time" "error: --min-time 1s is longer than max_time \(200ms\) of preset fast" --min-time 1s
bad "--warmup longer than max_time" "error: --warmup 1s is longer than max_time \(200ms\) of preset fast" --warmup 1s
run_bench --list --min-samples 3
expect_rc 2 "--min-samples with --list"; expect_in "$T/err" "options of a run, not of --list"

# bench ab: --warmup and --max-time (what its policy uses), in its header too.
run_bench ab "$FX_GOOD/fx_ok.so" "$FX_GOOD/fx_ok.so" --preset "$FAST" --results-dir "$T/ab" --max-time 0.3s --seed 1 \
  --fail-on none
expect_rc 0 "bench ab --max-time"
expect_in "$T/out" "preset fast \(overridden: --max-time 0.3s\), threshold .*, max 0.3 s per case" "ab's first line"
J=$(ls "$T"/ab/*_new.json | head -1)
expect_eq "$(py "(d[0]['env']['sampling']['max_time_s'], d[0]['env']['sampling']['overridden'])" "$J")" "(0.3, ['max_time'])" "ab's header"
run_bench ab "$FX_GOOD/fx_ok.so" "$FX_GOOD/fx_ok.so" --min-samples 3
expect_rc 2 "ab has no --min-samples"; expect_in "$T/err" "unknown option '--min-samples'"
# bench tune takes them too (checked as a run's are).
run_bench tune --plugin fx_ok --max-samples 0
expect_rc 2 "tune --max-samples 0"; expect_in "$T/err" "bad value '0' for --max-samples"
"$BENCH" tune --help >"$T/tune_help"
for o in --warmup --min-samples --max-samples --max-time --target-noise; do expect_in "$T/tune_help" "^  $o[ ,]" "tune --help: $o"; done

# --- min and max ------------------------------------------------------------------
run_bench --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_noisy --results-dir "$T/m" --min-samples 5
expect_rc 0 "fx_noisy"
J=$(one_json "$T/m" fx_noisy)
# the case line: min..max in the median's unit (fx_noisy's samples are 0.5 ms and 4 ms),
# each side formatted as units.c fmt_sig4 does (3 significant digits under 1)
expect_in "$T/out" "fx_noisy n=8 +OK +[0-9.]+ [mun]?s +\+-[0-9.]+% +[0-9.]+\.\.[0-9.]+ " "case line range"
range=$(grep -Eo ' [0-9.]+\.\.[0-9.]+ ' "$T/out" | head -1 | tr -d ' ')
want=$(py "(lambda h, s4: (lambda sc: s4(h['min'] / sc) + '..' + s4(h['max'] / sc))(next(x for x in (1, 1e3, 1e6, 1e9) if h['median'] / x < 999.95 or x == 1e9)))(d[0]['cases'][0]['host'], lambda v: '%.0f' % v if v >= 999.95 else '%.1f' % v if v >= 99.995 else '%.2f' % v if v >= 9.9995 else '%.3f' % v if v >= 0.9995 or v == 0 else '%.3g' % v)" "$J")
expect_eq "$range" "$want" "the range is the JSON's min..max"
expect_eq "$(py "float('$(csv_field "$T/m/rollup.csv" fx_noisy n=8 max_ms)') == d[0]['cases'][0]['host']['max'] / 1e6" "$J")" "True" "rollup max_ms"
expect_in "${J%.json}.txt" "  median +min +max +cv " ".txt has a max column"
# A plugin whose labels fill the line keeps them whole: no range there (the files have it).
COLUMNS=140 run_bench --preset smoke --plugin cpu_gemm --filter variant=naive,dtype=f32 --results-dir "$T/m2"
expect_rc 0 "cpu_gemm, one case"
expect_in "$T/out" "^\[ 1/1\] cpu_gemm variant=naive m=n=k=64 f32 threads=[0-9]+ isa=[a-z0-9]+ +OK +[0-9.]+ [mun]?s +[+-c][^ ]+ +[0-9.]+ GFLOP/s" \
  "a long label whole, without the range"

# --- peak RSS per case ----------------------------------------------------------------
# (A sanitizer build keeps freed memory resident in its quarantine, which
# would hold the first case's 64 MiB through the second: none here.)
for iso in backend case; do
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0" \
    run_bench --preset "$FAST" --plugin-dir "$FX_PROC" --plugin fx_mem --param n=64,1 --results-dir "$T/rss_$iso" \
    --isolation "$iso" --export-md "$T/rss_$iso.md"
  expect_rc 0 "fx_mem under isolation $iso"
  J=$(one_json "$T/rss_$iso" fx_mem)
  method=$(py "d[0]['cases'][0]['memory']['method']" "$J")
  big=$(py "d[0]['cases'][0]['memory']['peak_rss_bytes']" "$J")
  start=$(py "d[0]['cases'][0]['memory']['start_rss_bytes']" "$J")
  small=$(py "d[0]['cases'][1]['memory']['peak_rss_bytes']" "$J")
  [ $((big - start)) -ge $((60 << 20)) ] && ok || fail "$iso: a case that holds 64 MiB peaks $((big - start)) bytes above its start"
  if [ "$method" = case ]; then
    # reset per case: the 1 MiB case after the 64 MiB one peaks lower
    [ "$small" -lt $((big - (32 << 20))) ] && ok || fail "$iso: the 1 MiB case after the 64 MiB one peaked at $small (64 MiB case: $big)"
  else
    echo "note: /proc/self/clear_refs not writable here (method $method): the per-case reset is not checked"
    [ "$small" -ge "$big" ] && ok || fail "$iso: without a reset the high-water mark cannot fall"
  fi
  expect_eq "$(csv_field "$T/rss_$iso/rollup.csv" fx_mem n=64 peak_rss_bytes)" "$big" "$iso: rollup peak_rss_bytes"
  expect_eq "$(csv_field "$T/rss_$iso/rollup.csv" fx_mem n=64 peak_rss_method)" "$method" "$iso: rollup peak_rss_method"
  expect_in "${J%.json}.txt" " +peak_rss$" "$iso: .txt peak_rss column"
  expect_in "${J%.json}.txt" "  n=64  +OK .* (<=)?[0-9.]+ MiB$" "$iso: .txt peak RSS of n=64"
  expect_in "$T/rss_$iso.md" "\| fx\\\\_mem \| n=64 \| OK \|.* MiB \|$" "$iso: Markdown peak RSS"
done

# --- one export file per run ----------------------------------------------------------
mkdir -p "$T/exp"
run_bench --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_ok,fx_devtime,fx_skip --results-dir "$T/e" \
  --export-json "$T/exp/run.json" --export-csv "$T/exp/run.csv" --export-markdown "$T/exp/run.md" --min-samples 4
expect_rc 0 "a run with three exports"
expect_eq "$(py "d[0]['schema']" "$T/exp/run.json")" "bench-run/1" "export schema"
expect_eq "$(py "[p['name'] for p in d[0]['plugins']]" "$T/exp/run.json")" "['fx_devtime', 'fx_ok', 'fx_skip']" "every plugin"
expect_eq "$(py "[(c['plugin'], c['index'], c['status']) for c in d[0]['cases']]" "$T/exp/run.json")" \
  "[('fx_devtime', 0, 'OK'), ('fx_ok', 1, 'OK'), ('fx_skip', 2, 'SKIPPED')]" "every case, in suite order"
expect_eq "$(py "(d[0]['env']['preset'], d[0]['env']['sampling']['min_samples'], d[0]['env']['sampling']['overridden'])" "$T/exp/run.json")" \
  "('fast', 4, ['min_samples'])" "export header"
for p in fx_ok fx_devtime fx_skip; do
  J=$(one_json "$T/e" $p)
  expect_eq "$(py "[c for c in d[0]['cases'] if c['plugin'] == '$p'] == d[1]['cases']" "$T/exp/run.json" "$J")" "True" \
    "$p: the export's cases are the result file's"
  expect_eq "$(py "[p['result_file'] for p in d[0]['plugins'] if p['name'] == '$p']" "$T/exp/run.json")" "['$(basename "$J")']" \
    "$p: its result file named"
done
expect_eq "$(py "[('memory' in c, c['host'] is not None and 'max' in c['host']) for c in d[0]['cases']]" "$T/exp/run.json")" \
  "[(True, True), (True, True), (False, False)]" "export: memory and min/max of the timed cases"
# CSV: the rollup's columns; here the folder holds this run alone, so the same rows
expect_eq "$(head -1 "$T/exp/run.csv")" "$(head -1 "$T/e/rollup.csv")" "export CSV header = rollup's"
expect_eq "$(tail -n +2 "$T/exp/run.csv" | sort)" "$(tail -n +2 "$T/e/rollup.csv" | sort)" "export CSV rows = rollup's"
expect_eq "$(tail -n +2 "$T/exp/run.csv" | wc -l)" 3 "a CSV row per case"
# Markdown: a table with a row per case, and where it ran
expect_in "$T/exp/run.md" '^\| plugin \| case \| status \| median \| noise \| min \| max \| throughput \| check \| peak RSS \|$' "Markdown header"
expect_in "$T/exp/run.md" '^\| fx\\_ok \| n=8 \| OK \| [0-9.]+ [mun]?s \| \+-[0-9.]+% \| [0-9.]+ [mun]?s \| [0-9.]+ [mun]?s \| [0-9.]+ GFLOP/s \| err [0-9.e-]+ \| [0-9.]+ MiB \|$' "Markdown fx_ok row"
expect_in "$T/exp/run.md" '^\| fx\\_skip \| n=8 \| SKIPPED: no frobnicator on this machine \| - \|' "Markdown SKIPPED row"
expect_in "$T/exp/run.md" '^3 cases of 3 plugins, bench .*preset fast \(overridden: min\\_samples\)' "Markdown context"
left=$(find "$T/exp" -name '.*tmp*' | wc -l)
expect_eq "$left" 0 "no temporary file left beside the exports"
# Before the run: a folder that cannot take the file, a folder named, two options naming one file.
run_bench --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir "$T/e2" --export-json "$T/nowhere/x.json"
expect_rc 2 "export into a missing folder"
expect_in "$T/err" "^bench: error: --export-json '$T/nowhere/x.json': cannot write there: No such file or directory$"
[ ! -e "$T/e2" ] && ok || fail "an export that cannot be written ran the suite"
run_bench --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir "$T/e2" --export-csv "$T/exp"
expect_rc 2 "export onto a folder"; expect_in "$T/err" "--export-csv '$T/exp' is a folder"
run_bench --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir "$T/e2" --export-csv "$T/a" --export-md "$T/a"
expect_rc 2 "two exports, one file"; expect_in "$T/err" "--export-csv and --export-md name the same file"
# An export that fails at the end (its folder removed during the run): one
# line, exit 1, the result files kept whole, the other exports written.
mkdir -p "$T/gone"
rm -f "$T/gate"
printf '[run]\ntier = smoke\nmin_samples = 3\nmax_samples = 5\nmax_time = 0.2s\ntimeout = 60s\n' >"$T/gate.ini"
FX_GATE=$T/gate "$BENCH" --preset "$T/gate.ini" --plugin-dir "$FX_PROC" --plugin fx_mem --param n=1 --results-dir "$T/e3" \
  --events "$T/e3.events" --export-json "$T/gone/x.json" --export-csv "$T/exp/late.csv" >"$T/out" 2>"$T/err" &
BPID=$!
wait_for 60 grep -qs TEST_START "$T/e3.events" && ok || fail "the run did not start its case"
rm -rf "$T/gone"
touch "$T/gate"
wait "$BPID"
RC=$?
expect_rc 1 "an export that could not be written"
expect_in "$T/err" "^bench: error: could not write the JSON export $T/gone/x.json: No such file or directory \(the run's result files are kept\)$"
expect_eq "$(grep -c "^bench: error" "$T/err")" 1 "one error line"
expect_in "$T/out" "1 of 1 case run"
J=$(one_json "$T/e3" fx_mem)
expect_eq "$(py "[c['status'] for c in d[0]['cases']]" "$J")" "['OK']" "the result file is kept whole"
expect_eq "$(tail -n +2 "$T/exp/late.csv" | wc -l)" 1 "the other export is written"

# --- did you mean --------------------------------------------------------------------
mean() { # WHAT PATTERN ARGS...
  local what=$1 pat=$2
  shift 2
  run_bench "$@"
  expect_rc 2 "$what"
  expect_in "$T/err" "$pat" "$what"
  expect_eq "$(wc -l <"$T/err")" 1 "$what: one line"
}
mean "a mistyped option" "^bench: error: unknown option '--min-smaples'; did you mean '--min-samples'\? \(see bench --help\)$" \
  --min-smaples 3 --plugin-dir "$FX_GOOD"
mean "a mistyped flag" "unknown option '--requre-check'; did you mean '--require-check'\?" --requre-check
mean "a longer form" "unknown option '--warmup-iters'; did you mean '--warmup'\?" --warmup-iters 3
mean "two as close" "unknown option '--max-tme'; did you mean '--max-time'\?" --max-tme 1s
mean "nothing close" "^bench: error: unknown option '--zzzzzz' \(see bench --help\)$" --zzzzzz
mean "a prefix of several" "ambiguous option '--max' \(--max-samples, --max-time\)" --max 3
mean "another command's option" "unknown option '--treshold'; did you mean '--threshold'\? \(see bench compare --help\)" \
  compare --treshold 5% a b
mean "a mistyped plugin" "^bench: error: no plugin named 'fx_okk'; did you mean 'fx_ok'\? \(found: .*fx_crash, " \
  --plugin-dir "$FX_GOOD" --plugin fx_okk --preset "$FAST" --results-dir "$T/dym"
mean "a plugin two names are close to" "no plugin named 'fx_nodev'; did you mean 'fx_nodev_a' or 'fx_nodev_b'\?" \
  --plugin-dir "$FX_GOOD/../nodev" --plugin fx_nodev --preset "$FAST" --results-dir "$T/dym"
mean "a glob matching nothing" "^bench: error: no plugin named 'fx_q\*' \(found: " \
  --plugin-dir "$FX_GOOD" --plugin 'fx_q*' --preset "$FAST" --results-dir "$T/dym"
mean "a mistyped command" "^bench: error: unknown command 'comapre'; did you mean 'compare'\? \(see bench --help\)$" comapre a b
mean "a far word" "^bench: error: unexpected argument 'xyzzy'" xyzzy
[ ! -e "$T/dym" ] && ok || fail "a mistyped plugin ran something"

finish

#!/usr/bin/env bash
# run_presets_slurm.sh end to end on a real Slurm cluster (tests/slurm/
# cluster.sh: munged, slurmctld and three slurmd on 127.0.0.1, all in this
# test's temporary folder): the smoke preset on CPU and Vulkan plugins over
# two nodes, planted failures (a wrong answer, a crash), a task that reaches
# its time limit (--time 1: Slurm's limits are whole minutes and the task is
# warned 30 s before, so this part takes about 30 s; it runs on its own node
# while the rest goes on), Ctrl-C
# (scancel, what finished is kept, exit 130), --resume (only what is not
# home is submitted), results never overwritten, usage errors. Skipped (77)
# only where slurmctld, slurmd or munged is not installed.
# shellcheck disable=SC2015,SC2012 # `test && ok || fail` (ok never fails); ls of our own names
# shellcheck source=tests/cli/lib.sh
. "$SRC/tests/cli/lib.sh"
# shellcheck source=tests/slurm/cluster.sh
. "$SRC/tests/slurm/cluster.sh"
SCRIPT=$SRC/scripts/run_presets_slurm.sh
export BENCH # no build: the built bench (on this host, which the "nodes" share)

for tool in slurmctld slurmd munged mungekey sbatch squeue scancel scontrol sinfo; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "SKIP: $tool is not installed (Debian: slurm-wlm and munge; scripts/setup-debian.sh test installs them)"
    exit 77
  }
done

trap 'slurm_stop; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
if ! slurm_start "$T/slurm"; then
  echo "FAIL: could not start the test's Slurm cluster as $(id -un) (see above: munged, slurmctld or slurmd refused; tests/slurm/cluster.sh has the recipe)" >&2
  exit 1
fi
# Should the test itself be killed (ctest's timeout), the daemons go too.
(
  while kill -0 $$ 2>/dev/null; do sleep 1; done
  slurm_stop
) >/dev/null 2>&1 </dev/null &

FXARGS=(-- --plugin-dir "$FX_GOOD")
R=$T/r # every run writes here unless it names another --results-dir

# run_slurm OUT ARGS...: the script with its output in OUT.
run_slurm() {
  local out=$1
  shift
  "$SCRIPT" --poll 0.5 --results-dir "$R" "$@" >"$out" 2>&1 </dev/null
  RC=$?
}

# --- a task that exceeds its time limit: in the background, on partition slow.
printf '[run]\ntier = smoke\nmin_samples = 3\nmax_samples = 5\nmax_time = 0.2s\ntimeout = 10min\nheartbeat = 1s\n' >"$T/long.ini"
RT=$T/rt
"$SCRIPT" --poll 1 --partition slow --time 1 --results-dir "$RT" "$T/long.ini" cpu_noop,fx_hang "${FXARGS[@]}" >"$T/out.timeout" 2>&1 </dev/null &
timeout_pid=$!

# --- usage and configuration errors (nothing is submitted).
run_slurm "$T/out" --bogus
expect_rc 2 "an unknown option"
run_slurm "$T/out" --tag-by rack smoke
expect_rc 2 "a bad --tag-by"
run_slurm "$T/out" --partition nope smoke
expect_rc 2 "an unknown partition"
expect_in "$T/out" "no partition 'nope'"
run_slurm "$T/out" --nodes 3 smoke
expect_rc 2 "more nodes than the partition has"
printf 'SLURM_POLL=1\nSLURM_RACK=4\n' >"$T/bad.conf"
run_slurm "$T/out" --config "$T/bad.conf" smoke
expect_rc 2 "an unknown configuration key"
expect_in "$T/out" "bad.conf:2: unknown key 'SLURM_RACK'"
run_slurm "$T/out" smoke fx_ok -- --results-dir x
expect_rc 2 "a bench option the script sets"
run_slurm "$T/out" --config "$SRC/scripts/slurm.conf.example" --help
expect_rc 0 "the configuration template is read"
expect_in "$T/out" '^Options' "--help"

# --- the smoke preset on CPU and Vulkan plugins, every node of the default
# partition, options from a configuration file.
printf '# test\nSLURM_POLL=0.5\nSLURM_TAG_BY="node"\nSLURM_EXCLUSIVE=yes\n' >"$T/slurm.conf"
run_slurm "$T/out" --config "$T/slurm.conf" --results-dir "$R" smoke cpu_noop,cpu_gemm,vk_smoke
expect_rc 0 "smoke on two nodes"
for node in n1 n2; do
  for p in cpu_noop cpu_gemm vk_smoke; do
    [ -f "$R/${TODAY}_${p}_smoke_$node.json" ] && [ -f "$R/${TODAY}_${p}_smoke_$node.txt" ] && ok || fail "missing $p on $node"
  done
  expect_eq "$(ls "$R"/logs/*_smoke_"$node".log 2>/dev/null | wc -l)" 1 "the log of $node"
done
expect_eq "$(python3 -c 'import csv,sys; print(" ".join(sorted(r["tag"] for r in csv.DictReader(open(sys.argv[1])) if r["plugin"] in ("cpu_noop","vk_smoke"))))' "$R/rollup.csv")" "n1 n1 n2 n2" "the rollup's rows of each node"
expect_in "$T/out" 'submitting 2 task\(s\) on n1 n2 \(partition bench\)' "one task per node"
expect_in "$T/out" '^ +TASK +NODE +PRESET +STATE +CASES +ETA' "the live table"
expect_in "$T/out" '^ +[01] +n[12] +smoke +COMPLETED +1[0-9]/1[0-9] ' "a completed task in the table"
expect_in "$T/out" '^  smoke @ n1: [0-9]+ ok, 0 skipped, 0 failed' "summary line"
expect_in "$T/out" 'all cases OK or SKIPPED' "summary"
ls "$R"/diag_* >/dev/null 2>&1 && fail "a diag file for a clean run" || ok
[ ! -e "$R/.slurm" ] && ok || fail "the run folder was left behind"

# --- --resume with planted failures: only what is not home is submitted.
run_slurm "$T/out" --resume --results-dir "$R" smoke cpu_noop,vk_smoke,fx_wrong,fx_crash "${FXARGS[@]}"
expect_rc 1 "a wrong answer and a crash"
expect_in "$T/out" 'smoke on n1: skipping cpu_noop vk_smoke' "what resume skipped"
[ ! -e "$R/${TODAY}_cpu_noop_smoke_n1.2.json" ] && ok || fail "cpu_noop ran again"
for node in n1 n2; do
  log=$(ls "$R"/logs/*_smoke_"$node".log | tail -n 1)
  expect_in "$log" '"plugins":\["fx_crash","fx_wrong"\]' "the resumed run of $node has only the missing plugins"
  expect_eq "$(csv_field "$R/rollup.csv" fx_wrong "n=8" status)" WRONG_ANSWER "fx_wrong in the rollup"
  diag=$(ls "$R"/diag_*_smoke_"$node".txt 2>/dev/null | head -n 1)
  [ -n "$diag" ] && ok || fail "no diag file for $node"
  [ -z "$diag" ] || expect_in "$diag" "^state FAILED \(Slurm: FAILED, reason NonZeroExitCode\); exit status 1; a case failed"
  [ -z "$diag" ] || expect_in "$diag" '^== free -h'
  [ -z "$diag" ] || expect_in "$diag" 'WRONG_ANSWER'
done
expect_eq "$(csv_field "$R/rollup.csv" fx_crash "n=8" status)" CRASH "fx_crash in the rollup"
expect_in "$T/out" 'smoke @ n2: 0 ok, 0 skipped, 2 failed - a case failed' "summary of the failures"

# Everything that passed is home: nothing submitted.
run_slurm "$T/out" --resume --results-dir "$R" smoke cpu_noop,vk_smoke "${FXARGS[@]}"
expect_rc 0 "resume with nothing left"
expect_not_in "$T/out" 'submitting' "resume with nothing left"
expect_in "$T/out" 'smoke @ n2: - nothing to run' "resume with nothing left"

# A failed result is not home: --resume runs fx_wrong again (kept as .2).
run_slurm "$T/out" --resume --nodelist n1 --results-dir "$R" smoke cpu_noop,fx_wrong "${FXARGS[@]}"
expect_rc 1 "resume of a failed plugin"
expect_in "$T/out" 'smoke on n1: skipping cpu_noop' "resume skips what passed"
[ -f "$R/${TODAY}_fx_wrong_smoke_n1.2.json" ] && ok || fail "the failed fx_wrong was not run again"

# Without --resume, one node named: results never overwritten.
run_slurm "$T/out" --nodelist n2 --results-dir "$R" smoke cpu_noop
expect_rc 0 "a run on one named node"
[ -f "$R/${TODAY}_cpu_noop_smoke_n2.2.json" ] && [ -f "$R/${TODAY}_cpu_noop_smoke_n2.2.txt" ] && ok || fail "the second result of n2 was not kept beside the first"
[ ! -e "$R/${TODAY}_cpu_noop_smoke_n1.2.json" ] && ok || fail "n1 ran though not named"

# --- Ctrl-C: two presets on two nodes (two tasks running, two waiting);
# SIGINT to the script's process group as a terminal sends it.
cp "$T/long.ini" "$T/hang.ini"
cp "$T/long.ini" "$T/hang2.ini"
RC3=$T/rc3
set -m
"$SCRIPT" --poll 0.5 --results-dir "$RC3" "$T/hang.ini,$T/hang2.ini" cpu_noop,fx_hang "${FXARGS[@]}" >"$T/out.int" 2>&1 </dev/null &
spid=$!
set +m
both_hang() { [ "$(grep -l '"event":"TEST_START".*"fx_hang"' "$RC3"/.slurm/*/tasks/*/log 2>/dev/null | wc -l)" -eq 2 ]; }
wait_for 120 both_hang && ok || fail "Ctrl-C: fx_hang did not start on both nodes"
kill -INT -- -"$spid"
wait "$spid"
RC=$?
cp "$T/out.int" "$T/out"
expect_rc 130 "Ctrl-C"
expect_in "$T/out" 'cancelling job array\(s\) [0-9]+ [0-9]+ \(scancel\)' "scancel"
for node in n1 n2; do
  [ -f "$RC3/${TODAY}_cpu_noop_hang_$node.json" ] && ok || fail "what finished on $node was not kept"
  [ ! -e "$RC3/${TODAY}_cpu_noop_hang2_$node.json" ] && ok || fail "hang2 ran on $node"
done
expect_eq "$(csv_field "$RC3/rollup.csv" fx_hang "n=8" status)" INTERRUPTED "the interrupted case is kept"
expect_in "$T/out" 'hang2 @ n[12]: - cancelled \(Ctrl-C\) before it started' "the waiting tasks were cancelled"
[ ! -e "$RC3/.slurm" ] && ok || fail "the run folder was left behind after Ctrl-C"
# (the cancelled jobs leave the queue as their steps end)
queue_empty() { [ "$(squeue -h -p bench -t pending,running,completing -o %i | wc -l)" -eq 0 ]; }
wait_for 60 queue_empty
expect_eq "$(squeue -h -p bench -t pending,running,completing -o %i | wc -l)" 0 "jobs left in the queue after Ctrl-C"

# --- the time limit (started first, in the background).
wait "$timeout_pid"
RC=$?
cp "$T/out.timeout" "$T/out"
expect_rc 1 "a task over its time limit"
expect_in "$T/out" 'TIMEOUT' "the table shows TIMEOUT"
expect_in "$T/out" 'long @ n3: 1 ok, 0 skipped, 1 failed - the task reached its time limit \(--time 1\): stopped by its SIGTERM' "the summary says why"
[ -f "$RT/${TODAY}_cpu_noop_long_n3.json" ] && ok || fail "what finished before the time limit was not kept"
diag=$(ls "$RT"/diag_*_long_n3.txt 2>/dev/null | head -n 1)
[ -n "$diag" ] && ok || fail "no diag file for the time limit"
[ -z "$diag" ] || expect_in "$diag" '^state TIMEOUT \(Slurm: FAILED, reason NonZeroExitCode\); exit status 130, after SIGTERM'
[ -z "$diag" ] || expect_in "$diag" 'TimeLimit=00:01:00'
[ -z "$diag" ] || expect_in "$diag" '^== free -h' "the node's report (written on SIGTERM)"
expect_eq "$(csv_field "$RT/rollup.csv" fx_hang "n=8" status)" INTERRUPTED "the case cut by the time limit"
finish

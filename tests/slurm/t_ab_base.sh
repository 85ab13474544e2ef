#!/usr/bin/env bash
# run_presets_slurm.sh --ab-base REV on the test's own Slurm cluster
# (tests/slurm/cluster.sh): REV (HEAD of this repository, so A=A) is
# unpacked from a git archive and built beside the shared build (only
# cpu_spin), the task on n1 runs `bench ab REV_PLUGINS TREE_PLUGINS` with a
# tiny preset, the old/new result files come home; a second run reuses the
# REV build and ab's exit status comes through; a REV that is no commit is
# refused with one line before anything is submitted. Skipped (77) where
# Slurm, munge or git is missing.
# shellcheck disable=SC2015,SC2012 # `test && ok || fail` (ok never fails); ls of our own names
# shellcheck source=tests/cli/lib.sh
. "$SRC/tests/cli/lib.sh"
# shellcheck source=tests/slurm/cluster.sh
. "$SRC/tests/slurm/cluster.sh"
SCRIPT=$SRC/scripts/run_presets_slurm.sh
export BENCH # the tree's side: this test's build, on the host the "nodes" share
for tool in slurmctld slurmd munged mungekey sbatch squeue scancel scontrol sinfo git tar; do
  command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool is not installed"; exit 77; }
done
git -C "$SRC" rev-parse --verify --quiet 'HEAD^{commit}' >/dev/null || { echo "SKIP: $SRC is not a git checkout"; exit 77; }
trap 'slurm_stop; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
if ! slurm_start "$T/slurm"; then
  echo "FAIL: could not start the test's Slurm cluster" >&2
  exit 1
fi
(
  while kill -0 $$ 2>/dev/null; do sleep 1; done
  slurm_stop
) >/dev/null 2>&1 </dev/null &

R=$T/r
printf '[run]\ntier = smoke\nwarmup_iters = 1\nmin_samples = 3\nmax_samples = 50\nmax_time = 0.3s\ntarget_noise = 50%%\ntimeout = 60s\n' >"$T/tiny.ini"
build_options=(--build-option -DBENCH_TESTS=OFF --build-option -DBENCH_HIP=OFF)
[ "${BENCH_SANITIZE:-OFF}" != ON ] || build_options+=(--build-option -DBENCH_SANITIZE=ON)
run_slurm() {
  "$SCRIPT" --poll 0.5 --nodelist n1 --results-dir "$R" --build-dir "$T/build" "${build_options[@]}" \
    --build-target bench --build-target cpu_spin "$@" >"$T/out" 2>&1 </dev/null
  RC=$?
}
HEAD_SHA=$(git -C "$SRC" rev-parse HEAD)
AB=(-- --param iters=1000 --min-pairs 2 --rounds-per-pair 2)

# --- 1. A=A on n1 ----------------------------------------------------------------
run_slurm --ab-base HEAD "$T/tiny.ini" cpu_spin "${AB[@]}" --fail-on wrong
expect_rc 0 "ab against HEAD on n1"
[ "$RC" -eq 0 ] || tail -n 40 "$T/out"
[ -f "$T/build.ab-base/$HEAD_SHA/built" ] && ok || fail "no REV build beside the build folder"
[ ! -e "$T/build.ab-base/$HEAD_SHA/build/bin/bench" ] && ok || fail "the REV build built bench too"
for side in old new; do
  for ext in json txt; do
    [ -f "$R/${TODAY}_cpu_spin_tiny_${side}.$ext" ] && ok || fail "missing ${TODAY}_cpu_spin_tiny_${side}.$ext"
  done
done
python3 - "$R" "$TODAY" "$HEAD_SHA" <<'PY' && ok || fail "the ab result files"
import json, sys
r, today, sha = sys.argv[1:4]
old = json.load(open(f"{r}/{today}_cpu_spin_tiny_old.json"))
new = json.load(open(f"{r}/{today}_cpu_spin_tiny_new.json"))
assert old["env"]["tag"] == "old" and new["env"]["tag"] == "new"
assert "ab_rounds" in json.dumps(new["cases"])
assert f"build.ab-base/{sha}/build/lib/bench/plugins" in new["env"]["command"], new["env"]["command"]
PY
expect_in "$T/out" "build --ab-base HEAD \\($HEAD_SHA\\)" "the REV build is announced"
expect_in "$T/out" '^  tiny @ n1: - bench ab: no case in --fail-on; 2 result file\(s\) home \[log ' "the summary line"
log=$(ls "$R"/logs/*_tiny_*.log 2>/dev/null | head -n 1)
[ -n "$log" ] && expect_in "$log" 'cpu_spin iters=1000: old .* new .* new/old' "ab's case line in the task's log" || fail "no log of the task"
[ ! -e "$R/.slurm" ] && ok || fail "the run folder was left behind"

# --- 2. again: the REV build is reused; ab's exit status comes through -----------
run_slurm --ab-base "$HEAD_SHA" "$T/tiny.ini" cpu_spin "${AB[@]}" --fail-on bogus
expect_rc 2 "ab refusing --fail-on bogus"
expect_in "$T/out" 'is built already: reused' "the REV build is reused"
expect_not_in "$T/out" 'build --ab-base' "REV built again"

# --- 3. a REV that is no commit: one line, nothing submitted ----------------------
run_slurm --ab-base no-such-rev-xyz "$T/tiny.ini" cpu_spin
expect_rc 2 "a REV that is no commit"
expect_in "$T/out" "^run_presets_slurm\\.sh: error: --ab-base 'no-such-rev-xyz': no such commit" "the bad REV is named"
expect_eq "$(wc -l <"$T/out")" 1 "lines for a bad REV"
finish

#!/usr/bin/env bash
# run_presets_remote.sh --ab-base REV against a real sshd on 127.0.0.1 (this
# machine plays the remote, in a folder of the test's own): REV (HEAD of this
# repository, so A=A) is sent as a git archive, built beside the synced tree
# (whose own build is this test's build) and `bench ab REV_PLUGINS TREE_PLUGINS` runs there on cpu_spin with a tiny
# preset; the old/new result files come home; a second run reuses the REV
# build and ab's exit status comes through; a REV that is no commit is
# refused before anything is synced; a REV that does not build (a commit of
# a tiny repository beside the test) exits 4 with one line and nothing
# half-copied. Skipped (77) where sshd, ssh, rsync or git is missing.
# shellcheck disable=SC2015,SC2012 # `test && ok || fail` (ok never fails); ls of our own names
# shellcheck source=tests/cli/lib.sh
. "$SRC/tests/cli/lib.sh"
# shellcheck source=tests/remote/sshd.sh
. "$(dirname "$0")/sshd.sh"
for tool in "$SSHD_BIN" ssh ssh-keygen rsync git tar; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (scripts/setup-debian.sh)"; exit 77; }
done
git -C "$SRC" rev-parse --verify --quiet 'HEAD^{commit}' >/dev/null || { echo "SKIP: $SRC is not a git checkout"; exit 77; }
trap 'sshd_stop; rm -rf "$T"' EXIT
SCRIPT=$SRC/scripts/run_presets_remote.sh
R=$T/results
RP=$T/rp
export BENCH # the local bench for the rollup and the summary

sshd_start || { fail "sshd did not start"; finish; exit; }
build_options="-DBENCH_TESTS=OFF -DBENCH_HIP=OFF"
[ "${BENCH_SANITIZE:-OFF}" != ON ] || build_options+=" -DBENCH_SANITIZE=ON"
cat >"$T/remote.conf" <<EOF
REMOTE_HOST=127.0.0.1
REMOTE_PATH=$RP
REMOTE_TAG=loopback
SSH_OPTIONS=$SSH_OPTIONS
BUILD_OPTIONS=$build_options
BUILD_JOBS=2
BUILD_TARGETS=bench cpu_spin
EOF
# A tiny preset: one cpu_spin case, a budget of a fraction of a second.
printf '[run]\ntier = smoke\nwarmup_iters = 1\nmin_samples = 3\nmax_samples = 50\nmax_time = 0.3s\ntarget_noise = 50%%\ntimeout = 60s\n' >"$T/tiny.ini"
AB=(-- --param iters=1000 --min-pairs 2 --rounds-per-pair 2)

run_remote() {
  "$SCRIPT" --config "$T/remote.conf" --results-dir "$R" "$@" >"$T/out" 2>&1 </dev/null
  RC=$?
}
show_out() { echo "--- output:"; tail -n 60 "$T/out"; }
HEAD_SHA=$(git -C "$SRC" rev-parse HEAD)

# The tree's own build on the "remote" is this test's build (tests/remote/
# t_remote.sh tests the remote build itself): only REV is built here, so the
# test stays short on a busy machine. The folder is marked as the script's.
mkdir -p "$RP/.bench-remote"
echo "made by t_ab_base.sh" >"$RP/.bench-remote/tree"
mkdir -p "$RP/build"
for d in bin lib share; do ln -s "$BUILD/$d" "$RP/build/$d"; done

# --- 1. A=A: REV built beside the tree, ab on the node, old/new home --------
start=$(date +%s%N)
run_remote --ab-base HEAD --no-build 127.0.0.1 "$T/tiny.ini" cpu_spin "${AB[@]}" --fail-on wrong
echo "remote ab run (sync, the REV build, ab, fetch): $((($(date +%s%N) - start) / 1000000)) ms"
expect_rc 0 "ab against HEAD"
[ "$RC" -eq 0 ] || show_out
[ -f "$RP/.bench-remote/base/$HEAD_SHA/built" ] && ok || fail "no REV build under .bench-remote/base/$HEAD_SHA"
ls "$RP/.bench-remote/base/$HEAD_SHA/build"/lib*/bench/plugins/cpu_spin.so >/dev/null 2>&1 && ok || fail "REV's cpu_spin.so not built"
[ ! -e "$RP/.bench-remote/base/$HEAD_SHA/build/bin/bench" ] && ok || fail "the REV build built bench too"
for side in old new; do
  for ext in json txt; do
    [ -f "$R/${TODAY}_cpu_spin_tiny_${side}.$ext" ] && ok || fail "missing ${TODAY}_cpu_spin_tiny_${side}.$ext: $(ls "$R")"
  done
done
python3 - "$R" "$TODAY" "$HEAD_SHA" <<'PY' && ok || fail "the fetched ab result files"
import json, sys
r, today, sha = sys.argv[1:4]
old = json.load(open(f"{r}/{today}_cpu_spin_tiny_old.json"))
new = json.load(open(f"{r}/{today}_cpu_spin_tiny_new.json"))
assert old["env"]["tag"] == "old" and new["env"]["tag"] == "new", (old["env"].get("tag"), new["env"].get("tag"))
assert "ab_rounds" in json.dumps(new["cases"]), "no rounds in the new side's JSON"
# OLD is the REV build beside the tree, NEW the tree's build
cmd = new["env"]["command"]
assert f".bench-remote/base/{sha}/build/lib/bench/plugins" in cmd and " build/lib/bench/plugins" in cmd, cmd
PY
expect_in "$T/out" "build --ab-base HEAD \\($HEAD_SHA\\)" "the REV build is announced"
expect_in "$T/out" 'bench ab HEAD_PLUGINS TREE_PLUGINS --preset' "the ab run is announced"
expect_in "$T/out" 'cpu_spin iters=1000: old .* new .* new/old' "ab's case line streamed home"
expect_in "$T/out" 'tiny\.ini \(bench ab\): - no case in --fail-on \(verdicts above; log ' "the summary line"
[ -z "$(ls -A "$RP/.bench-remote/runs")" ] && ok || fail "remote run folder not cleaned"
[ -z "$(find "$R" -name '.*' -o -name '*.tmp*')" ] && ok || fail "temporary files left in the results"

# --- 2. again: the REV build is reused; ab's exit status comes through -----
run_remote --ab-base "$HEAD_SHA" --no-sync --no-build 127.0.0.1 "$T/tiny.ini" cpu_spin "${AB[@]}" --fail-on bogus
expect_rc 2 "ab refusing --fail-on bogus"
expect_in "$T/out" 'is built on 127\.0\.0\.1 already: reused' "the REV build is reused"
expect_not_in "$T/out" 'build --ab-base' "REV built again"
expect_in "$T/out" "fail-on takes slower" "ab's own words come home"

# --- 3. a REV that is no commit: one line, nothing synced --------------------
before=$(ls -A "$R" | wc -l)
run_remote --ab-base no-such-rev-xyz --remote-path "$T/rp-none" 127.0.0.1 "$T/tiny.ini" cpu_spin
expect_rc 2 "a REV that is no commit"
expect_in "$T/out" "^run_presets_remote\\.sh: error: --ab-base 'no-such-rev-xyz': no such commit" "the bad REV is named"
expect_eq "$(wc -l <"$T/out")" 1 "lines for a bad REV"
[ ! -e "$T/rp-none" ] && ok || fail "a bad REV synced a tree"
expect_eq "$(ls -A "$R" | wc -l)" "$before" "files in the results folder after a bad REV"

# --- 4. a REV that does not build: a commit of a tiny repository (the
# scripts and a CMakeLists.txt that fails), run against the tree of part 1.
mkdir -p "$T/tiny"
cp -r "$SRC/scripts" "$T/tiny/"
echo 'message(FATAL_ERROR "planted: this commit does not build")' >"$T/tiny/CMakeLists.txt"
git -C "$T/tiny" init -q && git -C "$T/tiny" add -A &&
  git -C "$T/tiny" -c user.name=t -c user.email=t@t commit -q -m broken && ok || fail "tiny repository"
"$T/tiny/scripts/run_presets_remote.sh" --config "$T/remote.conf" --results-dir "$R" --no-sync --no-build \
  --ab-base HEAD 127.0.0.1 "$T/tiny.ini" cpu_spin >"$T/out" 2>&1 </dev/null
RC=$?
expect_rc 4 "a REV that does not build"
expect_in "$T/out" 'planted: this commit does not build' "the build's error is shown"
expect_in "$T/out" "error|warning: --ab-base HEAD \\([0-9a-f]+\\) did not build on 127\\.0\\.0\\.1" "one line says the REV did not build"
expect_not_in "$T/out" 'bench ab .*--preset' "ab ran after a failed REV build"
tiny_sha=$(git -C "$T/tiny" rev-parse HEAD)
[ ! -e "$RP/.bench-remote/base/$tiny_sha/built" ] && ok || fail "a failed REV build marked built"
expect_eq "$(find "$R" -maxdepth 1 -type f -name "${TODAY}_*" | wc -l)" 4 "result files after a failed REV build (part 1's only)"
[ -z "$(find "$R" -name '.*' -o -name '*.tmp*')" ] && ok || fail "temporary files left in the results"
finish

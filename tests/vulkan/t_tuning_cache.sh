#!/usr/bin/env bash
# vk_gemm_auto on bench's tuning cache (issue 25): its tile variant is a
# tunable; bench tune searches the variants for a shape and keeps every
# measurement and the winner in the device's file under
# $XDG_CACHE_HOME/bench/tuning; a run of that shape leaves tile at auto,
# takes the winner and says so; a pinned tile stays; another shape, or no
# cache folder at all, runs the default. Validation layer on throughout.
. "$(dirname "$0")/lib.sh"
[ -f "$PLUGINS/vk_gemm_auto.so" ] || skip "vk_gemm_auto is not built (no libshaderc)"
export VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
cat >"$T/p.ini" <<'INI'
[run]
tier = smoke
warmup_iters = 1
warmup_time = 0
min_samples = 3
max_samples = 5
min_time = 0
max_time = 0.1s
target_noise = 50%
verify = full
[vk_gemm_auto]
m = 48
n = 40
k = 56
dtype = f32
INI

# info FIELD of the single case of the latest run in DIR
info() {
  python3 - "$1" "$2" <<'PY'
import glob, json, sys
c = json.load(open(sorted(glob.glob(sys.argv[1] + "/*.json"))[-1]))["cases"][0]
assert c["status"] == "OK", (c["status"], c["message"], c["stderr_tail"])
print(c["info"].get(sys.argv[2], "<none>"))
PY
}

run_bench tune --preset "$T/p.ini" --plugin vk_gemm_auto --strategy grid
expect_rc 0 "tune"
CACHE=$(sed -n 's/^bench tune: vk_gemm_auto on .*, cache //p' "$T/out")
case "$CACHE" in "$XDG_CACHE_HOME"/bench/tuning/*.tsv) ok ;; *) fail "cache file '$CACHE'" ;; esac
expect_eq "$(grep -c '^M	.*m=48 n=40 k=56 dtype=f32' "$CACHE")" 8 "one record per variant"
winner=$(sed -n 's/.*: winner tile=\([0-9x_]*\) .*/\1/p' "$T/out")
[ -n "$winner" ] && ok || fail "no winner: $(cat "$T/out")"
ls -a "$(dirname "$CACHE")" | grep -q '\.tmp\.' && fail "temporary file left" || ok

run_bench --preset "$T/p.ini" --plugin vk_gemm_auto --results-dir "$T/r1"
expect_rc 0 "run with the tuned tile"
expect_eq "$(info "$T/r1" variant)" "$winner" "the run takes the winner"
expect_eq "$(info "$T/r1" note)" "tuned (cache $CACHE)" "note"

run_bench --preset "$T/p.ini" --plugin vk_gemm_auto --param tile=16x16x16_1x1 --results-dir "$T/r2"
expect_rc 0 "pinned tile"
expect_eq "$(info "$T/r2" variant)" 16x16x16_1x1 "a pinned tile stays"

run_bench --preset "$T/p.ini" --plugin vk_gemm_auto --param m=49 --results-dir "$T/r3"
expect_rc 0 "another shape"
expect_eq "$(info "$T/r3" variant)" 64x64x8_4x4 "the default for an untuned shape"
expect_eq "$(info "$T/r3" note)" "default (no tuning entry)" "its note"

env -u HOME -u XDG_CACHE_HOME "$BENCH" --preset "$T/p.ini" --plugin vk_gemm_auto --results-dir "$T/r5" >"$T/out" 2>&1
RC=$?
expect_rc 0 "no cache directory"
expect_eq "$(info "$T/r5" note)" "default (no tuning entry)" "no cache folder: the default"
finish

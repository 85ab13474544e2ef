#!/usr/bin/env bash
# vk_gemm_auto's tuning cache: the first run searches and stores the
# winner under $XDG_CACHE_HOME/bench; the second run of the same shape does
# not search and picks the same variant; BENCH_VK_RETUNE searches again; a
# stale entry is replaced; other entries survive; without a cache
# directory it still runs. Validation layer on throughout.
. "$(dirname "$0")/lib.sh"
[ -f "$PLUGINS/vk_gemm_auto.so" ] || skip "vk_gemm_auto is not built (no libshaderc)"
export VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
CACHE="$XDG_CACHE_HOME/bench/vk_gemm_auto.tsv"
cat >"$T/p.ini" <<'INI'
[run]
tier = smoke
warmup_iters = 1
warmup_time = 0
min_samples = 2
max_samples = 3
min_time = 0
max_time = 0.1s
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

run_bench --preset "$T/p.ini" --plugin vk_gemm_auto --results-dir "$T/r1"
expect_rc 0 "first run"
first=$(info "$T/r1" variant)
case "$(info "$T/r1" tuning)" in searched*"cached in $CACHE") ok ;; *) fail "first run: $(info "$T/r1" tuning)" ;; esac
[ "$(grep -c 'm=48 n=40 k=56 dtype=f32' "$CACHE")" = 1 ] && ok || fail "cache entry: $(cat "$CACHE")"
grep -q "	$first	" "$CACHE" && ok || fail "cache holds another variant than $first"
ls -a "$(dirname "$CACHE")" | grep -q tmp && fail "temporary file left" || ok

echo "foreign key	64x64x8_4x4	1	1" >>"$CACHE"
run_bench --preset "$T/p.ini" --plugin vk_gemm_auto --results-dir "$T/r2"
expect_rc 0 "second run"
case "$(info "$T/r2" tuning)" in "cache hit in $CACHE") ok ;; *) fail "second run searched: $(info "$T/r2" tuning)" ;; esac
[ "$(info "$T/r2" variant)" = "$first" ] && ok || fail "second run chose $(info "$T/r2" variant), first $first"

BENCH_VK_RETUNE=1 run_bench --preset "$T/p.ini" --plugin vk_gemm_auto --results-dir "$T/r3"
expect_rc 0 "retune"
case "$(info "$T/r3" tuning)" in searched*) ok ;; *) fail "BENCH_VK_RETUNE=1 did not search" ;; esac
grep -q '^foreign key' "$CACHE" && ok || fail "other entries lost"
[ "$(grep -c 'm=48 n=40 k=56 dtype=f32' "$CACHE")" = 1 ] && ok || fail "duplicate entries"

sed -i 's/\(m=48 n=40 k=56 dtype=f32\)\t[^\t]*/\1\t999x1x1_1x1/' "$CACHE"
run_bench --preset "$T/p.ini" --plugin vk_gemm_auto --results-dir "$T/r4"
expect_rc 0 "stale entry"
case "$(info "$T/r4" tuning)" in searched*) ok ;; *) fail "stale entry used: $(info "$T/r4" tuning)" ;; esac
grep -q '999x1x1_1x1' "$CACHE" && fail "stale entry kept" || ok

env -u HOME -u XDG_CACHE_HOME "$BENCH" --preset "$T/p.ini" --plugin vk_gemm_auto --results-dir "$T/r5" >"$T/out" 2>&1
RC=$?
expect_rc 0 "no cache directory"
case "$(info "$T/r5" tuning)" in *"not cached: neither XDG_CACHE_HOME nor HOME is set") ok ;; *) fail "no cache dir: $(info "$T/r5" tuning)" ;; esac
finish

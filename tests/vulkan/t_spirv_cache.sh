#!/usr/bin/env bash
# The SPIR-V cache of run-time compiles (vk_gemm_auto): a first run compiles
# and writes $XDG_CACHE_HOME/bench/spirv/*.spv; the next run reads it (a hit,
# no compile) and gets the same output; a corrupt or truncated file is
# ignored, recompiled and replaced; BENCH_NO_SPIRV_CACHE=1 bypasses it.
. "$(dirname "$0")/lib.sh"
[ -f "$PLUGINS/vk_gemm_auto.so" ] || skip "vk_gemm_auto is not built (no libshaderc)"
DIR="$XDG_CACHE_HOME/bench/spirv"
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

# the single case of DIR: "<vk_spirv_cache info>|<output_hash>"
info() {
  python3 - "$1" <<'PY'
import glob, json, sys
c = json.load(open(sorted(glob.glob(sys.argv[1] + "/*.json"))[-1]))["cases"][0]
assert c["status"] == "OK", (c["status"], c["message"], c["stderr_tail"])
print(c["info"].get("vk_spirv_cache", "<none>") + "|" + str(c["output_hash"]))
PY
}

run_bench --preset "$T/p.ini" --plugin vk_gemm_auto --results-dir "$T/r1"
expect_rc 0 "first run"
first=$(info "$T/r1")
case "$first" in "0 hits, "[1-9]*" miss"*" in $DIR|"*) ok ;; *) fail "first run: expected misses only: $first" ;; esac
n=$(find "$DIR" -name '*.spv' | wc -l)
[ "$n" -ge 1 ] && ok || fail "no .spv file in $DIR"
[ -z "$(find "$DIR" -name '*.tmp.*')" ] && ok || fail "temporary files left in $DIR"
head -c 8 "$(find "$DIR" -name '*.spv' | head -1)" | grep -q '^VKHSPV1$' && ok || fail "not a cache file"

run_bench --preset "$T/p.ini" --plugin vk_gemm_auto --results-dir "$T/r2"
expect_rc 0 "second run"
second=$(info "$T/r2")
case "$second" in "1 hit, 0 misses in $DIR|"*) ok ;; *) fail "second run: expected one hit: $second" ;; esac
[ "${second#*|}" = "${first#*|}" ] && ok || fail "cached SPIR-V gave another output: ${first#*|} vs ${second#*|}"
[ "$(find "$DIR" -name '*.spv' | wc -l)" -eq "$n" ] && ok || fail "a hit wrote a new file"

# Corrupt every file: a byte of the words flipped; then truncated.
for f in "$DIR"/*.spv; do
  printf '\x55\x55\x55\x55' | dd of="$f" bs=1 seek=60 conv=notrunc status=none
done
run_bench --preset "$T/p.ini" --plugin vk_gemm_auto --results-dir "$T/r3"
expect_rc 0 "corrupt cache"
third=$(info "$T/r3")
case "$third" in "0 hits, 1 miss (corrupt files replaced) in $DIR|${first#*|}") ok ;;
  *) fail "corrupt files: expected a recompile with the same output: $third" ;; esac
run_bench --preset "$T/p.ini" --plugin vk_gemm_auto --results-dir "$T/r4"
case "$(info "$T/r4")" in "1 hit, 0 misses in "*) ok ;; *) fail "the corrupt file was not replaced: $(info "$T/r4")" ;; esac
for f in "$DIR"/*.spv; do truncate -s 30 "$f"; done
run_bench --preset "$T/p.ini" --plugin vk_gemm_auto --results-dir "$T/r5"
expect_rc 0 "truncated cache"
case "$(info "$T/r5")" in "0 hits, 1 miss (corrupt files replaced) in "*) ok ;;
  *) fail "truncated files: $(info "$T/r5")" ;; esac

rm -rf "$DIR"
BENCH_NO_SPIRV_CACHE=1 run_bench --preset "$T/p.ini" --plugin vk_gemm_auto --results-dir "$T/r6"
expect_rc 0 "BENCH_NO_SPIRV_CACHE=1"
case "$(info "$T/r6")" in "off|${first#*|}") ok ;; *) fail "bypass: $(info "$T/r6")" ;; esac
[ ! -e "$DIR" ] && ok || fail "BENCH_NO_SPIRV_CACHE=1 wrote $DIR"
finish

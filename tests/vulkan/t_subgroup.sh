#!/usr/bin/env bash
# No kernel assumes a subgroup size (NVIDIA 32, AMD 32 or 64, lavapipe 8)
# or a workgroup size: (1) a static check of every shader source for a
# literal lane count or workgroup size, itself checked on planted lines;
# (2) the kernels run at workgroup sizes forced with the BENCH_VK_WG test
# hook (powers of two, 100: not a multiple of any subgroup size, so the
# last subgroup is partial, and 1), each case checked against the
# reference, with the validation layer on; vk_rmsnorm's own wg parameter
# the same; a size over the device's limits is SKIPPED naming the limit.
. "$(dirname "$0")/lib.sh"

# ---- (1) static: the shader sources ----
# A lane count compared or used as a bound, a literal workgroup size, a
# shared array sized by a lane count, a shuffle by a literal width.
scan() {
  grep -nE \
    -e 'gl_Subgroup(Size|InvocationID|ID)[[:space:]]*([=!<>]=?|[%&/*])[[:space:]]*[0-9]' \
    -e '[0-9][[:space:]]*([=!<>]=?|[%&/*])[[:space:]]*gl_Subgroup(Size|InvocationID|ID)\b' \
    -e 'gl_NumSubgroups[[:space:]]*([=!<>]=?)[[:space:]]*[0-9]' \
    -e 'gl_WorkGroupSize\.[xyz][[:space:]]*[/%][[:space:]]*(8|16|32|64)u?\b' \
    -e 'local_size_[xyz][[:space:]]*=[[:space:]]*[0-9]' \
    -e 'subgroup(Shuffle(Xor|Up|Down)?|Broadcast|ClusteredAdd|ClusteredMax)[[:space:]]*\([^;]*,[[:space:]]*(8|16|32|64)u?[[:space:]]*\)' \
    -e '\b(WARP|WAVE|SUBGROUP)(_SIZE)?[[:space:]]*=?[[:space:]]*(8|16|32|64)\b' \
    -e '#define[[:space:]]+(WARP|WAVE|SUBGROUP)[A-Z_]*[[:space:]]+[0-9]' \
    "$@"
}
planted="$T/planted.comp"
cat >"$planted" <<'GLSL'
if (gl_SubgroupInvocationID < 32) x = 1;
if (gl_SubgroupSize == 64) x = 2;
layout(local_size_x = 256) in;
float v = subgroupShuffleXor(x, 16);
shared float part[gl_WorkGroupSize.x / 32];
#define WAVE_SIZE 64
uint lane = gl_SubgroupInvocationID % 32;
GLSL
got=$(scan "$planted" | wc -l)
[ "$got" -eq 7 ] && ok || { fail "the scan finds $got of 7 planted assumptions"; scan "$planted"; }
shaders=("$SRC"/plugins/vulkan/shaders/*.comp "$SRC"/plugins/vulkan/shaders/*.glsl)
expect_nonempty "shader sources" "${shaders[@]}"
# gemm_tiled.comp's one literal layout is the run-time variant of
# vk_gemm_auto, sized by the tile's own defines (TILE_BM/TILE_TM ...).
bad=$(scan "${shaders[@]}" | grep -v 'local_size_x = (TILE_BM / TILE_TM) \* (TILE_BN / TILE_TN)')
[ -z "$bad" ] && ok || fail "a shader assumes a subgroup or workgroup size:
$bad"

# ---- (2) the kernels at forced workgroup sizes ----
export VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
cat >"$T/p.ini" <<'INI'
[run]
tier = smoke
warmup_iters = 0
min_samples = 1
max_samples = 1
min_time = 0
max_time = 0.1s
[vk_copy]
size = 4112
[vk_fill]
size = 4112
[vk_gemm]
m = 33
n = 17
k = 47
dtype = f32
INI
for p in softmax layernorm layernorm_rmsnorm_fused; do
  for t in "" _tiled; do printf '[vk_%s%s]\nrows = 3\ncols = 1001\ndtype = f32\n' "$p" "$t" >>"$T/p.ini"; done
done
hooked=vk_copy,vk_fill,vk_gemm,vk_softmax,vk_softmax_tiled,vk_layernorm,vk_layernorm_tiled
hooked+=,vk_layernorm_rmsnorm_fused,vk_layernorm_rmsnorm_fused_tiled

# workgroup: every case OK, and ran at the forced size
at_size() {
  python3 - "$1" "$2" <<'PY'
import glob, json, sys
wg, n, bad = sys.argv[2], 0, []
for path in glob.glob(sys.argv[1] + "/*.json"):
    for c in json.load(open(path))["cases"]:
        n += 1
        if c["status"] != "OK":
            bad.append(f"{c['plugin']}: {c['status']} {c.get('message')}")
        elif c["info"].get("vk_workgroup") != wg:
            bad.append(f"{c['plugin']}: vk_workgroup {c['info'].get('vk_workgroup')}, not {wg}")
print("\n".join(bad) if n else "no cases")
PY
}
for wg in 32 64 128 256 100 1; do
  BENCH_VK_WG=$wg run_bench --preset "$T/p.ini" --plugin "$hooked" --results-dir "$T/r$wg"
  expect_rc 0 "BENCH_VK_WG=$wg"
  check_results "$T/r$wg" OK "" "$hooked" && ok || fail "BENCH_VK_WG=$wg: not every case OK and silent"
  bad=$(at_size "$T/r$wg" "$wg")
  [ -z "$bad" ] && ok || fail "BENCH_VK_WG=$wg: $bad"
done

# vk_rmsnorm's own wg (not the hook), tiled and not.
for t in "" _tiled; do
  printf '[vk_rmsnorm%s]\nrows = 3\ncols = 1001\ndtype = f32\nwg = 32,64,128,256,100,1\n' "$t" >>"$T/p.ini"
done
run_bench --preset "$T/p.ini" --plugin vk_rmsnorm,vk_rmsnorm_tiled --results-dir "$T/rms"
expect_rc 0 "vk_rmsnorm wg"
check_results "$T/rms" OK "" vk_rmsnorm,vk_rmsnorm_tiled && ok || fail "vk_rmsnorm wg: not every case OK"
n=$(python3 -c 'import glob,json,sys; print(sum(len(json.load(open(p))["cases"]) for p in glob.glob(sys.argv[1]+"/*.json")))' "$T/rms")
[ "$n" = 12 ] && ok || fail "vk_rmsnorm wg: $n cases, expected 12"

# Over the device's limits: SKIPPED with the limit named, never a driver error.
BENCH_VK_WG=65536 run_bench --preset "$T/p.ini" --plugin vk_softmax_tiled,vk_copy --results-dir "$T/big"
expect_rc 0 "BENCH_VK_WG=65536"
check_results "$T/big" SKIPPED "over maxComputeWorkGroup(Size|Invocations)" vk_softmax_tiled,vk_copy \
  && ok || fail "BENCH_VK_WG=65536: not SKIPPED naming the limit"
finish

#!/usr/bin/env bash
# run_batch of the vk helpers through the harness: with warm batched samples
# (batch_min_time past a single dispatch) the vk plugins record n dispatches
# in one command buffer; under the validation layer every case is still OK,
# silent, verified after the batches, and timed in batches of more than one
# iteration. batch = cold times single run() calls. (The harness sizes a
# batch from the last warm-up iterations' device time: five warm-ups keep
# the first, slow one out of it.)
. "$(dirname "$0")/lib.sh"
export VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
PL=vk_smoke,vk_gemm,vk_rmsnorm_tiled,vk_softmax
for mode in warm cold; do
  cat >"$T/$mode.ini" <<INI
[run]
tier = smoke
warmup_iters = 5
min_samples = 3
max_samples = 3
min_time = 0
max_time = 1s
batch_min_time = 20ms
batch = $mode
verify = full
INI
done
run_bench --preset "$T/warm.ini" --plugin "$PL" --param dtype=f32 --results-dir "$T/warm"
expect_rc 0 "warm batches"
check_results "$T/warm" OK "" "$PL" && ok || fail "warm batches: results"
run_bench --preset "$T/cold.ini" --plugin "$PL" --param dtype=f32 --results-dir "$T/cold"
expect_rc 0 "cold"
check_results "$T/cold" OK "" "$PL" && ok || fail "cold: results"
# iterations per sample: above 1 for the smallest cases when warm, 1 when cold
python3 - "$T" <<'PY' && ok || fail "batch sizes"
import glob, json, sys
t = sys.argv[1]
def batches(mode):
    return {(c["plugin"], json.dumps(c["params"])): c["batch"]
            for f in glob.glob(f"{t}/{mode}/*.json") for c in json.load(open(f))["cases"]}
warm, cold = batches("warm"), batches("cold")
bad = [f"cold {k}: batch {b}" for k, b in cold.items() if b != 1]
if warm.get(("vk_smoke", "{}"), 0) < 2:
    bad.append(f"warm vk_smoke: batch {warm.get(('vk_smoke', '{}'))}, expected > 1")
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
PY
finish

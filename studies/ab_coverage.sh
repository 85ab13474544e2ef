#!/usr/bin/env bash
# Do bench ab's and bench compare's intervals hold? (issue 43; a benchmark,
# not a test: tests/ab/t_ab_coverage.sh runs a reduced version of it)
# Plants known ratios new/old (RATIOS, default 1.00 1.01 1.02 1.05 0.98)
# into five kinds of kernel, each built once per ratio with its work scaled
# (studies/ab_coverage/ab_kinds.c, ab_kinds_vk.c):
#   chain    compute-bound: a dependent LCG chain (~2.6 ms a call)
#   stream   memory-bound: the sum of a float buffer of 2x the last-level
#            cache (read at run time; 32 MiB at least)
#   chase    latency-bound: 10,000 dependent loads over 2x the last-level cache
#   threads  a 2-thread kernel: two chains, a thread each, started every call
#   vulkan   a buffer copy by a compute shader (on lavapipe here), 16 MiB
# and for TRIALS trials (default 20) of every kind and ratio (kinds and
# ratios interleaved within a trial) runs, on BUDGET seconds a case
# (default 10):
#   ab       bench ab OLD NEW (its max_time the budget)
#   seq      two sequential runs (bench run of OLD, then of NEW, half the
#            budget each) compared by bench compare three ways: one run a
#            side alone (no history), the same newest runs with the earlier
#            trials' runs of both builds as history, and the last POOL runs
#            (default 5) a side pooled by label
# Writes OUT/raw.jsonl (one line a verdict: method, kind, planted ratio,
# trial, verdict, estimate, interval, level, pairs, variance components) as
# it goes, and OUT/log (every command's output); then prints the tables of
# studies/ab_coverage/tables.py: per kind and ratio the coverage of the 95%
# interval, the verdicts and the wrong-sign verdicts, and what one run a
# side, history, pooling and bench ab resolve.
#
#   studies/ab_coverage.sh BUILD OUT [TRIALS] [BUDGET_S]
#
# BUILD is a configured and built tree (bin/bench, the Vulkan helpers'
# libbench-vulkan.a). KINDS, RATIOS, METHODS ("ab seq"), THRESHOLD (0.5%),
# POOL, SEQ_TRIALS (seq in the first N trials only; default all) and
# SEQ_BUDGET (seq's wall budget a case, both runs; default BUDGET) come from
# the environment. OUT may hold an earlier run's raw.jsonl:
# trials already there are kept and not run again (an interrupted run goes
# on). Takes about TRIALS * kinds * ratios * (ab: up to BUDGET, seq: BUDGET
# + 2 s) seconds: 20 trials of all five kinds and ratios, ab alone, about
# 60-80 minutes on a 2-vCPU VM (early stops), seq about as long again.
set -u
build=${1:?usage: $0 BUILD OUT [TRIALS] [BUDGET_S]}
out=${2:?usage: $0 BUILD OUT [TRIALS] [BUDGET_S]}
trials=${3:-20}
budget=${4:-10}
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
bench=$build/bin/bench
[ -x "$bench" ] || { echo "$0: no $bench" >&2; exit 2; }
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
W=$out/work
mkdir -p "$W"
export XDG_CACHE_HOME=$W/cache BENCH_PLUGIN_PATH=

ratios=${RATIOS:-1.00 1.01 1.02 1.05 0.98}
vkh_lib=$build/plugins/vulkan/vkh/libbench-vulkan.a
kinds=${KINDS:-chain stream chase threads vulkan}
if [[ " $kinds " == *" vulkan "* ]] && { [ ! -f "$vkh_lib" ] || ! command -v glslc >/dev/null; }; then
  echo "$0: no Vulkan helpers in $build or no glslc: the vulkan kind is left out" >&2
  kinds=${kinds//vulkan/}
fi
# the builds: base (OLD), and one a ratio (NEW; 1.00 a separate build of base)
have_vk=0
if [[ " $kinds " == *" vulkan "* ]]; then
  glslc -O --target-env=vulkan1.1 -Werror -mfmt=c -I"$src/plugins/vulkan/shaders" -o "$W/copy.spv.inc" \
    "$src/plugins/vulkan/shaders/copy.comp" || exit 2
  have_vk=1
fi
for r in base $ratios; do
  scale=1.0
  [ "$r" != base ] && scale=$r
  d=$W/b_$r
  mkdir -p "$d"
  cc -O2 -shared -fPIC -fvisibility=hidden -I"$src/harness/include" -DAB_SCALE="$scale" \
    -Wl,--version-script="$src/harness/plugin.map" "$src/studies/ab_coverage/ab_kinds.c" -o "$d/ab_kinds.so" -lpthread || exit 2
  if [ $have_vk = 1 ]; then
    cc -O2 -shared -fPIC -fvisibility=hidden -I"$src/harness/include" -I"$src/plugins/vulkan/vkh" -I"$W" \
      -DAB_SCALE="$scale" -Wl,--version-script="$src/harness/plugin.map" "$src/studies/ab_coverage/ab_kinds_vk.c" \
      "$vkh_lib" -lvulkan -lm -o "$d/ab_kinds_vk.so" || exit 2
  fi
done
exec python3 "$src/studies/ab_coverage/driver.py" --bench "$bench" --work "$W" --out "$out" --trials "$trials" \
  --budget "$budget" --kinds "$kinds" --ratios "$ratios" --methods "${METHODS:-ab seq}" \
  --threshold "${THRESHOLD:-0.5%}" --pool "${POOL:-5}" --seq-trials "${SEQ_TRIALS:-0}" --seq-budget "${SEQ_BUDGET:-0}"

#!/usr/bin/env bash
# Run bench's CPU plugins and their anchors side by side on this machine and
# print one table of ratios (a benchmark, not a test: its numbers are never
# pass/fail; tests/cpu/t_cpu_anchors.sh only checks that it completes).
#
#   cpu_gemm best variant  vs cblas_sgemm (OpenBLAS) in bench and called
#                             directly, n^3 = 1024 and 2048, 1 and all threads
#   membw_cpu copy, triad  vs mbw with the same array size (best of runs)
#   cpu_spin median        vs the same function timed by Google Benchmark
#   cpu_noop floor         vs Google Benchmark's empty loop and empty call
#   LLM primitives' GB/s   as a fraction of membw_cpu's copy bandwidth
#
# usage: scripts/anchors.sh [--quick] [--bench PATH] [--keep DIR]
#   --quick      small sizes and short runs (seconds; for the test)
#   --bench      the bench binary (default: $BENCH, else build-cpu/ or build/)
#   --keep DIR   keep every raw result (bench JSON, mbw, Google Benchmark) in DIR
# Anchors that are not installed (libopenblas-dev, mbw, libbenchmark-dev,
# see scripts/debian-packages.txt) show as n/a.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
here="$root/scripts/anchors"

quick=0
bench="${BENCH:-}"
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --bench) bench="$2"; shift ;;
    --keep) keep="$2"; shift ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "anchors: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$bench" ]; then
  for b in "$root/build-cpu/bin/bench" "$root/build/bin/bench"; do
    [ -x "$b" ] && { bench="$b"; break; }
  done
fi
if [ -z "$bench" ] || [ ! -x "$bench" ]; then
  echo "anchors: no bench binary (build it, or --bench PATH)" >&2
  exit 2
fi

if [ -n "$keep" ]; then
  mkdir -p "$keep"
  work=$(cd "$keep" && pwd)
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/bench-anchors.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
log() { echo "anchors: $*" >&2; }

ncpu=$(nproc)
has_avx512=0
grep -qw avx512f /proc/cpuinfo && has_avx512=1
if [ $quick = 1 ]; then
  gemm_sizes="128,256"; membw_size="4MiB"; spin_iters=10000
  rows=256; cols=1024; rope="64 8 128"; attn="1 2 128 64"
  policy='tier = smoke
warmup_iters = 1
warmup_time = 0
min_samples = 3
max_samples = 1000
min_time = 0
max_time = 0.1s
target_noise = 10%
batch_min_time = 0.2ms
verify = fast
timeout = 60s'
  mbw_runs=3; gb_min_time=0.001; gb_reps=20; sgemm_reps=3; sgemm_warm=0.05
else
  gemm_sizes="1024,2048"; membw_size="4*LLC"; spin_iters=1000000
  rows=4096; cols=4096; rope="4096 32 128"; attn="1 8 1024 64"
  policy='tier = perf
warmup_iters = 2
warmup_time = 0.5s
min_samples = 10
max_samples = 100000
min_time = 1s
max_time = 8s
target_noise = 1%
batch_min_time = 1ms
verify = fast
timeout = 300s'
  mbw_runs=10; gb_min_time=0.01; gb_reps=100; sgemm_reps=10; sgemm_warm=0.5
fi
read -r attn_b attn_h attn_s attn_d <<<"$attn"
read -r rope_seq rope_heads rope_dim <<<"$rope"
isas=auto
[ $has_avx512 = 1 ] && isas=auto,avx2
{
  echo "gemm_sizes=$gemm_sizes"
  echo "threads_all=$ncpu"
  echo "spin_iters=$spin_iters"
} >"$work/meta"

# ---- bench ------------------------------------------------------------------------
cat >"$work/gemm.ini" <<EOF
[run]
$policy
[cpu_gemm]
variant = packed
m = $gemm_sizes
n = $gemm_sizes
k = $gemm_sizes
dtype = f32
threads = 1,0
isa = $isas
EOF
sed -e 's/^variant = packed/variant = openblas/' -e 's/^isa = .*/isa = auto/' "$work/gemm.ini" >"$work/openblas.ini"
cat >"$work/rest.ini" <<EOF
[run]
$policy
[membw_cpu]
kernel = copy,scale,add,triad
size = $membw_size
threads = 1,0
stores = auto
[cpu_spin]
iters = $spin_iters
[cpu_rmsnorm]
rows = $rows
cols = $cols
threads = 1,0
[cpu_layernorm]
rows = $rows
cols = $cols
threads = 1,0
[cpu_softmax]
rows = $rows
cols = $cols
threads = 1,0
[cpu_rope]
seq = $rope_seq
heads = $rope_heads
head_dim = $rope_dim
layout = halves,interleaved
threads = 1,0
[cpu_attention]
batch = $attn_b
heads = $attn_h
seq = $attn_s
head_dim = $attn_d
rope = none
threads = 1,0
EOF

run_bench() { # NAME PRESET PLUGINS
  log "bench: $1"
  local rc=0
  "$bench" --preset "$2" --plugin "$3" --results-dir "$work/bench-$1" >"$work/bench-$1.out" 2>"$work/bench-$1.err" || rc=$?
  [ $rc -eq 0 ] || log "bench $1 exited $rc (see the table's n/a rows)"
}
run_bench gemm "$work/gemm.ini" cpu_gemm
run_bench openblas "$work/openblas.ini" cpu_gemm
run_bench rest "$work/rest.ini" 'membw_cpu,cpu_spin,cpu_noop,cpu_rmsnorm,cpu_layernorm,cpu_softmax,cpu_rope,cpu_attention'

# ---- mbw, with membw_cpu's array size -----------------------------------------------
array_bytes=$(python3 - "$work" <<'PY'
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/bench-rest/*membw_cpu*.json"):
    for c in json.load(open(f))["cases"]:
        if c["info"].get("array_bytes"):
            print(c["info"]["array_bytes"]); sys.exit()
print(0)
PY
)
mbw_mib=$(( (array_bytes + 1048575) / 1048576 ))
[ "$mbw_mib" -ge 1 ] || mbw_mib=1
echo "mbw_mib=$mbw_mib" >>"$work/meta"
if command -v mbw >/dev/null; then
  log "mbw: $mbw_runs runs of each method on ${mbw_mib} MiB arrays"
  for t in 0 1 2; do mbw -n "$mbw_runs" -t"$t" "$mbw_mib" >>"$work/mbw.txt" 2>&1 || true; done
else
  log "mbw not installed (apt-get install mbw): n/a"
fi

# ---- Google Benchmark: cpu_spin's very function, an empty loop and call ---------------
# Many short repetitions and their median, as bench takes many short samples
# and their median: on a busy machine both then skip the preempted ones.
if command -v g++ >/dev/null && echo '#include <benchmark/benchmark.h>' | g++ -x c++ -fsyntax-only - 2>/dev/null; then
  log "Google Benchmark: building and running"
  if gcc -O3 -c "$root/plugins/cpu/cpu_spin_chain.c" -o "$work/spin_chain.o" &&
     g++ -O3 -I"$root/plugins/cpu" "$here/gbench_anchor.cc" "$work/spin_chain.o" -o "$work/gbench_anchor" \
       -lbenchmark -lpthread; then
    "$work/gbench_anchor" --spin_iters="$spin_iters" --benchmark_min_time="$gb_min_time" \
      --benchmark_repetitions="$gb_reps" --benchmark_report_aggregates_only=true \
      --benchmark_format=json >"$work/gbench.json" 2>"$work/gbench.err" || log "Google Benchmark failed"
  fi
else
  log "Google Benchmark not installed (apt-get install libbenchmark-dev): n/a"
fi

# ---- cblas_sgemm called directly ---------------------------------------------------------
if echo '#include <cblas.h>' | gcc -x c -fsyntax-only - 2>/dev/null &&
   gcc -O2 "$here/sgemm_anchor.c" -o "$work/sgemm_anchor" -lopenblas 2>/dev/null; then
  log "cblas_sgemm direct"
  for n in ${gemm_sizes//,/ }; do
    for t in 1 "$ncpu"; do
      [ -f "$work/sgemm-$n-$t.txt" ] && continue
      "$work/sgemm_anchor" "$n" "$t" "$sgemm_reps" "$sgemm_warm" >"$work/sgemm-$n-$t.txt" 2>&1 || true
    done
  done
else
  log "OpenBLAS headers not installed (apt-get install libopenblas-dev): direct cblas_sgemm n/a"
fi

# ---- the table -----------------------------------------------------------------------------
echo "bench anchors on $(hostname): $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $ncpu CPUs, $( [ $quick = 1 ] && echo quick || echo full) run"
python3 "$here/table.py" "$work"

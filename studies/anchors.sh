#!/usr/bin/env bash
# Run bench's CPU plugins and their anchors side by side on this machine and
# print one table of ratios (a benchmark, not a test: its numbers are never
# pass/fail; tests/cpu/t_cpu_anchors.sh only checks that it completes).
#
#   this CPU              model, family, the clock measured (a chain of
#                         dependent adds) and the fp32 FMA peak per ISA
#                         (nominal FLOP/cycle x clock, and measured):
#                         every GFLOP/s figure is also a fraction of it
#   cpu_gemm best variant vs the strongest anchor: cblas_sgemm of OpenBLAS
#                         and of BLIS as cpu_gemm variants, each also with
#                         its AVX-512 kernels forced (OPENBLAS_CORETYPE=
#                         SkylakeX, BENCH_CPU_BLIS_ARCH=skx) where the CPU
#                         has AVX-512 and the library picked a narrower one
#                         (and BLIS's AVX2 zen3 where it picked generic C);
#                         OpenBLAS also called directly; n^3 = 1024 and
#                         2048, 1 and all threads
#   membw_cpu copy, triad vs mbw with the same array size (best of runs)
#   cpu_spin median       vs the same function timed by Google Benchmark
#   cpu_noop floor        vs Google Benchmark's empty loop and empty call
#   LLM primitives' GB/s  as a fraction of membw_cpu's copy bandwidth;
#                         attention as a fraction of cpu_gemm
#
# usage: studies/anchors.sh [--quick] [--cputime] [--rounds N] [--bench PATH] [--keep DIR]
#        studies/anchors.sh [--quick] --presets DIR
#   --quick      small sizes and short runs (seconds; for the test)
#   --rounds N   run the GEMM cells and the row kernels with their copy N
#                times, interleaved (default 3, --quick 1); the table gives
#                each ratio as the median of its N paired ratios and their
#                range: this VM's speed moves 5-10% over minutes, and one
#                round can land a cell's two sides apart
#   --cputime    instead: the one-thread figures by thread CPU time, best of
#                runs (studies/anchors/cputime.sh), for a machine other work
#                keeps busy, where wall-clock medians say more about the load
#   --bench      the bench binary (default: $BENCH, else build-cpu/ or build/)
#   --keep DIR   keep every raw result (bench JSON, mbw, Google Benchmark) in DIR
#   --presets DIR  only write the presets the table runs (gemm.ini, openblas.ini,
#                blis.ini, rest.ini, rows-1.ini, rows-0.ini) into DIR, run nothing (studies/settle_check.sh
#                uses rest.ini)
# Anchors that are not installed (libopenblas-dev, libblis-dev, mbw,
# libbenchmark-dev, see scripts/debian-packages-test.txt) show as n/a.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib/machine.sh"
here="$root/studies/anchors"

quick=0
cputime=0
presets_only=0
rounds=""
bench="${BENCH:-}"
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --cputime) cputime=1 ;;
    --bench) bench="$2"; shift ;;
    --keep) keep="$2"; shift ;;
    --rounds) rounds="$2"; shift ;;
    --presets) keep="$2"; presets_only=1; shift ;;
    -h|--help) sed -n '2,41p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "anchors: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$rounds" ] || rounds=$([ $quick = 1 ] && echo 1 || echo 3)
case "$rounds" in ''|*[!0-9]*|0) echo "anchors: --rounds wants a positive integer, not '$rounds'" >&2; exit 2 ;; esac
if [ -z "$bench" ]; then
  for b in "$root/build-cpu/bin/bench" "$root/build/bin/bench"; do
    [ -x "$b" ] && { bench="$b"; break; }
  done
fi
if [ $presets_only = 0 ] && { [ -z "$bench" ] || [ ! -x "$bench" ]; }; then
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

if [ $cputime = 1 ]; then
  echo "bench anchors on $(hostname): $(machine_cpu_model), family $(machine_cpu_field 'cpu family'), $( [ $quick = 1 ] && echo quick || echo full) run, load $(machine_load)"
  "$here/cputime.sh" "$(dirname "$bench")/../lib/bench/plugins" "$work" "$quick"
  exit
fi

ncpu=$(machine_cpus)
has_avx512=0
machine_has_flag avx512f && has_avx512=1
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
  mbw_runs=3; gb_min_time=0.001; gb_reps=20; gb_rounds=2; sgemm_reps=3; sgemm_warm=0.05; peak_runs=5
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
  mbw_runs=10; gb_min_time=0.01; gb_reps=30; gb_rounds=5; sgemm_reps=10; sgemm_warm=0.5; peak_runs=100
fi
read -r attn_b attn_h attn_s attn_d <<<"$attn"
read -r rope_seq rope_heads rope_dim <<<"$rope"
isas=auto
[ $has_avx512 = 1 ] && isas=auto,avx2
{
  echo "gemm_sizes=$gemm_sizes"
  echo "threads_all=$ncpu"
  echo "spin_iters=$spin_iters"
  echo "cpu_model=$(machine_cpu_model)"
  echo "cpu_vendor=$(machine_cpu_field vendor_id)"
  echo "cpu_family=$(machine_cpu_field 'cpu family')"
  echo "cpu_model_id=$(machine_cpu_field model)"
  echo "avx512=$has_avx512"
} >"$work/meta"

# ---- the CPU's limits: clock and FMA throughput ---------------------------------------
if [ $presets_only = 1 ]; then
  :
elif gcc -O2 "$here/peak.c" -o "$work/peak" 2>"$work/peak.err"; then
  log "peak: clock and FMA throughput, best of $peak_runs"
  "$work/peak" "$peak_runs" >>"$work/meta" || log "peak failed"
else
  log "peak: cannot build $here/peak.c: the physical peak is n/a"
fi

# The kernel sets the BLAS libraries pick here, and whether to force their
# AVX-512 ones as well.
openblas_core=$(python3 -c 'import ctypes; l = ctypes.CDLL("libopenblas.so.0")
l.openblas_get_corename.restype = ctypes.c_char_p; print(l.openblas_get_corename().decode())' 2>/dev/null || true)
blis_arch=$(python3 -c 'import ctypes; l = ctypes.CDLL("libblis.so.4"); l.bli_init()
l.bli_arch_string.restype = ctypes.c_char_p; print(l.bli_arch_string(l.bli_arch_query_id()).decode())' 2>/dev/null || true)
force_openblas=0; force_blis=""
if [ $has_avx512 = 1 ]; then
  case "$openblas_core" in ""|SkylakeX|Cooperlake|SapphireRapids) ;; *) force_openblas=1 ;; esac
  case "$blis_arch" in ""|skx|knl|zen4|zen5) ;; *) force_blis=skx ;; esac
fi
# BLIS 0.9 knows no Zen 5 and falls back to generic C: its AVX2 kernels too
# (an anchor for cpu_gemm's AVX2 path).
if [ "$blis_arch" = generic ] && machine_has_flag avx2; then force_blis="$force_blis zen3"; fi
echo "openblas_core=$openblas_core" >>"$work/meta"
echo "blis_arch=$blis_arch" >>"$work/meta"

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
sed -e 's/^variant = packed/variant = blis/' -e 's/^isa = .*/isa = auto/' "$work/gemm.ini" >"$work/blis.ini"
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
# The memory-bound primitives against copy: per thread count, the copy and
# the kernels in one run, seconds apart (the rest run's copy is a minute
# away from them). On the 2-vCPU Zen 5 VM the 2-thread bandwidth is also
# bimodal from one process to the next (about 60 or 120 GB/s), which no
# pairing removes: read those rows with their `best` and across runs.
for t in 1 0; do
  cat >"$work/rows-$t.ini" <<EOF
[run]
$policy
[membw_cpu]
kernel = copy
size = $membw_size
threads = $t
stores = auto
[cpu_rmsnorm]
rows = $rows
cols = $cols
threads = $t
[cpu_layernorm]
rows = $rows
cols = $cols
threads = $t
[cpu_softmax]
rows = $rows
cols = $cols
threads = $t
[cpu_rope]
seq = $rope_seq
heads = $rope_heads
head_dim = $rope_dim
layout = halves,interleaved
threads = $t
EOF
done
[ $presets_only = 1 ] && exit 0

out="$work" round="" # where run_bench's folders go: $work, or round N's $work/round-N
run_bench() { # NAME PRESET PLUGINS [VAR=VALUE...]: the variables for bench's processes only
  log "bench: $1${4:+ with ${*:4}}${round:+ (round $round of $rounds)}"
  local rc=0
  env "${@:4}" "$bench" --preset "$2" --plugin "$3" --results-dir "$out/bench-$1" >"$out/bench-$1.out" 2>"$out/bench-$1.err" || rc=$?
  [ $rc -eq 0 ] || log "bench $1 exited $rc (see the table's n/a rows)"
}
# GEMM one cell (size, threads) at a time, ours then every anchor back to
# back: this VM's speed drifts by 5-10% over minutes, and a ratio is only as
# good as the time between its two figures (each cell's runs land in the
# same folders as .2, .3 ... files).
gemm_cell() { # SIZE THREADS
  local f
  for f in gemm openblas blis; do
    sed -e "s/^\([mnk]\) = .*/\1 = $1/" -e "s/^threads = .*/threads = $2/" "$work/$f.ini" >"$work/cell-$f.ini"
  done
  run_bench gemm "$work/cell-gemm.ini" cpu_gemm
  run_bench openblas "$work/cell-openblas.ini" cpu_gemm
  [ $force_openblas = 1 ] && run_bench openblas-skx "$work/cell-openblas.ini" cpu_gemm OPENBLAS_CORETYPE=SkylakeX
  run_bench blis "$work/cell-blis.ini" cpu_gemm
  for arch in $force_blis; do
    run_bench "blis-$arch" "$work/cell-blis.ini" cpu_gemm BENCH_CPU_BLIS_ARCH="$arch"
  done
}
# Each round: every GEMM cell, then the row kernels with their copy, into
# $work/round-N (table.py pairs the figures of one round).
for round in $(seq "$rounds"); do
  out="$work/round-$round"
  mkdir -p "$out"
  for size in ${gemm_sizes//,/ }; do
    for t in 1 0; do gemm_cell "$size" "$t"; done
  done
  for t in 1 0; do
    run_bench "rows-$t" "$work/rows-$t.ini" 'membw_cpu,cpu_rmsnorm,cpu_layernorm,cpu_softmax,cpu_rope'
  done
done
out="$work" round=""
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
  for t in 0 1; do mbw -n "$mbw_runs" -t"$t" "$mbw_mib" >>"$work/mbw.txt" 2>&1 || true; done # -t2 (MCBLOCK) does not copy the array, see table.py
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
    # In rounds, bench's cpu_spin and cpu_noop and then Google Benchmark's,
    # seconds apart: the clock here moves by 3-4% within seconds, and the
    # table takes the median of the rounds' paired ratios.
    printf '[run]\n%s\n[cpu_spin]\niters = %s\n[cpu_noop]\n' "$policy" "$spin_iters" >"$work/spin.ini"
    for r in $(seq "$gb_rounds"); do
      run_bench "spin-$r" "$work/spin.ini" cpu_spin,cpu_noop
      "$work/gbench_anchor" --spin_iters="$spin_iters" --benchmark_min_time="$gb_min_time" \
        --benchmark_repetitions="$gb_reps" --benchmark_report_aggregates_only=true \
        --benchmark_format=json >"$work/gbench-$r.json" 2>"$work/gbench-$r.err" || log "Google Benchmark failed"
    done
  fi
else
  log "Google Benchmark not installed (apt-get install libbenchmark-dev): n/a"
fi

# ---- cblas_sgemm called directly ---------------------------------------------------------
if echo '#include <cblas.h>' | gcc -x c -fsyntax-only - 2>/dev/null &&
   gcc -O2 "$here/sgemm_anchor.c" -o "$work/sgemm_anchor" -lopenblas 2>/dev/null; then
  log "cblas_sgemm direct"
  cores=auto
  [ $force_openblas = 1 ] && cores="auto SkylakeX"
  for core in $cores; do
    for n in ${gemm_sizes//,/ }; do
      for t in 1 "$ncpu"; do
        f="$work/sgemm-$core-$n-$t.txt"
        [ -f "$f" ] && continue
        if [ "$core" = auto ]; then
          "$work/sgemm_anchor" "$n" "$t" "$sgemm_reps" "$sgemm_warm" >"$f" 2>&1 || true
        else
          OPENBLAS_CORETYPE="$core" "$work/sgemm_anchor" "$n" "$t" "$sgemm_reps" "$sgemm_warm" >"$f" 2>&1 || true
        fi
      done
    done
  done
else
  log "OpenBLAS headers not installed (apt-get install libopenblas-dev): direct cblas_sgemm n/a"
fi

# ---- the table -----------------------------------------------------------------------------
echo "bench anchors on $(hostname): $(machine_cpu_model), $ncpu CPUs, $( [ $quick = 1 ] && echo quick || echo full) run, load $(machine_load)"
python3 "$here/table.py" "$work"

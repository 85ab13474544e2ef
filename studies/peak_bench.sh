#!/usr/bin/env bash
# bench peak against its anchors on this CPU, in one run, interleaved (a
# benchmark, not a test: its numbers are never pass/fail;
# tests/cpu/t_cpu_peak_bench.sh only checks that it completes and prints
# its table). Issue 41's targets, per round and as the median of rounds:
#   fp32, fp32.1t   the measured FMA roofs (peak_cpu_fma) must be at least
#                   OpenBLAS's cblas_sgemm at 2048^3 (cpu_gemm
#                   variant=openblas, all threads and one), and within 10%
#                   of cores x nominal FLOP/cycle x the clock measured by a
#                   dependent-add chain (studies/anchors/peak.c)
#   dram, dram.1t   the measured DRAM roofs (peak_cpu_bw) within 5% of the
#                   best STREAM-style copy/triad at 4x the LLC
#                   (studies/peak/stream.c, plain and non-temporal stores)
#                   and beside Debian's mbw (memcpy), same thread count
#   every roof      its 95% interval's half-width within 2% of its value
#
# usage: studies/peak_bench.sh [--quick] [--rounds N] [--bench PATH] [--keep DIR]
#   --quick      small sizes, short runs, one round (seconds; for the test)
#   --rounds N   rounds of (bench peak, OpenBLAS, STREAM, mbw), default 3
#   --bench      the bench binary (default: $BENCH, else build/bin/bench)
#   --keep DIR   keep every raw result (roofs files, bench JSON, anchors) in DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib/machine.sh"
quick=0
rounds=""
bench="${BENCH:-}"
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --rounds) rounds="$2"; shift ;;
    --bench) bench="$2"; shift ;;
    --keep) keep="$2"; shift ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "peak_bench: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$rounds" ] || rounds=$([ $quick = 1 ] && echo 1 || echo 3)
case "$rounds" in ''|*[!0-9]*|0) echo "peak_bench: --rounds wants a positive integer" >&2; exit 2 ;; esac
[ -n "$bench" ] || bench="$root/build/bin/bench"
[ -x "$bench" ] || { echo "peak_bench: no bench binary at $bench (build it, or --bench PATH)" >&2; exit 2; }
if [ -n "$keep" ]; then
  mkdir -p "$keep"
  work=$(cd "$keep" && pwd)
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/bench-peak.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
log() { echo "peak_bench: $*" >&2; }
export XDG_CACHE_HOME="$work/cache"

ncpu=$(machine_cpus)
llc=$(getconf LEVEL3_CACHE_SIZE 2>/dev/null || echo 0)
case "$llc" in ''|*[!0-9]*) llc=0 ;; esac
[ "$llc" -gt 0 ] || llc=$((32 << 20))
[ "$llc" -le $((256 << 20)) ] || llc=$((32 << 20)) # glibc sums a package's L3 on some VMs (FACTS.md)
array=$((4 * llc))
if [ $quick = 1 ]; then
  gemm=256; array=$((16 << 20)); peak_runs=5
  policy='tier = smoke
warmup_iters = 1
warmup_time = 0
min_samples = 3
max_samples = 1000
min_time = 0
max_time = 0.2s
target_noise = 10%
verify = full
timeout = 60s'
else
  gemm=2048; peak_runs=100
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
fi
{
  echo "cpu_model=$(machine_cpu_model)"
  echo "cpu_vendor=$(machine_cpu_field vendor_id)"
  echo "cpu_family=$(machine_cpu_field 'cpu family')"
  echo "cpus=$ncpu"
  echo "llc_bytes=$llc"
  echo "array_bytes=$array"
  echo "gemm=$gemm"
  echo "rounds=$rounds"
} >"$work/meta"
gcc -O2 "$root/studies/anchors/peak.c" -o "$work/clock"
gcc -O3 -march=native -pthread "$root/studies/peak/stream.c" -o "$work/stream"
cat >"$work/openblas.ini" <<EOF
[run]
$policy
[cpu_gemm]
variant = openblas
m = $gemm
n = $gemm
k = $gemm
dtype = f32
threads = 1,0
EOF
peak_preset=peak
if [ $quick = 1 ]; then
  printf '[run]\n%s\n' "$policy" >"$work/peak.ini"
  peak_preset="$work/peak.ini"
fi
have_mbw=0
command -v mbw >/dev/null && have_mbw=1

for r in $(seq 1 "$rounds"); do
  log "round $r of $rounds: bench peak"
  "$bench" peak --force --preset "$peak_preset" --plugin 'peak_cpu_fma,peak_cpu_bw' \
    --results-dir "$work/peak$r" >"$work/peak$r.log" 2>&1 || log "bench peak exited $? (see $work/peak$r.log)"
  log "round $r: OpenBLAS sgemm ${gemm}^3"
  "$bench" --preset "$work/openblas.ini" --plugin cpu_gemm --results-dir "$work/gemm$r" \
    >"$work/gemm$r.log" 2>&1 || log "cpu_gemm openblas exited $?"
  log "round $r: STREAM, mbw, clock"
  for t in 1 "$ncpu"; do
    "$work/stream" "$array" "$t" >"$work/stream$r.t$t" || log "stream failed"
  done
  if [ $have_mbw = 1 ]; then
    mbw -q -n 10 -t0 $((array >> 20)) >"$work/mbw$r" 2>&1 || log "mbw failed"
  fi
  "$work/clock" "$peak_runs" >"$work/clock$r" || log "clock failed"
done
python3 "$root/studies/peak/table.py" "$work"

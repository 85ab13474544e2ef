#!/usr/bin/env bash
# One-thread figures by thread CPU time (studies/anchors/cputime.c), for a
# machine other work keeps busy: studies/anchors.sh --cputime runs this.
# cpu_gemm packed (each ISA) against OpenBLAS and BLIS (their own pick and
# the kernel sets forced as in anchors.sh), the row-wise primitives against
# membw_cpu copy, attention against cpu_gemm. Best of REPS runs each.
#   usage: cputime.sh PLUGIN_DIR WORK_DIR QUICK(0|1)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/scripts/lib/machine.sh"
plugins="$1"; work="$2"; quick="$3"
san=()  # plugins built with sanitizers load only into a program that has them too
case "$(ldd "$plugins/cpu_gemm.so" 2>/dev/null || true)" in *libasan*) san=(-fsanitize=address,undefined) ;; esac
src="$root/harness/src"  # the operation table gives the work, as in bench
gcc -O2 "${san[@]}" -D_GNU_SOURCE -I"$root/harness/include" -I"$src" "$here/cputime.c" \
  "$src"/check/{check,gemm_check,operation,reference,comparison,dtype}.c "$src"/core/{util,term}.c \
  -o "$work/cputime" -ldl -lm
if [ "$quick" = 1 ]; then sizes="128 256"; rows=256; cols=1024; attn="1 2 128 64"; reps=5
else sizes="1024 2048"; rows=4096; cols=4096; attn="1 8 1024 64"; reps=15; fi
read -r ab ah as ad <<<"$attn"
out="$work/cputime.txt"
: >"$out"
one() { # LABEL PLUGIN REPS [VAR=VALUE ...] -- [param=value ...]
  local label=$1 plugin=$2 n=$3; shift 3
  local envs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  local r
  r=$(env "${envs[@]}" nice -n 0 "$work/cputime" "$plugins/$plugin.so" "$n" "$@" 2>&1 | tr '\n' ' ') || true
  echo "$label|$r" >>"$out"
}
machine_has_flag avx512f && avx512=1 || avx512=0
for n in $sizes; do
  g="m=$n n=$n k=$n dtype=f32 threads=1"
  [ "$n" -ge 2048 ] && gr=$(( reps / 4 > 2 ? reps / 4 : 2 )) || gr=$reps
  one "gemm packed auto $n" cpu_gemm "$gr" -- variant=packed isa=auto $g
  one "gemm packed avx2 $n" cpu_gemm "$gr" -- variant=packed isa=avx2 $g
  one "gemm openblas auto $n" cpu_gemm "$gr" -- variant=openblas $g
  [ $avx512 = 1 ] && one "gemm openblas SkylakeX $n" cpu_gemm "$gr" OPENBLAS_CORETYPE=SkylakeX -- variant=openblas $g
  one "gemm blis auto $n" cpu_gemm "$gr" -- variant=blis $g
  [ $avx512 = 1 ] && one "gemm blis skx $n" cpu_gemm "$gr" BENCH_CPU_BLIS_ARCH=skx -- variant=blis $g
  one "gemm blis zen3 $n" cpu_gemm "$gr" BENCH_CPU_BLIS_ARCH=zen3 -- variant=blis $g
done
one "membw copy" membw_cpu "$reps" -- kernel=copy size=4*LLC threads=1 stores=auto
for p in rmsnorm layernorm softmax; do
  one "$p" "cpu_$p" "$reps" -- rows=$rows cols=$cols threads=1 stores=auto eps=1e-5
done
one "attention" cpu_attention "$reps" -- batch=$ab heads=$ah seq=$as head_dim=$ad rope=none threads=1
python3 - "$out" "${sizes##* }" <<'PY'
import re, sys
rows = {}
for line in open(sys.argv[1]):
    label, _, rest = line.rstrip("\n").partition("|")
    m = re.search(r"gflops=([\d.]+) gbps=([\d.]+)", rest)
    info = dict(re.findall(r"info (\w+)=(\S+)", rest))
    skip = re.search(r"cputime: (skipped|failed): (.*)", rest)
    rows[label] = (float(m.group(1)), float(m.group(2)), info) if m else (None, None, skip.group(2) if skip else rest.strip())
def show(what, a, b, target=""):
    r = f"{a / b:.3f}" if a and b else "n/a"
    fa = f"{a:.1f}" if a else "n/a"
    fb = f"{b:.1f}" if b else "n/a"
    print(f"{what:<70} {fa:>8} {fb:>8} {r:>6} {target:>8}")
print("one thread, best of the runs by thread CPU time")
print(f"{'what':<70} {'bench':>8} {'anchor':>8} {'ratio':>6} {'target':>8}")
sizes = sorted({int(k.split()[-1]) for k in rows if k.startswith("gemm ")})
def core(label):
    g, b, info = rows[label]
    if g is None: return f"{label}: {info}"
    return info.get("openblas_core") or info.get("blis_arch") or info.get("kernel") or "?"
for n in sizes:
    anchors = [k for k in rows if k.startswith("gemm ") and k.endswith(f" {n}") and ("openblas" in k or "blis" in k)]
    for k in anchors:
        if rows[k][0] is None: print(f"  {k}: {rows[k][2]}")
    ok = [k for k in anchors if rows[k][0]]
    wide = [k for k in ok if core(k).lower() in ("skylakex", "cooperlake", "sapphirerapids", "skx", "zen4", "zen5")]
    narrow = [k for k in ok if k not in wide and core(k).lower() != "generic"]
    best = lambda ks: max(ks, key=lambda k: rows[k][0]) if ks else None
    for isa, pool in (("auto", ok), ("avx2", narrow)):
        k = f"gemm packed {isa} {n}"
        if k not in rows or rows[k][0] is None: continue
        a = best(pool)
        show(f"cpu_gemm packed {core(k)} / strongest{' AVX2' if isa == 'avx2' else ''} ({a and core(a)}), {n}^3",
             rows[k][0], a and rows[a][0], ">= 0.97")
    for k in ok:
        print(f"  {'anchor ' + k[5:] + ' (runs ' + core(k) + ')':<68} {rows[k][0]:>8.1f}")
copy = rows.get("membw copy", (None, None, None))[1]
for p, t in (("rmsnorm", ">= 0.8"), ("layernorm", ">= 0.8"), ("softmax", ">= 0.6")):
    if p in rows: show(f"cpu_{p} GB/s / membw_cpu copy GB/s", rows[p][1], copy, t)
g = rows.get(f"gemm packed auto {sys.argv[2]}", (None,))[0]
if "attention" in rows: show(f"cpu_attention GFLOP/s / cpu_gemm packed {sys.argv[2]}^3", rows["attention"][0], g, ">= 0.75")
PY

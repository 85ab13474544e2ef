#!/usr/bin/env bash
# Parameters the CPU plugins read themselves: sizes relative to the
# machine's caches, bad sizes refused with a reason, the micro-kernel ISA.
. "$(dirname "$0")/cpu_lib.sh"

# Sizes: plain and cache-relative, recorded in the case's info.
printf '[run]\ntier = smoke\nmin_samples = 2\nmin_time = 0\nmax_time = 0.05s\nwarmup_time = 0\nbatch_min_time = 0\n[memlat_cpu]\nsize = 64KiB,L1/2,2*L2,bogus,3*L9\nloads = 1000\n' >"$T/lat.ini"
run_bench --preset "$T/lat.ini" --plugin memlat_cpu --results-dir "$T/r"
expect_rc 1 "a bad size fails its case"
expect_in "$T/out" 'memlat_cpu size=64KiB loads=1000: OK'
expect_in "$T/out" 'memlat_cpu size=L1/2 loads=1000: OK'
expect_in "$T/out" 'memlat_cpu size=2\*L2 loads=1000: OK'
expect_in "$T/out" "memlat_cpu size=bogus loads=1000: ERROR.*size 'bogus': not a size"
expect_in "$T/out" "memlat_cpu size=3\*L9 loads=1000: ERROR.*this machine has no L9 cache \(L1d [0-9]+ [KM]iB"
python3 - "$T/r" <<'PY' && ok || fail "working_set_bytes info"
import glob, json, sys
d = json.load(open(glob.glob(sys.argv[1] + "/*memlat_cpu*.json")[0]))
ws = {c["params"]["size"]: int(c["info"]["working_set_bytes"]) for c in d["cases"] if c["status"] == "OK"}
assert ws["64KiB"] == 65536, ws
# The L1d bench used, whatever its source (sysfs, cpuid, sysconf, default).
l1 = [c["bytes"] for c in d["env"]["cpu.caches"] if c["level"] == 1][0]
assert abs(ws["L1/2"] - l1 // 2) < 64, (ws, l1)
PY

# membw_cpu: STREAM's array size from the LLC, 3 arrays, its byte counts.
printf '[run]\ntier = smoke\nmin_samples = 2\nmin_time = 0\nmax_time = 0.05s\nwarmup_time = 0\nbatch_min_time = 0\n[membw_cpu]\nkernel = copy,triad\nsize = 1MiB\nthreads = 1\n' >"$T/bw.ini"
run_bench --preset "$T/bw.ini" --plugin membw_cpu --results-dir "$T/r2"
expect_rc 0 "membw"
python3 - "$T/r2" <<'PY' && ok || fail "membw bytes"
import glob, json, sys
d = json.load(open(glob.glob(sys.argv[1] + "/*membw_cpu*.json")[0]))
b = {c["params"]["kernel"]: c["bytes"] for c in d["cases"]}
assert b == {"copy": 2 * 2**20, "triad": 3 * 2**20}, b
PY

# The packed micro-kernel for each ISA this CPU has; the others SKIPPED.
printf '[run]\ntier = smoke\nmin_samples = 2\nmin_time = 0\nmax_time = 0.05s\nwarmup_time = 0\nbatch_min_time = 0\n[cpu_gemm]\nvariant = packed\nm = 50\nn = 70\nk = 300\nisa = auto,avx512,avx2,generic\n' >"$T/isa.ini"
run_bench --preset "$T/isa.ini" --plugin cpu_gemm --results-dir "$T/r3"
expect_rc 0 "isa"
expect_in "$T/out" 'isa=generic mc=0 kc=0 nc=0: OK'
expect_in "$T/out" 'isa=auto mc=0 kc=0 nc=0: OK'
for isa in avx512 avx2; do
  flag=$isa; [ $isa = avx512 ] && flag=avx512f
  if machine_has_flag "$flag"; then expect_in "$T/out" "isa=$isa mc=0 kc=0 nc=0: OK"
  else expect_in "$T/out" "isa=$isa mc=0 kc=0 nc=0: SKIPPED.*cannot run the $isa micro-kernel"; fi
done
finish

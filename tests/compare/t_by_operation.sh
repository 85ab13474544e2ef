# bench compare --by operation: one problem (operation, shape, dtype) lined
# up across plugins and backends whatever their parameter order, with
# implementation knobs (variant, isa, threads, flush_l2) left out and a
# missing dtype read as f32; each case against the fastest of its problem.
# One throughput, the operation's primary figure (issue 39): GFLOP/s for
# gemm, GB/s for softmax although it states FLOPs too.
. "$(dirname "$0")/lib.sh"
"$GEN" "$T/r" 1 <<'SPEC' || fail gen
run 2026-11-20 cpu_gemm
case variant=packed,m=64,n=64,k=64,dtype=f32,threads=0,isa=auto OK 1000 0.01 30 op=gemm flops=524288
case variant=naive,m=64,n=64,k=64,dtype=f32,threads=0,isa=auto OK 8000 0.01 30 op=gemm flops=524288
run 2026-11-20 vk_gemm_auto
case m=64,n=64,k=64,dtype=f32 OK 2000 0.01 30 op=gemm backend=vulkan device=1 flops=524288
case m=64,n=64,k=64,dtype=f16 OK 2000 0.01 30 op=gemm backend=vulkan device=1 flops=524288
run 2026-11-20 hip_gemm
case variant=mfma,dtype=f32,m=64,n=64,k=64,flush_l2=1 OK 500 0.01 30 op=gemm backend=hip flops=524288
run 2026-11-20 cpu_softmax
case rows=64,cols=4096,threads=0 OK 3000 0.01 30 op=softmax flops=1310720 bytes=2097152
run 2026-11-20 vk_softmax
case rows=64,cols=4096,dtype=f32 OK 6000 0.01 30 op=softmax backend=vulkan flops=1310720 bytes=2097152
run 2026-11-20 cpu_noop
case - OK 1 0.01 30
SPEC
run_bench compare --by operation "$T/r"
expect_rc 0 "by operation"
expect_in "$T/out" '^gemm dtype=f32 k=64 m=64 n=64 +hip_gemm +hip +variant=mfma flush_l2=1 +- +(499|500)\.[0-9] ns +10[45][0-9] GFLOP/s +1\.000 ' "the fastest first, knobs apart"
expect_in "$T/out" '^ +cpu_gemm +cpu +variant=packed threads=0 isa=auto +- +(99[0-9]\.[0-9] ns|1\.0[0-9]* us) +.* (1\.99|2\.0)[0-9]* +\[' "cpu_gemm at twice the best"
expect_in "$T/out" '^ +vk_gemm_auto +vulkan +- +- +1\.[78][0-9]* us .* 3\.[56][0-9]* +\[' "vk_gemm_auto by its device timer"
expect_in "$T/out" '^ +cpu_gemm +cpu +variant=naive .* 1[56]\.[0-9]* +\[' "the naive variant"
expect_in "$T/out" '^softmax cols=4096 dtype=f32 rows=64 +cpu_softmax .* (69[0-9]|70[0-9])\.[0-9] GB/s ' "a plugin without dtype meets an f32 one; GB/s"
expect_not_in "$T/out" 'softmax.* GFLOP/s' "softmax: not GFLOP/s"
expect_in "$T/out" '^ +vk_softmax +vulkan .* (1\.99|2\.0)[0-9]* +\[' "vk_softmax at twice cpu_softmax"
expect_not_in "$T/out" 'dtype=f16' "a problem measured once is not lined up"
expect_not_in "$T/out" 'cpu_noop' "operation none is not a problem"
expect_in "$T/out" '^2 problems measured by two cases or more' "summary"
run_bench compare --by operation "$T/r" --format json
python3 - "$T/out" <<'PY' && ok || fail "json"
import json, sys
d = json.load(open(sys.argv[1]))
p = {x["problem"]: x["cases"] for x in d["problems"]}
assert list(p) == ["gemm dtype=f32 k=64 m=64 n=64", "softmax cols=4096 dtype=f32 rows=64"], list(p)
g = p["gemm dtype=f32 k=64 m=64 n=64"]
assert [c["plugin"] for c in g] == ["hip_gemm", "cpu_gemm", "vk_gemm_auto", "cpu_gemm"], g
assert all(c["ci_lo"] <= c["vs_best"] <= c["ci_hi"] for c in g)
assert all(c["primary"] == "flops" and c["throughput_unit"] == "GFLOP/s" for c in g), g
s = p["softmax cols=4096 dtype=f32 rows=64"]
assert [(c["primary"], c["throughput_unit"]) for c in s] == [("bytes", "GB/s")] * 2, s
assert s[0]["gflops"] > 0 and abs(s[0]["throughput"] - s[0]["gbps"]) <= 1e-6 * s[0]["gbps"], s[0]
PY
run_bench compare --by operation "$T/r" --plugin 'cpu_*' --format csv
expect_in "$T/out" '^problem,plugin,backend,knobs,tag,median,throughput,vs best,95% CI$' "csv header"
expect_not_in "$T/out" 'vk_|hip_' "--plugin narrows the plugins"
run_bench compare --by plugin "$T/r"
expect_rc 2 "--by takes operation only"
finish

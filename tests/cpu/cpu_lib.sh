# shellcheck shell=bash disable=SC2034
# Helpers of the CPU plugin tests, on top of tests/cli/lib.sh.
. "$SRC/tests/cli/lib.sh"
. "$SRC/scripts/lib/machine.sh" # machine_has_flag

CPU_PLUGINS="cpu_gemm cpu_rmsnorm cpu_layernorm cpu_softmax cpu_rope cpu_attention cpu_noop cpu_spin membw_cpu memlat_cpu"
CPU_GLOB='cpu_*,membw_cpu,memlat_cpu'
VERIFIED="cpu_gemm cpu_rmsnorm cpu_layernorm cpu_softmax cpu_rope cpu_attention"

# Can this machine dlopen OpenBLAS (what cpu_gemm variant=openblas does)?
have_openblas() {
  python3 -c 'import ctypes; ctypes.CDLL("libopenblas.so.0")' 2>/dev/null
}
# And BLIS (variant=blis)?
have_blis() {
  python3 -c 'import ctypes; ctypes.CDLL("libblis.so.4")' 2>/dev/null
}

# check_results DIR PRESET: every CPU plugin has a result file and rollup
# rows; every case OK, except openblas (blis) cases SKIPPED with the reason
# when OpenBLAS (BLIS) is absent or BENCH_CPU_NO_OPENBLAS (BENCH_CPU_NO_BLIS)
# is set; verified plugins
# compared every element (method full), and with determinism on, bit for
# bit equal outputs.
check_results() {
  python3 - "$1" "$2" "$CPU_PLUGINS" "$VERIFIED" "$(have_openblas && [ -z "${BENCH_CPU_NO_OPENBLAS:-}" ] && echo yes)" \
    "$(have_blis && [ -z "${BENCH_CPU_NO_BLIS:-}" ] && echo yes)" <<'PY'
import csv, glob, json, os, sys
d, preset, plugins, verified, openblas, blis = sys.argv[1:7]
absent = {"openblas": ("OpenBLAS", openblas != "yes"), "blis": ("BLIS", blis != "yes")}
plugins, verified = plugins.split(), verified.split()
bad = []
rows = list(csv.DictReader(open(os.path.join(d, "rollup.csv"), newline="")))
for p in plugins:
    files = glob.glob(os.path.join(d, f"*_{p}_{preset}*.json"))
    if not files:
        bad.append(f"{p}: no result file"); continue
    n = sum(1 for r in rows if r["plugin"] == p)
    if n == 0: bad.append(f"{p}: no rollup rows")
    for f in files:
        doc = json.load(open(f))
        if not doc["cases"]: bad.append(f"{p}: no cases")
        for c in doc["cases"]:
            name = p + " " + " ".join(f"{k}={v}" for k, v in c["params"].items())
            lib, missing = absent.get(c["params"].get("variant"), ("", False))
            if missing:
                if c["status"] != "SKIPPED" or lib not in (c["message"] or ""):
                    bad.append(f"{name}: {c['status']} '{c['message']}', expected SKIPPED naming {lib}")
                continue
            if c["status"] != "OK":
                bad.append(f"{name}: {c['status']}: {c['message']} {c['stderr_tail']}"); continue
            if p in verified:
                if c["check"]["method"] != "full" or not c["check"]["pass"]:
                    bad.append(f"{name}: check {c['check']}")
                if preset.startswith("verify") and c["determinism"] != "bitwise_equal":
                    bad.append(f"{name}: determinism {c['determinism']}")
            if not c["host"]["median"] > 0:
                bad.append(f"{name}: no time")
for b in bad: print(b)
sys.exit(1 if bad else 0)
PY
}

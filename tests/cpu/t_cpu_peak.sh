#!/usr/bin/env bash
# The CPU peak plugins (peak_cpu_fma, peak_cpu_bw, peak_cpu_lat; issue 41)
# under the smoke preset and the verify tier: every case OK, or SKIPPED
# naming what this CPU lacks (an FMA ISA absent from /proc/cpuinfo's flags,
# nothing else); every OK case compared by the plugin's own reference
# exactly (check method plugin-exact, no error); and the roof each case
# names: fp32/fp64 per dtype, l1 .. dram by the level its working set
# lives in (the capacity that level's size from the result header), lat_*
# with its loads as items; ".1t" on one thread, none where the threads are
# neither one nor every CPU; the work the roofs are read from (FLOPs of the
# FMA chains, bytes of the working set). Then: the verify tier's outputs
# bitwise equal when run twice; with BENCH_NO_ROOF_EXT=1 the same cases
# run and are checked, and name no roof; with a fake sysfs whose cpufreq
# says 3 GHz, the datasheet uses it; with sysfs's caches hidden, and with
# no cache source at all (the stated defaults), the cases still run.
. "$(dirname "$0")/cpu_lib.sh"

PEAK=peak_cpu_fma,peak_cpu_bw,peak_cpu_lat
NCPU=$(nproc)
FLAGS=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)

# check_peak DIR MODE: MODE smoke, verify (determinism too), noroof (no
# roof may be named), clock (the datasheet from a 3 GHz cpufreq).
check_peak() {
  python3 - "$1" "$2" "$NCPU" "$FLAGS" "$(uname -m)" <<'PY'
import glob, json, os, sys
d, mode, ncpu, flags, arch = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split(), sys.argv[5]
x86 = arch in ("x86_64", "i686", "i386")
have = {"avx512": "avx512f" in flags, "avx2": "avx2" in flags and "fma" in flags, "sse2": x86, "scalar": True}
bits = {"avx512": 512, "avx2": 256, "sse2": 128, "scalar": 0}
bad, seen = [], {}
def need(cond, what):
    if not cond: bad.append(what)
for p in ("peak_cpu_fma", "peak_cpu_bw", "peak_cpu_lat"):
    files = glob.glob(os.path.join(d, f"*_{p}_*.json"))
    need(files, f"{p}: no result file")
    for f in files:
        doc = json.load(open(f))
        caches = {c["level"]: c for c in doc["env"].get("cpu.caches") or []}
        llc = max(caches) if caches else 0
        need(llc >= 2, f"{f}: cpu.caches in the header: {caches}")
        for c in doc["cases"]:
            prm, info = c["params"], c["info"]
            name = p + " " + " ".join(f"{k}={v}" for k, v in prm.items())
            seen.setdefault(p, []).append(c["status"])
            if p == "peak_cpu_fma" and not have[prm["isa"]]:
                need(c["status"] == "SKIPPED" and prm["isa"] in (c["message"] or "").lower().replace("-", ""),
                     f"{name}: {c['status']} '{c['message']}', expected SKIPPED naming the ISA")
                continue
            if c["status"] != "OK":
                bad.append(f"{name}: {c['status']}: {c['message']} {c['stderr_tail']}"); continue
            ck = c["check"]
            need(ck["checked"] and ck["pass"] and ck["method"] == "plugin-exact" and ck["max_abs_err"] == 0
                 and ck["compared"] > 0, f"{name}: check {ck}")
            need(c["host"]["median"] > 0, f"{name}: no time")
            if mode == "verify":
                need(c["determinism"] == "bitwise_equal", f"{name}: determinism {c['determinism']}")
            threads = int(info.get("threads", "1"))
            if p != "peak_cpu_lat":
                want_threads = int(prm["threads"]) or ncpu
                need(threads == want_threads, f"{name}: info threads {threads}, expected {want_threads}")
            scope = "" if p == "peak_cpu_lat" else ".1t" if prm["threads"] == "1" else "" if threads == ncpu else None
            # the roof's base id and its level's capacity
            if p == "peak_cpu_fma":
                base, kind = ("fp32" if prm["dtype"] == "f32" else "fp64"), "compute"
                esize = 4 if prm["dtype"] == "f32" else 8
                lanes = bits[prm["isa"]] // (8 * esize) or 1
                need(info.get("lanes") == str(lanes), f"{name}: lanes {info.get('lanes')}, expected {lanes}")
                flops = 2 * lanes * 12 * int(prm["chain"]) * threads
                need(c["flops"] == flops, f"{name}: flops {c['flops']}, expected {flops}")
                if prm["isa"] in ("avx512", "avx2") and "roof" in info:
                    need(float(info.get("roof_datasheet", 0)) > 0 and info.get("roof_datasheet_how")
                         or info.get("datasheet_note"), f"{name}: neither a datasheet nor a note: {info}")
                if mode == "clock" and "roof_datasheet" in info:
                    need("3.000 GHz" in info["roof_datasheet_how"] and "cpuinfo_max_freq" in info["roof_datasheet_how"],
                         f"{name}: datasheet not from the fake cpufreq: {info['roof_datasheet_how']}")
            else:
                # the level: the first whose instance holds the working sets of
                # the threads sharing it (shared_by, else L1/L2 private and the
                # LLC shared by all), else memory
                ws, want, cap = int(info["working_set_bytes"]), "dram", 0
                for lv in sorted(caches):
                    by = caches[lv]["shared_by"] or (threads if lv == llc else 1)
                    if ws * min(by, threads) <= caches[lv]["bytes"]:
                        want, cap = f"l{lv}", caches[lv]["bytes"]; break
                level = info.get("level")
                need(level == want, f"{name}: level {level}, expected {want} (working set {ws})")
                named = {"L1/2": "l1", "2*LLC": "dram", "8*LLC": "dram"}.get(prm["size"])
                need(named in (None, level), f"{name}: size {prm['size']} at level {level}")
                base = ("lat_" if p == "peak_cpu_lat" else "") + want
                if p == "peak_cpu_lat":
                    # a ring under 4x the level below mixes in its hits: no roof
                    below = llc if want == "dram" else int(want[1:]) - 1
                    if below >= 1 and ws < 4 * caches[below]["bytes"]:
                        scope = None
                kind = "latency" if p == "peak_cpu_lat" else "bandwidth"
                if "roof" in info:
                    need(info.get("roof_capacity_bytes") == (str(cap) if cap else None),
                         f"{name}: capacity {info.get('roof_capacity_bytes')}, expected {cap} (level {level})")
                if p == "peak_cpu_lat":
                    need(c["item_unit"] == "loads" and c["items"] == int(prm["loads"]),
                         f"{name}: items {c['items']} {c['item_unit']}")
                else:
                    want_bytes = ws * int(info["passes"]) * threads
                    need(c["bytes"] == want_bytes, f"{name}: bytes {c['bytes']}, expected {want_bytes}")
                    if prm["kernel"] != "read" and x86 and prm["stores"] == "auto":
                        need(info.get("stores") == ("nontemporal" if level == "dram" else "normal"),
                             f"{name}: stores {info.get('stores')} at level {level}")
            if mode == "noroof":
                need(not any(k.startswith("roof") for k in info), f"{name}: a roof without bench.roof/1: {info}")
            elif scope is None:
                need("roof" not in info and "no_roof" in info, f"{name}: no roof expected ({threads} of {ncpu} threads): {info}")
            else:
                need(info.get("roof") == base + scope and info.get("roof_kind") == kind,
                     f"{name}: roof {info.get('roof')} {info.get('roof_kind')}, expected {base + scope} {kind}")
                if p == "peak_cpu_fma":
                    need(info.get("roof_method", "").startswith(prm["isa"] + " "), f"{name}: method {info.get('roof_method')}")
for p in ("peak_cpu_fma", "peak_cpu_bw", "peak_cpu_lat"):
    need(seen.get(p, []).count("OK") >= 2, f"{p}: {seen.get(p, []).count('OK')} OK cases, expected 2 or more")
for b in bad: print(b)
print(f"{sum(len(v) for v in seen.values())} cases checked ({mode})")
sys.exit(1 if bad else 0)
PY
}

run_bench --preset smoke --plugin "$PEAK" --results-dir "$T/smoke"
expect_rc 0 "smoke"
check_peak "$T/smoke" smoke && ok || fail "smoke results"
expect_not_in "$T/out" 'WRONG_ANSWER|ERROR|CRASH|TIMEOUT|unchecked'

run_bench --preset "$SRC/tests/cpu/verify-quick.ini" --plugin "$PEAK" --results-dir "$T/verify"
expect_rc 0 "verify tier"
check_peak "$T/verify" verify && ok || fail "verify results"

# An older harness (or BENCH_NO_ROOF_EXT=1): the same cases, checked, no roof.
BENCH_NO_ROOF_EXT=1 run_bench --preset smoke --plugin "$PEAK" --param threads=1 --param size=L1/2,4*LLC \
  --param kernel=copy --results-dir "$T/noroof"
expect_rc 0 "without bench.roof/1"
check_peak "$T/noroof" noroof && ok || fail "results without bench.roof/1"

# The datasheet's clock from cpufreq (a fake sysfs, which also hides the
# caches' folder and the topology): 3 GHz; the cases still run and check.
mkdir -p "$T/sys/devices/system/cpu/cpu0/cpufreq"
echo 3000000 >"$T/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"
BENCH_SYSFS_ROOT="$T/sys" run_bench --preset smoke --plugin "$PEAK" --param size=L1/2,L2/2,4*LLC \
  --param kernel=read,triad --results-dir "$T/clock"
expect_rc 0 "a fake sysfs"
check_peak "$T/clock" clock && ok || fail "results with a fake sysfs"

# No cache source at all: the stated default sizes, said in a note; the
# levels follow them (the header's figures).
BENCH_CACHE_SOURCES= run_bench --preset smoke --plugin "$PEAK" --param size=L1/2,4*LLC --param kernel=write \
  --param isa=scalar --results-dir "$T/nocache"
expect_rc 0 "no cache source"
check_peak "$T/nocache" smoke && ok || fail "results with no cache source"
expect_in "$T/out" 'peak_cpu_bw .*OK' "bw cases run"
expect_in "$T/out" 'note: this machine does not tell its L1d, L2, L3 size' "the defaults' note"
finish

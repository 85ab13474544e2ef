#!/usr/bin/env bash
# Machines that hide facts (issue 20): the CPU plugins' smoke and verify
# presets pass with sysfs's CPU folder hidden, and with no cache source at
# all; the result header names the source of every cache figure; a default
# costs a note in the case, never a failed one. Hidden for real as root (a
# private mount namespace: an empty tmpfs over /sys/devices/system/cpu,
# /dev/null over /proc/cpuinfo); otherwise through BENCH_SYSFS_ROOT.
. "$(dirname "$0")/cpu_lib.sh"

# caches_of DIR: "level:bytes:source ..." of the header of every result
# file in DIR, one line per file; fails when a file has no cpu.caches.
caches_of() {
  python3 - "$1" <<'PY'
import glob, json, sys
files = sorted(glob.glob(sys.argv[1] + "/*.json"))
if not files: sys.exit("no result files in " + sys.argv[1])
for f in files:
    env = json.load(open(f))["env"]
    c = env.get("cpu.caches")
    if not c: sys.exit(f + ": no cpu.caches in the header")
    print(" ".join("%d:%d:%s" % (x["level"], x["bytes"], x["source"]) for x in c))
PY
}

# --- 1. this machine as it is: the header names sysfs when sysfs has it ---
sysfs_l1=
idx=/sys/devices/system/cpu/cpu0/cache/index0
if [ -r "$idx/size" ] && [ "$(cat "$idx/type")" = Data ]; then
  sysfs_l1=$(($(tr -dc 0-9 <"$idx/size") * 1024))
fi
run_bench --preset smoke --plugin memlat_cpu,membw_cpu --results-dir "$T/plain"
expect_rc 0 "smoke, machine as it is"
caches_of "$T/plain" >"$T/plain.caches" && ok || fail "header caches: $(cat "$T/plain.caches")"
expect_in "$T/plain.caches" '^1:[0-9]+:[a-z]+ 2:[0-9]+:[a-z]+' "levels 1 and 2 in the header"
if [ -n "$sysfs_l1" ]; then
  echo "sysfs has the caches here: L1d $sysfs_l1 bytes"
  expect_in "$T/plain.caches" "^1:$sysfs_l1:sysfs " "L1d from sysfs"
else
  echo "sysfs has no cache folder here"
  expect_not_in "$T/plain.caches" ':sysfs' "a sysfs figure on a machine without"
fi
expect_in "$(ls "$T"/plain/*memlat_cpu*.txt)" '^cpu caches +L1d [0-9]+ [KM]iB.*\((sysfs|cpuid|sysconf|default)\)' "the .txt header"

# --- 2. sysfs's CPU folder hidden: smoke and verify of every CPU plugin ----
HIDE='mount -t tmpfs none /sys/devices/system/cpu && mount --bind /dev/null /proc/cpuinfo'
if [ "$(id -u)" = 0 ] && unshare -m sh -c "$HIDE" 2>/dev/null; then
  how="mount namespace"
  hidden() { unshare -m sh -c "$HIDE"' && exec "$@"' hidden "$@"; }
  # The namespace really hides them.
  hidden ls -A /sys/devices/system/cpu >"$T/ls" 2>&1 && [ ! -s "$T/ls" ] && ok || fail "tmpfs over /sys/devices/system/cpu: $(cat "$T/ls")"
else
  how="BENCH_SYSFS_ROOT"
  mkdir -p "$T/emptysys"
  hidden() { BENCH_SYSFS_ROOT="$T/emptysys" "$@"; }
fi
echo "hiding sysfs's caches by $how"

hidden "$BENCH" --preset smoke --plugin "$CPU_GLOB" --results-dir "$T/hs" >"$T/out" 2>"$T/err"
RC=$?
expect_rc 0 "smoke with sysfs hidden"
check_results "$T/hs" smoke && ok || fail "smoke results with sysfs hidden"
expect_in "$T/out" 'cases run in .*: [0-9]+ ok, [0-9]+ skipped, 0 failed' "no failed case"
caches_of "$T/hs" >"$T/hs.caches" && ok || fail "header caches with sysfs hidden"
expect_not_in "$T/hs.caches" ':sysfs' "a sysfs figure with sysfs hidden"
expect_in "$T/hs.caches" '^1:[0-9]+:(cpuid|sysconf|default) 2:[0-9]+:(cpuid|sysconf|default)' "sources named"
echo "with sysfs hidden: $(head -n 1 "$T/hs.caches")"
case "$(uname -m)" in
x86_64 | i?86)
  # CPUID names the model and, unless a hypervisor zeroes its cache leaves,
  # the caches.
  python3 - "$T/hs" <<'PY' && ok || fail "cpu model with /proc/cpuinfo hidden"
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/*.json"):
    cpu = json.load(open(f))["env"]["cpu"]
    assert cpu and not cpu.startswith("unknown"), cpu
PY
  ;;
esac

hidden "$BENCH" --preset "$SRC/tests/cpu/verify-quick.ini" --plugin "$CPU_GLOB" --results-dir "$T/hv" >"$T/out" 2>"$T/err"
RC=$?
expect_rc 0 "verify with sysfs hidden"
check_results "$T/hv" verify-quick && ok || fail "verify results with sysfs hidden"

# --- 3. no source at all: the stated defaults, a note, never ERROR ---------
BENCH_CACHE_SOURCES= run_bench --preset smoke --plugin memlat_cpu,membw_cpu,cpu_gemm --results-dir "$T/none"
expect_rc 0 "smoke with no cache source"
expect_not_in "$T/out" 'ERROR|WRONG_ANSWER|CRASH'
expect_in "$T/out" 'note: this machine does not tell its L1d, L2, L3 size .*default 32 KiB, 1 MiB, 32 MiB' "the note on the terminal"
caches_of "$T/none" >"$T/none.caches" && ok || fail "header caches, no source"
expect_in "$T/none.caches" '^1:32768:default 2:1048576:default 3:33554432:default$' "defaults in the header"
expect_in "$(ls "$T"/none/*memlat_cpu*.txt)" 'note: this machine does not tell' "the note in the .txt"
python3 - "$T/none" <<'PY' && ok || fail "cases sized by a cache carry the note; LLC/2 is half the default"
import glob, json, sys
d = json.load(open(glob.glob(sys.argv[1] + "/*memlat_cpu*.json")[0]))
cases = {c["params"]["size"]: c for c in d["cases"]}
assert set(cases) >= {"16KiB", "L2/2", "LLC/2", "2*LLC"}, cases.keys()
for size, c in cases.items():
    assert c["status"] == "OK", (size, c["status"], c["message"])
    has = "default" in c["info"].get("note", "")
    assert has == ("L" in size), (size, c["info"])
ws = int(cases["LLC/2"]["info"]["working_set_bytes"])
assert abs(ws - 16 * 2**20) < 128, ws
g = json.load(open(glob.glob(sys.argv[1] + "/*cpu_gemm*.json")[0]))
packed = [c for c in g["cases"] if c["params"].get("variant") == "packed"]
assert packed and all("default" in c["info"].get("note", "") for c in packed), [c["info"] for c in packed]
PY

# --- 4. a misspelt source: one warning, the run goes on ---------------------
BENCH_CACHE_SOURCES=sysfs,magic run_bench --preset smoke --plugin memlat_cpu --results-dir "$T/bad"
expect_rc 0 "a misspelt BENCH_CACHE_SOURCES"
expect_in "$T/err" "BENCH_CACHE_SOURCES: unknown cache source 'magic'" "the warning"
finish

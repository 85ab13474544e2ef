#!/usr/bin/env bash
# Nothing assumes this machine (issue 20): bench in a sandbox without /proc
# (no /proc/self/exe, /proc/cpuinfo, /proc/PID/children) and without
# sysfs's CPU folder still finds its plugins and presets, records a CPU
# model and CPU count, and ends every kind of case as it should (a crash, a
# hang killed at its timeout). Needs root for a private mount namespace;
# elsewhere it is skipped (exit 77) with the reason.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ] || ! unshare -m sh -c 'mount -t tmpfs none /proc' 2>/dev/null; then
  skip "needs root and unshare -m to hide /proc"
fi
# sandboxed WHAT CMD...: CMD with WHAT ("proc", "sysfs-cpu") hidden under an empty tmpfs.
sandboxed() {
  local what=$1
  shift
  case $what in
  proc) unshare -m sh -c 'mount -t tmpfs none /proc && exec "$@"' sandboxed "$@" ;;
  sysfs-cpu) unshare -m sh -c 'mount -t tmpfs none /sys/devices/system/cpu && exec "$@"' sandboxed "$@" ;;
  esac
}

# A sanitizer runtime cannot run without /proc: it reads its options from
# /proc/self/environ and LeakSanitizer stops the threads through /proc.
# There only the sysfs part runs; the plain build runs it all.
if grep -qa __asan_init "$BENCH"; then
  echo "sanitizer build: the runs without /proc are left to the plain build"
else
# The binary's own folder without /proc/self/exe: plugins and presets found
# by the path it was started by, relative or bare on PATH.
sandboxed proc "$BENCH" --list >"$T/out" 2>"$T/err"
RC=$?
expect_rc 0 "--list without /proc"
expect_in "$T/out" '^cpu_noop ' "the build's plugins found without /proc"
(cd "$(dirname "$BENCH")" && PATH=".:$PATH" sandboxed proc bench --list) >"$T/out" 2>"$T/err"
RC=$?
expect_rc 0 "--list without /proc, bench found on PATH"
expect_in "$T/out" '^cpu_noop ' "plugins found from PATH"

sandboxed proc "$BENCH" --preset "$SRC/tests/cli/presets/fast.ini" --plugin-dir "$FX_GOOD" --results-dir "$T/r" \
  --plugin fx_ok,fx_crash,fx_hang >"$T/out" 2>"$T/err"
RC=$?
expect_rc 1 "fixtures without /proc"
R="$T/r/rollup.csv"
expect_eq "$(csv_field "$R" fx_ok n=8 status)" OK "fx_ok without /proc"
expect_eq "$(csv_field "$R" fx_crash n=8 status)" CRASH "fx_crash without /proc"
expect_eq "$(csv_field "$R" fx_hang n=8 status)" TIMEOUT "fx_hang without /proc"
sandboxed proc "$BENCH" --preset smoke --plugin cpu_noop --results-dir "$T/r2" >"$T/out" 2>"$T/err"
RC=$?
expect_rc 0 "the smoke preset found without /proc"
python3 - "$T/r2" "$(uname -m)" <<'PY' && ok || fail "cpu model and count without /proc"
import glob, json, sys
files = glob.glob(sys.argv[1] + "/*.json")
assert files, "no result file"
env = json.load(open(files[0]))["env"]
assert env["cpus"] >= 1, env["cpus"]
x86 = sys.argv[2] in ("x86_64", "i686", "i386")
# x86: CPUID's brand string; elsewhere the architecture, never a blank.
assert env["cpu"] and (not x86 or not env["cpu"].startswith("unknown")), env["cpu"]
print("without /proc: cpu %r, %d cpus" % (env["cpu"], env["cpus"]))
PY

fi

# Without sysfs's CPU folder: the CPU count from /proc/stat or the
# affinity mask, the caches from CPUID/sysconf/defaults.
sandboxed sysfs-cpu "$BENCH" --preset smoke --plugin cpu_noop,memlat_cpu --results-dir "$T/r3" >"$T/out" 2>"$T/err"
RC=$?
expect_rc 0 "smoke without /sys/devices/system/cpu"
python3 - "$T/r3" "$(nproc)" <<'PY' && ok || fail "cpu count without sysfs"
import glob, json, sys
files = glob.glob(sys.argv[1] + "/*.json")
assert files, "no result file"
for f in files:
    env = json.load(open(f))["env"]
    assert env["cpus"] >= 1, env["cpus"]
    assert all(c["source"] != "sysfs" for c in env["cpu.caches"]), env["cpu.caches"]
PY

# The scripts' view of the machine (scripts/lib/machine.sh), with /proc and
# without: a model, a CPU count, a load, CPU flags (x86-64 always has sse2).
for where in with without; do
  probe='. "$1/scripts/lib/machine.sh"; echo "model=$(machine_cpu_model)"; echo "cpus=$(machine_cpus)"
    echo "load=$(machine_load)"; machine_has_flag sse2 && echo sse2=yes || echo sse2=no
    machine_has_flag no_such_flag && echo bogus=yes || echo bogus=no'
  if [ $where = with ]; then bash -c "$probe" probe "$SRC" >"$T/m" 2>&1
  else sandboxed proc bash -c "$probe" probe "$SRC" >"$T/m" 2>&1; fi
  echo "scripts' machine $where /proc: $(tr '\n' ' ' <"$T/m")"
  expect_in "$T/m" '^model=[^ -]' "model $where /proc"
  expect_in "$T/m" '^cpus=[1-9][0-9]*$' "cpus $where /proc"
  expect_in "$T/m" '^load=.' "load $where /proc"
  expect_in "$T/m" '^bogus=no$' "an unknown flag $where /proc"
  case "$(uname -m)" in x86_64) expect_in "$T/m" '^sse2=yes$' "sse2 $where /proc" ;; esac
done
finish

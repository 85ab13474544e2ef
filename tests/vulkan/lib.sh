# Shared by the Vulkan tests (bash, run by ctest with BENCH, VK_INPROC,
# VK_FX, PLUGINS and SRC set). Each test works in its own temporary folder,
# with its own XDG cache, and never touches the user's.
set -u
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-vk.XXXXXX")
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME="$T/cache"
unset VK_INSTANCE_LAYERS VK_LOADER_LAYERS_ENABLE VK_LAYER_ENABLES BENCH_VK_DEVICE BENCH_VK_MEMORY \
  BENCH_VK_RETUNE VK_DRIVER_FILES VK_ICD_FILENAMES
# shellcheck source=tests/checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/../checks.sh"

# Cases that may be SKIPPED where a test expects OK, for the reason the
# device gives: "PLUGIN: MESSAGE" must match (lavapipe has no cooperative
# matrices; Debian 12's glslc cannot build their shader).
export VK_MAY_SKIP='^(vk_peak_coopmat: (device .* lacks VK_KHR_cooperative_matrix|device .*: Vulkan 1\.[0-2];|device .* has VK_KHR_cooperative_matrix but not|device .* lists no subgroup cooperative matrix|device .* lacks shaderInt8|this build has no cooperative-matrix shader)|vk_peak_fma: device .* lacks shaderFloat16)'

# inproc_passed: vk_inproc's line in $T/out says OK, or SKIPPED for a
# reason VK_MAY_SKIP allows.
inproc_passed() {
  grep -Eq ': OK $' "$T/out" && return 0
  local line
  line=$(sed -n 's/^\([a-z0-9_]*\): SKIPPED \(.*\)$/\1: \2/p' "$T/out")
  [ -n "$line" ] && printf '%s\n' "$line" | grep -Eq -- "$VK_MAY_SKIP"
}

# run_bench ARGS...: bench with stdout, stderr and the exit status kept.
run_bench() {
  "$BENCH" "$@" >"$T/out" 2>"$T/err"
  RC=$?
}

expect_rc() {
  if [ "$RC" -eq "$1" ]; then ok; else
    fail "${2:-exit status}: expected $1, got $RC"
    echo "--- stdout"; tail -40 "$T/out"; echo "--- stderr"; tail -40 "$T/err"
  fi
}

expect_in() {
  if grep -Eq -- "$2" "$1"; then ok; else fail "${3:-$1} lacks /$2/"; head -c 3000 "$1"; echo; fi
}

# The vk plugins built here (from the plugin folder); none: nothing.
vk_plugins() {
  local f
  for f in "$PLUGINS"/vk_*.so; do [ -e "$f" ] && basename "$f" .so; done
  return 0
}

# check_results DIR STATUS MESSAGE_REGEX [PLUGIN,...]: every case of every
# result JSON in DIR has STATUS (and a message matching the regex, if not
# empty), or where STATUS is OK is SKIPPED for a reason VK_MAY_SKIP allows;
# no case logged a Vulkan validation message; every plugin named (default:
# every vk plugin built) has result rows.
check_results() {
  python3 - "$1" "$2" "$3" "${4:-$(vk_plugins | paste -sd,)}" <<'PY'
import glob, json, os, re, sys
d, status, msg = sys.argv[1], sys.argv[2], sys.argv[3]
may_skip = re.compile(os.environ.get("VK_MAY_SKIP") or "^$^")
plugins = set(p for p in sys.argv[4].split(",") if p)
seen, bad = set(), []
if not plugins:
    bad.append("no plugins to check")
for path in sorted(glob.glob(d + "/*.json")):
    for c in json.load(open(path))["cases"]:
        name = c["plugin"] + " " + " ".join(f"{k}={v}" for k, v in c["params"].items())
        seen.add(c["plugin"])
        if (status == "OK" and c["status"] == "SKIPPED" and
                may_skip.search(c["plugin"] + ": " + (c.get("message") or ""))):
            continue
        if c["status"] != status:
            bad.append(f"{name}: {c['status']} {c.get('message')}\n  stderr: {c.get('stderr_tail')}")
        if msg and not re.search(msg, c.get("message") or ""):
            bad.append(f"{name}: message {c.get('message')!r} lacks /{msg}/")
        tail = c.get("stderr_tail") or ""
        if re.search(r"vulkan (validation|performance)|VUID-|SYNC-HAZARD|Validation (Error|Warning)", tail):
            bad.append(f"{name}: validation message in stderr:\n{tail}")
if not glob.glob(d + "/*.json"):
    bad.append("no result files in " + d)
missing = plugins - seen
if missing:
    bad.append("no results for " + ", ".join(sorted(missing)))
for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
PY
}

# inproc_keep: export VK_INPROC_KEEP for vk_inproc, the drivers and layers
# the loader dlopens and dlcloses, pinned in memory: once unmapped, what
# their globals point to looks leaked to LeakSanitizer and their stack
# frames lose their names (so lsan.supp cannot match them).
inproc_keep() {
  VK_INPROC_KEEP=$(python3 - <<'PY'
import glob, json, os
libs = []
for d in ("/usr/share/vulkan", "/etc/vulkan", os.path.expanduser("~/.local/share/vulkan")):
    for f in glob.glob(d + "/icd.d/*.json") + glob.glob(d + "/*_layer.d/*.json"):
        try:
            m = json.load(open(f))
            libs.append((m.get("ICD") or m.get("layer") or {}).get("library_path", ""))
        except (OSError, ValueError):
            pass
print(":".join(l for l in libs if l))
PY
)
  export VK_INPROC_KEEP
}

#!/usr/bin/env bash
# The pipeline cache on disk (vkh_pipeline_cache.c) under the rule of
# bench's caches (issue 40, findings 1 and 2): written 0600 at deinit under
# a random temporary name, read back by the next process; a file whose key
# is another's (its header names another device or driver: a file renamed
# over this one's name) is not handed to the driver; a folder writable by
# others is not used, and the result says so.
. "$(dirname "$0")/lib.sh"
[ -f "$PLUGINS/vk_gemm.so" ] || skip "vk_gemm is not built"
cat >"$T/p.ini" <<'INI'
[run]
tier = smoke
warmup_iters = 1
warmup_time = 0
min_samples = 2
max_samples = 3
min_time = 0
max_time = 0.1s
verify = full
[vk_gemm]
m = 32
n = 32
k = 32
dtype = f32
INI
DIR="$XDG_CACHE_HOME/bench"
# the vk_pipeline_cache info of the single case of DIR
info() {
  python3 - "$1" <<'PY'
import glob, json, sys
c = json.load(open(sorted(glob.glob(sys.argv[1] + "/*.json"))[-1]))["cases"][0]
assert c["status"] == "OK", (c["status"], c["message"], c["stderr_tail"])
print(c["info"].get("vk_pipeline_cache", "<none>"))
PY
}
run_bench --preset "$T/p.ini" --plugin vk_gemm --results-dir "$T/r1"
expect_rc 0 "first run"
f=$(find "$DIR" -maxdepth 1 -name 'vk_pipelines_*.bin' | head -1)
expect_nonempty "a pipeline cache file" $f
[ -n "$f" ] || finish
expect_eq "$(stat -c %a "$f")" 600 "the file is 0600"
expect_eq "$(head -c 8 "$f")" "VKHPCA1" "its magic"
[ -z "$(find "$DIR" -maxdepth 1 -name '*.tmp.*')" ] && ok || fail "temporary files left"
run_bench --preset "$T/p.ini" --plugin vk_gemm --results-dir "$T/r2"
case "$(info "$T/r2")" in "$f ("[1-9]*" bytes loaded)") ok ;; *) fail "second run: $(info "$T/r2")" ;; esac

# The same data, whole and with a right checksum, but bound to another name.
python3 - "$f" <<'PY'
import hashlib, sys
path = sys.argv[1]
d = open(path, "rb").read()
data = d[72:]
key = hashlib.sha256(b"vk_pipelines_ffff_ffff_ffffffff_00.bin").digest()
open(path, "wb").write(b"VKHPCA1\n" + key + hashlib.sha256(key + data).digest() + data)
PY
run_bench --preset "$T/p.ini" --plugin vk_gemm --results-dir "$T/r3"
case "$(info "$T/r3")" in "$f (0 bytes loaded)") ok ;; *) fail "another key's file: $(info "$T/r3")" ;; esac

chmod 0777 "$DIR"
run_bench --preset "$T/p.ini" --plugin vk_gemm --results-dir "$T/r4"
expect_rc 0 "folder writable by others"
case "$(info "$T/r4")" in "off: cache folder '$DIR' is writable by others"*) ok ;;
  *) fail "folder 0777: $(info "$T/r4")" ;; esac
finish

#!/usr/bin/env bash
# Device choice with BENCH_VK_DEVICE: by index, by part of the name; a name
# or index that matches nothing makes the plugins not runnable and the
# cases SKIPPED with the reason (exit 0).
. "$(dirname "$0")/lib.sh"

info() {
  python3 - "$1" "$2" <<'PY'
import glob, json, sys
c = json.load(open(sorted(glob.glob(sys.argv[1] + "/*.json"))[-1]))["cases"][0]
print(c["status"], c["info"].get(sys.argv[2], "<none>") if c["status"] == "OK" else c["message"])
PY
}

BENCH_VK_DEVICE=0 run_bench --preset smoke --plugin vk_smoke --results-dir "$T/a"
expect_rc 0 "index 0"
[ "$(info "$T/a" vk_device_index)" = "OK 0" ] && ok || fail "index 0: $(info "$T/a" vk_device_index)"
name=$(info "$T/a" device | cut -d' ' -f2)
BENCH_VK_DEVICE="$name" run_bench --preset smoke --plugin vk_smoke --results-dir "$T/b"
expect_rc 0 "by name"
case "$(info "$T/b" device)" in "OK $name"*) ok ;; *) fail "by name '$name': $(info "$T/b" device)" ;; esac

BENCH_VK_DEVICE=no-such-gpu run_bench --list --plugin 'vk_*'
expect_rc 0 "--list"
expect_in "$T/out" "^vk_smoke +vulkan +not runnable: BENCH_VK_DEVICE=no-such-gpu matches none of the" "--list"
BENCH_VK_DEVICE=99 run_bench --preset smoke --plugin 'vk_*' --results-dir "$T/c"
expect_rc 0 "no such index"
check_results "$T/c" SKIPPED "^BENCH_VK_DEVICE=99 matches none of the [0-9]+ Vulkan device" \
  && ok || fail "not every case SKIPPED"
finish

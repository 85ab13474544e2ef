#!/usr/bin/env bash
# One problem, one work figure on every backend. Every built plugin of each
# operation in the harness's table (check/operation.c) runs at one shape per
# operation; every case that ran must carry the table's figure
# (work_source "operation", not the plugin's set_work) and the FLOPs and
# bytes of operation.h's rule, so all plugins of an operation (and dtype)
# count the same. Prints the table operation x backend.
#
# Each built plugin's operation is read from its entry (ctypes), so a new
# plugin of a table operation that this test gives no shape fails it. HIP
# plugins are built here without a device and end SKIPPED before setup:
# then their figure cannot be observed, and the test checks instead that
# no HIP source of a table operation calls set_work (what makes them get
# the table's figure), and lists them as "table (skipped)".
. "$(dirname "$0")/cli/lib.sh"

PLUGINS="$BUILD/lib/bench/plugins"
OPS="gemm rmsnorm layernorm softmax rope attention copy fill add"

# plugin backend operation, for every built plugin, from its bench_plugin_entry
# (plugins built with sanitizers load only into a process that has them).
pre=()
first=$(ls "$PLUGINS"/*.so 2>/dev/null | head -1)
case "$(ldd "$first" 2>/dev/null || true)" in *libasan*)
  pre=(env "LD_PRELOAD=$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
       ASAN_OPTIONS=detect_leaks=0) ;;
esac
"${pre[@]}" python3 - "$PLUGINS" >"$T/built" <<'PY' || fail "reading the plugins' entries"
import ctypes, glob, os, sys
class Entry(ctypes.Structure):
    _fields_ = [("abi", ctypes.c_uint32), ("name", ctypes.c_char_p),
                ("backend", ctypes.c_char_p), ("operation", ctypes.c_char_p)]
for so in sorted(glob.glob(os.path.join(sys.argv[1], "*.so"))):
    try:
        lib = ctypes.CDLL(so, mode=ctypes.RTLD_LOCAL)
    except OSError as e:  # a plugin whose libraries are absent here
        print(f"# {os.path.basename(so)}: {e}", file=sys.stderr); continue
    e = Entry.in_dll(lib, "bench_plugin_entry")
    print(e.name.decode(), e.backend.decode(), e.operation.decode())
PY
mapfile -t built < <(cut -d' ' -f1 "$T/built")
expect_nonempty "built plugins" "${built[@]}"

# One shape per operation, as each backend's parameters name it; dtype f32
# where a plugin has a dtype (vk_gemm_f16acc32 has only f16: it runs with
# cpu_gemm's f16 cases, f16 in, f32 out, a problem of its own).
shape_of() {
  case "$1" in
  cpu_gemm) echo "variant = blocked|m = 64|n = 48|k = 32|dtype = f32,f16|threads = 1" ;;
  vk_gemm_f16acc32) echo "m = 64|n = 48|k = 32|dtype = f16" ;;
  hip_gemm) echo "variant = tiled,mfma|m = 64|n = 48|k = 32|dtype = f32,f16" ;;
  cuda_gemm) echo "variant = tiled,cublas|m = 64|n = 48|k = 32|dtype = f32,f16" ;;
  *_gemm | *_gemm_*) echo "m = 64|n = 48|k = 32|dtype = f32" ;;
  cpu_rmsnorm* | cpu_layernorm* | cpu_softmax*) echo "rows = 16|cols = 256|threads = 1" ;;
  *_rmsnorm* | *_layernorm* | *_softmax*) echo "rows = 16|cols = 256|dtype = f32" ;;
  cpu_rope) echo "seq = 8|heads = 4|head_dim = 64|layout = interleaved|threads = 1" ;;
  *_rope) echo "seq = 8|heads = 4|head_dim = 64|layout = interleaved|dtype = f32" ;;
  cpu_attention) echo "batch = 1|heads = 2|seq = 32|head_dim = 16|rope = none|mask = causal,none|threads = 1" ;;
  *_attention) echo "batch = 1|heads = 2|seq = 32|head_dim = 16|rope = none|mask = causal,none|dtype = f32" ;;
  *_copy | *_fill | *_vec_add) echo "size = 4096" ;;
  *) return 1 ;;
  esac
}

{
  printf '[run]\ntier = smoke\nwarmup_iters = 1\nmin_samples = 1\nmax_samples = 2\n'
  printf 'max_time = 0.2s\ntarget_noise = 100%%\nverify = full\ntimeout = 120s\n'
} >"$T/work.ini"
selected=()
while read -r name backend op; do
  case " $OPS " in *" $op "*) ;; *) continue ;; esac
  if ! shape=$(shape_of "$name"); then
    fail "$name ($op): this test has no shape for it; add one to shape_of"
    continue
  fi
  printf '[%s]\n%s\n' "$name" "${shape//|/$'\n'}" >>"$T/work.ini"
  selected+=("$name")
done <"$T/built"
expect_nonempty "plugins of table operations" "${selected[@]}"

plugins=$(IFS=,; echo "${selected[*]}")
run_bench --preset "$T/work.ini" --plugin "$plugins" --results-dir "$T/r"
expect_rc 0

if python3 - "$T/r" "$T/built" "$SRC/plugins/hip" "$OPS" <<'PY'

import glob, json, os, re, sys
rdir, built_file, hip_src, ops = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split()
F32, F16 = 4, 2
# The rule of operation.h at this test's shapes: (flops, bytes) per
# (operation, input dtype); outputs f32 except where the key says.
m, n, k = 64, 48, 32
rows, cols = 16, 256
rn = 8 * 4 * 64
attn = 1 * 2 * 32 * 16
expect = {
    ("gemm", "f32"): (2 * m * n * k, (m * k + k * n + m * n) * F32),
    ("gemm", "f16"): (2 * m * n * k, (m * k + k * n) * F16 + m * n * F32),
    ("rmsnorm", "f32"): (4 * rows * cols, (2 * rows * cols + cols) * F32),
    ("layernorm", "f32"): (8 * rows * cols, (2 * rows * cols + 2 * cols) * F32),
    ("softmax", "f32"): (5 * rows * cols, 2 * rows * cols * F32),
    ("rope", "f32"): (3 * rn, 2 * rn * F32),
    ("attention", "f32", "causal"): (4 * 1 * 2 * 32 * 32 * 16 / 2, 4 * attn * F32),
    ("attention", "f32", "none"): (4 * 1 * 2 * 32 * 32 * 16, 4 * attn * F32),
    ("copy", "f32"): (0, 2 * 1024 * F32),
    ("fill", "f32"): (0, 1024 * F32),
    ("add", "f32"): (1024, 3 * 1024 * F32),
}
bad, checks = [], 0
table = {}  # (op, dtype) -> backend -> set of "flops/bytes"
ran = set()
for path in glob.glob(os.path.join(rdir, "*.json")):
    f = json.load(open(path))
    for c in f["cases"]:
        params = c["params"]
        key = (c["operation"], params.get("dtype", "f32"))
        if c["operation"] == "attention":  # the mask halves the work or not
            key += (params.get("mask", "causal"),)
        cell = table.setdefault(key, {}).setdefault(c["backend"], set())
        who = f'{c["plugin"]} {c["params"]}'
        if c["status"] == "SKIPPED":
            cell.add("skipped")
            continue
        ran.add(c["plugin"])
        checks += 1
        if c["status"] != "OK":
            bad.append(f'{who}: {c["status"]} {c.get("message")}'); continue
        if c.get("work_source") != "operation":
            bad.append(f'{who}: work_source {c.get("work_source")!r}, expected "operation"')
        want = expect.get(key)
        got = (c["flops"], c["bytes"])
        if want is None:
            bad.append(f"{who}: no expected figure for {key}")
        elif got != want:
            bad.append(f"{who}: flops, bytes {got}, expected {want}")
        cell.add(f"{c['flops']:.6g} FLOP / {c['bytes']:.6g} B")
# Every built plugin of a table operation ran at least one case, or (HIP or
# CUDA without a device) skipped; a skipped one must not call set_work.
for line in open(built_file):
    name, backend, op = line.split()
    if op not in ops or name in ran:
        continue
    checks += 1
    if backend not in ("hip", "cuda"):  # cuda_X is built from hip_X.hip
        bad.append(f"{name}: no case ran"); continue
    src = os.path.join(hip_src, "hip_" + name.split("_", 1)[1] + ".hip")
    text = open(src).read() if os.path.exists(src) else ""
    if not text:
        bad.append(f"{name}: no source {src} to check"); continue
    if re.search(r"set_work\s*\(", text):
        bad.append(f"{name}: skipped here, and its source calls set_work")
for key in expect:
    checks += 1
    cells = table.get(key, {})
    figures = {v for b in cells.values() for v in b if v != "skipped"}
    if len(figures) > 1:
        bad.append(f"{key}: backends disagree: {cells}")
backends = sorted({b for cells in table.values() for b in cells})
print(f"work at one shape (gemm {m}x{n}x{k}; rows {rows}x{cols}; rope seq 8 heads 4 d 64; "
      f"attention 1x2x32x16 causal and not; copy/fill/add 1024 elements):")
print(f'  {"operation":16}' + "".join(f"{b:>30}" for b in backends))
for key in sorted(table):
    cells = table[key]
    row = f"  {' '.join(key):16}"
    for b in backends:
        v = sorted(cells.get(b, {"-"}))
        v = [x for x in v if x != "skipped"] or (["table (skipped)"] if "skipped" in v else v)
        row += f"{', '.join(v):>30}"
    print(row)
for b in bad:
    print("FAIL:", b, file=sys.stderr)
print(f"{checks} work checks, {len(bad)} failed")
sys.exit(1 if bad or not checks else 0)
PY
then ok; else fail "work figures"; fi
finish

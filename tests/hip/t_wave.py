#!/usr/bin/env python3
"""The kernels are built for each target's wave size: CDNA targets
(gfx9) run 64-lane waves, RDNA targets (gfx10, gfx11, gfx12) 32-lane waves.

The build holds at least one target of each kind (the default targets do),
and in the code object of each target of every hip plugin .so:
  - every kernel's metadata says the target's wave size (.wavefront_size
    32 on RDNA: the wave32 code the hardware runs; 64 on CDNA);
  - the row kernels (rmsnorm, layernorm, softmax: templates on W) of the
    target's wave size hold real code with cross-lane shuffles
    (ds_swizzle, ds_bpermute, DPP or v_permlane), and those of the other
    wave size are empty (never launched there: an s_endpgm and nothing
    that touches memory)."""
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hiptools as ht  # noqa: E402

e = ht.env()
c = ht.Checks()
tmp = ht.tmpdir()
archs = sorted({ht.base_arch(a) for a in e["archs"]})
ROW_PLUGINS = ("hip_rmsnorm", "hip_layernorm", "hip_softmax")
ROW_KERNEL = re.compile(r"\b(rmsnorm|layernorm|softmax)_(wave|block)<[^,<>]+, (32|64)\b")
SHUFFLE = re.compile(r"\b(ds_swizzle_b32|ds_bpermute_b32|ds_permute_b32|v_permlane\w*)\b|"
                     r"\b(row_shr|row_ror|row_bcast|quad_perm|row_xmask|row_share|dpp8)")
MEMORY = re.compile(r"\b(global_|buffer_|flat_|ds_)\w*")


def wave_of(arch):
    return 32 if re.match(r"^gfx1[0-9]", arch) else 64


c.nonempty("HIP targets in the build", archs)
c.ok(any(wave_of(a) == 32 for a in archs),
     "no wave32 (RDNA) target among %s: add one to BENCH_HIP_ARCHS, e.g. gfx1030" % archs)
c.ok(any(wave_of(a) == 64 for a in archs),
     "no wave64 (CDNA) target among %s: add one to BENCH_HIP_ARCHS, e.g. gfx90a" % archs)
c.ok(ht.llvm_objdump() is not None, "no llvm-objdump found (Debian: llvm-15)")
try:
    for name in e["plugins"]:
        so = os.path.join(e["plugin_dir"], name + ".so")
        if not c.ok(os.path.exists(so), "%s: not built" % so):
            continue
        cos = ht.extract_code_objects(so, os.path.join(tmp, name))
        for arch in archs:
            want = wave_of(arch)
            kernels = [k for co in cos.get(arch, []) for k in ht.kernel_metadata(co)]
            if not c.ok(kernels, "%s: no kernel metadata for %s" % (name, arch)):
                continue
            for k in kernels:
                c.ok(k.get("wavefront_size") == want,
                     "%s %s %s: .wavefront_size %s, want %d"
                     % (name, arch, k["name"], k.get("wavefront_size"), want))
            print("%s %s: %d kernels, wave%d" % (name, arch, len(kernels), want))
            if name not in ROW_PLUGINS:
                continue
            funcs = {}
            for co in cos.get(arch, []):
                funcs.update(ht.disassemble(co))
            names = ht.demangle(sorted(funcs))
            seen = {32: 0, 64: 0}
            for sym, body in funcs.items():
                m = ROW_KERNEL.search(names[sym])
                if not m:
                    continue
                w = int(m.group(3))
                seen[w] += 1
                shuffles = sum(1 for l in body if SHUFFLE.search(l))
                memory = sum(1 for l in body if MEMORY.search(l))
                if w == want:
                    c.ok(shuffles > 0 and memory > 0,
                         "%s %s %s: %d shuffles, %d memory instructions in the kernel for "
                         "the target's wave size" % (name, arch, names[sym], shuffles, memory))
                else:
                    c.ok(memory == 0 and len(body) <= 4,
                         "%s %s %s: the wave%d kernel is not empty on a wave%d target "
                         "(%d instructions)" % (name, arch, names[sym], w, want, len(body)))
            c.ok(seen[32] > 0 and seen[64] > 0,
                 "%s %s: row kernels for both wave sizes expected, found %s" % (name, arch, seen))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
c.finish()

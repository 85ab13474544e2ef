#!/usr/bin/env python3
"""hip_gemm's `tile` tunable: every candidate is built for every target.

The candidates are read from `bench --list --verbose --plugin hip_gemm`
(the tile parameter, marked tunable, default first); for each of them and
each target in hip_gemm.so (a wave32 RDNA one and a wave64 CDNA one at
least, as hip.wave requires):
  - the tiled kernel gemm_tiled<T, BM, BN, TM, TN> of each dtype (f32, f16,
    bf16) is real code: FMA instructions, LDS traffic and global stores,
    its metadata's wave size is the target's and its LDS fits 64 KiB;
  - for tiles of 64x64 and up, the MFMA kernels gemm_mfma<bf16, BM, BN, NB>
    (NB = 1 and 2 LDS buffers) hold only the matching v_mfma instructions
    on an MFMA target (gfx90a, gfx94x), where their LDS is NB buffers of
    (BM + BN) rows of 80 bytes within 64 KiB, and no v_mfma elsewhere; the
    32x32 tile has no MFMA kernel."""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hiptools as ht  # noqa: E402

e = ht.env()
c = ht.Checks()
tmp = ht.tmpdir()
archs = sorted({ht.base_arch(a) for a in e["archs"]})
TYPES = {"float": "f32", "hipb_f16": "f16", "hipb_bf16": "bf16"}
TILED = re.compile(r"^void gemm_tiled<(\w+), (\d+), (\d+), (\d+), (\d+)>\(")
MFMA = re.compile(r"^void gemm_mfma<(true|false), (\d+), (\d+), (\d+)>\(")
MF_LDK_BYTES = 80  # an LDS row: 32 16-bit values and 16 bytes of padding
FMA = re.compile(r"\bv_(fma|fmac|pk_fma)_f32(_e32|_e64)?\b")
MFMA_INSN = {"false": re.compile(r"\bv_mfma_f32_32x32x8_?f16\b"),
             "true": re.compile(r"\bv_mfma_f32_32x32x8_?bf16(_1k)?\b")}


def wave_of(arch):
    return 32 if re.match(r"^gfx1[0-9]", arch) else 64


# The candidates, as a user sees them.
out = subprocess.run([os.environ["BENCH"], "--list", "--verbose", "--plugin", "hip_gemm",
                      "--plugin-dir", e["plugin_dir"]], capture_output=True, text=True)
c.ok(out.returncode == 0, "bench --list --verbose --plugin hip_gemm: rc %d %s"
     % (out.returncode, out.stderr[-300:]))
# "    tile  string {...}  ...", its defaults, then "tunable (auto): candidates A,B,..."
lines = out.stdout.splitlines()
at = next((i for i, l in enumerate(lines) if re.match(r"^\s+tile\s", l)), None)
block = "\n".join(lines[at:at + 3]) if at is not None else ""
print(block)
m = re.search(r"^\s+tunable \(auto\): candidates ([0-9x,]+)$", block, re.M)
c.ok(m is not None, "the tile parameter is not listed as a tunable with candidates")
tiles = m.group(1).split(",") if m else []
c.nonempty("tile candidates in --list -v", tiles)
c.ok(tiles[:1] == ["128x128"], "the default tile 128x128 is not the first candidate: %s" % tiles)
c.ok(len(tiles) >= 4, "at least 4 tile shapes expected, got %s" % tiles)
c.ok(any(wave_of(a) == 32 for a in archs) and any(wave_of(a) == 64 for a in archs),
     "the build needs a wave32 and a wave64 target, has %s" % archs)

try:
    so = os.path.join(e["plugin_dir"], "hip_gemm.so")
    cos = ht.extract_code_objects(so, os.path.join(tmp, "co"))
    for arch in archs:
        funcs, meta = {}, {}
        for co in cos.get(arch, []):
            funcs.update(ht.disassemble(co))
            meta.update({k["name"]: k for k in ht.kernel_metadata(co)})
        if not c.ok(funcs, "hip_gemm.so: no disassembly for %s" % arch):
            continue
        names = ht.demangle(sorted(funcs))
        tiled, mfma = {}, {}
        for sym, body in funcs.items():
            t = TILED.match(names[sym])
            if t:
                tiled[(t.group(2) + "x" + t.group(3), TYPES.get(t.group(1), t.group(1)))] = (sym, body, t)
            f = MFMA.match(names[sym])
            if f:
                mfma[(f.group(2) + "x" + f.group(3), f.group(1), int(f.group(4)))] = (sym, body)
        for tile in tiles:
            for dtype in ("f32", "f16", "bf16"):
                if not c.ok((tile, dtype) in tiled,
                            "%s: no gemm_tiled kernel for tile %s %s" % (arch, tile, dtype)):
                    continue
                sym, body, t = tiled[(tile, dtype)]
                threads = (int(t.group(2)) // int(t.group(4))) * (int(t.group(3)) // int(t.group(5)))
                fmas = sum(1 for l in body if FMA.search(l))
                lds = sum(1 for l in body if re.search(r"\bds_(read|write|load|store)", l))
                stores = sum(1 for l in body if re.search(r"\b(global|buffer|flat)_store", l))
                c.ok(fmas >= 16 and lds > 0 and stores > 0,
                     "%s %s: %d FMA, %d LDS, %d store instructions" % (arch, names[sym], fmas, lds, stores))
                md = meta.get(sym, {})
                c.ok(md.get("wavefront_size") == wave_of(arch),
                     "%s %s: .wavefront_size %s" % (arch, names[sym], md.get("wavefront_size")))
                c.ok(0 < md.get("group_segment_fixed_size", 0) <= 65536,
                     "%s %s: LDS %s bytes" % (arch, names[sym], md.get("group_segment_fixed_size")))
                c.ok(threads % 64 == 0 and md.get("max_flat_workgroup_size", threads) >= threads,
                     "%s %s: %d threads, max_flat_workgroup_size %s"
                     % (arch, names[sym], threads, md.get("max_flat_workgroup_size")))
                if dtype == "f32":
                    print("%s tile %-8s tiled: %d threads, %s VGPRs, LDS %s, %d FMA" % (
                        arch, tile, threads, md.get("vgpr_count"),
                        md.get("group_segment_fixed_size"), fmas))
            small = any(int(x) < 64 for x in tile.split("x"))
            for bf16 in ("false", "true"):
              for nb in (1, 2):
                have = (tile, bf16, nb) in mfma
                if small:
                    c.ok(not have, "%s: tile %s has an MFMA kernel, it is below 64x64" % (arch, tile))
                    continue
                if not c.ok(have, "%s: no gemm_mfma kernel for tile %s bf16=%s NB=%d"
                            % (arch, tile, bf16, nb)):
                    continue
                sym, body = mfma[(tile, bf16, nb)]
                n_mfma = sum(1 for l in body if "v_mfma" in l)
                n_want = sum(1 for l in body if MFMA_INSN[bf16].search(l))
                if arch in ht.MFMA_ARCHS:
                    c.ok(n_want > 0 and n_want == n_mfma, "%s %s: %d matching of %d v_mfma"
                         % (arch, names[sym], n_want, n_mfma))
                    bm, bn = (int(x) for x in tile.split("x"))
                    lds = meta.get(sym, {}).get("group_segment_fixed_size")
                    c.ok(lds == nb * (bm + bn) * MF_LDK_BYTES and lds <= 65536,
                         "%s %s: LDS %s bytes, want %d" % (arch, names[sym], lds,
                                                           nb * (bm + bn) * MF_LDK_BYTES))
                    if bf16 == "false":
                        print("%s tile %-8s mfma NB=%d: %d v_mfma, %s VGPRs %s AGPRs, LDS %s" % (
                            arch, tile, nb, n_mfma, meta.get(sym, {}).get("vgpr_count"),
                            meta.get(sym, {}).get("agpr_count"), lds))
                else:
                    c.ok(n_mfma == 0, "%s (no matrix cores) %s: %d v_mfma" % (arch, names[sym], n_mfma))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
c.finish()

#!/usr/bin/env python3
"""hip_gemm's MFMA variant really runs on the matrix cores: in the code
object of each MFMA target (gfx90a, gfx940, gfx941, gfx942) that the build
put into hip_gemm.so, the disassembly (LLVM's llvm-objdump) of the f16
kernels gemm_mfma<false, BM, BN> (one per tile) hold v_mfma_f32_32x32x8(_)f16
and those of the bf16 kernels gemm_mfma<true, BM, BN>
v_mfma_f32_32x32x8(_)bf16(_1k); the tiled kernels hold none. Each holds
one 32-deep k-slice's products, 4 MFMAs for each of its wave's
(BM/64) x (BN/64) blocks, fed by 16-byte LDS reads (ds_read_b128, one per
block row and column per 16 k) and no narrower ones. For a target without
matrix cores the MFMA kernels are empty."""
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
# gemm_mfma<bool BF16, int BM, int BN, int NB>: every tile's instantiation
TILE = re.compile(r"^_Z9gemm_mfmaILb[01]ELi(\d+)ELi(\d+)ELi([12])E")
WANT = {"_Z9gemm_mfmaILb0E": ("f16", re.compile(r"\bv_mfma_f32_32x32x8_?f16\b")),
        "_Z9gemm_mfmaILb1E": ("bf16", re.compile(r"\bv_mfma_f32_32x32x8_?bf16(_1k)?\b"))}
c.nonempty("HIP targets in the build", archs)
try:
    so = os.path.join(e["plugin_dir"], "hip_gemm.so")
    cos = ht.extract_code_objects(so, os.path.join(tmp, "co"))
    c.ok(ht.llvm_objdump() is not None, "no llvm-objdump found (Debian: llvm-15)")
    for arch in archs:
        funcs = {}
        for co in cos.get(arch, []):
            funcs.update(ht.disassemble(co))
        if not c.ok(funcs, "hip_gemm.so: no disassembly for %s" % arch):
            continue
        for prefix, (dtype, pattern) in WANT.items():
            syms = sorted(f for f in funcs if f.startswith(prefix))
            c.nonempty("%s gemm_mfma %s kernels (%s*)" % (arch, dtype, prefix), syms)
            for sym in syms:
                n_mfma = sum(1 for l in funcs[sym] if "v_mfma" in l)
                n_want = sum(1 for l in funcs[sym] if pattern.search(l))
                if arch in ht.MFMA_ARCHS:
                    c.ok(n_want > 0 and n_want == n_mfma,
                         "%s %s (%s): %d matching of %d v_mfma instructions"
                         % (arch, sym, dtype, n_want, n_mfma))
                    tile = TILE.match(sym)
                    if c.ok(tile, "%s: not gemm_mfma<BF16, BM, BN, NB>" % sym):
                        fm, fn = int(tile.group(1)) // 64, int(tile.group(2)) // 64
                        c.ok(n_mfma == 4 * fm * fn, "%s %s: %d v_mfma, one k-slice is %d"
                             % (arch, sym, n_mfma, 4 * fm * fn))
                        reads = [l.split()[0] for l in funcs[sym]
                                 if l.split() and l.split()[0].startswith("ds_read")]
                        wide = reads.count("ds_read_b128")
                        c.ok(wide == 2 * (fm + fn) and wide == len(reads),
                             "%s %s: LDS reads %s, want %d ds_read_b128 and no other"
                             % (arch, sym, sorted(set(reads)), 2 * (fm + fn)))
                    print("%s %s: %d v_mfma, e.g. %s" % (
                        arch, sym, n_mfma,
                        next((l.split("//")[0].strip() for l in funcs[sym] if "v_mfma" in l), "-")))
                else:
                    c.ok(n_mfma == 0, "%s has no matrix cores but %s (%s) has %d v_mfma"
                         % (arch, sym, dtype, n_mfma))
        for sym, body in funcs.items():
            if sym.startswith("_Z10gemm_tiled"):
                c.ok(not any("v_mfma" in l for l in body), "%s %s uses v_mfma" % (arch, sym))
    c.ok(any(a in ht.MFMA_ARCHS for a in archs),
         "no MFMA target among %s: nothing proves the matrix-core path" % archs)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
c.finish()

#!/usr/bin/env python3
"""Each hip plugin .so: exports bench_plugin_entry and nothing else, links
libamdhip64, and holds a device code object for every BENCH_HIP_ARCHS
target (so each plugin really was compiled for each of them); for every
target one of them holds hipb's in-band clock kernel (hipb_clock.h), which
reads the constant-rate timer (s_memrealtime: wall_clock64) and the cycle
counter (s_memtime: clock64) on targets before gfx11, and the XCD
(hwreg XCC_ID) on gfx940/941/942."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hiptools as ht  # noqa: E402

e = ht.env()
c = ht.Checks()
tmp = ht.tmpdir()
archs = sorted({ht.base_arch(a) for a in e["archs"]})
c.nonempty("hip plugins in the build", e["plugins"])
c.nonempty("HIP targets in the build", archs)
try:
    for name in e["plugins"]:
        so = os.path.join(e["plugin_dir"], name + ".so")
        if not c.ok(os.path.exists(so), "%s: not built" % so):
            continue
        syms = subprocess.run(["nm", "-D", "--defined-only", so], capture_output=True,
                              text=True).stdout.split("\n")
        exported = sorted(l.split()[-1] for l in syms if l.strip())
        c.ok(exported == ["bench_plugin_entry"], "%s exports %s" % (name, exported))
        dyn = subprocess.run(["readelf", "-d", so], capture_output=True, text=True).stdout
        c.ok("libamdhip64.so" in dyn, "%s does not link libamdhip64" % name)
        cos = ht.extract_code_objects(so, os.path.join(tmp, name))
        for a in archs:
            c.ok(a in cos, "%s: no code object for %s (found %s)" % (name, a, sorted(cos)))
            clock = []
            for co in cos.get(a, []):
                for sym, lines in ht.disassemble(co).items():
                    if "hipb_clock_kernel" in sym:
                        clock += lines
            if not c.ok(clock, "%s: %s: no hipb_clock_kernel in its code objects" % (name, a)):
                continue
            want = [] if a.startswith(("gfx11", "gfx12")) else ["s_memrealtime", "s_memtime"]
            if a in ("gfx940", "gfx941", "gfx942"):
                want.append("XCC_ID")
            for insn in want:
                c.ok(any(insn in l for l in clock), "%s: %s: hipb_clock_kernel lacks %s" % (name, a, insn))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
c.finish()

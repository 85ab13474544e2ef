#!/usr/bin/env python3
"""Each hip plugin .so: exports bench_plugin_entry and nothing else, links
libamdhip64, and holds a device code object for every BENCH_HIP_ARCHS
target (so each plugin really was compiled for each of them)."""
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
finally:
    shutil.rmtree(tmp, ignore_errors=True)
c.finish()

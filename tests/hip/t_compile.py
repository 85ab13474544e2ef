#!/usr/bin/env python3
"""Every hip plugin compiles with -Wall -Wextra -Werror for every
BENCH_HIP_ARCHS target (gfx90a and gfx940 with Debian's ROCm), one target
per hipcc run so that the compiler's kernel resource-usage remarks
(-Rpass-analysis=kernel-resource-usage) belong to one architecture. The
table of every kernel goes to resource-usage.txt (and .tsv) in the build
folder of tests/hip.

Fails when a hip_gemm or hip_attention kernel uses scratch (ScratchSize > 0
or spills) in the remarks, or in the metadata of the code objects that the
build put into hip_gemm.so and hip_attention.so."""
import concurrent.futures
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hiptools as ht  # noqa: E402

e = ht.env()
c = ht.Checks()
tmp = ht.tmpdir()
archs = [ht.base_arch(a) for a in e["archs"]]
sources = ["hipb"] + e["plugins"]


def build(job):
    src, arch = job
    cmd = ht.compile_command(e, os.path.join(e["source_dir"], src + ".hip"), arch,
                             os.path.join(tmp, "%s.%s.o" % (src, arch)))
    r = subprocess.run(cmd, capture_output=True, text=True)
    return src, arch, r.returncode, r.stderr, cmd


rows = []
jobs = [(s, a) for s in sources for a in archs]
c.nonempty("HIP targets in the build", archs)
c.nonempty("hip plugins in the build", e["plugins"])
workers = max(1, min(len(jobs), os.cpu_count() or 1))
try:
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        for src, arch, rc, err, cmd in pool.map(build, jobs):
            if not c.ok(rc == 0, "%s.hip for %s does not compile with -Werror:\n  %s\n%s"
                        % (src, arch, " ".join(cmd), err[-3000:])):
                continue
            for k in ht.parse_remarks(err):
                k.update(plugin=src, arch=arch)
                rows.append(k)
            c.ok(any(r["plugin"] == src and r["arch"] == arch for r in rows),
                 "%s.hip for %s: no kernel resource remarks" % (src, arch))

    names = ht.demangle(sorted({r["name"] for r in rows}))
    lines = ["# Kernel resource usage (hipcc -Rpass-analysis=kernel-resource-usage, -O3).",
             "# occ: waves per SIMD the registers allow (compiler); occ_lds: what the LDS",
             "# of one 256-thread block allows on a 64 KiB CU (- when no LDS).",
             "%-15s %-7s %-70s %5s %5s %5s %6s %7s %6s %4s %7s"
             % ("plugin", "arch", "kernel", "VGPR", "SGPR", "AGPR", "LDS", "scratch", "spills",
                "occ", "occ_lds")]
    for r in sorted(rows, key=lambda r: (r["plugin"], r["arch"], names[r["name"]])):
        occ_lds = ht.lds_waves_per_simd(r.get("lds", 0))
        kernel = names[r["name"]]
        if len(kernel) > 70:
            kernel = kernel[:67] + "..."
        lines.append("%-15s %-7s %-70s %5s %5s %5s %6s %7s %6s %4s %7s" % (
            r["plugin"], r["arch"], kernel, r.get("vgprs"), r.get("sgprs"), r.get("agprs"),
            r.get("lds"), r.get("scratch"), "%s/%s" % (r.get("vgpr_spill"), r.get("sgpr_spill")),
            r.get("occupancy"), "-" if occ_lds is None else "%g" % occ_lds))
        if r["plugin"] in ht.NO_SCRATCH_PLUGINS:
            c.ok(r.get("scratch") == 0 and r.get("vgpr_spill") == 0 and r.get("sgpr_spill") == 0,
                 "%s %s %s uses scratch: %s bytes/lane, spills %s VGPRs %s SGPRs"
                 % (r["plugin"], r["arch"], kernel, r.get("scratch"), r.get("vgpr_spill"),
                    r.get("sgpr_spill")))
    table = "\n".join(lines) + "\n"
    with open(os.path.join(e["out_dir"], "resource-usage.txt"), "w") as f:
        f.write(table)
    with open(os.path.join(e["out_dir"], "resource-usage.tsv"), "w") as f:
        cols = ["vgprs", "sgprs", "agprs", "lds", "scratch", "vgpr_spill", "sgpr_spill",
                "occupancy"]
        f.write("\t".join(["plugin", "arch", "kernel"] + cols + ["occupancy_lds"]) + "\n")
        for r in sorted(rows, key=lambda r: (r["plugin"], r["arch"], names[r["name"]])):
            occ_lds = ht.lds_waves_per_simd(r.get("lds", 0))
            f.write("\t".join([r["plugin"], r["arch"], names[r["name"]]]
                              + [str(r.get(k)) for k in cols]
                              + ["" if occ_lds is None else "%g" % occ_lds]) + "\n")
    print(table)

    # The same promise on the objects the build shipped.
    for name in ht.NO_SCRATCH_PLUGINS:
        so = os.path.join(e["plugin_dir"], name + ".so")
        cos = ht.extract_code_objects(so, os.path.join(tmp, "co-" + name))
        for arch in archs:
            kernels = [k for co in cos.get(arch, []) for k in ht.kernel_metadata(co)]
            c.ok(len(kernels) > 0, "%s: no kernel metadata for %s" % (name, arch))
            for k in kernels:
                c.ok(k.get("private_segment_fixed_size") == 0 and k.get("vgpr_spill_count") == 0
                     and k.get("sgpr_spill_count") == 0,
                     "%s.so %s %s: private segment %s bytes, spills %s/%s"
                     % (name, arch, k["name"], k.get("private_segment_fixed_size"),
                        k.get("vgpr_spill_count"), k.get("sgpr_spill_count")))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
c.finish()

#!/usr/bin/env python3
"""hip_gemm variant=rocblas, the vendor anchor, without rocBLAS installed
(Debian's ROCm 5.2 has none): its code is compiled here against
tests/hip/fake_rocblas/rocblas/rocblas.h, a header of ours that declares
only what the variant calls, as the real header does (-DHIPB_ROCBLAS, the
host pass with this build's flags, -Werror included), and the object must
call rocblas_create_handle, rocblas_set_stream, rocblas_gemm_ex and
rocblas_destroy_handle. The hip_gemm.so of this build: when it was built
without rocBLAS it needs no librocblas and holds the SKIP reason naming
where rocBLAS was looked for; when built with it, it needs librocblas."""
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
here = os.path.dirname(os.path.abspath(__file__))
src = os.path.join(e["source_dir"], "hip_gemm.hip")
try:
    obj = os.path.join(tmp, "hip_gemm_rocblas.o")
    cmd = ([e["hipcc"], "--offload-arch=" + ht.base_arch(e["archs"][0])] + e["compile_flags"]
           + ["-DHIPB_ROCBLAS", "-I" + os.path.join(here, "fake_rocblas"), "--cuda-host-only",
              "-c", src, "-o", obj])
    out = subprocess.run(cmd, capture_output=True, text=True)
    c.ok(out.returncode == 0, "hipcc -DHIPB_ROCBLAS (fake rocblas.h): rc %d\n%s"
         % (out.returncode, out.stderr[-3000:]))
    if os.path.exists(obj):
        nm = subprocess.run(["nm", "-u", obj], capture_output=True, text=True).stdout
        for f in ("rocblas_create_handle", "rocblas_set_stream", "rocblas_gemm_ex",
                  "rocblas_destroy_handle"):
            c.ok(re.search(r"\bU %s\b" % f, nm), "the rocblas variant does not call %s" % f)
        print("rocblas calls: " + ", ".join(sorted(set(re.findall(r"\brocblas_\w+", nm)))))

    so = os.path.join(e["plugin_dir"], "hip_gemm.so")
    needed = subprocess.run(["readelf", "-d", so], capture_output=True, text=True).stdout
    with open(so, "rb") as f:
        data = f.read()
    if "librocblas" in needed:
        print("hip_gemm.so links rocBLAS")
        c.ok(b"rocblas_gemm_ex" in data, "hip_gemm.so needs librocblas but does not call rocblas_gemm_ex")
    else:
        m = re.search(rb"hip_gemm was built without rocBLAS \(%s\)", data)
        c.ok(m is not None, "hip_gemm.so (no librocblas) lacks the SKIP reason format")
        m = re.search(rb"not found under [^\x00]*rocblas/rocblas\.h[^\x00]*", data)
        c.ok(m is not None, "hip_gemm.so (no librocblas) does not say where rocBLAS was looked for")
        if m:
            print("without rocBLAS: " + m.group(0).decode())
        c.ok(b"rocblas_gemm_ex" not in data.replace(b"rocblas_gemm_ex, fp32", b""),
             "hip_gemm.so without librocblas references rocblas_gemm_ex")
finally:
    shutil.rmtree(tmp, ignore_errors=True)
c.finish()

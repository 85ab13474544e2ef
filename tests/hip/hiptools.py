"""Shared helpers of the HIP plugin tests: what the build found
(HIP_TEST_ENV, written by tests/hip/CMakeLists.txt), the ROCm/LLVM object
tools, code object extraction and disassembly, and the compiler's kernel
resource-usage remarks."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

MFMA_ARCHS = ("gfx90a", "gfx940", "gfx941", "gfx942")

# Kernels that must never touch scratch (the issue: GEMM and attention).
NO_SCRATCH_PLUGINS = ("hip_gemm", "hip_attention")


def env():
    with open(os.environ["HIP_TEST_ENV"]) as f:
        return json.load(f)


class Checks:
    """Counts checks; ok() prints a failed one and remembers it, finish()
    exits (1 when a check failed or none ran)."""

    def __init__(self):
        self.fails = 0
        self.oks = 0

    def ok(self, cond, what):
        if cond:
            self.oks += 1
        else:
            self.fails += 1
            print("FAIL: " + what, flush=True)
        return cond

    def nonempty(self, what, items):
        """A check that items (plugins, targets, files, kernels) is not
        empty, before a loop over it: an empty list would check nothing."""
        return self.ok(len(items) > 0, "no %s: the checks over them would check nothing" % what)

    def finish(self):
        """Exit 1 when a check failed, and when no check ran at all."""
        print("%d passed, %d failed" % (self.oks, self.fails))
        if self.oks + self.fails == 0:
            print("FAIL: this test ran no check: a test that checks nothing must not pass", flush=True)
            sys.exit(1)
        sys.exit(1 if self.fails else 0)


def base_arch(target):
    """'gfx90a:xnack+' -> 'gfx90a'"""
    return target.split(":")[0]


def tool(names, dirs=()):
    """The first of names found in dirs, then on PATH."""
    for d in dirs:
        for n in names:
            p = os.path.join(d, n)
            if os.access(p, os.X_OK):
                return p
    for n in names:
        p = shutil.which(n)
        if p:
            return p
    return None


def rocm_dirs(sub):
    roots = [os.environ.get("ROCM_PATH", ""), "/opt/rocm"]
    return [os.path.join(r, sub) for r in roots if r]


def llvm_objdump():
    # LLVM 15 first: Debian's default llvm-objdump (LLVM 14) crashes on
    # gfx940 code objects.
    return tool(["llvm-objdump"], ["/usr/lib/llvm-15/bin"] + rocm_dirs("llvm/bin")
                + sorted(glob.glob("/usr/lib/llvm-1[6-9]/bin"), reverse=True))


def demangle(names):
    cxxfilt = tool(["llvm-cxxfilt", "c++filt"])
    if not cxxfilt or not names:
        return {n: n for n in names}
    out = subprocess.run([cxxfilt], input="\n".join(names) + "\n", capture_output=True,
                         text=True).stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else {n: n for n in names}


def extract_code_objects(so, outdir):
    """The device code objects embedded in so, as {base arch: [paths]} (one
    per compiled object linked into it). roc-obj from the hipcc package or a
    ROCm install; clang-offload-bundler on the .hip_fatbin section if that
    is missing (first bundle only)."""
    os.makedirs(outdir, exist_ok=True)
    found = {}
    roc_obj = tool(["roc-obj"], rocm_dirs("bin"))
    if roc_obj:
        # roc-obj exits 1 for the empty host entry; the files are there.
        subprocess.run([roc_obj, "-o", outdir, so], capture_output=True)
        for p in sorted(glob.glob(os.path.join(outdir, "*"))):
            m = re.search(r"amdgcn-amd-amdhsa--([^/]+)$", p)
            if m:
                found.setdefault(base_arch(m.group(1)), []).append(p)
        if found:
            return found
    bundler = tool(["clang-offload-bundler"], ["/usr/lib/llvm-15/bin"] + rocm_dirs("llvm/bin"))
    objcopy = tool(["llvm-objcopy", "objcopy"])
    if not bundler or not objcopy:
        return found
    fatbin = os.path.join(outdir, "fatbin")
    subprocess.run([objcopy, "--dump-section", ".hip_fatbin=" + fatbin, so], capture_output=True)
    if not os.path.exists(fatbin):
        return found
    targets = subprocess.run([bundler, "--list", "--type=o", "--input=" + fatbin],
                             capture_output=True, text=True).stdout.split()
    for t in targets:
        m = re.search(r"amdgcn-amd-amdhsa--(.+)$", t)
        if not m:
            continue
        out = os.path.join(outdir, "co-" + m.group(1).replace(":", "_"))
        subprocess.run([bundler, "--unbundle", "--type=o", "--input=" + fatbin,
                        "--targets=" + t, "--output=" + out], capture_output=True)
        if os.path.exists(out):
            found.setdefault(base_arch(m.group(1)), []).append(out)
    return found


def disassemble(code_object):
    """{kernel symbol: [instruction lines]} from llvm-objdump -d."""
    objdump = llvm_objdump()
    if not objdump:
        raise RuntimeError("no llvm-objdump (Debian: llvm-15)")
    out = subprocess.run([objdump, "-d", code_object], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("%s -d %s failed: %s" % (objdump, code_object, out.stderr[-500:]))
    funcs, cur = {}, None
    for line in out.stdout.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            cur = m.group(1)
            funcs[cur] = []
        elif cur and line.strip():
            funcs[cur].append(line.strip())
    return funcs


def kernel_metadata(code_object):
    """[{name, vgpr_count, sgpr_count, agpr_count, private_segment_fixed_size,
    group_segment_fixed_size, vgpr_spill_count, sgpr_spill_count}] from the
    AMDGPU metadata note (llvm-readelf --notes)."""
    readelf = tool(["llvm-readelf"], ["/usr/lib/llvm-15/bin"] + rocm_dirs("llvm/bin"))
    if not readelf:
        raise RuntimeError("no llvm-readelf (Debian: llvm-15)")
    out = subprocess.run([readelf, "--notes", code_object], capture_output=True, text=True).stdout
    # amdhsa.kernels is a YAML list at indent 2 whose keys sit at indent 4
    # (the .args lists nest deeper).
    kernels, cur = [], None
    for line in out.splitlines():
        m = re.match(r"^( *)(- )?\.([a-z_]+):\s*(\S*)\s*$", line)
        if not m:
            continue
        indent = len(m.group(1)) + (2 if m.group(2) else 0)
        if m.group(2) and len(m.group(1)) == 2:
            cur = {}
            kernels.append(cur)
        if cur is not None and indent == 4 and m.group(4):
            val = m.group(4)
            cur[m.group(3)] = int(val) if re.fullmatch(r"-?\d+", val) else val
    return [k for k in kernels if "name" in k and "vgpr_count" in k]


REMARK = re.compile(r"remark:\s+(Function Name|SGPRs Spill|VGPRs Spill|SGPRs|VGPRs|AGPRs|"
                    r"ScratchSize|Occupancy|LDS Size)(?: \[[^\]]*\])?: (\S+)")
REMARK_KEYS = {"Function Name": "name", "SGPRs": "sgprs", "VGPRs": "vgprs", "AGPRs": "agprs",
               "ScratchSize": "scratch", "Occupancy": "occupancy", "SGPRs Spill": "sgpr_spill",
               "VGPRs Spill": "vgpr_spill", "LDS Size": "lds"}


def parse_remarks(text):
    """Kernel resource-usage remarks, in order, as dicts."""
    kernels = []
    for line in text.splitlines():
        m = REMARK.search(line)
        if not m:
            continue
        key, val = REMARK_KEYS[m.group(1)], m.group(2)
        if key == "name":
            kernels.append({"name": val})
        elif kernels:
            kernels[-1][key] = int(val) if val.isdigit() else val
    return kernels


def compile_command(e, src, arch, out):
    """hipcc for one target, warnings as errors, with the resource remarks."""
    flags = [f for f in e["compile_flags"] if f != "-Werror"]
    cmd = [e["hipcc"], "--offload-arch=" + arch]
    return cmd + flags + ["-Werror", "-Rpass-analysis=kernel-resource-usage",
                          "-c", src, "-o", out]


def lds_waves_per_simd(lds_bytes, threads=256, lds_per_cu=65536, simds=4, max_waves=8):
    """Waves per SIMD that the LDS of a 256-thread block allows on a CDNA CU
    (64 KiB of LDS, 4 SIMDs of at most 8 waves)."""
    if not lds_bytes:
        return None
    blocks = lds_per_cu // lds_bytes
    return min(max_waves, blocks * (threads // 64) / simds)


def tmpdir():
    return tempfile.mkdtemp(prefix="bench-hip.")

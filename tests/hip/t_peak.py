#!/usr/bin/env python3
"""The hip peak plugins' kernels do the work they count, in the disassembly
(LLVM's llvm-objdump) of each target's code object in hip_peak_fma.so and
hip_peak_matrix.so: in each kernel the one loop (a branch back) holds, per
pass,
  peak_fma<K>     8 chains x 32 FMAs: fp32 512 lane-FMAs (v_pk_fma_f32
                  counts 2, each half of a dual-issue pair 1; on CDNA2/3 all 256
                  are v_pk_fma_f32, how MI200/MI300 reach their FP32 peak),
                  fp64 256 v_fma_f64, fp16 256 v_pk_fma_f16; bf16 is empty
                  on AMD (no bf16 FMA in the vector ALU: SKIPPED at run time)
  peak_mfma<bf16> on the MFMA targets 4 accumulators x 8 = 32
                  v_mfma_f32_32x32x8(_)f16 / _bf16(_1k); empty elsewhere
  peak_wmma<bf16> on gfx11 targets 32 v_wmma_f32_16x16x16_f16 / _bf16;
                  empty on every other target
  peak_mma, peak_wgmma (NVIDIA's) empty on every AMD target
and the kernel stores its results (not dead-coded). The build here (ROCm
5.2) has no gfx11 target, whose code objects need ROCm >= 6's device
libraries: for gfx1100 and gfx1103 hip_peak_matrix's checks run on the
assembly (hipcc -S --cuda-device-only -nogpulib, LLVM's gfx11 code
generation without linking), so the wmma source is checked too
(hip_peak_fma's math calls need the device library: not there)."""
import collections
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
MATRIX_FAMILIES = {"_Z8peak_mmaILb": "mma", "_Z10peak_wgmmaILb": "wgmma",
                   "_Z9peak_mfmaILb": "mfma", "_Z9peak_wmmaILb": "wmma"}
FMA = re.compile(r"\bv_(pk_|dual_)?fmac?_(f32|f64|f16)\b")
STORE = re.compile(r"\b(global|buffer|flat)_store")


def functions_objdump(code_object):
    """{symbol: [(address, text, branch target or None)]} from llvm-objdump."""
    out = subprocess.run([ht.llvm_objdump(), "-d", code_object], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("llvm-objdump -d %s: %s" % (code_object, out.stderr[-300:]))
    funcs, cur, base = {}, None, 0
    for line in out.stdout.splitlines():
        m = re.match(r"^([0-9a-f]+) <(.+)>:$", line)
        if m:
            cur, base = m.group(2), int(m.group(1), 16)
            funcs[cur] = []
            continue
        a = re.search(r"//\s*([0-9A-Fa-f]+):", line)
        if not cur or not a:
            continue
        t = re.search(r"<%s\+0x([0-9a-f]+)>" % re.escape(cur), line)
        funcs[cur].append((int(a.group(1), 16), line.split("//")[0].strip(),
                           base + int(t.group(1), 16) if t else None))
    return funcs


def functions_asm(path):
    """The same from an assembly file (hipcc -S): line numbers for
    addresses, labels for targets."""
    funcs, cur, labels, pending = {}, None, {}, []
    lines = open(path).read().splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^(_Z\w+):", line)
        if m:
            cur = m.group(1)
            funcs[cur] = []
            continue
        m = re.match(r"^(\.LBB\w+):", line)
        if m:
            labels[m.group(1)] = i
            continue
        text = line.split(";")[0].strip()
        if cur and text and not text.startswith("."):
            b = re.search(r"\b(s_cbranch_\w+|s_branch)\s+(\.LBB\w+)", text)
            funcs[cur].append([i, text, b.group(2) if b else None])
            if b:
                pending.append(funcs[cur][-1])
    for insn in pending:
        insn[2] = labels.get(insn[2])
    return {f: [tuple(x) for x in body] for f, body in funcs.items()}


def loop_of(body):
    """The instructions of the longest loop: from a backward branch's target
    to the branch."""
    best = []
    for addr, _, target in body:
        if target is not None and target <= addr:
            loop = [t for a, t, _ in body if target <= a <= addr]
            if len(loop) > len(best):
                best = loop
    return best


def lane_fmas(lines):
    """{type: lane-FMAs} of the FMA instructions: a packed one counts 2."""
    n = collections.Counter()
    for l in lines:
        for m in FMA.finditer(l):
            n[m.group(2)] += 2 if m.group(1) == "pk_" else 1
    return n


def check_fma(arch, funcs, where):
    syms = {m.group(1): s for s in funcs for m in [re.match(r"_Z8peak_fmaILi(\d)E", s)] if m}
    c.ok(sorted(syms) == ["0", "1", "2", "3"], "%s %s: peak_fma kernels %s" % (where, arch, sorted(syms)))
    for k, (dtype, want) in {"0": ("f32", 512), "1": ("f64", 256), "2": ("f16", 512)}.items():
        if k not in syms:
            continue
        body = funcs[syms[k]]
        loop = loop_of(body)
        got = lane_fmas(loop)
        c.ok(got[dtype] == want and sum(got.values()) == want,
             "%s %s peak_fma %s: %s lane-FMAs in its loop, want %d %s" % (where, arch, dtype, dict(got), want, dtype))
        c.ok(any(STORE.search(t) for _, t, _ in body), "%s %s peak_fma %s: stores nothing" % (where, arch, dtype))
        packed = sum(1 for l in loop if "v_pk_fma_" + dtype in l)
        if dtype == "f32" and arch in ht.MFMA_ARCHS:
            c.ok(packed == 256, "%s %s peak_fma f32: %d v_pk_fma_f32 in the loop, want 256 (CDNA2/3's "
                 "packed FP32)" % (where, arch, packed))
        if dtype == "f16":
            c.ok(packed == 256, "%s %s peak_fma f16: %d v_pk_fma_f16, want 256" % (where, arch, packed))
        print("%s %s peak_fma %s: %d lane-FMAs in the loop (%d packed), e.g. %s" % (
            where, arch, dtype, got[dtype], packed, next((l for l in loop if FMA.search(l)), "-")))
    if "3" in syms:
        body = funcs[syms["3"]]
        c.ok(len(body) <= 4 and not lane_fmas([t for _, t, _ in body]),
             "%s %s peak_fma bf16: not empty (%d instructions): AMD has no bf16 FMA" % (where, arch, len(body)))


def check_matrix(arch, funcs, where):
    wave32 = re.match(r"^gfx1[0-9]", arch) is not None
    has = {"mma": False, "wgmma": False, "mfma": arch in ht.MFMA_ARCHS,
           "wmma": arch.startswith("gfx11")}
    want = {("mfma", "0"): r"v_mfma_f32_32x32x8_?f16", ("mfma", "1"): r"v_mfma_f32_32x32x8_?bf16(_1k)?",
            ("wmma", "0"): r"v_wmma_f32_16x16x16_f16", ("wmma", "1"): r"v_wmma_f32_16x16x16_bf16"}
    seen = 0
    for sym, body in funcs.items():
        fam = next((f for p, f in MATRIX_FAMILIES.items() if sym.startswith(p)), None)
        if not fam:
            continue
        seen += 1
        bf16 = sym[len(next(p for p in MATRIX_FAMILIES if sym.startswith(p)))]
        text = [t for _, t, _ in body]
        if has[fam]:
            loop = loop_of(body)
            pattern = re.compile(r"\b%s\b" % want[(fam, bf16)])
            n = sum(1 for l in loop if pattern.search(l))
            total = sum(1 for l in text if re.search(r"\bv_(mfma|wmma)", l))
            c.ok(n == 32 and total == 32, "%s %s %s<%s>: %d matching of %d matrix instructions, "
                 "in its loop %d (want 32)" % (where, arch, fam, bf16, total, total, n))
            c.ok(any(STORE.search(l) for l in text), "%s %s %s<%s>: stores nothing" % (where, arch, fam, bf16))
            print("%s %s %s<%s>: %d in the loop, e.g. %s" % (
                where, arch, fam, bf16, n, next((l for l in loop if pattern.search(l)), "-")))
        else:
            c.ok(len(text) <= 4 and not any(re.search(r"\bv_(mfma|wmma)", l) for l in text),
                 "%s %s %s<%s>: not empty on a target without it (%d instructions)"
                 % (where, arch, fam, bf16, len(text)))
    c.ok(seen == 8, "%s %s: %d matrix kernels, want 8 (4 families x f16, bf16; wave%d)"
         % (where, arch, seen, 32 if wave32 else 64))


try:
    c.nonempty("HIP targets in the build", archs)
    c.ok(ht.llvm_objdump() is not None, "no llvm-objdump found (Debian: llvm-15)")
    for name, check in (("hip_peak_fma", check_fma), ("hip_peak_matrix", check_matrix)):
        so = os.path.join(e["plugin_dir"], name + ".so")
        if not c.ok(os.path.exists(so), "%s: not built" % so):
            continue
        cos = ht.extract_code_objects(so, os.path.join(tmp, name))
        for arch in archs:
            funcs = {}
            for co in cos.get(arch, []):
                funcs.update(functions_objdump(co))
            if c.ok(funcs, "%s: no code object for %s" % (name, arch)):
                check(arch, funcs, name)
    c.ok(any(a in ht.MFMA_ARCHS for a in archs),
         "no MFMA target among %s: nothing proves the mfma variant" % archs)

    # gfx11 (RDNA3, wmma) when the build has no gfx11 target: assembly only
    if not any(a.startswith("gfx11") for a in archs):
        flags = [f for f in e["compile_flags"] if f != "-Werror"]
        for arch in ("gfx1100", "gfx1103"):
            # hip_peak_matrix alone: its builtins need no device library,
            # whereas without one hip_peak_fma's fmaf and __hfma2 stay calls
            for name, check in (("hip_peak_matrix", check_matrix),):
                out = os.path.join(tmp, "%s-%s.s" % (name, arch))
                cmd = [e["hipcc"], "--offload-arch=" + arch, "--cuda-device-only", "-nogpulib", "-S"] + \
                    flags + ["-Werror", "-Wno-unused-command-line-argument",
                             os.path.join(e["source_dir"], name + ".hip"), "-o", out]
                r = subprocess.run(cmd, capture_output=True, text=True)
                if c.ok(r.returncode == 0 and os.path.exists(out), "%s for %s (assembly): %s"
                        % (name, arch, (r.stdout + r.stderr)[-800:])):
                    check(arch, functions_asm(out), name + " (assembly)")
finally:
    shutil.rmtree(tmp, ignore_errors=True)
c.finish()

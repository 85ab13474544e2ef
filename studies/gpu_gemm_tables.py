#!/usr/bin/env python3
"""The tables of studies/gpu_gemm.sh's run, made back on this machine.

usage: studies/gpu_gemm_tables.py OUT_DIR   (the folder gpu_gemm.sh wrote)

Prints markdown: the verify run's statuses per plugin; per size, cuda_gemm's
tiled, mma and cublas cases (median, TFLOP/s, the ratio to cuBLAS of the
same dtype in the same run, the kernel and whether the tuned layout ran);
cuda_attention at seq 4096 against the tensor-core roof cuda_peak_matrix
measured in the same run. A case that did not run OK shows its status and
message, never a figure.
"""
import collections
import glob
import os
import sys

from gpu_truth_tables import load_runs  # studies/, beside this script


def cases(folder):
    """Every case of every result file under folder."""
    return [c for _, c in load_runs(folder)]


def tflops(c):
    return c["gflops"] / 1000.0 if c.get("status") == "OK" and c.get("gflops") else None


def median_ms(c):
    """The median of the case's timer (device events, or the host clock), ms."""
    t = c.get(c.get("timer") or "device") or c.get("host") or {}
    return t.get("median", 0.0) / 1e6


def why(c):
    return "%s: %s" % (c.get("status"), (c.get("message") or "").replace("|", "/")[:90])


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    out = sys.argv[1]
    if not os.path.isdir(out):
        sys.exit("gpu_gemm_tables.py: %s: not a folder" % out)
    machine = os.path.join(out, "machine.txt")
    if os.path.exists(machine):
        print("```\n" + open(machine).read().strip() + "\n```\n")

    print("## verify\n\n| plugin | cases | OK | FAILED | SKIPPED | other |\n| --- | --- | --- | --- | --- | --- |")
    by = collections.defaultdict(collections.Counter)
    for c in cases(os.path.join(out, "verify")):
        by[c["plugin"]][c["status"]] += 1
    for p, n in sorted(by.items()):
        other = sum(v for k, v in n.items() if k not in ("OK", "FAILED", "SKIPPED"))
        print("| %s | %d | %d | %d | %d | %d |" % (p, sum(n.values()), n["OK"], n["FAILED"], n["SKIPPED"], other))

    for size in sorted(glob.glob(os.path.join(out, "perf", "[0-9]*")), key=lambda p: int(os.path.basename(p))):
        s = os.path.basename(size)
        cs = [c for c in cases(size) if c["plugin"] == "cuda_gemm"]
        anchor = {c["params"]["dtype"]: tflops(c) for c in cs if c["params"]["variant"] == "cublas"}
        print("\n## cuda_gemm %s^3 (perf tier)\n" % s)
        print("| variant | dtype | median | TFLOP/s | of cuBLAS | kernel | tuning |\n| --- | --- | --- | --- | --- | --- | --- |")
        for c in cs:
            p, t = c["params"], tflops(c)
            if t is None:
                print("| %s | %s | %s | | | | |" % (p["variant"], p["dtype"], why(c)))
                continue
            a = anchor.get(p["dtype"])
            info = c.get("info") or {}
            print("| %s | %s | %.3f ms | %.1f | %s | %s | %s |" % (
                p["variant"], p["dtype"], median_ms(c), t, "%.3f" % (t / a) if a else "-",
                info.get("kernel", ""), info.get("note", "")))

    peak = {}
    for c in cases(os.path.join(out, "perf", "peak")):
        t = tflops(c)
        if t is not None:
            d = c["params"].get("dtype")
            peak[d] = max(peak.get(d, 0.0), t)
    print("\n## cuda_attention seq 4096, head_dim 128 (perf tier)\n")
    print("| variant | dtype | median | TFLOP/s | of the tensor-core roof (cuda_peak_matrix, this run) | kernel |\n| --- | --- | --- | --- | --- | --- |")
    for c in cases(os.path.join(out, "perf", "attention")):
        t, d, v = tflops(c), c["params"].get("dtype"), c["params"].get("variant", "tiled")
        if t is None:
            print("| %s | %s | %s | | | |" % (v, d, why(c)))
            continue
        roof = peak.get(d)
        print("| %s | %s | %.3f ms | %.1f | %s | %s |" % (v, d, median_ms(c), t,
              "%.3f of %.0f" % (t / roof, roof) if roof else "no roof measured", (c.get("info") or {}).get("kernel", "")))


if __name__ == "__main__":
    main()

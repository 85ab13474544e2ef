#!/usr/bin/env python3
"""The table of scripts/anchors.sh: bench's CPU plugins read against their
anchors, from the files one anchors run left in DIR:

  DIR/bench-*/*.json   bench result files (schema bench-result/1)
  DIR/mbw.txt          mbw's per-run lines (optional)
  DIR/gbench.json      Google Benchmark's JSON output (optional)
  DIR/sgemm-N-T.txt    direct cblas_sgemm timings (optional)
  DIR/meta             key=value lines: gemm_sizes, threads_all, mbw_mib, ...

usage: table.py DIR
"""
import glob
import json
import os
import re
import sys


def load_cases(d):
    cases = []
    for path in sorted(glob.glob(os.path.join(d, "bench-*", "*.json"))):
        doc = json.load(open(path))
        for c in doc.get("cases", []):
            cases.append(c)
    return cases


def find(cases, plugin, **params):
    """The OK cases of plugin whose params include these values."""
    out = []
    for c in cases:
        if c["plugin"] != plugin or c["status"] != "OK":
            continue
        if all(c["params"].get(k) == str(v) for k, v in params.items()):
            out.append(c)
    return out


def one(cases, plugin, **params):
    found = find(cases, plugin, **params)
    return found[0] if found else None


def gflops(c):
    return c["gflops"] if c and c.get("gflops") else None


def gbps_median(c):
    return c["gbps"] if c and c.get("gbps") else None


def gbps_best(c):
    """STREAM's figure: bytes over the best (minimum) time, in GB/s."""
    if not c or not c.get("bytes"):
        return None
    timer = c.get("timer") or "host"
    t = (c.get(timer) or c["host"])["min"]
    return c["bytes"] / t if t else None


def median_ns(c):
    if not c:
        return None
    timer = c.get("timer") or "host"
    return (c.get(timer) or c["host"])["median"]


def read_meta(d):
    meta = {}
    path = os.path.join(d, "meta")
    if os.path.exists(path):
        for line in open(path):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                meta[k] = v
    return meta


def read_mbw(d):
    """Best MiB/s of each mbw method, from its per-run lines."""
    path = os.path.join(d, "mbw.txt")
    best = {}
    if not os.path.exists(path):
        return best
    for line in open(path):
        m = re.match(r"^\d+\s+Method:\s+(\w+)\s.*Copy:\s+([\d.]+) MiB/s", line)
        if m:
            best[m.group(1)] = max(best.get(m.group(1), 0.0), float(m.group(2)))
    return best


def read_gbench(d, kind="real_time"):
    """Median real_time or cpu_time in ns of each Google Benchmark (name -> ns)."""
    path = os.path.join(d, "gbench.json")
    out = {}
    if not os.path.exists(path):
        return out
    try:
        doc = json.load(open(path))
    except ValueError:
        return out
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
    for b in doc.get("benchmarks", []):
        if b.get("aggregate_name") == "median":
            out[b["run_name"]] = b[kind] * scale.get(b.get("time_unit", "ns"), 1.0)
    return out


def read_sgemm(d, n, t):
    path = os.path.join(d, f"sgemm-{n}-{t}.txt")
    if not os.path.exists(path):
        return None
    m = re.search(r"median_gflops ([\d.]+)", open(path).read())
    return float(m.group(1)) if m else None


class Table:
    def __init__(self):
        self.rows = []

    def add(self, what, bench, anchor, ratio=None, target="", unit=""):
        def fmt(x):
            if x is None:
                return "n/a"
            if isinstance(x, str):
                return x
            return f"{x:.4g}{unit}"

        if ratio is None and isinstance(bench, float) and isinstance(anchor, float) and anchor:
            ratio = bench / anchor
        r = ratio if isinstance(ratio, str) else "n/a" if ratio is None else f"{ratio:.3f}"
        self.rows.append((what, fmt(bench), fmt(anchor), r, target))

    def section(self, title):
        self.rows.append((title, None, None, None, None))

    def print(self):
        head = ("what", "bench", "anchor", "ratio", "target")
        w = [max(len(head[i]), *(len(r[i]) for r in self.rows if r[1] is not None)) for i in range(5)]
        line = "  ".join(f"{{:<{w[0]}}}" if i == 0 else f"{{:>{w[i]}}}" for i in range(5))
        print(line.format(*head))
        print("  ".join("-" * x for x in w))
        for r in self.rows:
            if r[1] is None:
                print(f"{r[0]}")
            else:
                print(line.format(*r))


def main():
    d = sys.argv[1]
    cases = load_cases(d)
    meta = read_meta(d)
    sizes = [s for s in meta.get("gemm_sizes", "").split(",") if s]
    all_t = meta.get("threads_all", "all")
    threads = [("1", "1 thread"), ("0", f"all threads ({all_t})")]
    t = Table()

    # GEMM against OpenBLAS, in the same harness, then OpenBLAS direct.
    t.section("GEMM (GFLOP/s at the median; anchor: cblas_sgemm as cpu_gemm variant=openblas)")
    for n in sizes:
        for tv, tname in threads:
            packed = find(cases, "cpu_gemm", variant="packed", m=n, threads=tv)
            best = max(packed, key=lambda c: c["gflops"] or 0) if packed else None
            ob = one(cases, "cpu_gemm", variant="openblas", m=n, threads=tv)
            target = ">= 0.8" if tv == "1" and n == sizes[-1] and len(sizes) > 1 else ""
            label = f"cpu_gemm best ({best['info'].get('kernel', '?')})" if best else "cpu_gemm best"
            t.add(f"{label} / OpenBLAS, {n}^3, {tname}", gflops(best), gflops(ob), target=target)
            avx2 = one(cases, "cpu_gemm", variant="packed", m=n, threads=tv, isa="avx2")
            if avx2 and best and best is not avx2:
                t.add(f"cpu_gemm packed avx2 6x16 / OpenBLAS, {n}^3, {tname}", gflops(avx2), gflops(ob))
    t.section("OpenBLAS inside bench vs called directly (harness overhead; median GFLOP/s)")
    for n in sizes:
        for tv, tname in threads:
            ob = one(cases, "cpu_gemm", variant="openblas", m=n, threads=tv)
            direct = read_sgemm(d, n, meta.get("threads_all", "1") if tv == "0" else "1")
            t.add(f"bench openblas / direct cblas_sgemm, {n}^3, {tname}", gflops(ob), direct)

    # STREAM against mbw.
    mbw = read_mbw(d)
    mbw_best = max(mbw.values()) if mbw else None
    # mbw counts the array once; STREAM counts copy as read + write.
    mbw_gbs = mbw_best * 2 * 1048576 / 1e9 if mbw_best else None
    best_method = max(mbw, key=mbw.get) if mbw else "?"
    t.section(f"memory bandwidth (GB/s, STREAM's best of trials; anchor: mbw {meta.get('mbw_mib', '?')} MiB "
              f"arrays, best method {best_method}, counted as read + write)")
    for kernel in ("copy", "triad", "scale", "add"):
        for tv, tname in threads:
            c = one(cases, "membw_cpu", kernel=kernel, threads=tv)
            target = ">= 0.9" if kernel == "copy" and tv == "1" else ""
            if kernel in ("copy", "triad") or tv == "1":
                note = "" if tv == "1" else " (mbw: 1 thread)"
                t.add(f"membw_cpu {kernel} / mbw, {tname}{note}", gbps_best(c), mbw_gbs,
                      target=target)

    # Calibration against Google Benchmark.
    gb, gb_cpu = read_gbench(d), read_gbench(d, "cpu_time")
    iters = meta.get("spin_iters", "?")
    t.section("calibration (ns per iteration, medians; anchor: Google Benchmark, same function; its cpu "
              "time leaves out preemption, as bench's median of short samples does)")
    spin = one(cases, "cpu_spin")
    t.add(f"cpu_spin iters={iters} / BM_spin cpu time", median_ns(spin), gb_cpu.get(f"BM_spin/{iters}"),
          target="1 +- 0.02")
    t.add(f"cpu_spin iters={iters} / BM_spin real time", median_ns(spin), gb.get(f"BM_spin/{iters}"))
    noop = one(cases, "cpu_noop")
    t.add("cpu_noop floor / BM_noop_call cpu time (an empty call by pointer)", median_ns(noop),
          gb_cpu.get("BM_noop_call"))
    t.add("cpu_noop floor, BM_empty cpu time (the empty loop itself)", median_ns(noop),
          gb_cpu.get("BM_empty"), ratio="-")

    # Memory-bound primitives against the copy roof; attention against GEMM.
    t.section("LLM primitives (GB/s at the median / membw_cpu copy GB/s at the median, same threads)")
    prims = [("cpu_rmsnorm", {}), ("cpu_layernorm", {}), ("cpu_softmax", {}),
             ("cpu_rope", {"layout": "halves"}), ("cpu_rope", {"layout": "interleaved"})]
    for tv, tname in threads:
        copy = one(cases, "membw_cpu", kernel="copy", threads=tv)
        roof = gbps_median(copy)
        for plugin, extra in prims:
            c = one(cases, plugin, threads=tv, **extra)
            shape = " ".join(f"{k}={v}" for k, v in (c or {}).get("params", {}).items()
                             if k not in ("threads", "eps", "theta"))
            t.add(f"{plugin} {shape}, {tname}", gbps_median(c), roof)
    t.section("attention (GFLOP/s, causal FLOPs / cpu_gemm best GFLOP/s at the largest size, same threads)")
    for tv, tname in threads:
        att = one(cases, "cpu_attention", threads=tv)
        packed = find(cases, "cpu_gemm", variant="packed", threads=tv, m=sizes[-1]) if sizes else []
        best = max(packed, key=lambda c: c["gflops"] or 0) if packed else None
        shape = " ".join(f"{k}={v}" for k, v in (att or {}).get("params", {}).items()
                         if k in ("batch", "heads", "seq", "head_dim"))
        t.add(f"cpu_attention {shape}, {tname}", gflops(att), gflops(best))
    t.print()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The table of studies/anchors.sh: bench's CPU plugins read against their
anchors, from the files one anchors run left in DIR:

  DIR/bench-*/*.json   bench result files (schema bench-result/1) of the runs
                       made once (rest)
  DIR/round-N/bench-*/*.json
                       the GEMM cells and the row kernels with their copy, once
                       per round: each ratio is the median of the rounds' paired
                       ratios, with their range (an older DIR without rounds is
                       read as one round)
  DIR/mbw.txt          mbw's per-run lines (optional)
  DIR/gbench-N.json    Google Benchmark's JSON output of round N (optional),
                       paired with DIR/bench-spin-N (older folders: gbench.json
                       and the rest run)
  DIR/sgemm-C-N-T.txt  direct cblas_sgemm timings, OpenBLAS core C (auto: its own pick)
  DIR/meta             key=value lines: gemm_sizes, threads_all, mbw_mib, the CPU
                       (cpu_model, cpu_family, ...), clock_ghz, fma_*_gflops ...

usage: table.py DIR
"""
import collections
import glob
import json
import os
import re
import statistics
import sys


def load_cases(d, folders="bench-*"):
    cases = []
    for path in sorted(glob.glob(os.path.join(d, folders, "*.json"))):
        doc = json.load(open(path))
        for c in doc.get("cases", []):
            cases.append(c)
    return cases


def load_rounds(d):
    """Each round's directory, in order (DIR itself when it has none)."""
    def number(path):
        tail = path.rsplit("-", 1)[-1]
        return int(tail) if tail.isdigit() else 0
    return sorted(glob.glob(os.path.join(d, "round-*")), key=number) or [d]


def median(xs):
    xs = [x for x in xs if isinstance(x, float)]
    return statistics.median(xs) if xs else None


def most_common(xs):
    xs = [x for x in xs if x is not None]
    return collections.Counter(xs).most_common(1)[0][0] if xs else None


def spread(ratios):
    """The range of a ratio's per-round values, when there are several."""
    rs = [r for r in ratios if isinstance(r, float)]
    return f"{min(rs):.3f}-{max(rs):.3f}" if len(rs) > 1 else ""


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


def gflops_best(c):
    """GFLOP/s over the best (minimum) time: what a busy machine's preemptions
    leave alone, as STREAM's best of trials."""
    if not c or not c.get("flops"):
        return None
    timer = c.get("timer") or "host"
    t = (c.get(timer) or c["host"])["min"]
    return c["flops"] / t if t else None


def best_ratio(a, b):
    return a / b if isinstance(a, float) and isinstance(b, float) and b else None


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


# mbw 1.2.2 (Debian 12) prints its methods under swapped names: -t0, its
# element-by-element loop, as "MEMCPY" and -t1, memcpy(), as "DUMB". Its
# third, "MCBLOCK", is not a copy of the array: `b = mempcpy(b, a, block)`
# never moves the source, so it reads one 256 KiB block from the cache over
# and over and streams only the writes (here 1.3-1.5x the real copies). It
# is left out of the anchor.
MBW_METHODS = {"MEMCPY": "loop", "DUMB": "memcpy"}


def read_mbw(d):
    """Best MiB/s of each mbw method that copies the whole array (named for
    what it runs: loop, memcpy), from its per-run lines."""
    path = os.path.join(d, "mbw.txt")
    best = {}
    if not os.path.exists(path):
        return best
    for line in open(path):
        m = re.match(r"^\d+\s+Method:\s+(\w+)\s.*Copy:\s+([\d.]+) MiB/s", line)
        if m and m.group(1) in MBW_METHODS:
            name = MBW_METHODS[m.group(1)]
            best[name] = max(best.get(name, 0.0), float(m.group(2)))
    return best


def read_gbench(path, kind="real_time"):
    """Median real_time or cpu_time in ns of each Google Benchmark (name -> ns)."""
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


def gbench_rounds(d):
    """[(bench cases, Google Benchmark's file)] of each calibration round."""
    def number(path):
        m = re.search(r"-(\d+)\.json$", path)
        return int(m.group(1)) if m else 0
    files = sorted(glob.glob(os.path.join(d, "gbench-*.json")), key=number)
    if files:
        return [(load_cases(d, f"bench-spin-{number(f)}"), f) for f in files]
    return [(load_cases(d), os.path.join(d, "gbench.json"))]  # an older kept folder


def read_sgemm(d, core, n, t):
    """(median GFLOP/s, core OpenBLAS ran) of a direct cblas_sgemm run."""
    path = os.path.join(d, f"sgemm-{core}-{n}-{t}.txt")
    if not os.path.exists(path):
        return None, None
    text = open(path).read()
    m = re.search(r"median_gflops ([\d.]+)", text)
    c = re.search(r"core (\S+)", text)
    return (float(m.group(1)) if m else None), (c.group(1) if c else None)


def flop_per_cycle(meta, isa):
    """Nominal fp32 FLOP per cycle of one core for a kernel's ISA: 2 FMA pipes
    x lanes x 2. AVX-512 on Zen 4 (family 25) runs on 256-bit units: no more
    than AVX2; Zen 5 (family 26) and Intel's AVX-512 cores have 512-bit FMA."""
    if isa.startswith("avx512"):
        if meta.get("cpu_vendor") == "AuthenticAMD" and meta.get("cpu_family") == "25":
            return 32
        return 64
    if isa.startswith("avx2"):
        return 32
    return None  # a generic kernel: whatever the compiler made of it


def peak_gflops(meta, isa, threads):
    """The physical estimate: nominal FLOP/cycle x measured clock x threads."""
    try:
        ghz = float(meta["clock_ghz"])
    except (KeyError, ValueError):
        return None
    fpc = flop_per_cycle(meta, isa)
    return fpc * ghz * threads if fpc else None


def kernel_isa(c):
    """The ISA a GEMM-like case ran: its kernel's, or its BLAS core's."""
    info = c["info"] if c else {}
    if "kernel" in info:
        return info["kernel"].split()[0]
    core = (info.get("openblas_core") or info.get("blis_arch") or "").lower()
    if core in ("skylakex", "cooperlake", "sapphirerapids", "skx", "knl", "zen4", "zen5"):
        return "avx512"
    if core in ("haswell", "zen", "zen2", "zen3", "excavator"):
        return "avx2"
    return "generic"


def anchor_name(c):
    info = c["info"]
    if c["params"]["variant"] == "openblas":
        return f"OpenBLAS {info.get('openblas_core', '?')}"
    return f"BLIS {info.get('blis_arch', '?')}"


class Table:
    def __init__(self):
        self.rows = []

    def add(self, what, bench, anchor, ratio=None, target="", unit="", peak=None, best=None,
            rounds=""):
        def fmt(x):
            if x is None:
                return "n/a"
            if isinstance(x, str):
                return x
            return f"{x:.4g}{unit}"

        if ratio is None and isinstance(bench, float) and isinstance(anchor, float) and anchor:
            ratio = bench / anchor
        r = ratio if isinstance(ratio, str) else "n/a" if ratio is None else f"{ratio:.3f}"
        of_peak = ""
        if isinstance(bench, float) and peak:
            of_peak = f"{bench / peak:.3f}"
        b = "" if best is None else f"{best:.3f}"
        self.rows.append((what, fmt(bench), fmt(anchor), r, rounds, b, target, of_peak))

    def section(self, title):
        self.rows.append((title,) + (None,) * 7)

    def print(self):
        head = ("what", "bench", "anchor", "ratio", "rounds", "best", "target", "of peak")
        n = len(head)
        w = [max(len(head[i]), *(len(r[i]) for r in self.rows if r[1] is not None)) for i in range(n)]
        line = "  ".join(f"{{:<{w[0]}}}" if i == 0 else f"{{:>{w[i]}}}" for i in range(n))
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

    # This CPU and its limits.
    ghz = meta.get("clock_ghz")
    print(f"CPU: {meta.get('cpu_model', '?')} ({meta.get('cpu_vendor', '?')} family "
          f"{meta.get('cpu_family', '?')} model {meta.get('cpu_model_id', '?')}), "
          f"{all_t} CPUs, AVX-512 {'yes' if meta.get('avx512') == '1' else 'no'}")
    for isa in (["avx512"] if meta.get("avx512") == "1" else []) + ["avx2"]:
        fpc = flop_per_cycle(meta, isa)
        measured = meta.get(f"fma_{isa}_gflops")
        note = ""
        if measured and ghz:
            note = f"; measured FMA throughput {float(measured):.1f} GFLOP/s = {float(measured) / float(ghz):.1f} FLOP/cycle"
        print(f"peak {isa}: {fpc} FLOP/cycle (nominal) x {ghz or '?'} GHz (measured) = "
              f"{fpc * float(ghz) if ghz else float('nan'):.1f} GFLOP/s per core{note}")
    print(f"OpenBLAS picks {meta.get('openblas_core') or 'n/a'}; BLIS picks {meta.get('blis_arch') or 'n/a'}")
    print()

    def nthreads(tv):
        return int(all_t) if tv == "0" and all_t.isdigit() else 1

    # GEMM against the strongest anchor, in the same harness, then OpenBLAS direct.
    rounds = [load_cases(r) for r in load_rounds(d)]
    nr = len(rounds)
    t.section(f"GEMM (GFLOP/s at the median; anchor: the strongest of the OpenBLAS and BLIS runs as "
              f"cpu_gemm variants (an anchor row's anchor column: its best); {nr} round(s), each cell's "
              f"runs back to back: bench, anchor and ratio are medians over the rounds of each round's "
              f"figures and paired ratio, rounds their range; best: the ratio of the best "
              f"(minimum-time) figures of all rounds, which a busy machine disturbs least; of peak: "
              f"bench / (nominal FLOP/cycle of the kernel's ISA x clock x threads))")

    def strongest(cs):
        return max(cs, key=lambda c: c["gflops"] or 0) if cs else None

    def max_best(cs):
        return max((gflops_best(c) or 0.0 for c in cs), default=0.0) or None

    def gemm_row(label, anchor_label, ours, theirs, target, isa_of, threads_n):
        """One table row from each round's (our case, the anchors' cases)."""
        pairs = [(o, strongest(a)) for o, a in zip(ours, theirs)]
        ratios = [best_ratio(gflops(o), gflops(a)) for o, a in pairs if o and a]
        isa = most_common(kernel_isa(o) for o, _ in pairs if o)
        aname = most_common(anchor_name(a) for _, a in pairs if a) or anchor_label
        all_ours = [o for o in ours if o]
        all_theirs = [c for a in theirs for c in a]
        t.add(label(most_common(o["info"].get("kernel", "?") for o in all_ours) or "?", aname),
              median(gflops(o) for o in all_ours), median(gflops(a) for _, a in pairs if a),
              ratio=median(ratios), rounds=spread(ratios), target=target,
              peak=peak_gflops(meta, isa_of or isa or "", threads_n),
              best=best_ratio(max_best(all_ours), max_best(all_theirs)))

    for n in sizes:
        for tv, tname in threads:
            target = ">= 0.97" if n in ("1024", "2048") else ""
            packed = [find(cs, "cpu_gemm", variant="packed", m=n, threads=tv) for cs in rounds]
            anchors = [find(cs, "cpu_gemm", variant="openblas", m=n, threads=tv) +
                       find(cs, "cpu_gemm", variant="blis", m=n, threads=tv) for cs in rounds]
            gemm_row(lambda k, a: f"cpu_gemm best ({k}) / strongest ({a}), {n}^3, {tname}", "no anchor",
                     [strongest(p) for p in packed], anchors, target, None, nthreads(tv))
            avx2 = [one(cs, "cpu_gemm", variant="packed", m=n, threads=tv, isa="avx2") for cs in rounds]
            if any(a and not (len(p) == 1 and p[0] is a) for a, p in zip(avx2, packed)):
                gemm_row(lambda k, a: f"cpu_gemm packed avx2 6x16 / strongest AVX2 ({a}), {n}^3, {tname}",
                         "no AVX2 anchor", avx2,
                         [[c for c in a if kernel_isa(c) == "avx2"] for a in anchors], target, "avx2",
                         nthreads(tv))
            by_name = collections.defaultdict(list)
            for a in anchors:
                for c in a:
                    by_name[anchor_name(c)].append(c)
            for name in sorted(by_name):
                cs = by_name[name]
                isa = kernel_isa(cs[0])
                t.add(f"  anchor {name} ({isa}), {n}^3, {tname}", median(gflops(c) for c in cs),
                      max_best(cs), ratio="-", peak=peak_gflops(meta, isa, nthreads(tv)))
    t.section("OpenBLAS inside bench vs called directly (harness overhead; median GFLOP/s, same core)")
    for n in sizes:
        for tv, tname in threads:
            tt = meta.get("threads_all", "1") if tv == "0" else "1"
            for core in ("auto", "SkylakeX"):
                direct, dcore = read_sgemm(d, core, n, tt)
                if core != "auto" and direct is None:
                    continue
                ob = [c for cs in rounds for c in find(cs, "cpu_gemm", variant="openblas", m=n, threads=tv)
                      if dcore is None or c["info"].get("openblas_core") == dcore]
                t.add(f"bench openblas / direct cblas_sgemm ({dcore or core}), {n}^3, {tname}",
                      median(gflops(c) for c in ob), direct)

    # STREAM against mbw.
    mbw = read_mbw(d)
    mbw_best = max(mbw.values()) if mbw else None
    # mbw counts the array once; STREAM counts copy as read + write.
    mbw_gbs = mbw_best * 2 * 1048576 / 1e9 if mbw_best else None
    best_method = max(mbw, key=mbw.get) if mbw else "?"
    t.section(f"memory bandwidth (GB/s, STREAM's best of trials; anchor: mbw {meta.get('mbw_mib', '?')} MiB "
              f"arrays, best method {best_method} (of its loop and memcpy; its MCBLOCK does not read the array), "
              f"counted as read + write)")
    for kernel in ("copy", "triad", "scale", "add"):
        for tv, tname in threads:
            c = one(cases, "membw_cpu", kernel=kernel, threads=tv)
            target = ">= 0.9" if kernel == "copy" and tv == "1" else ""
            if kernel in ("copy", "triad") or tv == "1":
                note = "" if tv == "1" else " (mbw: 1 thread)"
                t.add(f"membw_cpu {kernel} / mbw, {tname}{note}", gbps_best(c), mbw_gbs,
                      target=target)

    # Calibration against Google Benchmark.
    iters = meta.get("spin_iters", "?")
    cal = gbench_rounds(d)
    t.section(f"calibration (ns per iteration, medians; anchor: Google Benchmark, same function; its cpu "
              f"time leaves out preemption, as bench's median of short samples does; {len(cal)} round(s) "
              f"of bench then Google Benchmark, seconds apart: medians over the rounds, the ratio of "
              f"each round's pair, rounds their range)")

    def calibration(what, plugin, bm, kind, **kw):
        ours = [median_ns(one(cs, plugin)) for cs, _ in cal]
        theirs = [read_gbench(f, kind).get(bm) for _, f in cal]
        ratios = [best_ratio(o, g) for o, g in zip(ours, theirs)]
        if "ratio" not in kw:  # a row of two figures only (ratio "-") gets no range either
            kw.update(ratio=median(ratios), rounds=spread(ratios))
        t.add(what, median(ours), median(theirs), **kw)
    calibration(f"cpu_spin iters={iters} / BM_spin cpu time", "cpu_spin", f"BM_spin/{iters}", "cpu_time",
                target="1 +- 0.02")
    calibration(f"cpu_spin iters={iters} / BM_spin real time", "cpu_spin", f"BM_spin/{iters}", "real_time")
    calibration("cpu_noop floor / BM_noop_call cpu time (an empty call by pointer)", "cpu_noop",
                "BM_noop_call", "cpu_time")
    calibration("cpu_noop floor, BM_empty cpu time (the empty loop itself)", "cpu_noop", "BM_empty",
                "cpu_time", ratio="-")

    # Memory-bound primitives against the copy roof; attention against GEMM.
    t.section(f"LLM primitives (GB/s at the median / membw_cpu copy GB/s at the median, same threads, "
              f"the copy and the kernels in one run, {nr} round(s): medians over the rounds, the ratio "
              f"of each round's pair, rounds their range; best: the same from minimum times of all rounds)")
    prims = [("cpu_rmsnorm", {}), ("cpu_layernorm", {}), ("cpu_softmax", {}),
             ("cpu_rope", {"layout": "halves"}), ("cpu_rope", {"layout": "interleaved"})]
    for tv, tname in threads:
        # older kept folders: the rows runs at the top, or only the rest run
        runs = [load_cases(r, f"bench-rows-{tv}") for r in load_rounds(d)]
        runs = [r for r in runs if r] or [cases]
        copies = [one(r, "membw_cpu", kernel="copy", threads=tv) for r in runs]
        for plugin, extra in prims:
            cs = [one(r, plugin, threads=tv, **extra) for r in runs]
            c = next((x for x in cs if x), None)
            shape = " ".join(f"{k}={v}" for k, v in (c or {}).get("params", {}).items()
                             if k not in ("threads", "eps", "theta", "stores"))
            isa = (c or {}).get("info", {}).get("isa")
            target = {"cpu_rmsnorm": ">= 0.8", "cpu_layernorm": ">= 0.8", "cpu_softmax": ">= 0.6"}.get(plugin, "")
            ratios = [best_ratio(gbps_median(x), gbps_median(cp)) for x, cp in zip(cs, copies)]
            best_x = max((gbps_best(x) or 0.0 for x in cs), default=0.0) or None
            best_cp = max((gbps_best(cp) or 0.0 for cp in copies), default=0.0) or None
            t.add(f"{plugin} {shape}{f' ({isa})' if isa else ''}, {tname}", median(gbps_median(x) for x in cs),
                  median(gbps_median(cp) for cp in copies), ratio=median(ratios), rounds=spread(ratios),
                  target=target, best=best_ratio(best_x, best_cp))
    t.section("attention (GFLOP/s, causal FLOPs / cpu_gemm best GFLOP/s at the largest size, same threads: "
              "the median over the rounds of each round's best variant)")
    for tv, tname in threads:
        att = one(cases, "cpu_attention", threads=tv)
        packed = [find(cs, "cpu_gemm", variant="packed", threads=tv, m=sizes[-1]) if sizes else []
                  for cs in rounds]
        gemm = median(gflops(strongest(p)) for p in packed if p)
        shape = " ".join(f"{k}={v}" for k, v in (att or {}).get("params", {}).items()
                         if k in ("batch", "heads", "seq", "head_dim"))
        kern = (att or {}).get("info", {}).get("kernel", "?")
        t.add(f"cpu_attention {shape} ({kern}) / cpu_gemm, {tname}", gflops(att), gemm,
              target=">= 0.75", peak=peak_gflops(meta, kernel_isa(att), nthreads(tv)),
              best=best_ratio(gflops_best(att), max_best([c for p in packed for c in p])))
    t.print()


if __name__ == "__main__":
    main()

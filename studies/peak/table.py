#!/usr/bin/env python3
"""The table of studies/peak_bench.sh: bench peak's roofs against their
anchors, per round and as the median of the rounds' ratios.

usage: table.py WORK   (the folder peak_bench.sh filled)"""
import glob
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "anchors"))
from table import flop_per_cycle  # noqa: E402  nominal FLOP/cycle per ISA (studies/anchors)


def kv(path):
    out = {}
    if os.path.exists(path):
        for line in open(path):
            if "=" in line:
                k, v = line.strip().split("=", 1)
                out[k] = v
    return out


def roofs(folder, methods=None):
    """{roof id: best OK record} from every roofs file under folder (only
    records whose method starts with one of methods, when given)."""
    best = {}
    for path in glob.glob(os.path.join(folder, "roofs", "*.tsv")):
        for line in open(path):
            f = line.rstrip("\n").split("\t")
            if f[0] != "M" or len(f) != 17 or f[4] != "OK":
                continue
            rec = {"plugin": f[1], "params": f[3], "roof": f[5], "kind": f[6], "unit": f[7],
                   "value": float(f[8]), "low": float(f[9]), "high": float(f[10]), "method": f[11]}
            if methods and not rec["method"].startswith(methods):
                continue
            old = best.get(rec["roof"])
            lower = rec["kind"] == "latency"
            if not old or (rec["value"] < old["value"] if lower else rec["value"] > old["value"]):
                best[rec["roof"]] = rec
    return best


def refused(folder):
    n = 0
    for path in glob.glob(os.path.join(folder, "roofs", "*.tsv")):
        n += sum(1 for line in open(path) if line.startswith("M\t") and line.split("\t")[4] != "OK")
    return n


def gemm(folder):
    """{threads: GFLOP/s at the median} of cpu_gemm variant=openblas."""
    out = {}
    for path in glob.glob(os.path.join(folder, "*cpu_gemm*.json")):
        for c in json.load(open(path)).get("cases", []):
            if c.get("status") != "OK":
                continue
            if c.get("gflops"):
                out[str(c.get("params", {}).get("threads"))] = c["gflops"]
    return out


def mbw_gbps(path):
    """mbw's MEMCPY average, in STREAM's bytes (read + write: 2x the array) per s."""
    if not os.path.exists(path):
        return None
    m = re.search(r"AVG\s+Method: MEMCPY.*Copy: ([\d.]+) MiB/s", open(path).read())
    return 2 * float(m.group(1)) * 1048576 / 1e9 if m else None


def isa_of(method):
    for isa in ("avx512", "avx2"):
        if isa in (method or ""):
            return isa
    return ""


def main():
    work = sys.argv[1]
    meta = kv(os.path.join(work, "meta"))
    ncpu = int(meta.get("cpus", "1"))
    rounds = int(meta.get("rounds", "1"))
    rows = {}  # name -> list of (value, anchor, ratio, note)

    def add(name, value, anchor, target, note=""):
        ratio = value / anchor if value and anchor else None
        rows.setdefault(name, {"target": target, "vals": []})["vals"].append((value, anchor, ratio, note))

    ci = {}
    nref = 0
    for r in range(1, rounds + 1):
        rf = roofs(os.path.join(work, f"peak{r}"))
        nref += refused(os.path.join(work, f"peak{r}"))
        g = gemm(os.path.join(work, f"gemm{r}"))
        clock = kv(os.path.join(work, f"clock{r}"))
        ghz = float(clock.get("clock_ghz", "0") or 0)
        for rid, rec in rf.items():
            ci.setdefault(rid, []).append(50 * (rec["high"] - rec["low"]) / rec["value"])
        for rid, threads in (("fp32", ncpu), ("fp32.1t", 1)):
            rec = rf.get(rid)
            v = rec["value"] if rec else None
            gkey = "1" if threads == 1 else "0"
            add(f"{rid} / OpenBLAS sgemm {meta.get('gemm')}^3 t={threads}", v, g.get(gkey), ">= 1")
            # the nominal peak is that of a vector ISA the table knows: the
            # best avx512 or avx2 roof (on a busy machine the best of all may
            # be a narrower kernel's, whose nominal figure the table lacks)
            wide = roofs(os.path.join(work, f"peak{r}"), ("avx512", "avx2")).get(rid)
            fpc = flop_per_cycle(meta, isa_of(wide["method"])) if wide else None
            phys = fpc * ghz * threads if fpc and ghz else None
            how = (f"{isa_of(wide['method'])}: {fpc} FLOP/cycle x {ghz:.3f} GHz x {threads}" if phys
                   else "clock unknown" if fpc else "no avx512 or avx2 roof")
            add(f"{rid} / nominal peak", wide["value"] if wide else None, phys, "0.9-1.1", how)
        ct = roofs(os.path.join(work, f"peak{r}"), ("copy", "triad"))
        for rid, t in (("dram", ncpu), ("dram.1t", 1)):
            s = kv(os.path.join(work, f"stream{r}.t{t}"))
            best = max([float(x) for k, x in s.items() if k.endswith("_gbps")] or [0]) or None
            rec = rf.get(rid)
            add(f"{rid} (best kernel) / best STREAM t={t}", rec["value"] if rec else None, best, "(beside)",
                rec["method"] if rec else "")
            rec = ct.get(rid)
            add(f"{rid} copy,triad / best STREAM t={t}", rec["value"] if rec else None, best, "0.95-1.05",
                rec["method"] if rec else "")
            if t == 1:
                rec = rf.get(rid)
                add(f"{rid} (best kernel) / mbw memcpy t=1", rec["value"] if rec else None,
                    mbw_gbps(os.path.join(work, f"mbw{r}")), "(beside)")

    print(f"bench peak on {meta.get('cpu_model')} (family {meta.get('cpu_family')}), {ncpu} CPUs, "
          f"LLC {int(meta.get('llc_bytes', 0)) >> 20} MiB, arrays {int(meta.get('array_bytes', 0)) >> 20} MiB, "
          f"{rounds} round(s); medians of the rounds' ratios")
    print(f"{'ratio':<46} {'roof':>10} {'anchor':>10} {'ratio':>7} {'range':>13}  target     note")
    for name, row in rows.items():
        vals = [v for v in row["vals"] if v[2] is not None]
        if not vals:
            print(f"{name:<46} {'n/a':>10} {'n/a':>10} {'n/a':>7} {'':>13}  {row['target']:<10} "
                  f"{row['vals'][0][3] or 'not measured'}")
            continue
        rat = [v[2] for v in vals]
        med = statistics.median(rat)
        print(f"{name:<46} {statistics.median(v[0] for v in vals):>10.4g} "
              f"{statistics.median(v[1] for v in vals):>10.4g} {med:>7.3f} "
              f"{min(rat):>6.3f}-{max(rat):<6.3f}  {row['target']:<10} {vals[0][3]}")
    print("95% interval half-width of each roof (target <= 2%):")
    for rid in sorted(ci):
        print(f"  {rid:<12} {statistics.median(ci[rid]):.2f}% (max {max(ci[rid]):.2f}%)")
    if nref:
        print(f"{nref} case(s) were refused as roofs (see the roofs files)")


if __name__ == "__main__":
    main()

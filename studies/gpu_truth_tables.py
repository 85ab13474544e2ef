#!/usr/bin/env python3
"""The tables of studies/gpu_truth.sh's run, made back on this machine.

usage: studies/gpu_truth_tables.py OUT_DIR   (the folder gpu_truth.sh wrote)

Prints markdown: the device (run header), a table per case of the standard
run (clock mean/min, in-band clock, power and limit, max temperature,
throttle reasons, samples discarded, throttled), the five runs' self-compare
(false alarms) and run-to-run spread of each case's median, the planted 5%
slowdown's verdicts, and what telemetry saw over the sustained case.
"""
import glob
import json
import math
import os
import statistics
import sys


def load_runs(folder):
    """Every result file under folder: (env, case) pairs."""
    out = []
    for path in sorted(glob.glob(os.path.join(folder, "**", "*.json"), recursive=True)):
        try:
            with open(path) as f:
                d = json.load(f)
        except (OSError, ValueError):
            continue
        if not isinstance(d, dict) or "cases" not in d:
            continue
        for c in d["cases"]:
            out.append((d.get("env", {}), c))
    return out


def case_name(c):
    params = " ".join(f"{k}={v}" for k, v in (c.get("params") or {}).items())
    return f"{c['plugin']} {params}".strip()


def median(c):
    st = c.get("device") or c.get("host") or {}
    return st.get("median")


def fmt(v, unit="", digits=0):
    if v is None:
        return "-"
    return f"{v:.{digits}f}{unit}"


def g(d, *keys):
    for k in keys:
        if not isinstance(d, dict):
            return None
        d = d.get(k)
    return d


def devices_table(runs):
    seen = {}
    for env, _ in runs:
        for dev in env.get("devices") or []:
            seen.setdefault(dev.get("bus_id"), dev)
    if not seen:
        print("No device in the run header (no telemetry library, or no plugin named its device).\n")
        return
    keys = sorted({k for d in seen.values() for k in d})
    print("| " + " | ".join(keys) + " |")
    print("|" + " --- |" * len(keys))
    for d in seen.values():
        print("| " + " | ".join(str(d.get(k, "-")) for k in keys) + " |")
    print()


def telemetry_table(runs):
    print("| case | status | median | SM clock mean (min) MHz | in-band MHz | power mean / limit W | temp max C | throttle | discarded | throttled |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for _, c in runs:
        t = c.get("telemetry") or {}
        m = median(c)
        clock = g(t, "sm_clock_mhz", "mean")
        clock_min = g(t, "sm_clock_mhz", "min")
        print("| {} | {} | {} | {} | {} | {} / {} | {} | {} | {} | {} |".format(
            case_name(c), c.get("status"), fmt(m / 1e3 if m else None, " us", 2),
            f"{fmt(clock)} ({fmt(clock_min)})" if clock is not None else "-",
            fmt(g(t, "in_band", "mean")) if g(t, "in_band", "samples") else "-", fmt(g(t, "power_w", "mean")), fmt(g(t, "power_w", "limit")),
            fmt(t.get("temp_c_max")), ",".join(t.get("throttle_reasons") or []) or "-",
            g(t, "throttle_rule", "discarded") or 0, "yes: " + (t.get("throttled_by") or "") if t.get("throttled") else "no"))
    notes = {(c.get("telemetry") or {}).get("note") for _, c in runs} - {None, ""}
    for n in sorted(notes):
        print(f"\nnote: {n}")
    print()


def spread(folders):
    """sd of log(median) per case over the runs (percent)."""
    per = {}
    for folder in folders:
        for _, c in load_runs(folder):
            m = median(c)
            if c.get("status") == "OK" and m and m > 0:
                per.setdefault(case_name(c), []).append(math.log(m))
    rows = []
    for name, logs in per.items():
        if len(logs) >= 2:
            rows.append((statistics.stdev(logs) * 100, name, len(logs)))
    rows.sort()
    return rows


def compare_verdicts(path):
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return None
    rows = d.get("rows") or d.get("cases") or (d if isinstance(d, list) else [])
    counts = {}
    for r in rows:
        v = r.get("verdict", "?")
        counts[v] = counts.get(v, 0) + 1
    return counts, rows


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    out = sys.argv[1]
    std = load_runs(os.path.join(out, "standard"))
    print(f"## The device\n")
    devices_table(std)
    print(f"## Telemetry per case, standard preset ({len(std)} cases)\n")
    telemetry_table(std)

    folders = [os.path.join(out, "repeat", str(i)) for i in range(1, 6)]
    rows = spread(folders)
    print("## Five standard runs of cuda_* in a row\n")
    if rows:
        sds = [r[0] for r in rows]
        q = statistics.quantiles(sds, n=10) if len(sds) >= 2 else sds
        print(f"Run-to-run spread of a case's median (sd of the log) over {len(rows)} cases: "
              f"median {statistics.median(sds):.2f}%, 90th percentile {q[-1]:.2f}%, largest {max(sds):.2f}% ({rows[-1][1]}).\n")
    fa_total, n_total = 0, 0
    for i in range(1, 5):
        got = compare_verdicts(os.path.join(out, "repeat", f"compare_{i}_{i + 1}.json"))
        if not got:
            continue
        counts, _ = got
        fa = counts.get("FASTER", 0) + counts.get("SLOWER", 0)
        fa_total += fa
        n_total += sum(counts.values())
        print(f"- run {i} against run {i + 1}: {counts} (false alarms: {fa})")
    print(f"\nSelf-compare false alarms: {fa_total} of {n_total} case comparisons.\n")

    print("## Planted 5% slowdown (cuda_planted, one standard run a side)\n")
    for name in sorted(glob.glob(os.path.join(out, "planted", "compare_*.json"))):
        got = compare_verdicts(name)
        if got:
            counts, rows_ = got
            ratios = ", ".join(
                "{:.4f} [{:.4f}, {:.4f}]".format(r.get("ratio", float("nan")), r.get("ci_lo", float("nan")), r.get("ci_hi", float("nan")))
                for r in rows_ if isinstance(r.get("ratio"), (int, float)))
            print(f"- {os.path.basename(name)}: {counts} ratio {ratios}")
    print()

    sus = load_runs(os.path.join(out, "sustained"))
    print("## Sustained: cuBLAS f16 GEMM 8192^3, 60 s\n")
    telemetry_table(sus)
    for _, c in sus:
        x = g(c, "samples", "clock_mhz") or []
        x = [v for v in x if isinstance(v, (int, float))]
        if x:
            k = max(1, len(x) // 6)
            parts = [statistics.mean(x[i:i + k]) for i in range(0, len(x), k)]
            print("In-band clock by sixth of the run: " + ", ".join(f"{p:.0f}" for p in parts) + " MHz")
        d = g(c, "samples", "device_ns") or []
        if d:
            k = max(1, len(d) // 6)
            parts = [statistics.median(d[i:i + k]) / 1e6 for i in range(0, len(d), k)]
            print("Median time by sixth of the run: " + ", ".join(f"{p:.3f}" for p in parts) + " ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

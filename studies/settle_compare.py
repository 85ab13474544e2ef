#!/usr/bin/env python3
"""Short runs against long runs of the same cases (a benchmark, not a test;
studies/settle_check.sh runs it).

DIR holds one results folder per run, named S1, S2, ... (short: the preset's
own stopping policy) and L1, L2, ... (long: every case to max_time). Per case
(plugin and parameters), prints each run's median, whether it settled, each
short run's distance from the mean of the long runs' medians, and the long
runs' distance from each other (the machine's run-to-run spread). Then the
summary: short runs settled, median time per short case as a fraction of
max_time, short medians within 1% of the long mean, and long runs within 1%
of each other.

usage: studies/settle_compare.py DIR
"""
import glob, json, os, statistics, sys


def load(folder):
    cases = {}
    for f in sorted(glob.glob(os.path.join(folder, "*.json"))):
        for c in json.load(open(f)).get("cases", []):
            if c.get("status") != "OK":
                continue
            key = c["plugin"] + " " + " ".join(f"{k}={v}" for k, v in c["params"].items())
            t = c["device"] if c.get("device") else c["host"]
            s = c["samples"]
            x = s.get("device_ns") or s["host_ns"]
            sampled = sum(s["host_ns"]) * max(c.get("batch") or 1, 1) / 1e9
            cases[key] = {"median": t["median"], "settled": c["settled"], "time": sampled, "n": len(x)}
    return cases


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    runs = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)) and d[:1] in "SL")
    short = [r for r in runs if r[0] == "S"]
    long_ = [r for r in runs if r[0] == "L"]
    if not short or not long_:
        sys.exit("settle_compare: need S* and L* result folders in " + root)
    data = {r: load(os.path.join(root, r)) for r in runs}
    keys = sorted(set().union(*(set(d) for d in data.values())))
    head = f"{'case':58s} " + " ".join(f"{r:>9s}" for r in runs) + "   S vs L mean (%)" + " " * 8 + "L spread (%)"
    print(head)
    s_dev, l_spread, settled, times = [], [], [], []
    for k in keys:
        if not all(k in data[r] for r in runs):
            print(f"{k[:58]:58s} missing from some runs")
            continue
        med = {r: data[r][k]["median"] for r in runs}
        lmean = statistics.fmean(med[r] for r in long_)
        dev = [(med[r] / lmean - 1) * 100 for r in short]
        spread = (max(med[r] for r in long_) / min(med[r] for r in long_) - 1) * 100
        s_dev += dev
        l_spread.append(spread)
        for r in short:
            settled.append(data[r][k]["settled"])
            times.append(data[r][k]["time"])
        cells = " ".join(f"{med[r] / 1e6:8.4g}{' ' if data[r][k]['settled'] else '*'}" for r in runs)
        print(f"{k[:58]:58s} {cells}   " + " ".join(f"{d:+6.2f}" for d in dev) + f"    {spread:6.2f}")
    if not s_dev:
        return
    print("(medians in ms; * = did not settle)")
    n = len(s_dev)
    print(f"short runs: {sum(settled)}/{len(settled)} settled ({100 * sum(settled) / len(settled):.0f}%), "
          f"median sampling time per case {statistics.median(times):.2f} s")
    print(f"short median vs long mean: median |diff| {statistics.median(abs(d) for d in s_dev):.2f}%, "
          f"within 1%: {sum(abs(d) <= 1 for d in s_dev)}/{n}")
    if len(long_) > 1:
        print(f"long runs against each other (max/min - 1): median {statistics.median(l_spread):.2f}%, "
              f"within 1%: {sum(s <= 1 for s in l_spread)}/{len(l_spread)}")


if __name__ == "__main__":
    main()

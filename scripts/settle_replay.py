#!/usr/bin/env python3
"""Replay the stopping rules on recorded samples (a benchmark, not a test).

For each OK case in the given bench result .json files, walk its samples in
the order they were taken and find where each rule would have stopped:
  cv: the coefficient of variation <= target (the old rule, stop = cv)
  ci: the relative half-width of the median's 95% confidence interval
      (order statistics, exact binomial ranks as harness/src/stats.c) <= target
after min_samples and min_time (sample time = per-iteration time x batch).
Prints per case the stop point of each rule and the median there against the
median of the whole recorded run, then a summary: cases settled, median time
per case as a fraction of max_time, medians within 1% of the long run.

usage: scripts/settle_replay.py [--target 0.01] [--min-samples 10]
           [--min-time 1] [--max-time 8] FILE.json...
"""
import argparse, json, math, statistics, sys

def ci_rank(n):
    if n > 1000:
        return max(1, math.floor((n - 1.959964 * math.sqrt(n)) / 2))
    cdf, k = 0.0, 0
    for j in range(n // 2 + 1):
        cdf += math.comb(n, j) / 2.0 ** n
        if cdf > 0.025: break
        k = j + 1
    return k

def median(s):
    n = len(s); h = (n - 1) * 0.5; lo = math.floor(h)
    return s[lo] if lo + 1 >= n else s[lo] + (h - lo) * (s[lo + 1] - s[lo])

def ci_rel(x):
    if len(x) < 2: return math.inf
    s = sorted(x); k = max(ci_rank(len(s)), 1); m = median(s)
    return (s[len(s) - k] - s[k - 1]) / 2 / m if m > 0 else math.inf

def cv(x):
    if len(x) < 2: return math.inf
    m = statistics.fmean(x)
    return statistics.stdev(x) / m if m > 0 else math.inf

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", type=float, default=0.01)
    ap.add_argument("--min-samples", type=int, default=10)
    ap.add_argument("--min-time", type=float, default=1.0)
    ap.add_argument("--max-time", type=float, default=8.0)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    rows = []
    for f in a.files:
        for c in json.load(open(f)).get("cases", []):
            if c["status"] != "OK": continue
            s = c["samples"]; x = s["device_ns"] or s["host_ns"]
            batch = max(c.get("batch") or 1, 1)
            full = median(sorted(x))
            res = {}
            for rule, fn in (("cv", cv), ("ci", ci_rel)):
                t, stop, next_check = 0.0, None, 0
                for i in range(len(x)):
                    t += s["host_ns"][i] * batch / 1e9
                    n = i + 1
                    # as the harness: look again after every 1/16 more samples
                    if n >= a.min_samples and t >= a.min_time and n >= next_check:
                        if fn(x[:n]) <= a.target:
                            stop = (n, t); break
                        next_check = n + max(1, n // 16)
                    if t >= a.max_time: break
                if stop: res[rule] = (True, stop[0], stop[1], median(sorted(x[:stop[0]])) / full - 1)
                else: res[rule] = (False, len(x), min(t, a.max_time), 0.0)
            rows.append((c["plugin"], " ".join(f"{k}={v}" for k, v in c["params"].items()), res))
    for p, params, res in rows:
        print(f"{p:14s} {params[:44]:44s} " + "  ".join(
            f"{r}: {'settled' if v[0] else 'no':7s} n={v[1]:<6d} t={v[2]:5.2f}s dmed={v[3] * 100:+.2f}%"
            for r, v in res.items()))
    for r in ("cv", "ci"):
        st = [res[r] for _, _, res in rows]
        if not st: continue
        settled = sum(v[0] for v in st)
        tmed = statistics.median(v[2] for v in st)
        within = sum(v[0] and abs(v[3]) <= 0.01 for v in st)
        print(f"rule {r}: settled {settled}/{len(st)} ({100 * settled / len(st):.0f}%), median time per case "
              f"{tmed:.2f} s = {100 * tmed / a.max_time:.0f}% of max_time; of the settled, medians within 1% "
              f"of the whole recorded run: {within}/{settled}")

if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Replay the stopping rules on recorded samples (a benchmark, not a test).

For each OK case in the given bench result .json files, walk its samples in
the order they were taken and find where each rule would have stopped:
  cv:     the coefficient of variation <= target (stop = cv)
  ci-iid: the relative half-width of the median's 95% order-statistic
          interval (exact binomial ranks) <= target: the rule before the
          drift term, which assumes independent samples
  ci:     the harness's rule (stop = ci, harness/src/stats.c): the wider of
          that interval and the drift term, t(B-1) * sd / sqrt(B) over the
          medians of B = min(16, n/2) consecutive blocks (from 8 blocks on)
after min_samples and min_time (sample time = per-iteration time x batch),
looking again after every 1/16 more samples, as the harness does. Prints per
case the stop point of each rule and the median there against the median of
the whole recorded run, then per rule: cases settled, median time per case
as a fraction of max_time, settled medians within 1% of the whole run's, and
how often the rule's interval at its stop holds the whole run's median.

usage: studies/settle_replay.py [--preset FILE] [--target 0.01]
           [--min-samples 10] [--min-time 1] [--max-time 8] [--summary] FILE.json...
  --preset  take target_noise, min_samples, min_time, max_time from a
            preset's [run] section (the flags override)
"""
import argparse, configparser, json, math, re, statistics, sys

T975 = {7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131}

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

def iid_interval(x):
    s = sorted(x); k = max(ci_rank(len(s)), 1)
    return s[k - 1], s[len(s) - k], median(s)

def drift(x, m):
    n = len(x); nb = min(16, n // 2)
    if nb < 8 or m <= 0: return 0.0
    bm = [median(sorted(x[b * n // nb:(b + 1) * n // nb])) for b in range(nb)]
    return T975[nb - 1] * statistics.stdev(bm) / math.sqrt(nb) / m

def interval(x, rule):
    """(lo, hi, median) of the rule's interval over x."""
    lo, hi, m = iid_interval(x)
    if rule == "ci":
        h = drift(x, m) * m
        lo, hi = min(lo, m - h), max(hi, m + h)
    return lo, hi, m

def noise(x, rule):
    if len(x) < 2: return math.inf
    if rule == "cv":
        m = statistics.fmean(x)
        return statistics.stdev(x) / m if m > 0 else math.inf
    lo, hi, m = interval(x, rule)
    return (hi - lo) / 2 / m if m > 0 else math.inf

def seconds(text):
    m = re.fullmatch(r"\s*([0-9.]+)\s*(min|ms|us|ns|s)?\s*", text)
    if not m: sys.exit(f"settle_replay: cannot read duration '{text}'")
    return float(m.group(1)) * {"min": 60, "s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, None: 1}[m.group(2)]

RULES = ("cv", "ci-iid", "ci")

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset")
    ap.add_argument("--target", type=float)
    ap.add_argument("--min-samples", type=int)
    ap.add_argument("--min-time", type=float)
    ap.add_argument("--max-time", type=float)
    ap.add_argument("--summary", action="store_true", help="only the summary lines")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    pol = {"target": 0.01, "min_samples": 10, "min_time": 1.0, "max_time": 8.0}
    if a.preset:
        cp = configparser.ConfigParser(inline_comment_prefixes=(";", "#"), strict=False, interpolation=None)
        cp.read(a.preset)
        run = cp["run"] if cp.has_section("run") else {}
        if "target_noise" in run:
            v = run["target_noise"].strip()
            pol["target"] = float(v[:-1]) / 100 if v.endswith("%") else float(v)
        if "min_samples" in run: pol["min_samples"] = int(run["min_samples"])
        if "min_time" in run: pol["min_time"] = seconds(run["min_time"])
        if "max_time" in run: pol["max_time"] = seconds(run["max_time"])
    for k in pol:
        if getattr(a, k) is not None: pol[k] = getattr(a, k)
    rows = []
    for f in a.files:
        for c in json.load(open(f)).get("cases", []):
            if c["status"] != "OK": continue
            s = c["samples"]; x = s["device_ns"] or s["host_ns"]
            batch = max(c.get("batch") or 1, 1)
            full = median(sorted(x))
            res = {}
            for rule in RULES:
                t, stop, next_check, n = 0.0, None, 0, 0
                for i in range(len(x)):
                    t += s["host_ns"][i] * batch / 1e9
                    n = i + 1
                    if n >= pol["min_samples"] and t >= pol["min_time"] and n >= next_check:
                        if noise(x[:n], rule) <= pol["target"]:
                            stop = (n, t); break
                        next_check = n + max(1, n // 16)
                    if t >= pol["max_time"]: break
                n_used = stop[0] if stop else n
                lo, hi, m = interval(x[:n_used], "ci" if rule == "cv" else rule)
                res[rule] = (bool(stop), n_used, stop[1] if stop else min(t, pol["max_time"]),
                             m / full - 1, lo <= full <= hi)
            rows.append((c["plugin"], " ".join(f"{k}={v}" for k, v in c["params"].items()), res))
    if not a.summary:
        for p, params, res in rows:
            print(f"{p:14s} {params[:44]:44s} " + "  ".join(
                f"{r}: {'settled' if v[0] else 'no':7s} n={v[1]:<6d} t={v[2]:5.2f}s dmed={v[3] * 100:+.2f}%"
                for r, v in res.items()))
    print(f"policy: target {pol['target'] * 100:g}%, min_samples {pol['min_samples']}, "
          f"min_time {pol['min_time']:g} s, max_time {pol['max_time']:g} s; {len(rows)} cases")
    for r in RULES:
        st = [res[r] for _, _, res in rows]
        if not st: continue
        settled = sum(v[0] for v in st)
        tmed = statistics.median(v[2] for v in st)
        within = sum(v[0] and abs(v[3]) <= 0.01 for v in st)
        covers = "" if r == "cv" else f"; its interval holds the whole run's median: {sum(v[4] for v in st)}/{len(st)}"
        print(f"rule {r:6s}: settled {settled}/{len(st)} ({100 * settled / len(st):.0f}%), median time per case "
              f"{tmed:.2f} s = {100 * tmed / pol['max_time']:.0f}% of max_time; settled medians within 1% "
              f"of the whole run: {within}/{settled}{covers}")

if __name__ == "__main__":
    main()

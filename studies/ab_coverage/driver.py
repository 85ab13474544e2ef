#!/usr/bin/env python3
"""The trials of studies/ab_coverage.sh (see its head comment): runs bench ab
and sequential runs compared by bench compare on planted ratios, one line of
OUT/raw.jsonl a verdict, then prints tables.py's tables."""
import argparse, glob, json, os, shutil, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tables  # noqa: E402


def llc_bytes():
    """The last-level cache of this machine: sysfs, getconf, lscpu, else 32 MiB."""
    best = (0, 0)
    for d in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*"):
        try:
            level = int(open(d + "/level").read())
            kind = open(d + "/type").read().strip()
            s = open(d + "/size").read().strip()
        except OSError:
            continue
        if kind == "Instruction":
            continue
        mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:], 1)
        v = int(s.rstrip("KMG")) * mult
        best = max(best, (level, v))
    if best[1]:
        return best[1], "sysfs"
    for name in ("LEVEL3_CACHE_SIZE", "LEVEL2_CACHE_SIZE"):
        try:
            v = int(subprocess.run(["getconf", name], capture_output=True, text=True).stdout.strip() or 0)
        except (OSError, ValueError):
            v = 0
        if v > 0:
            return v, "getconf"
    try:
        out = subprocess.run(["lscpu", "-B"], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if line.startswith(("L3 cache:", "L2 cache:")):
                return int(line.split(":")[1].split()[0]), "lscpu"
    except (OSError, ValueError, IndexError):
        pass
    return 32 << 20, "default"


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def kinds_params(llc):
    big = max(2 * llc, 32 << 20)
    return {
        "chain": ("ab_kinds", ["kind=chain", "n=2000000"]),
        "stream": ("ab_kinds", ["kind=stream", "n=%d" % (big // 4)]),
        "chase": ("ab_kinds", ["kind=chase", "n=10000", "nodes=%d" % (big // 64)]),
        "threads": ("ab_kinds", ["kind=threads", "n=4000000"]),
        "vulkan": ("ab_kinds_vk", ["size=16MiB"]),
    }


def preset(path, tier, warmup, min_time, max_time):
    with open(path, "w") as f:
        f.write("[run]\ntier = %s\nwarmup_iters = 5\nwarmup_time = %s\nmin_samples = 10\n"
                "max_samples = 1000000\nmin_time = %s\nmax_time = %s\nbatch_min_time = 1ms\n"
                "timeout = 120s\n" % (tier, warmup, min_time, max_time))


def run(cmd, log):
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    with open(log, "a") as f:
        f.write("$ %s\n%s%s(rc %d, %.1f s)\n" % (" ".join(cmd), p.stdout, p.stderr, p.returncode, time.time() - t0))
    return p


def ab_trial(a, W, plugin, params, r):
    res = os.path.join(W, "res_ab")
    shutil.rmtree(res, ignore_errors=True)
    cmd = [a.bench, "ab", os.path.join(W, "b_base"), os.path.join(W, "b_" + r), "--preset", os.path.join(W, "ab.ini"),
           "--threshold", a.threshold, "--plugin", plugin, "--results-dir", res, "--fail-on", "none"]
    for p in params:
        cmd += ["--param", p]
    p = run(cmd, a.log)
    files = [f for f in glob.glob(res + "/*.json") if "_new" in os.path.basename(f)]
    if not files:
        return {"verdict": "NONE", "why": (p.stderr or p.stdout)[-300:]}
    c = json.load(open(files[0]))["cases"][0]
    info = c.get("info", {})
    rec = {"verdict": info.get("ab_verdict", c.get("status", "NONE"))}
    if "ab_ratio" in info:
        lo, hi = (float(x) for x in info["ab_ci"].split())
        rec.update(est=float(info["ab_ratio"]), lo=lo, hi=hi, estimate=info.get("ab_estimate", ""))
        for k in ("ab_pairs", "ab_rounds_n", "ab_sd_within", "ab_sd_between", "ab_se", "ab_level", "ab_wall_s"):
            if k in info:
                rec[k[3:]] = float(info[k])
    return rec


def compare(a, old, new, labels):
    cmd = [a.bench, "compare", old] + ([new] if new else []) + labels + [
        "--format", "json", "--threshold", a.threshold, "--fail-on", "none"]
    p = run(cmd, a.log)
    try:
        c = json.loads(p.stdout)["cases"][0]
    except (ValueError, KeyError, IndexError):
        return {"verdict": "NONE", "why": p.stderr[-300:]}
    br = c.get("new", {}).get("between_run", {})
    rec = {"verdict": c.get("verdict", "NONE"), "runs": br.get("runs"), "term": br.get("term"),
           "sigma": br.get("sigma"), "large": br.get("large")}
    if c.get("ci_lo") is not None and c.get("ratio") is not None:
        rec.update(est=c["ratio"], lo=c["ci_lo"], hi=c["ci_hi"])
    return rec


def seq_trial(a, W, kind, plugin, params, r, t):
    """Two sequential runs into this trial's folder; compared alone, and pooled
    with the runs of the last POOL trials."""
    base = os.path.join(W, "seq", kind, r)
    here = os.path.join(base, "t%03d" % t)
    shutil.rmtree(here, ignore_errors=True)
    for side, build in (("old", "b_base"), ("new", "b_" + r)):
        cmd = [a.bench, "--preset", os.path.join(W, "seq.ini"), "--plugin-dir", os.path.join(W, build),
               "--plugin", plugin, "--label", side, "--results-dir", here]
        for p in params:
            cmd += ["--param", p]
        run(cmd, a.log)
    recs = [("seq1", compare(a, here, None, ["--old-label", "old", "--new-label", "new"]))]
    runs = sorted(glob.glob(os.path.join(base, "t*")))[-a.pool:]
    if len(runs) >= a.pool:
        pool = os.path.join(base, "pool")
        shutil.rmtree(pool, ignore_errors=True)
        os.makedirs(pool)
        for d in runs:
            for f in glob.glob(d + "/*.json"):
                shutil.copy(f, os.path.join(pool, os.path.basename(d) + "_" + os.path.basename(f)))
        recs.append(("pool%d" % a.pool, compare(a, pool, None, ["--old-label", "old", "--new-label", "new"])))
        # the newest runs alone, the earlier trials' runs of both builds as
        # their history (dated earlier days: compare pools one day's runs
        # and takes earlier days' as history)
        hist = os.path.join(base, "hist")
        shutil.rmtree(hist, ignore_errors=True)
        os.makedirs(hist)
        for i, d in enumerate(runs):
            for f in glob.glob(d + "/*.json"):
                dst = os.path.join(hist, os.path.basename(d) + "_" + os.path.basename(f))
                if d == runs[-1]:
                    shutil.copy(f, dst)
                    continue
                doc = json.load(open(f))
                day = "2000-01-%02d" % (i + 1)
                for obj in [doc] + [v for v in doc.values() if isinstance(v, dict)]:
                    if "date" in obj:
                        obj["date"] = day
                    if "started" in obj:
                        obj["started"] = day + "T00:00:00.000Z"
                json.dump(doc, open(dst, "w"))
        recs.append(("hist%d" % (a.pool - 1), compare(a, hist, None, ["--old-label", "old", "--new-label", "new"])))
    return recs


def main():
    ap = argparse.ArgumentParser()
    for k in ("bench", "work", "out", "kinds", "ratios", "methods", "threshold"):
        ap.add_argument("--" + k, required=True)
    ap.add_argument("--trials", type=int, required=True)
    ap.add_argument("--budget", type=float, required=True)
    ap.add_argument("--pool", type=int, default=5)
    ap.add_argument("--seq-trials", type=int, default=0)
    ap.add_argument("--seq-budget", type=float, default=0)
    a = ap.parse_args()
    W = a.work
    a.log = os.path.join(a.out, "log")
    raw = os.path.join(a.out, "raw.jsonl")
    llc, how = llc_bytes()
    kp = kinds_params(llc)
    kinds, ratios, methods = a.kinds.split(), a.ratios.split(), a.methods.split()
    preset(os.path.join(W, "ab.ini"), "standard", "50ms", "0", "%gs" % a.budget)
    half = max((a.seq_budget or a.budget) / 2 - 0.5, 0.5)
    preset(os.path.join(W, "seq.ini"), "standard", "300ms", "%gs" % half, "%gs" % half)
    done = set()
    if os.path.exists(raw):
        for line in open(raw):
            try:
                d = json.loads(line)
            except ValueError:
                continue
            done.add((d["method"] if d["method"] in ("ab",) else "seq", d["kind"], d["ratio"], d["trial"]))
    meta = {"cpu": cpu_model(), "llc_bytes": llc, "llc_from": how, "budget_s": a.budget, "threshold": a.threshold,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "params": {k: kp[k][1] for k in kinds},
            "seq_budget_s": a.seq_budget or a.budget, "seq_trials": a.seq_trials or a.trials, "pool": a.pool}
    with open(os.path.join(a.out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print("%s; last-level cache %d MiB (%s); %d trials, %g s a case, threshold %s" %
          (meta["cpu"], llc >> 20, how, a.trials, a.budget, a.threshold), flush=True)
    for t in range(a.trials):
        # kinds and ratios in a rotating order, so that a slow hour of the
        # machine falls on every kind and ratio alike
        ks = kinds[t % len(kinds):] + kinds[:t % len(kinds)]
        for ki, kind in enumerate(ks):
            rs = ratios[(t + ki) % len(ratios):] + ratios[:(t + ki) % len(ratios)]
            plugin, params = kp[kind]
            for r in rs:
                for m in methods:
                    if (m, kind, r, t) in done or (m == "seq" and a.seq_trials and t >= a.seq_trials):
                        continue
                    recs = [("ab", ab_trial(a, W, plugin, params, r))] if m == "ab" else \
                        seq_trial(a, W, kind, plugin, params, r, t)
                    with open(raw, "a") as f:
                        for name, rec in recs:
                            rec.update(method=name, kind=kind, ratio=r, trial=t)
                            f.write(json.dumps(rec) + "\n")
                    print("trial %d %s %s %s: %s" % (t, kind, r, m, ", ".join(
                        "%s %s %s" % (n, x["verdict"], "%.4f [%.4f, %.4f]" % (x["est"], x["lo"], x["hi"])
                                      if "est" in x else "") for n, x in recs)), flush=True)
    tables.main([a.out])


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Tables of studies/ab_coverage.sh from OUT/raw.jsonl (OUT/meta.json for the
machine): per method, kind and planted ratio new/old, over the trials:
coverage (the reported interval contains the planted ratio; an early stop's
interval counts as reported), the verdicts, the wrong-sign verdicts (FASTER
for a slower build, SLOWER for a faster one; FASTER or SLOWER at 1.00 is a
false alarm), detection (the right sign); then per kind what a method
resolves: the median standard error of its log-ratio, and the smallest
ratio it calls SLOWER at 95% power, threshold + (1.96 + 1.645) * SE, with
bench ab's variance components (between worker pairs, within a pair).

  python3 studies/ab_coverage/tables.py OUT [--md | --summary]

--summary prints one markdown row a kind (README.md's table): per method
the coverage over every ratio, wrong signs, false alarms, how many 1% and
2% slower builds were called SLOWER, and the smallest ratio resolved."""
import collections, json, math, os, statistics, sys

METHOD_NAMES = {"ab": "bench ab", "seq1": "one run a side"}


def method_name(m):
    if m.startswith("pool"):
        return "%s runs a side pooled" % m[4:]
    if m.startswith("hist"):
        return "one run a side, %s earlier as history" % m[4:]
    return METHOD_NAMES.get(m, m)


def load(out):
    rows = []
    for line in open(os.path.join(out, "raw.jsonl")):
        try:
            rows.append(json.loads(line))
        except ValueError:
            pass
    meta = {}
    try:
        meta = json.load(open(os.path.join(out, "meta.json")))
    except (OSError, ValueError):
        pass
    return rows, meta


def threshold_of(meta):
    t = str(meta.get("threshold", "0.5%"))
    return float(t[:-1]) / 100 if t.endswith("%") else float(t)


def summarise(rows, thr):
    """{(method, kind, ratio): stats} and {(method, kind): resolution}."""
    g = collections.defaultdict(list)
    for r in rows:
        g[(r["method"], r["kind"], r["ratio"])].append(r)
    cells = {}
    for key, rs in g.items():
        planted = float(key[2])
        with_ci = [r for r in rs if "lo" in r and r["lo"] is not None and math.isfinite(r["hi"])]
        cover = sum(1 for r in with_ci if r["lo"] <= planted <= r["hi"])
        verdicts = collections.Counter(r["verdict"] for r in rs)
        if planted > 1:
            wrong, right = verdicts["FASTER"], verdicts["SLOWER"]
        elif planted < 1:
            wrong, right = verdicts["SLOWER"], verdicts["FASTER"]
        else:
            wrong, right = verdicts["FASTER"] + verdicts["SLOWER"], verdicts["SAME"]
        cells[key] = dict(n=len(rs), nci=len(with_ci), cover=cover, verdicts=verdicts, wrong=wrong, right=right,
                          early=sum(1 for r in rs if "stopped early" in r.get("estimate", "")))
    res = {}
    gk = collections.defaultdict(list)
    for r in rows:
        gk[(r["method"], r["kind"])].append(r)
    for key, rs in gk.items():
        # SE from the 95% intervals of trials that ran their whole budget
        # (an early stop's interval is 99%: its own level)
        se = []
        for r in rs:
            if "lo" not in r or not (r["lo"] > 0) or not math.isfinite(r["hi"]):
                continue
            z = 2.576 if "99%" in r.get("estimate", "") else 1.96
            se.append(math.log(r["hi"] / r["lo"]) / (2 * z))
        d = dict(n=len(se))
        if se:
            s = statistics.median(se)
            d.update(se=s, smallest=(1 + thr) * math.exp((1.96 + 1.645) * s))
        for k in ("sd_within", "sd_between", "pairs", "rounds_n"):
            v = [r[k] for r in rs if k in r and r[k] is not None and math.isfinite(r[k])]
            if v:
                d[k] = statistics.median(v)
        res[key] = d
    return cells, res


def summary(cells, res, kinds, methods):
    """One markdown row a kind, per method "coverage of N, wrong/false,
    1%, 2%, smallest": the coverage over every ratio and trial, the wrong
    signs and false alarms, the 1% (1.01) and 2% slower builds called
    SLOWER (of their trials), and the smallest ratio resolved."""
    head = ["kind"] + [method_name(m) for m in methods]
    print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    for k in kinds:
        vals = [k]
        for m in methods:
            c = collections.Counter()
            for (mm, kk, r), x in cells.items():
                if mm == m and kk == k:
                    c.update(cover=x["cover"], nci=x["nci"], wrong=x["wrong"] if float(r) != 1 else 0,
                             fa=x["wrong"] if float(r) == 1 else 0)
            if not c["nci"]:
                vals.append("-")
                continue
            t = "%.0f%% of %d, %d/%d" % (100 * c["cover"] / c["nci"], c["nci"], c["wrong"], c["fa"])
            for r in ("1.01", "1.02"):
                x = cells.get((m, k, r))
                t += ", %d/%d" % (x["right"], x["n"]) if x and x["n"] else ", -"
            d = res.get((m, k), {})
            t += ", %.3f" % d["smallest"] if "smallest" in d else ", -"
            vals.append(t)
        print("| " + " | ".join(vals) + " |")


def main(argv):
    md = "--md" in argv
    out = [a for a in argv if not a.startswith("--")][0]
    rows, meta = load(out)
    if not rows:
        print("no trials in %s/raw.jsonl" % out)
        return 1
    thr = threshold_of(meta)
    cells, res = summarise(rows, thr)
    methods = [m for m in ("ab", "seq1") if any(k[0] == m for k in cells)]
    methods += sorted({k[0] for k in cells} - set(methods))
    kinds = []
    for r in rows:
        if r["kind"] not in kinds:
            kinds.append(r["kind"])
    ratios = sorted({k[2] for k in cells}, key=float)
    if "--summary" in argv:
        print("%s; %g s a case; threshold %.3g%%; %s" % (meta.get("cpu", "?"), meta.get("budget_s", 0), thr * 100,
                                                        meta.get("date", "")))
        summary(cells, res, kinds, methods)
        return 0
    print("\n%s; %s a case; threshold %.3g%%; %s" % (meta.get("cpu", "?"), "%g s" % meta.get("budget_s", 0),
                                                     thr * 100, meta.get("date", "")))
    sep = " | " if md else "  "
    for m in methods:
        print("\n%s: coverage of the 95%% interval (early stops: their own), verdicts "
              "(SAME/FASTER/SLOWER/NOISY), wrong sign" % method_name(m))
        head = ["kind", "ratio", "trials", "coverage", "SAME", "FASTER", "SLOWER", "NOISY", "wrong sign", "early"]
        if md:
            print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
        else:
            print("%-8s %6s %6s %9s %5s %6s %6s %6s %10s %5s" % tuple(head))
        tot = collections.Counter()
        for k in kinds:
            kc = collections.Counter()
            for r in ratios:
                c = cells.get((m, k, r))
                if not c:
                    continue
                v = c["verdicts"]
                vals = [k, r, c["n"], "%d/%d" % (c["cover"], c["nci"]), v["SAME"], v["FASTER"], v["SLOWER"],
                        v["NOISY"], c["wrong"] if float(r) != 1 else "%d (false alarm)" % c["wrong"], c["early"]]
                if md:
                    print("| " + " | ".join(str(x) for x in vals) + " |")
                else:
                    print("%-8s %6s %6s %9s %5s %6s %6s %6s %10s %5s" % tuple(vals))
                kc.update(cover=c["cover"], nci=c["nci"], wrong=c["wrong"] if float(r) != 1 else 0,
                          fa=c["wrong"] if float(r) == 1 else 0)
            tot.update(kc)
            if kc["nci"]:
                line = "%s all ratios: coverage %d/%d = %.1f%%, wrong sign %d, false alarms %d" % (
                    k, kc["cover"], kc["nci"], 100 * kc["cover"] / kc["nci"], kc["wrong"], kc["fa"])
                print(("| %s |" % line) if md else "  " + line)
        if tot["nci"]:
            print("  every kind: coverage %.1f%%, wrong sign %d, false alarms %d" % (
                100 * tot["cover"] / tot["nci"], tot["wrong"], tot["fa"]))
    print("\nWhat each method resolves in %g s a case: the median standard error of log(new/old), the smallest "
          "ratio called SLOWER at 95%% power (threshold + 3.6 SE), and for bench ab the variance components "
          "(median over trials: the SD of one round's log-ratio within a worker pair, the SD between pairs' "
          "levels) and pairs and rounds" % meta.get("budget_s", 0))
    head = ["kind"] + ["%s SE / smallest" % method_name(m) for m in methods] + [
        "ab within-pair SD", "ab between-pair SD", "pairs", "rounds"]
    if md:
        print("| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    for k in kinds:
        vals = [k]
        for m in methods:
            d = res.get((m, k), {})
            vals.append("%.2f%% / %.3f" % (100 * d["se"], d["smallest"]) if "se" in d else "-")
        d = res.get(("ab", k), {})
        vals += ["%.2f%%" % (100 * d["sd_within"]) if "sd_within" in d else "-",
                 "%.2f%%" % (100 * d["sd_between"]) if "sd_between" in d else "-",
                 "%.0f" % d["pairs"] if "pairs" in d else "-", "%.0f" % d["rounds_n"] if "rounds_n" in d else "-"]
        print(("| " + " | ".join(vals) + " |") if md else sep.join(vals))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

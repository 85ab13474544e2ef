#!/usr/bin/env bash
# Issue 20: on a small VM the default threads (every CPU) must never be more
# than 1.5x slower than threads=1 on the smoke cases of any threaded CPU
# plugin, at the median of any process. cpu_gemm packed 64^3 took 161-173 us
# with 2 threads in 2 of 4 fresh processes against 3.5-4.6 us on one: a team
# that waited for a descheduled (or never woken) peer.
#
# Every CPU plugin that declares a `threads` parameter (bench --list
# --format tsv), but the peak plugins, runs its smoke cases in 10 fresh
# bench processes (one worker process per plugin each). How the times are
# compared, and why:
# - In each process every case runs 10 times, threads alternating 0, 1, 0,
#   1, ... (1, 0, ... in every other process, so neither is always first):
#   5 adjacent pairs. This VM's speed moves between processes and within
#   one (another tenant, a 2x step for tens of milliseconds), so the same
#   code compared across processes, or as one case against one adjacent
#   case, differed by up to 2.3x under `stress-ng --cpu 2` and 1.9x on a
#   quiet machine; with pairs a step in speed lands in one pair at most.
# - A process's figure for a case is the median over its 5 pairs of
#   (default's median / threads=1's median), each median the case's own
#   from the result JSON; it must be at most 1.5 in every process. The
#   regression above is 30x in every pair of a bad process (and one in two
#   processes was bad), so it fails at once; identical code stayed within
#   1.2x in all but about one in 300 case-process pairs, quiet or loaded.
# - Samples are short (batches of 200 us): a sample that a time slice of
#   another process lands in is an outlier the median drops, where 1 ms
#   batches all got hit. Cases stop at 3% noise or 15 ms: quick when
#   quiet, longer under load.
# - A case over 1.5x in a process runs again in 2 fresh processes (at most
#   5 such cases, else that is the failure) and fails if either is over
#   too: the regression above was in every other process, while a time
#   slice of another tenant landing on the default's runs of one process
#   happened about once in 300 case-process pairs under load.
# - A process whose 5 threads=1 medians of a case spread by more than 1.5x
#   cannot tell a 1.5x difference for that case and is left out of it
#   (counted in the table). Under load that is membw_cpu: its runs last
#   1.5 ms, so a time slice of another process lands in many of them and a
#   case's median jumps between 1.5 and 10 ms with either threads setting.
#   Small kernels, the regression above included, stay resolved. When
#   more than half of all are left out the machine is too busy: a failure.
# Also checked: info "threads" is 1 with threads=1, and with the default at
# most the CPUs this process may use, with "threads_requested" when fewer.
. "$(dirname "$0")/cpu_lib.sh"

RUNS=10
PAIRS=5
BOUND=1.5

PLUGINS=''
# (Not the peak plugins, operation "peak": each thread of theirs does a
# fixed amount of work, so more threads do more work in the same time.)
while IFS=$'\t' read -r name backend operation params; do
  if [ "$backend" = cpu ] && [ "$operation" != peak ] && [[ ,$params, == *,threads,* ]]; then PLUGINS+=${PLUGINS:+,}$name; fi
done < <("$BENCH" --list --format tsv 2>/dev/null)
if [ -z "$PLUGINS" ]; then
  fail "no threaded CPU plugin found (bench --list --format tsv: no cpu plugin declares 'threads')"
  finish
  exit
fi
ok
echo "threaded CPU plugins: $PLUGINS"

printf '[run]\ntier = smoke\nwarmup_iters = 1\nwarmup_time = 1ms\nmin_samples = 5\nmax_samples = 100\nmin_time = 0\nmax_time = 15ms\ntarget_noise = 3%%\nbatch_min_time = 200us\nverify = none\ntimeout = 60s\n' >"$T/small.ini"

a=0,1 b=1,0
for _ in $(seq $((PAIRS - 1))); do a="$a,0,1" b="$b,1,0"; done
for i in $(seq "$RUNS"); do
  order=$a
  [ $((i % 2)) -eq 0 ] && order=$b
  run_bench --preset "$T/small.ini" --plugin "$PLUGINS" --param "threads=$order" \
    --results-dir "$T/r/$i"
  expect_rc 0 "run $i (threads=$order)"
done

# judge.py ROOT PLUGINS BOUND NCPU [KEY]: the table, exit 0 when every
# process is within BOUND; 2 when the only failures are processes over it
# (their cases, plugin and --filter expression, in ROOT/over.txt), 1 for
# anything else. With KEY: that case alone, in retry processes.
cat >"$T/judge.py" <<'PY'
import glob, json, os, statistics, sys
root, plugins, bound, ncpu = sys.argv[1], sys.argv[2].split(","), float(sys.argv[3]), int(sys.argv[4])
only = sys.argv[5] if len(sys.argv) > 5 else None
cases, bad, over, seen, judged, noisy = {}, [], [], set(), 0, 0
for run in sorted(glob.glob(os.path.join(root, "*")), key=lambda d: int(os.path.basename(d))):
    for f in glob.glob(os.path.join(run, "*.json")):
        for c in json.load(open(f))["cases"]:
            seen.add(c["plugin"])
            params = {k: v for k, v in c["params"].items() if k != "threads"}
            key = c["plugin"] + " " + " ".join(f"{k}={v}" for k, v in params.items())
            if only and key != only:
                continue
            c["filter"] = ",".join(f"{k}={v}" for k, v in params.items())
            cases.setdefault(key, {}).setdefault(os.path.basename(run), []).append(c)
            used, asked = c["info"].get("threads"), c["info"].get("threads_requested")
            if c["status"] != "OK":
                continue
            if not used or not used.isdigit():
                bad.append(f"{key}: no threads info"); continue
            if c["params"]["threads"] == "1" and used != "1":
                bad.append(f"{key} threads=1: info threads {used}")
            if c["params"]["threads"] == "0":
                if not 1 <= int(used) <= ncpu:
                    bad.append(f"{key} threads=0: info threads {used}, {ncpu} CPUs")
                if int(used) < ncpu and asked != str(ncpu):
                    bad.append(f"{key} threads=0: {used} threads used, threads_requested {asked}")
for p in plugins:
    if p not in seen:
        bad.append(f"{p}: no result")
if not only:
    print(f"{'worst':>6}  {'threads':>7}  {'threads=1':>10}  case (per process: median over pairs of default/threads=1)")
for key in sorted(cases):
    per_run, used, unresolved = [], set(), 0
    for run, cs in sorted(cases[key].items(), key=lambda kv: int(kv[0])):
        if any(c["status"] == "SKIPPED" for c in cs):
            continue
        if any(c["status"] != "OK" for c in cs):
            c = next(c for c in cs if c["status"] != "OK")
            bad.append(f"{key}, run {run}: {c['status']} {c['message']}"); break
        if len(cs) % 2:
            bad.append(f"{key}, run {run}: {len(cs)} cases, not pairs"); break
        ones = [c["host"]["median"] for c in cs if c["params"]["threads"] == "1"]
        if max(ones) > bound * min(ones):
            unresolved += 1
            continue
        ratios = []
        for x, y in zip(cs[0::2], cs[1::2]):  # adjacent: one of each
            d, s = (x, y) if x["params"]["threads"] == "0" else (y, x)
            if d["params"]["threads"] != "0" or s["params"]["threads"] != "1":
                bad.append(f"{key}, run {run}: cases out of order"); break
            ratios.append(d["host"]["median"] / s["host"]["median"])
            used.add(d["info"].get("threads"))
        per_run.append((statistics.median(ratios), run, statistics.median(ones)))
    judged, noisy = judged + len(per_run), noisy + unresolved
    note = f" ({unresolved} too noisy)" if unresolved else ""
    if not per_run:
        print(f"{'-':>6}  {'-':>7}  {'-':>10}  {key}: skipped{note}")
        continue
    worst = max(per_run)
    print(f"{worst[0]:6.2f}  {','.join(sorted(used)):>7}  {worst[2] / 1e3:8.2f}us  {key}: "
          + " ".join(f"{r:.2f}" for r, _, _ in per_run) + note)
    for r, run, _ in per_run:
        if r > bound:
            over.append((key, run, r))
if not only and noisy > judged:
    bad.append(f"{noisy} of {noisy + judged} case-process pairs too noisy to judge: the machine is too busy")
for b in bad:
    print("BAD:", b)
with open(os.path.join(root, "over.txt"), "w") as out:
    for key, run, r in over:
        c = next(iter(cases[key].values()))[0]
        print(f"over: {key}: default threads {r:.2f}x threads=1 in process {run}")
        out.write(f"{c['plugin']}\t{c['filter']}\t{key}\n")
sys.exit(1 if bad else 2 if over else 0)
PY

python3 "$T/judge.py" "$T/r" "$PLUGINS" "$BOUND" "$(nproc)"
verdict=$?
# A process over the bound: the case again in 2 fresh processes. A real
# regression shows again (the one above was in every other process); a
# time slice of another tenant landing on one process's default runs
# does not (once in about 300 case-process pairs under load).
if [ "$verdict" -eq 2 ] && [ "$(sort -u "$T/r/over.txt" | wc -l)" -gt 5 ]; then
  fail "$(sort -u "$T/r/over.txt" | wc -l) cases with default threads over ${BOUND}x threads=1"
  verdict=0
elif [ "$verdict" -eq 2 ]; then
  n=0
  sort -u "$T/r/over.txt" >"$T/over.txt"
  while IFS=$'\t' read -r plugin filter key <&3; do
    n=$((n + 1))
    for i in 1 2; do
      order=$a
      [ "$i" -eq 2 ] && order=$b
      run_bench --preset "$T/small.ini" --plugin "$plugin" --filter "$filter" \
        --param "threads=$order" --results-dir "$T/retry/$n/$i"
      expect_rc 0 "retry of $key"
    done
    echo "retry: $key"
    if python3 "$T/judge.py" "$T/retry/$n" "$plugin" "$BOUND" "$(nproc)" "$key"; then
      echo "  within ${BOUND}x in 2 fresh processes: the process over it was noise"
    else
      fail "$key: default threads over ${BOUND}x threads=1 again in a fresh process"
    fi
  done 3<"$T/over.txt"
  verdict=0
fi
if [ "$verdict" -eq 0 ]; then ok; else fail "default threads against threads=1 (above)"; fi
finish

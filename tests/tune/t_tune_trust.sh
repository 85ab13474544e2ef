#!/usr/bin/env bash
# The tuning cache under issue 40's rules, against fx_tune:
#  - its lock is waited for boundedly (a line after a second, one line when
#    given up), Ctrl-C ends the wait, and what tune measured is still
#    reported (finding 4);
#  - bench tune's header escapes the device name and the file's path
#    (finding 5);
#  - a rejected winner entry is said once (file, entry, why) and the case's
#    note says "default (tuning entry rejected: WHY)" (finding 9);
#  - the default tuning folder is used only when it is the user's alone
#    (finding 1).
. "$(dirname "$0")/../cli/lib.sh"
command -v flock >/dev/null || skip "no flock(1)"
mkdir -p "$T/plugins"
cp "$FX_TUNE/fx_tune.so" "$T/plugins/"
P=(--plugin fx_tune --plugin-dir "$T/plugins")
TUNE=(tune "${P[@]}" --strategy random --random 3 --param noise=0 --param base_us=30)
RUN=("${P[@]}" --preset "$SRC/tests/cli/presets/fast.ini" --param noise=0 --param base_us=30)
C="$T/cache.tsv"

# ---- finding 5: the header's device name and path, escaped ------------------------
E="$T/a"$'\e'"[2Jb.tsv"
FX_TUNE_DEVICE=$'GPU \e]0;pwned\a\e[2J' run_bench "${TUNE[@]}" --tuning-file "$E"
expect_rc 0 "tune with an escape in the device name and path"
expect_in "$T/out" '^bench tune: fx_tune on GPU .*pwned.*, strategy random, cache .*\.tsv$' "the header"
expect_eq "$(tr -d -c '\033\007' <"$T/out" | wc -c)" 0 "no ESC or BEL byte on stdout"
[ -f "$E" ] && ok || fail "the cache under the odd name was not written"

# ---- finding 9: rejected winner entries -----------------------------------------------
run_bench "${TUNE[@]}" --tuning-file "$C"
expect_rc 0 "tune"
expect_eq "$(grep -c '^W	' "$C")" 1 "a winner"
# reject WHAT CAND REGEX: the winner's candidate made CAND; a run says so
# once and notes it on the case.
reject() {
  local what=$1 cand=$2 re=$3
  python3 - "$C" "$cand" <<'PY'
import sys
path, cand = sys.argv[1], sys.argv[2]
lines = open(path).read().split("\n")
for i, l in enumerate(lines):
    f = l.split("\t")
    if f[0] == "W":
        f[2] = cand
        lines[i] = "\t".join(f)
open(path, "w").write("\n".join(lines))
PY
  local r="$T/r-$RANDOM"
  run_bench "${RUN[@]}" --tuning-file "$C" --results-dir "$r"
  expect_rc 0 "$what: the run"
  case "$(csv_field "$r/rollup.csv" fx_tune "" tuning)" in
    "default (tuning entry rejected: "*")") ok ;;
    *) fail "$what: rollup column tuning: $(csv_field "$r/rollup.csv" fx_tune "" tuning)" ;;
  esac
  expect_eq "$(grep -c 'rejected' "$T/err")" 1 "$what: one warning"
  expect_in "$T/err" "warning: tuning cache $C: entry '$cand' for fx_tune n=256 base_us=30 noise=0 limit=63 rejected: $re" "$what: the warning"
  expect_in "$T/out" "limit=63 tx=(1 ty=|ty=)1 +OK" "$what: the defaults ran"
  expect_in "$T/out" "note: default \(tuning entry rejected: $re" "$what: the case's note"
}
reject "outside the choices" "tx=99 ty=3" "tx=99: "
reject "not tunable" "n=5 ty=3" "'n' is not a tunable parameter"
reject "junk" "junk" "'junk' is not NAME=VALUE"
reject "no such parameter" "zz=1" "the plugin has no parameter 'zz'"

# ---- a large tuning file (the note of issue 40: 10^6 lines cost every run
# 1.15 s and 509 MB): a run keeps only its plugin's winners in memory, so
# 300000 other records cost it a read, not their size in memory.
python3 - "$C" <<'PY'
import sys
path = sys.argv[1]
lines = [l for l in open(path).read().split("\n") if l]
w = next(l for l in lines if l.startswith("W\t"))
key = w.split("\t")[1]
with open(path, "w") as f:
    f.write(lines[0] + "\n")
    other = key.replace("|plugin=fx_tune|", "|plugin=other|")
    for i in range(300000):
        f.write("M\t%s x=%d\ttx=%d ty=3\tOK\t31.5,31.6,31.4\n" % (other, i, i % 8 + 1))
    for l in lines[1:]:
        g = l.split("\t")
        if g[0] == "W":
            g[2] = "tx=5 ty=3"  # the rejects above left another candidate
        f.write("\t".join(g) + "\n")
PY
# maxrss ARGS: the peak resident KB of bench ARGS and its children
maxrss() {
  python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$BENCH" "$@"
}
big=$(maxrss "${RUN[@]}" --tuning-file "$C" --results-dir "$T/big1")
printf '%s\n' "$(head -1 "$C")" "$(grep '^W	' "$C")" >"$T/small.tsv"
small=$(maxrss "${RUN[@]}" --tuning-file "$T/small.tsv" --results-dir "$T/big2")
if [ $((big - small)) -lt 16384 ]; then ok; else fail "300000 other records cost $((big - small)) KB (peak $big KB against $small KB)"; fi
run_bench "${RUN[@]}" --tuning-file "$C" --results-dir "$T/big3"
expect_in "$T/out" "note: tuned \(cache $C\)" "the winner still found in the large file"

# ---- finding 4: the lock, bounded and interruptible ---------------------------------
rm -f "$C"
# hold LOCKFILE: another process holds a shared flock on it (read access
# is enough); HOLDER its pid.
hold() {
  (flock -s 9 && echo held >"$T/held" && exec sleep 600) 9>"$1" >/dev/null 2>&1 &
  HOLDER=$!
  trap 'kill "$HOLDER" 2>/dev/null; rm -rf "$T"' EXIT
  wait_for 10 test -f "$T/held" || fail "the holder never took the lock"
}
hold "$C.lock"
BENCH_LOCK_WAIT_S=3 run_bench "${TUNE[@]}" --tuning-file "$C"
expect_rc 1 "tune with the lock held: the cache could not be written"
expect_in "$T/err" "bench: waiting for the lock on the tuning cache $C \(held by (pid [0-9]+|another process)[^:]*: [0-9]+ s of at most 3 s" "the waiting line"
expect_eq "$(grep -c 'gave up waiting for the lock' "$T/err")" 1 "given up once"
expect_in "$T/err" "gave up waiting for the lock on the tuning cache $C after 3 s \(held by " "the line"
expect_in "$T/out" '^fx_tune n=256 base_us=30 noise=0 limit=63: winner tx=[0-9] ty=[0-9] ' "what was measured is reported"
# Ctrl-C while waiting: the wait ends at once, tune says so and exits 130.
rm -f "$T/out" "$T/err" # the line waited for must be this run's
"$BENCH" "${TUNE[@]}" --tuning-file "$C" >"$T/out" 2>"$T/err" &
pid=$!
wait_for 30 grep -q 'waiting for the lock' "$T/err" || fail "no waiting line"
kill -INT "$pid"
if wait_for 10 sh -c "! kill -0 $pid 2>/dev/null"; then ok; else fail "SIGINT did not end the wait"; kill -9 "$pid"; fi
wait "$pid"
RC=$?
expect_rc 130 "interrupted while waiting for the lock"
expect_in "$T/err" "interrupted by Interrupt while waiting for the lock on the tuning cache $C" "the interrupt line"
kill "$HOLDER" 2>/dev/null
wait "$HOLDER" 2>/dev/null

# ---- finding 1: the default tuning folder only when it is the user's alone ---------
run_bench "${TUNE[@]}"
expect_rc 0 "tune into the default folder"
D="$XDG_CACHE_HOME/bench/tuning"
expect_nonempty "the default file" "$D"/*.tsv
expect_eq "$(stat -c %a "$D")" 700 "the tuning folder is 0700"
expect_eq "$(stat -c %a "$D"/*.tsv | sort -u)" 600 "the tuning file is 0600"
run_bench "${RUN[@]}" --results-dir "$T/d1"
expect_in "$T/out" "note: tuned \(cache $D/" "the default file is used"
chmod 0777 "$D"
run_bench "${RUN[@]}" --results-dir "$T/d2"
expect_rc 0 "a tuning folder writable by others: the run"
expect_in "$T/out" "^1 case ran tunables at their defaults: no tuning entry" "a tuning folder writable by others: the defaults"
expect_eq "$(grep -c 'not using the cache' "$T/err")" 1 "said once"
expect_in "$T/err" "cache folder '$D' is writable by others" "the line"
run_bench "${TUNE[@]}"
expect_eq "$(grep -c 'not using the cache' "$T/err")" 1 "tune: said once"
expect_in "$T/out" 'winner tx=[0-9] ty=[0-9] ' "tune: what was measured is reported"
chmod 0700 "$D"
chmod 0666 "$D"/*.tsv
run_bench "${RUN[@]}" --results-dir "$T/d3"
expect_in "$T/err" "cache file '$D/.*\.tsv' is writable by others" "a tuning file writable by others"
expect_in "$T/out" "^1 case ran tunables at their defaults: no tuning entry" "a tuning file writable by others: the defaults"
finish

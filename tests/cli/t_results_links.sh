#!/usr/bin/env bash
# Hostile results folders: hard links and symlinks planted under the
# temporary names bench used to make (".<name>.tmp.<pid>", the pid made
# predictable by exec from a shell that plants for its own $$) are never
# opened: the linked file stays as it was and the run saves normally. A
# sticky world-writable folder holding another user's rollup.csv: the run
# keeps every result, says whose rollup.csv it cannot replace, and writes
# its rollup to rollup.<user>.csv (docs/results.md, "rollup.csv").
. "$(dirname "$0")/lib.sh"
FAST="$SRC/tests/cli/presets/fast.ini"
NAME="${TODAY}_fx_ok_fast"

# run_planted DIR KIND: in a shell whose pid bench will have (exec), plant
# KIND (hard|sym) links to $T/victim in DIR under the temporary names, for
# that pid, of the files listed in $PLANT (@: the run's name), which bench
# wrote before through ".<file>.tmp.<pid>"; then exec bench.
run_planted() {
  local dir=$1 kind=$2
  mkdir -p "$dir"
  # shellcheck disable=SC2016
  timeout 60 bash -c '
    dir=$1 kind=$2 name=$3 victim=$4; shift 4
    # shellcheck disable=SC2086
    for t in $PLANT; do t=${t//@/$name}
      if [ "$kind" = hard ]; then ln -- "$victim" "$dir/.$t.tmp.$$"; else ln -s -- "$victim" "$dir/.$t.tmp.$$"; fi
    done
    echo $$ >"$dir/../planted_pid"
    exec "$@"' planter "$dir" "$kind" "$NAME" "$T/victim" \
    "$BENCH" --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir "$dir" \
    >"$T/out" 2>"$T/err"
  RC=$?
}

valid_json() { python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$1"; }

# the names written (@: the run's name), then also the folder probe's
for set in files probe; do
for kind in hard sym; do
  export PLANT="@.json @.txt @.journal @.2.json rollup.csv"
  [ "$set" = files ] || PLANT="$PLANT @.9999.journal"
  printf 'precious data\n' >"$T/victim"
  before=$(sha256sum <"$T/victim")
  d="$T/$set-$kind/r"
  run_planted "$d" "$kind"
  expect_rc 0 "run beside planted $kind links ($set)"
  expect_eq "$(sha256sum <"$T/victim")" "$before" "the file the planted $kind links point to"
  # they are still there, as planted, under the pid bench had
  pid=$(cat "$T/$set-$kind/planted_pid")
  [ -e "$d/.$NAME.json.tmp.$pid" ] || [ -L "$d/.$NAME.json.tmp.$pid" ] && ok || fail "the planted $kind link was removed"
  valid_json "$d/$NAME.json" && ok || fail "$set, $kind: no valid $NAME.json"
  [ -s "$d/$NAME.txt" ] && ok || fail "$set, $kind: no $NAME.txt"
  expect_eq "$(grep -c ',fx_ok,' "$d/rollup.csv" 2>/dev/null)" 1 "$set, $kind: rollup rows"
  expect_not_in "$T/err" "error|cannot" "$set, $kind: stderr"
  # no temporary file of bench's own is left (only the planted ones)
  left=$(find "$d" -name '.*.tmp.*' ! -name "*.tmp.$pid" | wc -l)
  expect_eq "$left" 0 "$set, $kind: temporary files left"
done
done

# A hard link planted under a run's journal name: the claim takes the next
# free name (.2), and the linked file is never appended to.
printf 'precious data\n' >"$T/victim"
before=$(sha256sum <"$T/victim")
mkdir -p "$T/j"
ln "$T/victim" "$T/j/$NAME.journal"
run_bench --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir "$T/j"
expect_rc 0 "run beside a planted journal"
expect_eq "$(sha256sum <"$T/victim")" "$before" "the file a planted journal links to"
[ -f "$T/j/$NAME.2.json" ] && ok || fail "the run did not take the next free name"

# Sticky world-writable folder, rollup.csv owned by another user: needs two
# users other than the one running bench, so root to set it up.
if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1 || ! id daemon >/dev/null 2>&1 || ! command -v setpriv >/dev/null; then
  echo "note: sticky-folder check not run (needs root, setpriv and the users nobody and daemon)"
else
  chmod 755 "$T"
  s="$T/sticky"
  mkdir -m 1777 "$s"
  printf 'date,host\n' >"$s/rollup.csv"
  chown daemon "$s/rollup.csv"
  chmod 644 "$s/rollup.csv"
  setpriv --reuid=nobody --regid=nogroup --clear-groups --reset-env \
    timeout 60 "$BENCH" --preset "$FAST" --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir "$s" \
    >"$T/out" 2>"$T/err"
  RC=$?
  expect_rc 0 "run in a sticky folder with another user's rollup.csv"
  valid_json "$s/$NAME.json" && ok || fail "sticky: no valid $NAME.json"
  expect_in "$T/err" "cannot replace $s/rollup.csv: it belongs to user daemon \\(uid 1\\) and the folder is sticky.*written to $s/rollup.nobody.csv instead"
  expect_eq "$(grep -c 'warning' "$T/err")" 1 "sticky: warning lines"
  expect_eq "$(cat "$s/rollup.csv")" "date,host" "sticky: the other user's rollup.csv"
  expect_eq "$(grep -c ',fx_ok,' "$s/rollup.nobody.csv" 2>/dev/null)" 1 "sticky: rows of rollup.nobody.csv"
  # bench rollup does the same, and says where it wrote
  setpriv --reuid=nobody --regid=nogroup --clear-groups --reset-env \
    timeout 60 "$BENCH" rollup --results-dir "$s" >"$T/out" 2>"$T/err"
  RC=$?
  expect_rc 0 "bench rollup in the sticky folder"
  expect_in "$T/err" "written to $s/rollup.nobody.csv instead"
  expect_not_in "$T/out" "wrote $s/rollup.csv" "bench rollup: stdout"
fi
finish

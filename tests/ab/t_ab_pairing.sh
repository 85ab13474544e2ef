#!/bin/bash
# bench ab pairs plugins by name and cases by parameters; what one side
# lacks is listed (MISSING / NEW), never dropped; the sides' results are
# ordinary result files tagged old and new that bench compare reads, the
# new one holding the rounds.
. "$(dirname "$0")/lib.sh"

# base: ab_spin, ab_gone; same: ab_spin, ab_fresh
# (--fail-on wrong: the verdicts are t_ab_stop's; here only the pairing)
ab "$AB/base" "$AB/same" --fail-on wrong
expect_rc 0 "A=A"
expect_in "$T/out" '^ab_gone: MISSING' "plugin in OLD only"
expect_in "$T/out" '^ab_fresh: NEW' "plugin in NEW only"
expect_in "$T/out" 'ab_spin n=20000: old [0-9.]+ us, new [0-9.]+ us, new/old [0-9.]+ \[' "the paired case"
expect_in "$T/out" '^ab_spin: (NEW is [0-9.]+% (faster|slower) than OLD|NEW is the same as OLD within 5%|not decided: NEW from [0-9.]+% (faster|slower) to [0-9.]+% (faster|slower) than OLD), 9[59][0-9.]*% CI' "closing line in words"
# one ratio on the line (the levels agree with it), words that follow the verdict
why=$(ab_agrees "$T/out") && ok || fail "the line disagrees with itself: $why"
expect_not_in "$T/out" 'ab_gone n=|ab_fresh n=' "a one-sided plugin measured"
old=$(ls "$T"/results/*_ab_spin_ab_old.json 2>/dev/null)
new=$(ls "$T"/results/*_ab_spin_ab_new.json 2>/dev/null)
expect_nonempty "old result file" $old
expect_nonempty "new result file" $new
if [ -n "$old" ] && [ -n "$new" ]; then
  [ "$(json_case "$new" 'c["info"]["ab_side"]')" = new ] && ok || fail "new file not tagged new"
  [ "$(json_case "$old" 'c["info"]["ab_side"]')" = old ] && ok || fail "old file not tagged old"
  rounds=$(json_case "$new" 'c["info"]["ab_rounds"]')
  [[ "$rounds" =~ ^0:(on|no):[0-9.]+\; ]] && ok || fail "rounds in the JSON: '$rounds'"
  # the header's steadiness, as bench run writes it (compare's between-run term follows it)
  for f in "$old" "$new"; do
    st=$(python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["env"].get("steadiness") or {}
print("ok" if s.get("wall_s", 0) > 0 and "contention" in s and "others_per_cpu_end" in s else s)' "$f")
    [ "$st" = ok ] && ok || fail "$(basename "$f") without steadiness: $st"
  done
  n=$(json_case "$new" 'c["nsamples"]')
  [ "$n" -gt 10 ] && ok || fail "new side samples: $n"
  "$BENCH" compare "$old" "$new" --fail-on none >"$T/cmp" 2>&1
  [ $? -eq 0 ] && ok || { fail "bench compare of the ab files"; cat "$T/cmp"; }
  expect_in "$T/cmp" 'ab_spin' "bench compare output"
fi
# --fail-on missing: a plugin in OLD only fails the run
ab "$AB/base" "$AB/same" --fail-on missing --plugin 'ab_g*,ab_f*'
expect_rc 1 "--fail-on missing"

# cases: extra has n=3000 too
ab "$AB/base" "$AB/extra" --plugin ab_spin --fail-on wrong
expect_rc 0 "case in NEW only"
expect_in "$T/out" 'ab_spin n=3000: NEW' "case in NEW only"
ab "$AB/extra" "$AB/base" --plugin ab_spin --fail-on slower,missing --threshold 50%
expect_in "$T/out" 'ab_spin n=3000: MISSING' "case in OLD only"
expect_rc 1 "--fail-on missing for a case"
# two timed cases: the closing line is a summary of their ratios, not a verdict
ab "$AB/extra" "$AB/extra" --plugin ab_spin --fail-on none
expect_in "$T/out" "^ab_spin: the geometric mean of the 2 cases' new/old: [0-9.]+% (faster|slower): " \
  "several cases: a geometric mean, not 'NEW is X% faster'"
why=$(ab_agrees "$T/out") && ok || fail "the lines disagree with themselves: $why"
# single .so files
ab "$AB/base/ab_spin.so" "$AB/same/ab_spin.so" --fail-on none
expect_rc 0 "single .so files"
expect_in "$T/out" 'ab_spin n=20000: old [0-9.]+ us, new [0-9.]+ us, new/old [0-9.]+ \[' "single .so files paired"
expect_not_in "$T/out" 'ab_gone|ab_fresh' "single .so: other plugins of the folder"
# --format md: a Markdown table, one row per case
ab "$AB/base/ab_spin.so" "$AB/same/ab_spin.so" --fail-on none --format md
expect_rc 0 "--format md"
expect_in "$T/out" '^\| plugin \| case \| old \| new \| new/old \[95% CI\] \| verdict \| rounds \|$' "md header"
expect_in "$T/out" '^\| ab\\_spin \| n=20000 \| [0-9.]+ us \| [0-9.]+ us \| [0-9.]+ \[.*\]( \(9[0-9.]+%\))? \| (SAME|FASTER|SLOWER|NOISY) \|' "md row"
# --format md: what one side lacks and the closing line are table rows too
ab "$AB/base" "$AB/same" --plugin 'ab_g*,ab_f*' --fail-on none --format md
expect_rc 0 "--format md, one-sided plugins"
expect_in "$T/out" '^\| ab\\_gone \| \\\(all cases\\\) \| - \| - \| - \| MISSING \| plugin in OLD only \|$' "md: plugin in OLD only"
expect_in "$T/out" '^\| ab\\_fresh \| \\\(all cases\\\) \| - \| - \| - \| NEW \| plugin in NEW only \|$' "md: plugin in NEW only"
ab "$AB/extra" "$AB/base" --plugin ab_spin --fail-on none --threshold 50% --format md
expect_rc 0 "--format md, a case in OLD only"
expect_in "$T/out" '^\| ab\\_spin \| n=3000 \| - \| - \| - \| MISSING \| case in OLD only \|$' "md: case in OLD only"
expect_in "$T/out" '^\| \*\*ab\\_spin\*\* \| \\\(all cases\\\) \|  \|  \| (NEW is [0-9.]+% (faster|slower) than OLD, 9[59][0-9.]*% CI [^|]*|NEW is the same as OLD within 50%, 9[59][0-9.]*% CI [^|]*|not decided: [^|]*) \| 1 [A-Z]+, 1 MISSING \|  \|$' "md: closing row"
ab "$AB/base" "$AB/extra" --plugin ab_spin --fail-on none --threshold 50% --format md
expect_in "$T/out" '^\| ab\\_spin \| n=3000 \| - \| - \| - \| NEW \| case in NEW only \|$' "md: case in NEW only"
# every line after the header line is a table row
n_plain=$(tail -n +2 "$T/out" | grep -cv '^|')
[ "$n_plain" -eq 0 ] && ok || { fail "md: $n_plain lines that are not table rows"; cat "$T/out"; }
# process state is sampled: each worker draws its own address layout (a
# forked worker would keep the parent's, one layout for the whole run), so
# the plugin's code, a stack variable and a 1 MiB buffer sit at different
# addresses from worker to worker. The lines of one run are judged (separate
# runs are separate processes anyway); a run with few workers (a loaded
# machine) is run again.
export AB_LAYOUT_LOG="$T/layout"
for try in 1 2 3 4 5; do
  rm -f "$AB_LAYOUT_LOG"
  ab "$AB/base/ab_spin.so" "$AB/same/ab_spin.so" --fail-on none --param n=2000
  [ "$(cat "$AB_LAYOUT_LOG" 2>/dev/null | wc -l)" -ge 6 ] && break
done
unset AB_LAYOUT_LOG
expect_rc 0 "ab with a layout log"
python3 - "$T/layout" >"$T/layout.out" 2>&1 <<'PY'
import sys
lines = [l.split() for l in open(sys.argv[1]) if l.strip()]
print(len(lines), "workers")
if len(lines) < 6: sys.exit("fewer than 6 workers logged their layout")
bad = 0
for k, what in enumerate(("code", "stack", "buffer")):
    distinct = len({l[k] for l in lines})
    print(what, distinct, "distinct of", len(lines))
    if distinct < max(3, len(lines) // 2): bad = 1
sys.exit(bad)
PY
if [ $? -eq 0 ]; then ok; else fail "workers' layouts not drawn anew"; cat "$T/layout.out"; head "$T/layout"; fi

# usage
ab "$AB/base"
expect_rc 2 "one side only"
ab "$AB/base" "$T/nowhere"
expect_rc 2 "NEW that does not exist"
expect_in "$T/err" "NEW '.*nowhere'" "names the missing side"
ab "$AB/base" "$AB/same" --fail-on sometimes
expect_rc 2 "bad --fail-on"
finish

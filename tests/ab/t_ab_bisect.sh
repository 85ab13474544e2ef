#!/bin/bash
# The bisect recipe of docs/comparing.md: a tiny git repository holds a plugin
# source at several commits, one of which plants a 2x slowdown (and one
# later commit does not build); `git bisect run scripts/bisect_example.sh
# GOOD_BUILD` must name the planted commit as the first bad one.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "git is not installed"
command -v cc >/dev/null || skip "no C compiler"
R=$T/repo
mkdir -p "$R"
cd "$R" || exit 1
git init -q .
git config user.email t@example.com
git config user.name test
cp "$SRC/tests/ab/ab_spin.c" plugin.c
echo '1.0' >scale
commit() { git add -A && git commit -qm "$1" && git rev-parse HEAD; }
c1=$(commit "one")
echo '/* a comment */' >>plugin.c
c2=$(commit "two: a comment")
echo '2.0' >scale
c3=$(commit "three: twice the work")
echo 'this does not compile' >>plugin.c
c4=$(commit "four: broken")
sed -i '$d' plugin.c
c5=$(commit "five: fixed")
expect_nonempty "commits" "$c1" "$c2" "$c3" "$c4" "$c5"
export BISECT_BUILD='cc -O1 -shared -fPIC -fvisibility=hidden -I"$SRC/harness/include" -DAB_SCALE=$(cat scale) plugin.c -o "$BISECT_OUT/ab_spin.so"'
export BENCH SRC
# the good build, made at the good commit
git checkout -q "$c1"
mkdir -p "$T/good"
BISECT_OUT=$T/good bash -c "$BISECT_BUILD" && ok || fail "good build"
git checkout -q "$c5"
git bisect start "$c5" "$c1" >"$T/start.log" 2>&1 || { fail "git bisect start"; cat "$T/start.log"; }
git bisect run "$SRC/scripts/bisect_example.sh" "$T/good" --preset "$PRESET" >"$T/bisect.log" 2>&1
if grep -q "^$c3 is the first bad commit" "$T/bisect.log"; then ok; else
  fail "bisect did not name commit three ($c3)"; cat "$T/bisect.log"
fi
git bisect reset >/dev/null 2>&1
# a commit that does not build is skipped, not called bad
git checkout -q "$c4"
"$SRC/scripts/bisect_example.sh" "$T/good" --preset "$PRESET" >"$T/skip.log" 2>&1
rc=$?
[ $rc -eq 125 ] && ok || { fail "a commit that does not build: exit $rc, not 125"; cat "$T/skip.log"; }
finish

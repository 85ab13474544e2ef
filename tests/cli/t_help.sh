#!/usr/bin/env bash
# Everything bench says about its options comes from one table per command
# (core/parse_options.h): each command's --help and -h, a usage error of each
# (one format, exit 2), --color's rules in compare (NO_COLOR, TERM=dumb), the
# bash completion script, the man page and docs/cli.md (which must be what
# the binary prints: it cannot drift).
. "$(dirname "$0")/lib.sh"

commands="run list compare ab tune history report events rollup results help completion"

# --help and -h of every command: the synopsis, then the options, exit 0
for c in $commands; do
  args=("$c"); [ "$c" = run ] && args=()
  run_bench "${args[@]}" --help
  expect_rc 0 "$c --help"
  [ "$c" = run ] && first='^usage: bench \[' || first="^usage: bench $c"
  expect_in "$T/out" "$first" "$c --help synopsis"
  expect_in "$T/out" '^  -h, --help  +show this help$' "$c --help lists -h"
  cp "$T/out" "$T/long"
  run_bench "${args[@]}" -h
  expect_rc 0 "$c -h"
  cmp -s "$T/out" "$T/long" && ok || fail "$c -h differs from $c --help"
  run_bench help "${c}"
  cmp -s "$T/out" "$T/long" && ok || fail "bench help $c differs from $c --help"
  # one usage error format everywhere
  run_bench "${args[@]}" --no-such-option
  expect_rc 2 "$c --no-such-option"
  [ "$c" = run ] && see="bench" || see="bench $c"
  expect_in "$T/err" "^bench: error: unknown option '--no-such-option' \(see $see --help\)$" "$c: usage error"
  [ -s "$T/out" ] && fail "$c: a usage error printed to stdout" || ok
done

# the prose of the old help texts is kept
run_bench compare --help
expect_in "$T/out" '^Exit status: 0 no regression' "compare: exit status"
expect_in "$T/out" '^  --fail-on LIST  +what makes the exit status 1' "compare: --fail-on"
run_bench ab --help
expect_in "$T/out" '^Verdicts: SAME' "ab: verdicts"
run_bench tune --help
expect_in "$T/out" 'halving \(default\): race the candidates' "tune: strategies"

# shared options: one parser, one message, in every command that has them
for c in run compare; do
  args=("$c"); [ "$c" = run ] && args=()
  run_bench "${args[@]}" --color sometimes
  expect_rc 2 "$c --color sometimes"
  expect_in "$T/err" "--color must be auto, always or never, not 'sometimes'" "$c --color"
  run_bench "${args[@]}" --colour=sometimes
  expect_in "$T/err" "--color must be auto, always or never, not 'sometimes'" "$c --colour="
done
for c in compare ab; do
  run_bench "$c" x y --fail-on faster
  expect_rc 2 "$c --fail-on faster"
  expect_in "$T/err" "--fail-on takes slower, wrong, missing, noisy or none, not 'faster' \(see bench $c --help\)"
done
for c in compare ab history report; do
  run_bench "$c" --threshold 1.5
  expect_rc 2 "$c --threshold 1.5"
  expect_in "$T/err" "--threshold must be a fraction or percentage below 100%, not '1.5' \(see bench $c --help\)"
done
run_bench ab x y --min-pairs 1
expect_rc 2 "ab --min-pairs 1"; expect_in "$T/err" "--min-pairs must be a whole number from 2 to 1000000, not '1'"
run_bench tune --plugin x --random 0
expect_rc 2 "tune --random 0"; expect_in "$T/err" "--random must be a whole number >= 1, not '0'"
run_bench tune --plugin x --budget 0s
expect_rc 2 "tune --budget 0s"; expect_in "$T/err" "--budget must be a duration above 0"
run_bench tune --preset smoke
expect_rc 2 "tune without --plugin"; expect_in "$T/err" "bench tune needs --plugin P"
run_bench compare x y --format
expect_rc 2 "a value missing"; expect_in "$T/err" "option '--format' needs a value \(see bench compare --help\)"
run_bench --list=yes
expect_rc 2 "a flag with a value"; expect_in "$T/err" "option '--list' takes no value"
run_bench --re x
expect_rc 2 "an ambiguous prefix"; expect_in "$T/err" "ambiguous option '--re'"

# --color auto in compare follows core/term.c: colour only on a terminal,
# and not with NO_COLOR set non-empty or TERM=dumb (script(1) gives a tty)
# two runs of different cases: MISSING and NEW, verdicts that are coloured
for n in 8 16; do
  "$BENCH" --preset "$SRC/tests/cli/presets/fast.ini" --plugin-dir "$FX_GOOD" --plugin fx_ok --param n=$n \
    --results-dir "$T/r$n" >/dev/null 2>&1
done
old=$(ls "$T"/r8/*.json | head -1)
new=$(ls "$T"/r16/*.json | head -1)
ESC=$'\033'
if command -v script >/dev/null; then
  tty_compare() { TERM=${1} NO_COLOR=${2} script -qec "'$BENCH' compare '$old' '$new' --fail-on none" /dev/null >"$T/tty" 2>&1 </dev/null; }
  tty_compare xterm ""
  expect_in "$T/tty" "$ESC\[" "compare on a terminal, NO_COLOR empty: colour (no-color.org: empty is unset)"
  tty_compare xterm 1
  expect_not_in "$T/tty" "$ESC\[" "NO_COLOR=1: no colour"
  tty_compare dumb ""
  expect_not_in "$T/tty" "$ESC\[" "TERM=dumb: no colour"
else
  echo "note: no script(1); the terminal cases are not checked"
fi
NO_COLOR=1 run_bench compare "$old" "$new" --fail-on none --color always
expect_in "$T/out" "$ESC\[" "--color always wins over NO_COLOR"
run_bench compare "$old" "$new" --fail-on none
expect_not_in "$T/out" "$ESC" "not a terminal: no colour"

# bash completion: valid bash, and it completes a command, an option and a value
run_bench completion bash
expect_rc 0 "completion bash"
cp "$T/out" "$T/completion.bash"
bash -n "$T/completion.bash" && ok || fail "the completion script is not valid bash"
complete_words() { # WORDS...: what _bench offers for the last word
  bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _bench; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$T/completion.bash" "$@"
}
expect_eq "$(complete_words bench comp | tr '\n' ' ')" "compare completion " "completes a command"
expect_eq "$(complete_words bench compare --thr | tr '\n' ' ')" "--threshold " "completes an option"
expect_eq "$(complete_words bench compare a b --format c | tr '\n' ' ')" "csv " "completes an enum value"
expect_eq "$(complete_words bench --iso | tr '\n' ' ')" "--isolation " "completes a run option"
expect_eq "$(complete_words bench tune --strategy '' | tr '\n' ' ')" "grid random halving " "tune's strategies"
run_bench completion zsh
expect_rc 2 "completion zsh"
[ ! -f "$BUILD/share/bash-completion/completions/bench" ] && fail "the build wrote no completion file" ||
  { cmp -s "$BUILD/share/bash-completion/completions/bench" "$T/completion.bash" && ok || fail "the built completion file is stale"; }

# the man page: roff with every command; the build wrote the same
run_bench help --man
expect_rc 0 "help --man"
expect_in "$T/out" '^\.TH BENCH 1 ' "man: .TH"
for s in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS 'SEE ALSO'; do expect_in "$T/out" "^\.SH \"?$s\"?\$" "man: .SH $s"; done
for c in list compare ab tune history report events rollup results help completion; do
  expect_in "$T/out" "^\.SH \"bench $c\"\$" "man: a section for $c"
done
expect_in "$T/out" '^\.B \\-\\-fail\\-on LIST$' "man: --fail-on"
expect_not_in "$T/out" '^[^.\\].*[^\\]\\[^-e&"(]' "man: no stray escapes"
cmp -s "$BUILD/share/man/man1/bench.1" "$T/out" && ok || fail "build/share/man/man1/bench.1 is stale or missing"

# docs/cli.md is what bench prints (regenerate: bench help --markdown >docs/cli.md)
run_bench help --markdown
expect_rc 0 "help --markdown"
if diff -u "$SRC/docs/cli.md" "$T/out" >"$T/md.diff"; then ok; else
  fail "docs/cli.md differs from 'bench help --markdown' (regenerate it)"; head -40 "$T/md.diff"
fi
for c in compare ab tune history report events rollup results; do expect_in "$T/out" "^## bench $c\$" "cli.md: $c"; done
run_bench help --man --markdown
expect_rc 2 "help --man --markdown"
run_bench help nosuch
expect_rc 2 "help of no command"
finish

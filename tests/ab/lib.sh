# shellcheck shell=bash
# Helpers of the bench ab tests: BENCH (the binary), AB (the folder of the
# spin plugin's builds: base, same, slow, wrong, crash, extra), SRC.
set -u
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-ab.XXXXXX")
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME="$T/xdg-cache"
# shellcheck source=tests/checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/../checks.sh"
PRESET=$(dirname "${BASH_SOURCE[0]}")/ab.ini
cd "$T" || exit 1

# ab ARGS...: bench ab with the test preset; stdout in $T/out, stderr in
# $T/err, the exit status in RC.
ab() {
  "$BENCH" ab --preset "$PRESET" --results-dir "$T/results" "$@" >"$T/out" 2>"$T/err"
  RC=$?
}
expect_rc() {
  if [ "$RC" -eq "$1" ]; then ok; else
    fail "${2:-exit status}: expected $1, got $RC"; echo "--- stdout"; cat "$T/out"; echo "--- stderr"; cat "$T/err"
  fi
}
expect_in() {
  if grep -Eq -- "$2" "$1"; then ok; else fail "${3:-$1} lacks /$2/"; echo "--- $1:"; head -c 3000 "$1"; echo; fi
}
expect_not_in() {
  if grep -Eq -- "$2" "$1"; then fail "${3:-$1} has /$2/"; grep -E -- "$2" "$1" | head -5; else ok; fi
}
# json_case FILE EXPR: python expression over c (the first case of FILE).
json_case() {
  python3 - "$1" "$2" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["cases"][0]
print(eval(sys.argv[2]))
PY
}
# ab_agrees FILE: every case line of bench ab's text output shows one ratio
# (new / old of its levels is its new/old, within the rounding of the
# times), and a plugin's closing line with one timed case says what its
# verdict says (FASTER / SLOWER "NEW is X% ...", SAME "the same as OLD
# within", NOISY "not decided"). Prints what disagrees; exit 0 when nothing.
ab_agrees() {
  python3 - "$1" <<'PY'
import re, sys
unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
bad, verdicts = [], {}
for line in open(sys.argv[1]):
    m = re.match(r"\[\d+/\d+\] (\S+) \S+: old ([0-9.]+) (ns|us|ms|s), new ([0-9.]+) (ns|us|ms|s), "
                 r"new/old ([0-9.]+) \[.*?\](?: \(9[0-9.]+%\))?  ([A-Z_]+)  ", line)
    if m:
        o, n = float(m.group(2)) * unit[m.group(3)], float(m.group(4)) * unit[m.group(5)]
        r = float(m.group(6))
        if abs(n / o - r) > 0.01 * r:
            bad.append("ratio %.4f, levels %.4f: %s" % (r, n / o, line.strip()))
        verdicts.setdefault(m.group(1), []).append(m.group(7))
        continue
    m = re.match(r"(\S+): (.*): ((\d+) [A-Z_]+.*)$", line.strip())
    if m and len(verdicts.get(m.group(1), [])) == 1:
        v, words = verdicts[m.group(1)][0], m.group(2)
        want = {"FASTER": "NEW is [0-9.]+% faster than OLD, 9[59][0-9.]*% CI",
                "SLOWER": "NEW is [0-9.]+% slower than OLD, 9[59][0-9.]*% CI",
                "SAME": "NEW is the same as OLD within [0-9.]+%, 9[59][0-9.]*% CI from",
                "NOISY": "not decided: "}[v]
        if not re.match(want, words):
            bad.append("%s, words '%s'" % (v, words))
if not any(verdicts.values()):
    bad.append("no case line")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
}

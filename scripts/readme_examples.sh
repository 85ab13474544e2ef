#!/usr/bin/env bash
# The README's example outputs, from real runs, so that they cannot drift
# from the program. Each example sits between marker comments:
#
#   <!-- readme_examples:begin NAME -->
#   ```
#   $ bench ...
#   (output)
#   ```
#   <!-- readme_examples:end -->
#
# Usage: scripts/readme_examples.sh [--check] [--only NAME]... [--bench PATH] [--readme FILE]
#   (default) run every example and rewrite its block in the README
#   --check   run them and compare instead; exit 1 (with a diff) where the
#             README differs. Measured numbers change from run to run, so the
#             comparison masks them (every number reads as N, a time's unit
#             as T, a noise figure +-x% is left out, runs of spaces as one):
#             what it catches is a changed line, column, word or case.
# bench defaults to build/bin/bench; runs happen in a temporary folder with
# its own scan cache, so the README shows "results in results".
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
readme=$here/README.md
bench=${BENCH:-$here/build/bin/bench}
check=0
only=()
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=1 ;;
    --only) only+=("$2"); shift ;;
    --bench) bench=$2; shift ;;
    --readme) readme=$2; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "readme_examples.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
[ -x "$bench" ] || { echo "readme_examples.sh: no bench at $bench (build first, or --bench PATH)" >&2; exit 2; }

# NAME|command after "bench"|which lines to keep (a Python regex; the other
# lines become one "..." where they were left out). The summary's count of
# unsettled cases depends on how busy the machine was: never shown.
drop='did not reach the noise target'
examples=(
  "smoke_gemm|--preset smoke --plugin cpu_gemm|^bench |^\[ ?(1|4)/|^bench: "
  "one_case|--preset smoke --plugin cpu_gemm --param m=512 --param n=512 --param k=512 --param dtype=f32|."
)

work=$(mktemp -d "${TMPDIR:-/tmp}/readme-examples.XXXXXX")
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/cache
status=0
for ex in "${examples[@]}"; do
  name=${ex%%|*}; rest=${ex#*|}; args=${rest%%|*}; keep=${rest#*|}
  if [ ${#only[@]} -gt 0 ] && ! printf '%s\n' "${only[@]}" | grep -qx "$name"; then continue; fi
  mkdir -p "$work/$name"
  # shellcheck disable=SC2086
  (cd "$work/$name" && NO_COLOR=1 "$bench" $args >out 2>err) || true
  python3 - "$readme" "$name" "bench $args" "$keep" "$work/$name/out" "$check" "$drop" <<'PY' || status=1
import re, sys, difflib
readme, name, cmd, keep, out, check, drop = sys.argv[1:8]
lines = [l for l in open(out).read().splitlines() if not re.search(drop, l)]
kept, skipped = [], False
for ln in lines:
    if re.search(keep, ln):
        kept.append(ln)
        skipped = False
    elif not skipped:
        kept.append("...")
        skipped = True
block = "```\n$ " + cmd + "\n" + "\n".join(kept) + "\n```\n"
text = open(readme).read()
pat = re.compile(r"(<!-- readme_examples:begin %s -->\n)(.*?)(<!-- readme_examples:end -->)" % re.escape(name), re.S)
m = pat.search(text)
if not m:
    sys.exit("readme_examples.sh: %s has no block for '%s'" % (readme, name))
def mask(s):
    s = re.sub(r"\d+(\.\d+)?(e[+-]?\d+)?", "N", s)
    s = re.sub(r"N (ns|us|ms|s)\b", "N T", s)  # a time may change unit between runs
    # a case of fewer samples than the interval needs (a slow machine, a
    # sanitizer build) shows no noise figure: the figure is not the format
    s = re.sub(r" \+-N%", "", s)
    # whether a case settled depends on the machine's load, not the program
    return [re.sub(r" +", " ", l).rstrip() for l in s.splitlines() if "did not reach the noise target" not in l]
if check == "1":
    a, b = mask(m.group(2)), mask(block)
    if a != b:
        sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(a, b, "README (%s)" % name, "bench now", lineterm=""))
        sys.exit(1)
    print("readme_examples.sh: %s matches" % name)
else:
    text = text[:m.start(2)] + block + text[m.end(2):]
    open(readme, "w").write(text)
    print("readme_examples.sh: %s written" % name)
PY
done
exit $status

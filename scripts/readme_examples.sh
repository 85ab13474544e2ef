#!/usr/bin/env bash
# The example outputs and code of README.md and docs/*.md, from real runs
# and real files, so that they cannot drift from the program. An example
# output sits between marker comments:
#
#   <!-- readme_examples:begin NAME -->
#   ```
#   $ bench ...
#   (output)
#   ```
#   <!-- readme_examples:end -->
#
# and a code block taken from a source file between
#
#   <!-- readme_examples:file PATH -->     (PATH relative to the repository)
#   ```c                                   (or ~~~c ... ~~~)
#   (the file's lines, in order; a line that is only "..." stands for lines
#   left out)
#   ```
#   <!-- readme_examples:end -->
#
# Usage: scripts/readme_examples.sh [--check] [--only NAME]... [--bench PATH] [--readme FILE]
#   (default) run every example and rewrite its block; a file block without
#             "..." is rewritten from its file, one with "..." is checked
#   --check   run them and compare instead; exit 1 (with a diff) where a page
#             differs. Measured numbers change from run to run, so the
#             comparison masks them (every number reads as N, a time's unit
#             as T, a noise figure +-x% is left out, runs of spaces as one):
#             what it catches is a changed line, column, word or case.
#   --only    only these examples (a file block's name is file:PATH; a glob
#             such as 'file:*' selects several)
#   --readme  only this page (default: README.md and docs/*.md)
# bench defaults to build/bin/bench; runs happen in a temporary folder with
# its own scan cache, so the pages show "results in results". A word of an
# example's command that starts with build/ names the build folder of that
# bench (the folder above its bin/), and is shown as build/ in the output.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
pages=()
bench=${BENCH:-$here/build/bin/bench}
check=0
only=()
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=1 ;;
    --only) only+=("$2"); shift ;;
    --bench) bench=$2; shift ;;
    --readme) pages+=("$2"); shift ;;
    -h|--help) sed -n '2,35p' "$0"; exit 0 ;;
    *) echo "readme_examples.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
[ ${#pages[@]} -gt 0 ] || pages=("$here/README.md" "$here"/docs/*.md)
[ -x "$bench" ] || { echo "readme_examples.sh: no bench at $bench (build first, or --bench PATH)" >&2; exit 2; }
bench=$(cd "$(dirname "$bench")" && pwd)/$(basename "$bench")
build=$(dirname "$(dirname "$bench")")

# NAME|command after "bench"|which lines to keep (a Python regex; the other
# lines become one "..." where they were left out). The summary's count of
# unsettled cases, the cases it names (NOISY, unsettled) and its warning of
# a busy machine depend on how busy the machine was: never shown.
drop='did not reach the noise target|^  (NOISY|unsettled) |noisy cases? \(|machine was busy'
examples=(
  "smoke_gemm|--preset smoke --plugin cpu_gemm|^bench |, every case: |^\[ ?(1|4)/|^bench: "
  "one_case|--preset smoke --plugin cpu_gemm --param m=512 --param n=512 --param k=512 --param dtype=f32|."
  "ab_slower|ab build/tests/ab/builds/base build/tests/ab/builds/slow --plugin ab_spin|."
)

selected() {
  [ ${#only[@]} -eq 0 ] && return 0
  local o
  for o in "${only[@]}"; do
    # shellcheck disable=SC2053
    [[ $1 == $o ]] && return 0
  done
  return 1
}

work=$(mktemp -d "${TMPDIR:-/tmp}/readme-examples.XXXXXX")
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/cache
status=0

# ---- example outputs: run each whose block is on one of the pages
for ex in "${examples[@]}"; do
  name=${ex%%|*}; rest=${ex#*|}; args=${rest%%|*}; keep=${rest#*|}
  selected "$name" || continue
  page=$(grep -lF "<!-- readme_examples:begin $name -->" "${pages[@]}" | head -1 || true)
  if [ -z "$page" ]; then
    # a page given with --readme need not hold every example
    [ ${#only[@]} -gt 0 ] && { echo "readme_examples.sh: no page holds '$name'" >&2; status=1; }
    continue
  fi
  mkdir -p "$work/$name"
  run_args=()
  for a in $args; do
    case "$a" in build/*) run_args+=("$build/${a#build/}") ;; *) run_args+=("$a") ;; esac
  done
  (cd "$work/$name" && NO_COLOR=1 env -u COLUMNS "$bench" "${run_args[@]}" >out 2>err) || true
  python3 - "$page" "$name" "bench $args" "$keep" "$work/$name/out" "$check" "$drop" "$build/" <<'PY' || status=1
import re, sys, difflib
page, name, cmd, keep, out, check, drop, build = sys.argv[1:9]
text_out = open(out).read().replace(build, "build/")
lines = [l for l in text_out.splitlines() if not re.search(drop, l)]
kept, skipped = [], False
for ln in lines:
    if re.search(keep, ln):
        kept.append(ln)
        skipped = False
    elif not skipped:
        kept.append("...")
        skipped = True
block = "```\n$ " + cmd + "\n" + "\n".join(kept) + "\n```\n"
text = open(page).read()
pat = re.compile(r"(<!-- readme_examples:begin %s -->\n)(.*?)(<!-- readme_examples:end -->)" % re.escape(name), re.S)
m = pat.search(text)
if not m:
    sys.exit("readme_examples.sh: %s has no block for '%s'" % (page, name))
def mask(s):
    s = re.sub(r"\d+(\.\d+)?(e[+-]?\d+)?", "N", s)
    s = re.sub(r"N (ns|us|ms|s)\b", "N T", s)  # a time may change unit between runs
    # a case of fewer samples than the interval needs (a slow machine, a
    # sanitizer build) shows no noise figure: the figure is not the format
    s = re.sub(r" \+-N%", "", s)
    # whether a case settled depends on the machine's load, not the program
    return [re.sub(r" +", " ", l).rstrip() for l in s.splitlines() if not re.search(drop, l)]
if check == "1":
    a, b = mask(m.group(2)), mask(block)
    if a != b:
        sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(a, b, "%s (%s)" % (page, name), "bench now", lineterm=""))
        sys.exit(1)
    print("readme_examples.sh: %s matches" % name)
else:
    text = text[:m.start(2)] + block + text[m.end(2):]
    open(page, "w").write(text)
    print("readme_examples.sh: %s written" % name)
PY
done

# ---- code blocks taken from files
python3 - "$here" "$check" "${only[@]+"${only[@]}"}" -- "${pages[@]}" <<'PY' || status=1
import fnmatch, re, sys
here, check = sys.argv[1], sys.argv[2]
sep = sys.argv.index("--")
only, pages = sys.argv[3:sep], sys.argv[sep + 1:]
pat = re.compile(r"(<!-- readme_examples:file (\S+) -->\n(```|~~~)\w*\n)(.*?)(\3\n<!-- readme_examples:end -->)", re.S)

def matches(block, src, pos, gap):
    """block[0:] matches src from pos on; gap: any number (>= 1) of lines
    may be left out first."""
    while block and block[0].strip() == "...":
        block, gap = block[1:], True
    if not block:
        return True
    starts = range(pos + 1, len(src)) if gap else [pos]
    return any(i < len(src) and src[i] == block[0] and matches(block[1:], src, i + 1, False)
               for i in starts)

def excerpt_ok(block, src):
    """Every line of block is a line of src, in order and consecutive, except
    that a line that is only '...' stands for one or more lines left out; the
    excerpt may start anywhere in the file."""
    if any(matches(block, src, i, False) for i in range(len(src))):
        return None
    for n in range(len(block), 0, -1):  # name the first line that does not fit
        if any(matches(block[:n], src, i, False) for i in range(len(src))):
            return "from '%s' on, the page is not the file" % block[n].strip() if n < len(block) else "no match"
    return "'%s' is not in the file" % block[0].strip()

bad = 0
for page in pages:
    text = open(page).read()
    changed = False
    for m in list(pat.finditer(text)):
        path = m.group(2)
        name = "file:" + path
        if only and not any(fnmatch.fnmatchcase(name, o) for o in only):
            continue
        try:
            src_text = open(here + "/" + path).read()
        except OSError as e:
            print("readme_examples.sh: %s: %s: %s" % (page, name, e))
            bad = 1
            continue
        block = m.group(4).splitlines()
        elided = any(l.strip() == "..." for l in block)
        if elided:
            err = excerpt_ok(block, src_text.splitlines())
            if err:
                print("readme_examples.sh: %s: %s differs from the file: %s" % (page, name, err))
                bad = 1
            else:
                print("readme_examples.sh: %s matches" % name)
        elif check == "1":
            if m.group(4) != src_text:
                print("readme_examples.sh: %s: %s differs from the file (rewrite it with scripts/readme_examples.sh)" % (page, name))
                bad = 1
            else:
                print("readme_examples.sh: %s matches" % name)
        elif m.group(4) != src_text:
            text = text.replace(m.group(0), m.group(1) + src_text + m.group(5), 1)
            changed = True
            print("readme_examples.sh: %s written" % name)
    if changed:
        open(page, "w").write(text)
sys.exit(bad)
PY
exit $status

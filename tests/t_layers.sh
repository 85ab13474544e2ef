#!/usr/bin/env bash
# The harness's layering, as harness/CMakeLists.txt lists it (lowest first):
# machine, core, backend, check, preset, cases, plugin, plan, results,
# analyze, serve, run, cli. A file includes harness headers by folder
# ("core/util.h"), of its own folder or of one below it, never of one above:
# no arrow runs back up.
set -u
. "$(dirname "$0")/checks.sh"
cd "$SRC/harness/src" || exit 1
layers=(machine core backend check preset cases plugin plan results analyze serve run cli)
rank() { local i; for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }; done; echo -1; }

dirs=(*/)
expect_nonempty "harness folders" "${dirs[@]}"
for d in "${dirs[@]}"; do
  d=${d%/}
  if [ "$(rank "$d")" -ge 0 ]; then ok; else fail "harness/src/$d is no layer of this test (add it to layers, in order)"; fi
done
files=(*/*.c */*.h)
expect_nonempty "harness files" "${files[@]}"
for f in "${files[@]}"; do
  own=$(rank "${f%%/*}")
  while IFS= read -r inc; do
    case $inc in
      bench/*) ok ;;
      */*)
        r=$(rank "${inc%%/*}")
        if [ "$r" -lt 0 ]; then fail "$f includes \"$inc\": no such layer"
        elif [ "$r" -gt "$own" ]; then fail "$f includes \"$inc\": ${inc%%/*} is above ${f%%/*}"
        else ok; fi ;;
      *)
        # machine/ is a library of its own (plugins include it by bare name).
        if [ "${f%%/*}" = machine ] && [ -f "machine/$inc" ]; then ok
        elif [ -f "${f%/*}/$inc" ] || [ -f "$inc" ]; then fail "$f includes \"$inc\" without its folder"
        else ok; fi ;;
    esac
  done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done
finish

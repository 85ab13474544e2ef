#!/bin/bash
# How long does `bench compare` take on two folders of 2,000 cases each?
# Writes planted result files (20 plugins x 100 cases, SAMPLES samples per
# case, a few percent of cases shifted) with tests/compare's gen_results and
# times the compare in each output format.
#   studies/compare_timing.sh [BUILD_DIR] [SAMPLES]   (default build, 100)
. "$(dirname "$0")/../scripts/lib/machine.sh"
set -eu
BUILD=${1:-build}
SAMPLES=${2:-100}
BENCH=$BUILD/bin/bench
GEN=$(find "$BUILD" -name gen_results -type f -perm -u+x | head -1)
[ -x "$BENCH" ] && [ -n "$GEN" ] || { echo "build bench and gen_results first" >&2; exit 2; }
D=$(mktemp -d "${TMPDIR:-/tmp}/compare-timing.XXXXXX")
trap 'rm -rf "$D"' EXIT
spec() { # spec DATE SHIFT_EVERY
  for p in $(seq -w 1 20); do
    echo "run $1 plugin$p"
    for c in $(seq 1 100); do
      m=$((1000 + 37 * c))
      [ "$2" -gt 0 ] && [ $((c % $2)) -eq 0 ] && m=$((m * 11 / 10))
      echo "case n=$c,dtype=f32 OK $m 0.03 $SAMPLES"
    done
  done
}
spec 2026-11-20 0 | "$GEN" "$D/old" 1
spec 2026-11-21 17 | "$GEN" "$D/new" 2
echo "2 x $(ls "$D"/old/*.json | wc -l) result files (2,000 cases each), $SAMPLES samples per case, $(du -sh "$D/old" | cut -f1) per folder"
echo "cpu: $(machine_cpu_model)"
echo "load: $(uptime)"
for fmt in table csv json; do
  for rep in 1 2 3; do
    /usr/bin/time -f "compare --format $fmt: %e s wall, %U s user, %M KiB max RSS" \
      "$BENCH" compare "$D/old" "$D/new" --format "$fmt" --color never >"$D/out.$fmt" 2>"$D/time" || true
    tail -1 "$D/time"
  done
done
grep -E '^[0-9]+ cases' "$D/out.table"

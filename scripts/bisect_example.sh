#!/bin/bash
# git bisect run helper: build the plugins of the commit checked out, then
# measure them against a known-good build with bench ab in one interleaved
# run. Exit 0 (good: not slower), 1 (bad: SLOWER, or a wrong answer), 125
# (skip: this commit does not build, or bench could not decide anything).
#
#   cmake -S . -B /tmp/good && cmake --build /tmp/good -j     # at the good commit
#   git bisect start BAD GOOD
#   git bisect run scripts/bisect_example.sh /tmp/good/lib/bench/plugins \
#       --preset standard --plugin cpu_gemm --threshold 2%
#
# Arguments: GOOD_PLUGINS (a plugin folder or .so built at a good commit),
# then options for bench ab. Environment:
#   BENCH               the bench binary (default: the good build's bin/bench
#                       when GOOD_PLUGINS is <build>/lib/bench/plugins, else
#                       bench on PATH); keep it fixed across the bisection
#   BISECT_BUILD        the command that builds this commit's plugins into
#                       $BISECT_OUT (default: a CMake build of the tree in
#                       $BISECT_WORK/build, plugins from its lib/bench/plugins)
#   BISECT_WORK         scratch folder (default: a temporary one, removed)
set -u
if [ $# -lt 1 ]; then
  echo "usage: $0 GOOD_PLUGINS [bench ab options...]" >&2
  exit 128 # abort the bisection
fi
good=$1
shift
if [ ! -e "$good" ]; then
  echo "$0: GOOD_PLUGINS '$good' does not exist" >&2
  exit 128
fi
if [ -z "${BENCH:-}" ]; then
  if [ -x "$good/../../../bin/bench" ]; then BENCH=$good/../../../bin/bench; else BENCH=bench; fi
fi
own_work=0
if [ -z "${BISECT_WORK:-}" ]; then
  BISECT_WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-bisect.XXXXXX")
  own_work=1
fi
cleanup() { [ "$own_work" = 1 ] && rm -rf "$BISECT_WORK"; }
trap cleanup EXIT
export BISECT_OUT=$BISECT_WORK/plugins
rm -rf "$BISECT_OUT"
mkdir -p "$BISECT_OUT"
rev=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
if [ -n "${BISECT_BUILD:-}" ]; then
  build() { bash -c "$BISECT_BUILD"; }
else
  build() {
    cmake -S . -B "$BISECT_WORK/build" -DBENCH_HIP=OFF >/dev/null &&
      cmake --build "$BISECT_WORK/build" -j "$(nproc)" >/dev/null &&
      cp "$BISECT_WORK/build"/lib/bench/plugins/*.so "$BISECT_OUT"/
  }
fi
if ! build >"$BISECT_WORK/build.log" 2>&1; then
  echo "bisect: $rev does not build: skipped (exit 125)"
  tail -5 "$BISECT_WORK/build.log"
  exit 125
fi
"$BENCH" ab "$good" "$BISECT_OUT" --fail-on slower,wrong --results-dir "$BISECT_WORK/results" "$@"
rc=$?
case $rc in
  0) echo "bisect: $rev is good"; exit 0 ;;
  1) echo "bisect: $rev is bad"; exit 1 ;;
  *) echo "bisect: bench ab ended with status $rc at $rev: skipped"; exit 125 ;;
esac

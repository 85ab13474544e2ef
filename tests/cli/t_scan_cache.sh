#!/usr/bin/env bash
# The scan cache: what discovery learned of each plugin file is kept under
# $XDG_CACHE_HOME/bench keyed by the file's identity; a warm run loads only
# the plugins it runs (and never in bench's own process), a changed file is
# scanned again, a bad cache is rebuilt silently, --rescan and
# BENCH_NO_SCAN_CACHE=1 bypass it, and no usable cache folder means no cache.
. "$(dirname "$0")/lib.sh"
command -v cc >/dev/null || skip "no C compiler"
PRESET="$SRC/tests/cli/presets/fast.ini"
P="$T/plugins"
mkdir -p "$P"
CACHE="$XDG_CACHE_HOME/bench/scan-v1.cache"

# A plugin whose constructor appends "PID NAME" to $SCAN_MARKER: every
# process that loads it leaves a line.
cat >"$T/sc.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "bench/plugin.h"
__attribute__((constructor)) static void mark(void) {
  const char *m = getenv("SCAN_MARKER");
  FILE *f = m ? fopen(m, "a") : NULL;
  if (f) {
    fprintf(f, "%ld %s\n", (long)getpid(), NAME);
    fclose(f);
  }
}
#ifndef NOSYM
static int setup(const struct bench_host *h, void *ctx, void **state) {
  (void)ctx;
  *state = NULL;
  const char *from = getenv("SC_REPLACE_FROM"), *to = getenv("SC_REPLACE_TO");
  if (from && to) rename(from, to); /* another plugin's file, replaced mid-run */
  return h->param_int(h, "n") > 0 ? BENCH_OK : h->fail(h, "n must be positive");
}
static int run(const struct bench_host *h, void *state) {
  (void)h;
  (void)state;
  return BENCH_OK;
}
static const struct bench_param params[] = {
    {"n", BENCH_PARAM_INT, "size", NULL, 1, 64, 0, {"8", "8", "8", "8"}},
#ifdef EXTRA
    {"extra", BENCH_PARAM_STRING, "a new axis", "x,y", 0, 0, 0, {"x", "x", "x", "x"}},
#endif
    {NULL, 0, NULL, NULL, 0, 0, 0, {NULL, NULL, NULL, NULL}}};
BENCH_PLUGIN_DEFINE = {.abi_version = BENCH_ABI_VERSION, .name = NAME, .backend = "cpu",
                       .operation = "none", .description = DESC, .params = params,
                       .setup = setup, .run = run, BENCH_PLUGIN_SIZES};
#endif
EOF
build() { # OUT NAME [cc flags...]
  local out=$1 name=$2
  shift 2
  cc -std=c11 -shared -fPIC -I"$SRC/harness/include" -DNAME="\"$name\"" -DDESC="\"plugin $name\"" \
    "$@" "$T/sc.c" -o "$out" 2>"$T/cc.err" || { cat "$T/cc.err"; fail "cc $name"; }
}
build "$P/sc_a.so" sc_a
build "$P/sc_b.so" sc_b
build "$P/sc_nosym.so" sc_nosym -DNOSYM

export SCAN_MARKER="$T/marker"
# bench BG ARGS: run bench, PID its process id (the parent: it must never
# load a plugin).
bench_pid() {
  "$BENCH" "$@" >"$T/out" 2>"$T/err" &
  PID=$!
  wait "$PID"
  RC=$?
}
# loaded NAME: how many processes loaded plugin NAME since the marker was reset.
loaded() { if [ -f "$SCAN_MARKER" ]; then grep -c " $1\$" "$SCAN_MARKER"; else echo 0; fi; }
not_in_parent() {
  if grep -q "^$PID " "$SCAN_MARKER" 2>/dev/null; then fail "$1: bench's own process loaded a plugin"; cat "$SCAN_MARKER"; else ok; fi
}
cache_ok() { # the cache file is whole: a header, records, the end line
  if [ -f "$CACHE" ] && head -1 "$CACHE" | grep -q '^bench-scan-cache' && tail -1 "$CACHE" | grep -q '^end	'; then ok
  else fail "$1: cache file missing or not whole"; fi
}

# ---- cold: scanned in children only, the cache is written -----------------
rm -f "$SCAN_MARKER"
bench_pid --list --format tsv --plugin-dir "$P"
expect_rc 0 "cold --list"
expect_in "$T/out" '^sc_a	cpu	none	n$'
expect_in "$T/err" 'plugin .*/sc_nosym\.so: missing entry symbol'
not_in_parent "cold --list"
expect_eq "$(loaded sc_b)" 1 "cold: sc_b scanned once"
cache_ok "cold"
expect_in "$CACHE" 'sc_nosym\.so.*	broken	' "cache (the broken file is remembered)"

# ---- warm: nothing is loaded to list, only the selected one to run ------------
rm -f "$SCAN_MARKER"
bench_pid --list --format tsv --plugin-dir "$P"
expect_eq "$(cat "$SCAN_MARKER" 2>/dev/null | wc -l)" 0 "warm --format tsv loads nothing"
expect_in "$T/err" 'plugin .*/sc_nosym\.so: missing entry symbol' "warm: the broken file still warned"
rm -f "$SCAN_MARKER"
bench_pid --preset "$PRESET" --plugin-dir "$P" --plugin sc_a --results-dir "$T/r"
expect_rc 0 "warm run of sc_a"
expect_in "$T/out" 'sc_a n=8  *OK'
expect_eq "$(loaded sc_b)" 0 "warm run: unselected sc_b never loaded"
expect_eq "$(loaded sc_nosym)" 0 "warm run: the broken file not probed again"
expect_nonempty "sc_a loads" $(loaded sc_a | grep -v '^0$')
not_in_parent "warm run"
# The result header's SHA-256 is the real file's.
json=$(ls "$T"/r/*sc_a*.json 2>/dev/null | head -1)
expect_nonempty "result file" $json
sha=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["plugin"]["sha256"])' "$json" 2>/dev/null)
expect_eq "$sha" "$(sha256sum "$P/sc_a.so" | cut -d' ' -f1)" "plugin sha256 in the result"

# --list states runnability; the verdict is kept (warm --list runs no init).
rm -f "$SCAN_MARKER"
run_bench --list --plugin-dir "$P"
expect_in "$T/out" '^sc_a +cpu +runnable'
run_bench --list --plugin-dir "$P"
expect_in "$T/out" '^sc_b +cpu +runnable' "warm --list"
expect_eq "$(loaded sc_b)" 1 "second --list: no probe (verdict cached)"
rm -f "$SCAN_MARKER"
run_bench --list --plugin-dir "$P" --rescan
expect_eq "$(loaded sc_b)" 2 "--list --rescan: scanned and probed again"

# ---- stale entries: a file changed in place, replaced, touched --------------
build "$T/sc_b_new.so" sc_b -DEXTRA
cp "$T/sc_b_new.so" "$P/sc_b.so"        # same inode, new size and mtime
rm -f "$SCAN_MARKER"
run_bench --list --format tsv --plugin-dir "$P"
expect_in "$T/out" '^sc_b	cpu	none	n,extra$' "rewritten in place: new params"
expect_eq "$(loaded sc_b)" 1 "rewritten: scanned again"
expect_eq "$(loaded sc_a)" 0 "rewritten: sc_a not scanned"
touch -d '2001-02-03 04:05:06' "$P/sc_a.so"   # same file, new mtime
rm -f "$SCAN_MARKER"
run_bench --list --format tsv --plugin-dir "$P"
expect_eq "$(loaded sc_a)" 1 "touched: scanned again"
# A new file (new inode) with the old one's size and mtime: scanned again.
cp "$P/sc_b.so" "$T/keep_b.so"
build "$T/new_b.so" sc_b                 # without EXTRA: smaller; padded to the same size
truncate -s "$(stat -c %s "$P/sc_b.so")" "$T/new_b.so"
touch -r "$P/sc_b.so" "$T/new_b.so"
expect_eq "$(stat -c %s.%Y "$T/new_b.so")" "$(stat -c %s.%Y "$P/sc_b.so")" "same size and mtime"
mv "$T/new_b.so" "$P/sc_b.so"
rm -f "$SCAN_MARKER"
run_bench --list --format tsv --plugin-dir "$P"
expect_eq "$(loaded sc_b)" 1 "replaced (new inode, same size and mtime): scanned again"
expect_in "$T/out" '^sc_b	cpu	none	n$' "replaced: its own params"
cp "$T/keep_b.so" "$P/sc_b.so"

# A plugin replaced after discovery but before its worker loads it: its
# cases are ERROR with a line saying so, not run from the new file.
build "$T/sc_b_next.so" sc_b
SC_REPLACE_FROM="$T/sc_b_next.so" SC_REPLACE_TO="$P/sc_b.so" \
  run_bench --preset "$PRESET" --plugin-dir "$P" --plugin sc_a,sc_b --results-dir "$T/rr"
expect_rc 1 "plugin replaced mid-run"
expect_in "$T/out" 'sc_a n=8  *OK'
expect_in "$T/out" 'sc_b n=8 extra=x  *ERROR .*sc_b\.so changed since it was scanned'
cp "$T/keep_b.so" "$P/sc_b.so"

# A same-size build copied over a plugin (same inode) with its mtime set
# back (cp, then touch -d; cp -p likewise): the ctime changed, so it is
# scanned again, and its own description and SHA-256 are the ones used
# (issue 40, finding 8).
build "$P/sc_c.so" sc_c
build "$T/sc_c2.so" sc_c -DDESC='"plugin sc_c SECOND"'
size=$(( $(stat -c %s "$P/sc_c.so") + $(stat -c %s "$T/sc_c2.so") ))
truncate -s "$size" "$P/sc_c.so"
truncate -s "$size" "$T/sc_c2.so"
run_bench --list -v --plugin-dir "$P" --plugin sc_c
expect_in "$T/out" 'plugin sc_c$' "sc_c: its first description"
ino=$(stat -c %i "$P/sc_c.so")
mtime=$(stat -c %y "$P/sc_c.so")
cp "$T/sc_c2.so" "$P/sc_c.so"
touch -d "$mtime" "$P/sc_c.so"
expect_eq "$(stat -c %i.%s.%y "$P/sc_c.so")" "$ino.$size.$mtime" "same inode, size and mtime"
rm -f "$SCAN_MARKER"
run_bench --list -v --plugin-dir "$P" --plugin sc_c
expect_nonempty "copied over with its mtime restored: scanned again" $(loaded sc_c | grep -v '^0$')
expect_in "$T/out" 'plugin sc_c SECOND' "copied over: its own description"
run_bench --preset "$PRESET" --plugin-dir "$P" --plugin sc_c --results-dir "$T/rc"
json=$(ls "$T"/rc/*sc_c*.json 2>/dev/null | head -1)
sha=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["plugin"]["sha256"])' "$json" 2>/dev/null)
expect_eq "$sha" "$(sha256sum "$P/sc_c.so" | cut -d' ' -f1)" "copied over: the new file's sha256 in the result"
rm -f "$P/sc_c.so"

# ---- corrupt caches: rebuilt silently, the run is right --------------------
warm_again() { # WHAT: after a rebuild the cache is whole and warm again
  cache_ok "$1"
  rm -f "$SCAN_MARKER"
  run_bench --list --format tsv --plugin-dir "$P"
  expect_eq "$(loaded sc_a)" 0 "$1: warm again afterwards"
}
corrupt_case() { # WHAT: the cache was just damaged
  rm -f "$SCAN_MARKER"
  run_bench --preset "$PRESET" --plugin-dir "$P" --plugin sc_a,sc_b --results-dir "$T/r2"
  expect_rc 0 "$1: run"
  expect_in "$T/out" 'sc_a n=8  *OK' "$1: sc_a ran"
  expect_in "$T/out" 'sc_b n=8 extra=x  *OK' "$1: sc_b ran with its params"
  expect_eq "$(grep -v 'sc_nosym' "$T/err" | grep -Eic 'warning|error|note|cache')" 0 "$1: nothing said but the broken file"
  warm_again "$1"
}
run_bench --list --format tsv --plugin-dir "$P"
cache_ok "before damage"
truncate -s 300 "$CACHE"
corrupt_case "truncated cache"
head -c 4000 /dev/urandom >"$CACHE"
corrupt_case "garbage cache"
: >"$CACHE"
corrupt_case "empty cache"
sed -i 's/	plugin sc_a	/	plugin sc_a EDITED	/' "$CACHE"
expect_in "$CACHE" 'EDITED' "the edit"
corrupt_case "hand-edited description"
run_bench --list -v --plugin-dir "$P" --plugin sc_a
expect_not_in "$T/out" 'EDITED' "hand edit not believed"
# An edit that keeps the checksum right but breaks a field: refused by the
# strict parser (here the callbacks' bit set), the file scanned again.
python3 - "$CACHE" <<'PY'
import sys
path = sys.argv[1]
lines = open(path).read().split("\n")[:-1]
head, recs = lines[0], lines[1:-1]
import re
recs = [re.sub(r"(\tok\t[0-9a-f]{64}\t\d+\t\d+\t\d+\t)\d+\t", r"\g<1>999999\t", r, count=1)
        if "sc_a.so" in r else r for r in recs]
assert any("999999" in r for r in recs)
h = 0xcbf29ce484222325
def fnv(h, b):
    for c in b:
        h ^= c; h = (h * 0x100000001b3) & 0xffffffffffffffff
    return h
h = fnv(h, head.encode())
for r in recs:
    h = fnv(h, b"\n"); h = fnv(h, r.encode())
open(path, "w").write("\n".join([head] + recs + ["end\t%d\t%016x" % (len(recs), h)]) + "\n")
PY
rm -f "$SCAN_MARKER"
run_bench --list --format tsv --plugin-dir "$P"
expect_rc 0 "list after a field edit with a right checksum"
expect_in "$T/out" '^sc_a	cpu	none	n$'
expect_eq "$(loaded sc_a)" 1 "edited record: scanned again"
expect_eq "$(loaded sc_b)" 0 "edited record: only that one"
sed -i '1s/^\(bench-scan-cache	[0-9]*\)	[^	]*/\1	0.0.0-other/' "$CACHE"
expect_in "$CACHE" '0\.0\.0-other' "the version edit"
corrupt_case "cache of another bench version"

# ---- concurrent runs: each writes a whole cache, both succeed -----------------
rm -rf "$XDG_CACHE_HOME"
pids=()
for i in 1 2 3; do
  "$BENCH" --preset "$PRESET" --plugin-dir "$P" --plugin sc_a --results-dir "$T/c$i" >"$T/c$i.out" 2>"$T/c$i.err" &
  pids+=($!)
done
for i in 1 2 3; do
  wait "${pids[$((i - 1))]}"
  expect_eq "$?" 0 "concurrent run $i"
  expect_in "$T/c$i.out" 'sc_a n=8  *OK' "concurrent run $i"
done
expect_eq "$(ls "$XDG_CACHE_HOME/bench" | grep -c tmp)" 0 "no temporary file left"
warm_again "after concurrent runs"

# ---- bypasses: BENCH_NO_SCAN_CACHE=1 and --rescan -----------------------------
before=$(stat -c %Y.%i "$CACHE")
rm -f "$SCAN_MARKER"
BENCH_NO_SCAN_CACHE=1 run_bench --list --format tsv --plugin-dir "$P"
expect_eq "$(loaded sc_b)" 1 "BENCH_NO_SCAN_CACHE: scanned"
expect_eq "$(stat -c %Y.%i "$CACHE")" "$before" "BENCH_NO_SCAN_CACHE: cache left alone"
rm -f "$SCAN_MARKER"
run_bench --list --format tsv --plugin-dir "$P" --rescan
expect_eq "$(loaded sc_b)" 1 "--rescan: scanned"
expect_in "$T/out" '^sc_b	cpu	none	n,extra$'
rm -rf "$XDG_CACHE_HOME"
BENCH_NO_SCAN_CACHE=1 run_bench --list --format tsv --plugin-dir "$P"
if [ -e "$XDG_CACHE_HOME" ]; then fail "BENCH_NO_SCAN_CACHE wrote a cache"; else ok; fi

# ---- no usable cache folder: no cache, no noise -----------------------------
echo "a file, not a folder" >"$T/notadir"
for xdg in "$T/notadir" "$T/notadir/sub"; do
  rm -f "$SCAN_MARKER"
  XDG_CACHE_HOME="$xdg" run_bench --preset "$PRESET" --plugin-dir "$P" --plugin sc_a --results-dir "$T/ro"
  expect_rc 0 "cache folder $xdg unusable: run"
  expect_in "$T/out" 'sc_a n=8  *OK'
  expect_eq "$(grep -v 'sc_nosym' "$T/err" | grep -Eic 'warning|error|note|cache')" 0 "unusable cache folder: silent"
  XDG_CACHE_HOME="$xdg" run_bench --list -v --plugin-dir "$P" --plugin sc_a
  expect_rc 0 "unusable cache folder: --list -v"
  notes=$(grep -c '^note: scan cache' "$T/err")
  if [ "$notes" -le 1 ]; then ok; else fail "more than one note under -v: $notes"; cat "$T/err"; fi
done
finish

#!/usr/bin/env bash
# Two tuners on one cache file at once (two problems): each record is
# merged under the file's lock, so neither loses the other's: both winners
# and all 128 measurement records are there, and no temporary file is left.
. "$(dirname "$0")/../cli/lib.sh"

P=(--plugin fx_tune --plugin-dir "$FX_TUNE" --strategy grid --param noise=0)
C="$T/cache.tsv"
"$BENCH" tune "${P[@]}" --tuning-file "$C" --param base_us=20 >"$T/out1" 2>"$T/err1" &
a=$!
"$BENCH" tune "${P[@]}" --tuning-file "$C" --param base_us=21 >"$T/out2" 2>"$T/err2" &
b=$!
wait "$a"; ra=$?
wait "$b"; rb=$?
expect_eq "$ra $rb" "0 0" "both tuners"
expect_in "$T/out1" 'base_us=20 .*winner tx=5 ty=3 '
expect_in "$T/out2" 'base_us=21 .*winner tx=5 ty=3 '
expect_eq "$(grep -c '^M	.*base_us=20 ' "$C")" 64 "records of the first"
expect_eq "$(grep -c '^M	.*base_us=21 ' "$C")" 64 "records of the second"
expect_eq "$(grep -c '^W	' "$C")" 2 "two winners"
expect_eq "$(head -1 "$C")" "bench-tuning 1" "header"
expect_eq "$(find "$T" -maxdepth 1 -name '.cache.tsv.tmp.*' | wc -l)" 0 "no temporary file left"
finish

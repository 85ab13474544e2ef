#!/usr/bin/env bash
# bench peak: a roof comes only from a case whose output matched the
# plugin's reference; refused cases are named; the roofs file is keyed by
# device/driver/arch, re-measured when stale, refused when corrupt, kept
# when the run is interrupted; --budget and --force.
. "$(dirname "$0")/lib.sh"
PK=$BUILD/tests/fixtures/peak
[ -f "$PK/fx_peak_good.so" ] || { fail "fixture $PK/fx_peak_good.so not built"; finish; }
cat >"$T/quick.ini" <<'EOF'
[run]
tier = smoke
warmup_iters = 1
warmup_time = 0
min_samples = 5
max_samples = 50
min_time = 0.05s
max_time = 0.5s
target_noise = 1%
verify = full
timeout = 60s
EOF
R=$T/r
peak() { run_bench peak --plugin-dir "$PK" --preset "$T/quick.ini" --results-dir "$R" "$@"; }
roofs() { ls "$R"/roofs/*.tsv 2>/dev/null; }
# field FILE PLUGIN COLUMN(1-based over the M record): one field of PLUGIN's record
field() { awk -F'\t' -v p="$2" -v c="$3" '$1 == "M" && $2 == p { print $c; exit }' "$1"; }

# 1. The good plugin sets fp32 at exactly 2*64*100 FLOP per 1e5 ns; every
#    fault is refused by name, even 100x "faster" than the good one.
peak --plugin fx_peak_good
expect_rc 0 "good plugin"
F=$(roofs)
expect_nonempty "roofs file" $F
expect_in "$F" '^bench-roofs 1$' "roofs header"
expect_in "$F" "^K	device=[^	]*;driver=-;arch=$(uname -m)	" "the device key"
expect_eq "$(field "$F" fx_peak_good 5)" OK "good status"
expect_eq "$(field "$F" fx_peak_good 6)" fp32 "good roof id"
expect_eq "$(field "$F" fx_peak_good 9)" 0.128 "good value (GFLOP/s)"
expect_in "$T/out" 'fp32 +compute +0.128 GFLOP/s' "the roofs table"
expect_in "$T/out" '0.800 of data sheet' "the data-sheet ratio"
ls "$R"/*fx_peak_good*.json >/dev/null 2>&1 && ok || fail "the run's result file is written"

FX_PEAK_NS=1000 peak --plugin 'fx_peak_nowrite,fx_peak_partial,fx_peak_wrong,fx_peak_self'
expect_rc 1 "faults are refused"
for p in nowrite partial wrong; do
  expect_eq "$(field "$F" fx_peak_$p 5)" WRONG_ANSWER "fx_peak_$p status"
  expect_in "$T/err" "fx_peak_$p .*: not a roof \(fp32\): WRONG_ANSWER" "fx_peak_$p named"
done
expect_eq "$(field "$F" fx_peak_self 5)" REFUSED "self-checked status"
expect_in "$T/err" 'fx_peak_self .*not a roof \(fp32\): its output was checked only by the plugin itself' \
  "self-checked named"
expect_in "$T/out" 'fp32 +compute +0.128 GFLOP/s .*fx_peak_good' "the roof stays the good plugin's"
expect_not_in "$T/out" 'fp32 +compute +12.8' "no roof from a faster faulty kernel"

# 2. No roof named, a malformed roof, the extension hidden.
peak --plugin fx_peak_noroof
expect_rc 1 "a peak case that names no roof"
expect_in "$T/err" 'fx_peak_noroof: a case of a peak plugin named no roof' "no-roof warning"
peak --plugin fx_peak_badid
expect_rc 1 "a malformed roof id"
expect_in "$T/out" 'fx_peak_badid .*ERROR .*plugin bug: set_roof: id must be' "malformed id is a plugin bug"
BENCH_NO_ROOF_EXT=1 peak --plugin fx_peak_good --force
expect_rc 1 "without the extension the case names no roof"
expect_in "$T/out" 'fx_peak_good .*OK' "it still runs and checks"

# 3. A rerun measures only what is missing or stale.
peak --plugin fx_peak_good
expect_rc 0 "rerun"
expect_in "$T/out" '1 case measured already' "fresh case kept"
expect_in "$T/out" 'nothing to measure' "nothing run"
before=$(field "$F" fx_peak_good 16)
peak --plugin fx_peak_good --force
expect_rc 0 "--force"
expect_not_in "$T/out" 'measured already' "--force measures again"
[ "$(field "$F" fx_peak_good 16)" != "$before" ] && ok || fail "--force rewrote the record's date"
mkdir -p "$T/changed"
cp "$PK/fx_peak_good.so" "$T/changed/" && printf 'x' >>"$T/changed/fx_peak_good.so"
run_bench peak --plugin-dir "$T/changed" --preset "$T/quick.ini" --results-dir "$R" --plugin fx_peak_good
expect_rc 0 "a changed plugin file"
expect_not_in "$T/out" 'measured already' "a changed plugin file is measured again"
expect_eq "$(field "$F" fx_peak_good 3)" "$(sha256sum "$T/changed/fx_peak_good.so" | cut -d' ' -f1)" \
  "the record has the new file's sha256"

# 4. Another driver: the file is measured anew and rekeyed.
sed -i 's/;driver=-;/;driver=old 1.0;/' "$F"
peak --plugin fx_peak_good
expect_rc 0 "another driver"
expect_in "$T/out" 'holds the roofs of device=.*driver=old 1.0.*measuring anew' "stale key said"
expect_in "$F" '^K	device=[^	]*;driver=-;' "rekeyed"
expect_not_in "$F" 'fx_peak_wrong' "the other driver's records are dropped"

# 5. A corrupt or foreign file is refused, never overwritten.
cp "$F" "$T/keep.tsv"
printf 'M\tbroken\n' >>"$F"
cp "$F" "$T/corrupt.tsv"
peak --plugin fx_peak_good --force
expect_rc 2 "corrupt roofs file"
expect_in "$T/err" "roofs/.*\.tsv' line 4: not a roofs record \(corrupt file\).*does not overwrite" "corrupt named"
cmp -s "$F" "$T/corrupt.tsv" && ok || fail "the corrupt file was changed"
printf 'bench-tuning 1\n' >"$F"
peak --plugin fx_peak_good
expect_rc 2 "foreign file"
expect_in "$T/err" "is not a bench roofs file" "foreign named"
cp "$T/keep.tsv" "$F"

# 6. --budget: what fits now, the rest on the next run.
rm -rf "$R"
peak --plugin fx_peak_good --param chain=100,200,300 --budget 1.2s
expect_rc 0 "budget"
expect_in "$T/out" '2 cases left for a later run' "deferred cases said"
expect_eq "$(grep -c '^M' "$(roofs)")" 1 "one case measured in the budget"
peak --plugin fx_peak_good --param chain=100,200,300
expect_in "$T/out" '1 case measured already' "the rerun keeps it"
expect_eq "$(grep -c '^M' "$(roofs)")" 3 "the rerun measured the rest"

# 7. Ctrl-C keeps what was measured, and the file stays whole.
rm -rf "$R"
cat >"$T/slow.ini" <<'EOF'
[run]
tier = smoke
min_samples = 5
min_time = 1s
max_time = 2s
target_noise = 0.1%
EOF
"$BENCH" peak --plugin-dir "$PK" --preset "$T/slow.ini" --results-dir "$R" --plugin fx_peak_good \
  --param chain=10,20,30,40,50 >"$T/out" 2>"$T/err" &
pid=$!
has_record() { [ -n "$(roofs)" ] && grep -q '^M' "$(roofs)"; }
if wait_for 60 has_record; then ok; else fail "no record within 60 s"; fi
kill -INT "$pid"
wait "$pid"
RC=$?
expect_rc 130 "interrupted"
n=$(grep -c '^M' "$(roofs)")
[ "$n" -ge 1 ] && [ "$n" -lt 5 ] && ok || fail "interrupted run kept $n of 5 records"
expect_in "$(roofs)" '^K	' "the file is whole"

# 7b. An all-thread compute roof that is not above its one-thread roof gets
#     a note (a busy machine or shared FMA units), not silence: a copy of
#     the fp32 record as fp32.1t at the same value, and a rerun that
#     measures nothing prints the table with it.
R=$T/r7b
peak --plugin fx_peak_good
expect_rc 0 "a roofs file for 7b"
F=$(roofs)
awk -F'\t' -v OFS='\t' '{ print } $1 == "M" && $6 == "fp32" { $6 = "fp32.1t"; $9 = $9 * 0.95; print }' "$F" >"$F.new" &&
  mv "$F.new" "$F"
peak --plugin fx_peak_good
expect_rc 0 "the rerun"
expect_in "$T/out" 'note: fp32 \(all threads\) is 1\.05x fp32\.1t' "the scaling note"
awk -F'\t' -v OFS='\t' '$1 == "M" && $6 == "fp32.1t" { $9 = $9 / 4 } { print }' "$F" >"$F.new" && mv "$F.new" "$F"
peak --plugin fx_peak_good
expect_not_in "$T/out" 'note: fp32 \(all threads\)' "no note where all threads scale"

# 8. Usage: a plugin that is not a peak plugin.
run_bench peak --plugin-dir "$FX_GOOD" --plugin fx_ok --results-dir "$R"
expect_rc 2 "not a peak plugin"
expect_in "$T/err" 'plugin fx_ok is not a peak plugin' "named"

# 9. The run summary sets an implementation choice against another only
#    when both do the same work (kind=fma counts FLOPs, kind=bw bytes).
run_bench --plugin-dir "$PK" --preset "$T/quick.ini" --results-dir "$T/r9" --plugin fx_peak_good --param kind=fma,bw
expect_rc 0 "a run of two kinds"
expect_in "$T/out" 'fx_peak_good .*kind=bw .*OK' "both kinds ran"
expect_not_in "$T/out" 'faster than' "no time ratio between cases of different work"
finish

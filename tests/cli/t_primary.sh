#!/usr/bin/env bash
# Issue 39: the one throughput follows what bounds the case. A plugin of
# operation "none" names it with set_info("primary", ...) (fx_primary, a
# saxpy: 2 FLOPs and 12 bytes per element); without it the fallback rule
# decides (items if counted, else bytes below 4 FLOP/byte: the saxpy shows
# GB/s, not GFLOP/s); a bad value is one plugin-bug line; a plugin of an
# operation of the table cannot name another (fx_primary_copy). The case
# line, the .txt's throughput column, the Markdown export, the JSON
# ("primary") and the events table all show the same figure.
. "$(dirname "$0")/lib.sh"

D="$FX_GOOD/../primary"
P="$SRC/tests/cli/presets/fast.ini"
run_bench --preset "$P" --plugin-dir "$D" --results-dir "$T/r" --plugin fx_primary \
  --param primary=-,flops,bytes,items,latency,gflops --param items=0,1 \
  --events "$T/ev.jsonl" --export-markdown "$T/run.md"
expect_rc 1 "the bad value fails its cases, the rest pass"
line() { grep -E "fx_primary +n=4096 primary=$1 items=$2 " "$T/out"; }
# say nothing: the fallback rule
expect_in <(line - 0) 'OK .* [0-9.]+ GB/s' "no primary, no items: bytes (1/6 FLOP/byte)"
expect_not_in <(line - 0) 'GFLOP/s' "no primary: not GFLOP/s"
expect_in <(line - 1) 'OK .* [0-9.]+ [kMG]? ?elements/s' "no primary, items: items per second"
# each value
expect_in <(line flops 0) 'OK .* [0-9.]+ GFLOP/s' "primary flops"
expect_in <(line bytes 1) 'OK .* [0-9.]+ GB/s' "primary bytes over items"
expect_in <(line items 1) 'OK .* [0-9.]+ [kMG]? ?elements/s' "primary items"
expect_in <(line latency 1) 'OK .* [0-9.]+ (ns|us)/element' "primary latency: time per element"
expect_not_in <(line latency 0) '/s|ns/' "latency without items: no figure the data cannot back"
# a bad value: one clear line
expect_in <(line gflops 0) 'ERROR +setup: plugin bug: set_info\("primary", "gflops"\): must be flops, bytes, items or latency' \
  "a bad primary is a plugin bug"

# the .txt's throughput column and the JSON say the same
txt=$(ls "$T/r"/*fx_primary*.txt)
expect_in "$txt" ' throughput +GFLOP/s +GB/s' ".txt: a throughput column before both rates"
expect_in "$txt" 'primary=latency items=1 +OK .* [0-9.]+ (ns|us)/element ' ".txt: latency in the throughput column"
json=$(ls "$T/r"/*fx_primary*.json)
python3 - "$json" <<'PY' && ok || fail "json: primary of every case"
import json, sys
d = json.load(open(sys.argv[1]))
got = {(c["params"]["primary"], c["params"]["items"]): c.get("primary") for c in d["cases"]}
want = {("-", "0"): "bytes", ("-", "1"): "items", ("flops", "0"): "flops", ("flops", "1"): "flops",
        ("bytes", "1"): "bytes", ("items", "1"): "items", ("latency", "1"): "latency",
        ("latency", "0"): "latency", ("gflops", "0"): "bytes"}
for k, v in want.items():
    assert got[k] == v, (k, got[k], v)
for c in d["cases"]:  # every figure stays in the file
    if c["status"] == "OK":
        assert c["gflops"] and c["gbps"], c
PY
# the Markdown export and the events table: the same figure
expect_in "$T/run.md" '^\| fx\\_primary \| n=4096 primary=- items=0 \| OK \|.* [0-9.]+ GB/s \|' "Markdown: the fallback's GB/s"
expect_in "$T/run.md" '^\| fx\\_primary \| n=4096 primary=latency items=1 \| OK \|.* [0-9.]+ (ns|us)/element \|' "Markdown: latency"
run_bench events "$T/ev.jsonl"
expect_rc 0 "bench events"
expect_in "$T/out" 'fx_primary +n=4096 primary=- items=0 +OK .* [0-9.]+ GB/s$' "events: the fallback's GB/s"
expect_in "$T/out" 'fx_primary +n=4096 primary=latency items=1 +OK .* [0-9.]+ (ns|us)/element$' "events: latency"
expect_in "$T/out" 'fx_primary +n=4096 primary=items items=1 +OK .* [0-9.]+ [kMG]? ?elements/s$' "events: items"
expect_in "$T/out" 'fx_primary +n=4096 primary=latency items=0 +OK .* -$' "events: no figure, not another one"

# an operation of the table decides: the same value is fine, another a plugin bug
run_bench --preset "$P" --plugin-dir "$D" --results-dir "$T/r2" --plugin fx_primary_copy --param primary=bytes,flops
expect_rc 1 "fx_primary_copy: flops refused"
expect_in "$T/out" 'primary=bytes items=0 +OK .* [0-9.]+ GB/s' "copy: bytes, as the table says"
expect_in "$T/out" 'primary=flops items=0 +ERROR +setup: plugin bug: set_info\("primary", "flops"\): operation copy.s primary figure is bytes' \
  "copy: another value is a plugin bug"
finish

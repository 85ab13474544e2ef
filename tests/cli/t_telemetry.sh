#!/usr/bin/env bash
# GPU telemetry per case (issue 38) without a GPU: the fixture plugin fx_gpu
# names a stand-in device (bench.device/1) and may report a scripted
# in-band clock; the stand-in NVML (tests/fixtures/gpu, FAKE_GPU_SCRIPT)
# answers for the device. The scripts advance per reading of the SM clock,
# never per unit of time: a reading is taken when the sampler starts (end
# of warm-up), every telemetry_interval_ms, after each recovery pause and
# at the end, so with telemetry_interval_ms = 1000 and cases far shorter
# than a second the readings a case gets are fixed. The fixture counts its
# clock per run() call, and the preset below makes the warm-up one call and
# every sample one call.
. "$(dirname "$0")/lib.sh"

# A copy of bench in a folder of its own loads only the fixtures.
mkdir -p "$T/bin"
cp "$BENCH" "$T/bin/bench"
BENCH="$T/bin/bench"
GPU="$FX_GOOD/../gpu_plugin"
NVML="$FX_GOOD/../fake_nvml"
RSMI="$FX_GOOD/../fake_nvml:$FX_GOOD/../fake_rsmi"
AMDSMI="$FX_GOOD/../fake_nvml:$FX_GOOD/../fake_amdsmi"
NONE="$FX_GOOD/../fake_gpu_none"
[ -f "$GPU/fx_gpu.so" ] && [ -f "$NVML/libnvidia-ml.so.1" ] || { fail "fixtures not built"; finish; exit 1; }

# 10 kept samples settle at once (the device time is constant); max_time
# bounds a case whose device stays throttled.
cat >"$T/p.ini" <<'INI'
[run]
tier = smoke
warmup_iters = 1
warmup_time = 0
batch_min_time = 0
min_samples = 10
max_samples = 200
min_time = 0
max_time = 20s
target_noise = 50%
timeout = 60s
telemetry_interval_ms = 1000
INI
# A device that never recovers: the case runs to max_time.
sed 's/^max_time = .*/max_time = 1s/' "$T/p.ini" >"$T/p1s.ini"

DEV="bus0=00000000:3B:00.0 name=Fake_H100 driver=580.65 max_sm=1980 base_sm=1755 max_mem=2619 limit=700"
steady="$DEV sm_clock=1980 mem_clock=2619 power=350 temp=60 mem_temp=70 throttle=none power_ns=1000 others=0"

# gpu NAME SCRIPT PRESET [ARGS...]: runs fx_gpu against the stand-in NVML
# with SCRIPT, results in $T/NAME (LIBS, when set, is the library path).
gpu() {
  local name=$1 script=$2 preset=$3
  shift 3
  printf '%s\n' "$script" >"$T/$name.script"
  LD_LIBRARY_PATH=${LIBS:-$NVML} FAKE_GPU_SCRIPT="$T/$name.script" \
    run_bench --preset "$preset" --plugin-dir "$GPU" --results-dir "$T/$name" --plugin fx_gpu "$@"
}

# tv NAME PARAMS EXPR: EXPR (python) over the case of run NAME whose
# parameters contain PARAMS: c is the case, t its telemetry ({} when none);
# strings as they are, anything else as JSON (true, 3, null).
tv() {
  python3 - "$T/$1" "$2" "$3" <<'PY'
import glob, json, sys
d, params, expr = sys.argv[1:4]
for f in sorted(glob.glob(d + "/*.json")):
    for c in json.load(open(f))["cases"]:
        p = " ".join("%s=%s" % kv for kv in c["params"].items())
        if params in p:
            v = eval(expr, {"c": c, "t": c.get("telemetry") or {}})
            print(v if isinstance(v, str) else json.dumps(v))
            sys.exit(0)
print("<no case>")
PY
}

# ---- a steady device: everything recorded, plausible, nothing discarded.
gpu steady "$steady" "$T/p.ini"
expect_rc 0 "steady device"
expect_eq "$(tv steady '' 'c["status"]')" OK "steady: status"
expect_eq "$(tv steady '' 't["bus_id"]')" 0000:3b:00.0 "steady: the device named"
expect_eq "$(tv steady '' 't["library"]')" nvml "steady: library"
expect_eq "$(tv steady '' 't.get("note")')" null "steady: no note"
expect_eq "$(tv steady '' 't["interval_ms"]')" 1000.0 "steady: interval"
expect_eq "$(tv steady '' 't["readings"] >= 2')" true "steady: readings at start and end"
expect_eq "$(tv steady '' 't["sm_clock_mhz"] == {"mean": 1980, "min": 1980, "max": 1980}')" true "steady: SM clock"
expect_eq "$(tv steady '' 't["mem_clock_mhz"]["mean"]')" 2619.0 "steady: memory clock"
expect_eq "$(tv steady '' 't["power_w"] == {"mean": 350, "max": 350, "limit": 700}')" true "steady: power"
expect_eq "$(tv steady '' '[t["temp_c_max"], t["mem_temp_c_max"]]')" "[60.0, 70.0]" "steady: temperatures"
expect_eq "$(tv steady '' 't["throttle_reasons"]')" "[]" "steady: no throttle reason"
expect_eq "$(tv steady '' 't["other_processes_max"]')" 0.0 "steady: no other process"
expect_eq "$(tv steady '' '[t["throttle_rule"]["threshold"], t["throttle_rule"]["reference_mhz"], t["throttle_rule"]["discarded"]]')" \
  "[0.75, 1980.0, 0]" "steady: the rule, nothing discarded"
expect_eq "$(tv steady '' 't["throttled"]')" false "steady: not throttled"
expect_eq "$(tv steady '' 'c["nsamples"]')" 10 "steady: samples"
expect_eq "$(tv steady '' '"clock_mhz" in c["samples"]')" false "steady: no in-band clock"

# ---- an MI300X through AMD SMI (NVML's init failing first): a GFX clock
# per XCD, XCD i at 2100 - 100 i MHz.
LIBS=$AMDSMI gpu amd "nvml_init=fail lib_version=26.5 name=AMD_Instinct_MI300X xcds=8 xcd_clock=2100 xcd_step=100 sm_clock=2100 power=700 amd_throttle=0 others=1" \
  "$T/p.ini" --param bus=0000:30:00.0 --param default_clock=2100
expect_rc 0 "AMD SMI"
expect_eq "$(tv amd '' '[t["library"], len(t["xcd_clock_mhz"]), t["xcd_clock_mhz"][0], t["xcd_clock_mhz"][7]]')" \
  '["amd_smi", 8, {"mean": 2100.0, "min": 2100.0}, {"mean": 1400.0, "min": 1400.0}]' "AMD SMI: per-XCD clocks"
expect_eq "$(tv amd '' '[t["other_processes_max"], t["throttle_rule"]["discarded"], t["throttled"]]')" '[1.0, 0, false]' "AMD SMI: another process seen"

# ---- a power cap the device recovers from at reading 3: the first three
# samples are judged by readings 0, 1 and 2 (the start's and those after
# the first two pauses), discarded and re-taken after 0.05, 0.1, 0.2 s.
gpu cap "$DEV sm_clock=1080 power=700 throttle=sw_power_cap
from=3 sm_clock=1980 power=350 throttle=none" "$T/p.ini"
expect_rc 0 "power cap with recovery"
expect_eq "$(tv cap '' 't["throttle_reasons"]')" '["sw_power_cap"]' "cap: reason decoded"
expect_eq "$(tv cap '' 't["throttle_rule"]["discarded"]')" 3 "cap: 3 samples discarded"
expect_eq "$(tv cap '' 't["throttle_rule"]["recovery_s"] >= 0.35')" true "cap: paused 0.05 + 0.1 + 0.2 s"
expect_eq "$(tv cap '' 't["throttled"]')" false "cap: recovered, not marked"
expect_eq "$(tv cap '' 'c["nsamples"]')" 10 "cap: 10 samples kept"
expect_eq "$(tv cap '' '[t["sm_clock_mhz"]["min"], t["sm_clock_mhz"]["max"], t["power_w"]["max"]]')" \
  "[1080.0, 1980.0, 700.0]" "cap: the readings over the case"

# ---- a power cap from reading 1: only the end's reading sees it (the case
# is over in well under the 1 s period); recorded, nothing discarded.
gpu late "$DEV
from=1 sm_clock=1080 power=700 throttle=sw_power_cap" "$T/p.ini"
expect_rc 0 "power cap at the end"
expect_eq "$(tv late '' '[t["sm_clock_mhz"]["min"], t["throttle_reasons"], t["throttle_rule"]["discarded"]]')" \
  '[1080.0, ["sw_power_cap"], 0]' "late cap: seen at the end, nothing discarded"

# ---- a power cap that never ends: every sample throttled; the case keeps
# them all and is marked, with the reason.
gpu capped "$DEV sm_clock=1080 power=700 throttle=sw_power_cap" "$T/p1s.ini"
expect_rc 0 "a device capped throughout"
expect_eq "$(tv capped '' 'c["status"]')" OK "capped: still OK"
expect_eq "$(tv capped '' 't["throttled"]')" true "capped: marked throttled"
expect_eq "$(tv capped '' 't["throttled_by"]')" "clock 1080 MHz < 75% of 1980 MHz (sw_power_cap)" "capped: why"
expect_eq "$(tv capped '' 'c["nsamples"] >= 1 and t["throttle_rule"]["discarded"] == 0')" true "capped: samples kept"

# ---- the in-band clock drops from the 6th run() call (the 5th sample) to
# the 8th and recovers: 3 samples discarded, the kept ones all at 1980 MHz.
gpu inband "$steady" "$T/p.ini" --param clock=1980/900@5/1980@8
expect_rc 0 "in-band throttle with recovery"
expect_eq "$(tv inband '' 't["throttle_rule"]["discarded"]')" 3 "in-band: 3 discarded"
expect_eq "$(tv inband '' 't["throttled"]')" false "in-band: not marked"
expect_eq "$(tv inband '' 't["in_band"]["samples"] == c["nsamples"] == 10')" true "in-band: a clock per kept sample"
expect_eq "$(tv inband '' '[t["in_band"]["min"], t["in_band"]["max"], t["in_band"]["default_clock_mhz"]]')" \
  "[1980.0, 1980.0, 1980.0]" "in-band: over the kept samples"
expect_eq "$(tv inband '' 'c["samples"]["clock_mhz"] == [1980] * 10')" true "in-band: samples.clock_mhz"

# ---- in-band 900 MHz throughout: marked throttled, by the in-band clock.
gpu slow "$steady" "$T/p1s.ini" --param clock=900
expect_rc 0 "in-band throttled throughout"
expect_eq "$(tv slow '' 't["throttled"]')" true "in-band slow: marked"
expect_eq "$(tv slow '' 't["throttled_by"]')" "in-band clock 900 MHz < 75% of 1980 MHz" "in-band slow: why"
expect_eq "$(tv slow '' 'c["samples"]["clock_mhz"] == [900] * c["nsamples"]')" true "in-band slow: every sample kept"

# ---- throttle_threshold = 0: the rule is off.
sed 's/^\[run\]$/[run]\nthrottle_threshold = 0/' "$T/p.ini" >"$T/p0.ini"
gpu off "$steady" "$T/p0.ini" --param clock=900
expect_rc 0 "threshold 0"
expect_eq "$(tv off '' '[t.get("throttle_rule", {}).get("threshold", 0), t.get("throttle_rule", {}).get("discarded", 0), t["throttled"], c["nsamples"]]')" \
  "[0, 0, false, 10]" "threshold 0: nothing judged"

# ---- telemetry = off: the library never opened (the stand-in logs each
# init to FAKE_GPU_LOG), the in-band clock still recorded.
sed 's/^\[run\]$/[run]\ntelemetry = off/' "$T/p.ini" >"$T/poff.ini"
inits() { if [ -f "$1" ]; then wc -l <"$1"; else echo 0; fi; }
FAKE_GPU_LOG="$T/off.log" gpu toff "$steady" "$T/poff.ini" --param clock=1980
expect_rc 0 "telemetry = off"
expect_eq "$(tv toff '' '[t["library"], t["readings"], t["note"]]')" '[null, 0, "telemetry = off"]' "telemetry off: no readings"
expect_eq "$(tv toff '' 't["in_band"]["samples"]')" 10 "telemetry off: in-band clock kept"
expect_eq "$(inits "$T/off.log")" 0 "telemetry off: NVML never opened"

# ---- a CPU plugin: no telemetry, no library opened; GPU cases open it
# once per worker.
FAKE_GPU_LOG="$T/cpu.log" LD_LIBRARY_PATH=$NVML FAKE_GPU_SCRIPT="$T/steady.script" \
  run_bench --preset "$SRC/tests/cli/presets/fast.ini" --plugin-dir "$FX_GOOD" --results-dir "$T/cpu" --plugin fx_ok
expect_rc 0 "a CPU plugin"
expect_eq "$(tv cpu '' '"telemetry" in c')" false "CPU plugin: no telemetry object"
expect_eq "$(inits "$T/cpu.log")" 0 "CPU plugin: NVML never opened"
FAKE_GPU_LOG="$T/gpu.log" gpu ldgpu "$steady" "$T/p.ini" --param bus=0000:3b:00.0,3b:00.0,none --isolation backend
expect_rc 0 "three GPU cases"
expect_eq "$(inits "$T/gpu.log")" 1 "GPU cases: NVML opened once for the worker"
expect_eq "$(tv ldgpu 'bus=3b:00.0' '[t["bus_id"], t["readings"] >= 2]')" '["0000:3b:00.0", true]' "the second case reads the device too"
expect_eq "$(tv ldgpu 'bus=none' '"telemetry" in c')" false "a case naming no device: no telemetry"

# ---- no library: a note, the case OK. Where this machine has a real
# one installed, that one answers: without its device (ROCm SMI on a
# machine without an AMD GPU, Debian's rocm-smi) still a note; with NVML
# (a GPU machine) only that the case is OK.
LIBS=$NONE gpu nolib "$steady" "$T/p.ini" --param clock=1980
expect_rc 0 "no library"
expect_eq "$(tv nolib '' '[c["status"], t["in_band"]["samples"]]')" '["OK", 10]' "no library: OK, in-band kept"
if ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml\.so\.1'; then
  echo "this machine has NVML: the missing-library note is not checked"
elif ldconfig -p 2>/dev/null | grep -q 'librocm_smi64'; then
  expect_eq "$(tv nolib '' '[t["readings"], len(t["note"]) > 0]')" '[0, true]' "no library (ROCm SMI here): a note"
else
  expect_eq "$(tv nolib '' 't["note"].startswith("no NVIDIA or AMD management library: ")')" true "no library: the note"
  expect_eq "$(tv nolib '' '[t["library"], t["readings"]]')" '[null, 0]' "no library: no readings"
fi

# ---- the library's init fails: a note, the case OK.
LIBS=$RSMI gpu initfail "init=fail" "$T/p.ini"
expect_rc 0 "init failure"
expect_eq "$(tv initfail '' '[c["status"], t["library"], t["readings"]]')" '["OK", null, 0]' "init failure: OK, no readings"
expect_eq "$(tv initfail '' 'len(t["note"]) > 0')" true "init failure: a note"

# ---- absurd values never become numbers.
gpu absurd "$DEV sm_clock=1e9 mem_clock=-5 power=nan temp=1e6 mem_temp=-300 others=-1" "$T/p.ini"
expect_rc 0 "absurd values"
expect_eq "$(tv absurd '' '[k for k in ("sm_clock_mhz", "mem_clock_mhz", "temp_c_max", "mem_temp_c_max") if t.get(k) is not None]')" "[]" "absurd: dropped"
expect_eq "$(tv absurd '' '(t.get("power_w") or {}).get("mean")')" null "absurd: no power"
expect_eq "$(tv absurd '' 't["throttle_rule"]["discarded"]')" 0 "absurd: nothing judged by them"
expect_not_in "$(ls "$T"/absurd/*.json)" 'NaN|Infinity' "absurd: the JSON"
expect_eq "$(tv absurd '' 'sorted(set(k for k, v in t.items() if isinstance(v, (int, float)) and not isinstance(v, bool) and not 0 <= v < 1e4))')" \
  "[]" "absurd: no number out of range in the telemetry"

# ---- a bus id the library does not know; none given; the device init named.
gpu unknown "$steady" "$T/p.ini" --param bus=0000:99:00.0,null
expect_rc 0 "unknown device"
expect_eq "$(tv unknown 'bus=0000:99' 't["note"]')" "no device 0000:99:00.0 among the 1 nvml sees" "unknown device: note"
expect_eq "$(tv unknown 'bus=null' 't["note"]')" "the plugin named no PCI bus id for its device" "no bus id: note"
FX_GPU_INIT_BUS=3B:00.0 gpu initdev "$steady" "$T/p.ini" --param bus=none
expect_rc 0 "device named in init"
expect_eq "$(tv initdev '' '[t["bus_id"], t["library"], t["readings"] >= 2]')" '["0000:3b:00.0", "nvml", true]' "init's device holds for the case"

# ---- BENCH_NO_DEVICE_EXT hides the extension: the plugin runs as on an
# older harness, without telemetry.
BENCH_NO_DEVICE_EXT=1 gpu noext "$steady" "$T/p.ini" --param clock=900
expect_rc 0 "extension hidden"
expect_eq "$(tv noext '' '[c["status"], "telemetry" in c, "clock_mhz" in c["samples"]]')" '["OK", false, false]' "extension hidden: no telemetry"

# ---- bench ab: the telemetry of a side's workers, folded; the in-band
# clock of every sample; a side mostly throttled is marked, nothing
# discarded.
mkdir -p "$T/abA" "$T/abB"
cp "$GPU/fx_gpu.so" "$T/abA/"
cp "$GPU/fx_gpu.so" "$T/abB/"
printf '%s\n' "$steady" >"$T/ab.script"
LD_LIBRARY_PATH=$NVML FAKE_GPU_SCRIPT="$T/ab.script" run_bench ab "$T/abA" "$T/abB" --plugin fx_gpu \
  --preset "$SRC/tests/ab/ab.ini" --results-dir "$T/ab" --param clock=900
expect_rc 0 "bench ab"
expect_eq "$(tv ab '' '[t["library"], t["readings"] >= 2, t["in_band"]["samples"] == c["nsamples"] > 0]')" \
  '["nvml", true, true]' "ab: telemetry and the in-band clock of every sample"
expect_eq "$(tv ab '' '[t["throttled"], t["throttled_by"], t["throttle_rule"]["discarded"]]')" \
  '[true, "in-band clock 900 MHz < 75% of 1980 MHz", 0]' "ab: marked, nothing discarded"

# ---- plugin bugs: a bus id that is none, a clock that cannot be.
gpu bugs "$steady" "$T/p.ini" --param bus=gpu0 --param default_clock=1980,20000 --param clock=none,nan
expect_rc 1 "plugin bugs"
expect_in "$T/out" 'default_clock=1980 clock=none +ERROR +setup: plugin bug: set_device\("gpu0"\): not a PCI bus id'
gpu bugs2 "$steady" "$T/p.ini" --param default_clock=1980,20000 --param clock=none,nan
expect_rc 1 "plugin bugs"
expect_in "$T/out" 'default_clock=20000 clock=none +ERROR +setup: plugin bug: set_device\(20000\): a default clock must be'
expect_in "$T/out" 'default_clock=1980 clock=nan +ERROR +run: plugin bug: set_clock\(nan\): a clock must be finite'

finish

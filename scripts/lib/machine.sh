# shellcheck shell=bash
# What the scripts say about the machine they run on (sourced, never run),
# each with a fallback for machines that do not offer the usual file: Arm
# kernels write no "model name" in /proc/cpuinfo, sandboxes mount no /proc.
#   machine_cpu_model     "AMD EPYC 9B45 128-Core Processor", never empty
#   machine_cpu_field K   a /proc/cpuinfo field ("cpu family"), or "-"
#   machine_cpus          CPUs this process may use, at least 1
#   machine_load          the 1, 5 and 15 minute load averages, or "?"
#   machine_has_flag F    whether the CPU has feature F (avx2, avx512f)

machine_cpu_field() {
  local v
  v=$(grep -m1 "^$1[[:space:]]*:" /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//; s/ *$//')
  echo "${v:--}"
}

machine_cpu_model() {
  local m
  m=$(machine_cpu_field 'model name')
  if [ "$m" = - ] && [ "$(machine_cpu_field 'CPU implementer')" != - ]; then
    m="Arm implementer $(machine_cpu_field 'CPU implementer') part $(machine_cpu_field 'CPU part')"
  fi
  if [ "$m" = - ] && command -v lscpu >/dev/null; then
    m=$(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -n 1)
    [ -n "$m" ] || m=-
  fi
  [ "$m" = - ] && m="unknown $(uname -m) CPU"
  echo "$m"
}

machine_cpus() {
  local n
  n=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null)
  [ "${n:-0}" -ge 1 ] 2>/dev/null || n=1
  echo "$n"
}

machine_load() {
  if [ -r /proc/loadavg ]; then
    cut -d' ' -f1-3 /proc/loadavg
  else
    uptime 2>/dev/null | sed -n 's/.*load average[s]*: *//p' | tr -d ',' | grep . || echo "?"
  fi
}

machine_has_flag() {
  if grep -q '^flags' /proc/cpuinfo 2>/dev/null; then
    grep -m1 '^flags' /proc/cpuinfo | grep -qw -- "$1"
  elif command -v lscpu >/dev/null && lscpu 2>/dev/null | grep -q '^Flags:'; then
    lscpu | grep '^Flags:' | grep -qw -- "$1"
  else # the compiler's view of this CPU: __AVX512F__ for avx512f
    local macro
    macro="__$(echo "$1" | tr '[:lower:]' '[:upper:]')__"
    echo | cc -march=native -dM -E - 2>/dev/null | grep -q "define $macro "
  fi
}

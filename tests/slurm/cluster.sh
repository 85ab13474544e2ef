# shellcheck shell=bash
# A real Slurm cluster on 127.0.0.1 for the tests, everything in one folder
# (sourced): slurm_start DIR starts munged, slurmctld and three slurmd (node
# names n1, n2 and n3 on this host, each on a port of its own) as this
# shell's own foreground daemons, with partitions "bench" (n1, n2; the
# default) and "slow" (n3); slurm_stop cancels every job and stops them.
# No systemd, cgroups or accounting storage (so no sacct); the daemons run
# as whoever runs the test (root or not): see docs/remote.md, "Slurm".
#
# After slurm_start: SLURM_CONF is exported; SLURM_DIR is the folder.

SLURM_PIDS=()

# free_ports N: N TCP ports free on 127.0.0.1 now.
free_ports() {
  python3 - "$1" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
}

# slurm_start DIR: 0 once every node is idle; 1 (with the daemons' logs on
# stderr) when the cluster did not come up within 60 s.
slurm_start() {
  local d=$1 shape mem ports i node
  # shellcheck disable=SC2034 # for the caller
  SLURM_DIR=$d
  mkdir -p "$d/munge" "$d/state" "$d/spool"
  # munged wants every folder above its socket searchable by all.
  chmod a+x "$(dirname "$d")" "$d" "$d/munge"
  mungekey --create --keyfile="$d/munge/munge.key" >/dev/null 2>&1 || {
    echo "mungekey --create failed" >&2
    return 1
  }
  chmod 600 "$d/munge/munge.key"
  munged -F --socket="$d/munge/munge.sock" --key-file="$d/munge/munge.key" \
    --pid-file="$d/munge/munged.pid" --seed-file="$d/munge/seed" --log-file="$d/munge/munged.log" \
    >"$d/munge/munged.out" 2>&1 &
  SLURM_PIDS+=($!)
  # The node's shape as slurmd sees this machine (a bigger one drains it);
  # memory kept small, three nodes share it.
  shape=$(slurmd -C 2>/dev/null | head -n 1 | tr ' ' '\n' | grep -E '^(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=' | tr '\n' ' ')
  mem=$(slurmd -C 2>/dev/null | head -n 1 | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
  mem=$((${mem:-2000} / 4))
  [ "$mem" -le 1000 ] || mem=1000
  read -r -a ports <<<"$(free_ports 5)"
  {
    echo "ClusterName=benchtest"
    echo "SlurmctldHost=localhost(127.0.0.1)"
    echo "SlurmctldPort=${ports[0]}"
    echo "SlurmdPort=${ports[1]}"
    echo "SlurmUser=$(id -un)"
    echo "SlurmdUser=$(id -un)"
    echo "AuthType=auth/munge"
    echo "AuthInfo=socket=$d/munge/munge.sock"
    echo "StateSaveLocation=$d/state"
    echo "SlurmdSpoolDir=$d/spool/%n"
    echo "SlurmctldPidFile=$d/slurmctld.pid"
    echo "SlurmdPidFile=$d/slurmd.%n.pid"
    echo "SlurmctldLogFile=$d/slurmctld.log"
    echo "SlurmdLogFile=$d/slurmd.%n.log"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "JobAcctGatherType=jobacct_gather/none"
    echo "AccountingStorageType=accounting_storage/none"
    echo "SelectType=select/cons_tres"
    echo "SelectTypeParameters=CR_Core_Memory"
    echo "ReturnToService=2"
    echo "KillWait=2"
    echo "MinJobAge=600"
    echo "SchedulerParameters=batch_sched_delay=0"
    echo "MpiDefault=none"
    for i in 1 2 3; do
      echo "NodeName=n$i NodeHostname=localhost NodeAddr=127.0.0.1 Port=${ports[i + 1]} $shape RealMemory=$mem"
    done
    echo "PartitionName=bench Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP"
    echo "PartitionName=slow Nodes=n3 MaxTime=INFINITE State=UP"
  } >"$d/slurm.conf"
  export SLURM_CONF=$d/slurm.conf
  local end=$((SECONDS + 60))
  while [ "$SECONDS" -lt "$end" ] && [ ! -S "$d/munge/munge.sock" ]; do
    sleep 0.1
  done
  if [ ! -S "$d/munge/munge.sock" ]; then
    echo "munged did not start:" >&2
    tail -n 5 "$d/munge/munged.out" >&2
    return 1
  fi
  slurmctld -D -c -f "$d/slurm.conf" >"$d/slurmctld.out" 2>&1 &
  SLURM_PIDS+=($!)
  for node in n1 n2 n3; do
    slurmd -D -N "$node" -f "$d/slurm.conf" >"$d/slurmd.$node.out" 2>&1 &
    SLURM_PIDS+=($!)
  done
  end=$((SECONDS + 60))
  while [ "$SECONDS" -lt "$end" ]; do
    if [ "$(sinfo -h -N -o '%N %T' 2>/dev/null | sort -u | grep -c ' idle$')" -eq 3 ]; then return 0; fi
    sleep 0.1
  done
  echo "the test's Slurm cluster did not come up in 60 s; sinfo says:" >&2
  sinfo -N 2>&1 | sed 's/^/  /' >&2
  local f
  for f in "$d"/munge/munged.log "$d"/slurmctld.log "$d"/slurmctld.out "$d"/slurmd.*.log "$d"/slurmd.*.out; do
    [ -s "$f" ] || continue
    echo "--- $f (last 15 lines)" >&2
    tail -n 15 "$f" >&2
  done
  return 1
}

# slurm_stop: cancel every job (and wait for them to leave the nodes), then
# stop each daemon by its own pid.
slurm_stop() {
  local i p
  local end=$((SECONDS + 10))
  if [ -n "${SLURM_CONF:-}" ] && [ ${#SLURM_PIDS[@]} -gt 1 ] && kill -0 "${SLURM_PIDS[1]}" 2>/dev/null; then
    timeout 5 scancel --full --quiet --partition=bench >/dev/null 2>&1
    timeout 5 scancel --full --quiet --partition=slow >/dev/null 2>&1
    while [ "$SECONDS" -lt "$end" ]; do
      [ -z "$(timeout 5 squeue -h -t running,completing,pending -o %i 2>/dev/null)" ] && break
      sleep 0.2
    done
  fi
  for p in "${SLURM_PIDS[@]}"; do kill "$p" 2>/dev/null; done
  end=$((SECONDS + 5))
  for p in "${SLURM_PIDS[@]}"; do
    while [ "$SECONDS" -lt "$end" ]; do
      kill -0 "$p" 2>/dev/null || break
      # a zombie counts as stopped (PID 1 may reap late)
      [ "$(ps -o stat= -p "$p" 2>/dev/null | cut -c1)" != Z ] || break
      sleep 0.1
    done
    kill -9 "$p" 2>/dev/null
  done
  SLURM_PIDS=()
  return 0
}

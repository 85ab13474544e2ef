# shellcheck shell=bash
# A throwaway sshd on 127.0.0.1 for the remote-run tests (sourced after
# tests/cli/lib.sh, which made $T): Debian's /usr/sbin/sshd as this test's
# own process, with a host key, a user key, authorized_keys, config and pid
# file all under $T/ssh. It lets in the current user only, with that key.
#   sshd_start   start it (on a free port, the same one on a restart)
#   sshd_stop    stop it and every connection it serves (a dropped link):
#                no new connection, and the established ones (each a
#                per-connection sshd below the listener; with ssh's
#                ControlMaster, one carries every session) cut at once
# After sshd_start: SSH_PORT, and SSH_OPTIONS (the client options, for a
# config file's SSH_OPTIONS line).
SSHD_BIN=${SSHD_BIN:-/usr/sbin/sshd}
SSHD_PID=''
SSH_PORT=''

sshd_setup() {
  mkdir -p "$T/ssh"
  chmod 700 "$T/ssh"
  ssh-keygen -q -t ed25519 -N '' -C bench-test-host -f "$T/ssh/host_key" </dev/null
  ssh-keygen -q -t ed25519 -N '' -C bench-test-user -f "$T/ssh/user_key" </dev/null
  cp "$T/ssh/user_key.pub" "$T/ssh/authorized_keys"
  chmod 600 "$T/ssh/authorized_keys"
  # As root, sshd needs its privilege-separation folder.
  if [ "$(id -u)" -eq 0 ]; then mkdir -p /run/sshd && chmod 755 /run/sshd; fi
  SSH_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  cat >"$T/ssh/sshd_config" <<EOF
ListenAddress 127.0.0.1
HostKey $T/ssh/host_key
PidFile $T/ssh/sshd.pid
AuthorizedKeysFile $T/ssh/authorized_keys
StrictModes no
UsePAM no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowUsers $(id -un)
X11Forwarding no
PrintMotd no
LogLevel ERROR
EOF
  SSH_OPTIONS="-F /dev/null -i $T/ssh/user_key -p $SSH_PORT -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
}

sshd_start() {
  [ -n "$SSH_PORT" ] || sshd_setup
  "$SSHD_BIN" -D -f "$T/ssh/sshd_config" -p "$SSH_PORT" -h "$T/ssh/host_key" -E "$T/ssh/sshd.log" &
  SSHD_PID=$!
  local end=$((SECONDS + 60))
  while [ "$SECONDS" -lt "$end" ]; do
    # shellcheck disable=SC2086 # SSH_OPTIONS is a list of words
    if ssh $SSH_OPTIONS -o ConnectTimeout=5 127.0.0.1 true 2>/dev/null; then return 0; fi
    kill -0 "$SSHD_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "sshd did not start; its log:" >&2
  cat "$T/ssh/sshd.log" >&2
  return 1
}

# The pids of every process below $1, read from /proc in one pass without a
# fork per process (no procps needed; quick on a loaded machine).
descendants() {
  local f line pid rest ppid
  local -A kids=()
  local -a fields todo
  for f in /proc/[0-9]*/stat; do
    read -r line 2>/dev/null <"$f" || continue
    pid=${line%% *}
    rest=${line##*) } # state ppid ...
    read -r -a fields <<<"$rest"
    ppid=${fields[1]:-}
    [ -n "$ppid" ] && kids[$ppid]+=" $pid"
  done
  todo=("$1")
  while [ ${#todo[@]} -gt 0 ]; do
    pid=${todo[0]}
    todo=("${todo[@]:1}")
    for f in ${kids[$pid]:-}; do
      echo "$f"
      todo+=("$f")
    done
  done
}

sshd_stop() {
  [ -n "$SSHD_PID" ] || return 0
  local procs
  # Frozen first, the listener accepts and forks nothing more while its
  # connections are listed; then the listener and every one of them go.
  kill -STOP "$SSHD_PID" 2>/dev/null || true
  procs=$(descendants "$SSHD_PID")
  kill -KILL "$SSHD_PID" 2>/dev/null || true
  # shellcheck disable=SC2086 # a list of pids
  [ -z "$procs" ] || kill -KILL $procs 2>/dev/null || true
  wait "$SSHD_PID" 2>/dev/null || true
  SSHD_PID=''
}

# sshd_connections: the pids of the per-connection sshd processes (the
# listener's children), one a line; none when no connection is open.
sshd_connections() {
  [ -n "$SSHD_PID" ] || return 0
  local f line rest
  local -a fields
  for f in /proc/[0-9]*/stat; do
    read -r line 2>/dev/null <"$f" || continue
    rest=${line##*) }
    read -r -a fields <<<"$rest"
    [ "${fields[1]:-}" = "$SSHD_PID" ] && echo "${line%% *}"
  done
  return 0
}

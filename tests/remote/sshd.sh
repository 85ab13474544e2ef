# shellcheck shell=bash
# A throwaway sshd on 127.0.0.1 for the remote-run tests (sourced after
# tests/cli/lib.sh, which made $T): Debian's /usr/sbin/sshd as this test's
# own process, with a host key, a user key, authorized_keys, config and pid
# file all under $T/ssh. It lets in the current user only, with that key.
#   sshd_start   start it (on a free port, the same one on a restart)
#   sshd_stop    stop it and every connection it serves (a dropped link)
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
  local _
  for _ in $(seq 100); do
    # shellcheck disable=SC2086 # SSH_OPTIONS is a list of words
    if ssh $SSH_OPTIONS -o ConnectTimeout=2 127.0.0.1 true 2>/dev/null; then return 0; fi
    kill -0 "$SSHD_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "sshd did not start; its log:" >&2
  cat "$T/ssh/sshd.log" >&2
  return 1
}

# The pids of every process below $1 (read from /proc: no procps needed).
descendants() {
  local f line pid ppid kids=()
  local -a fields
  for f in /proc/[0-9]*/stat; do
    line=$(cat "$f" 2>/dev/null) || continue
    pid=${line%% *}
    read -r -a fields <<<"${line##*) }" # state ppid ...
    ppid=${fields[1]:-}
    [ "$ppid" = "$1" ] && kids+=("$pid")
  done
  for pid in "${kids[@]}"; do
    echo "$pid"
    descendants "$pid"
  done
}

sshd_stop() {
  [ -n "$SSHD_PID" ] || return 0
  local procs
  procs=$(descendants "$SSHD_PID")
  kill -KILL "$SSHD_PID" 2>/dev/null || true
  # shellcheck disable=SC2086 # a list of pids
  [ -z "$procs" ] || kill -KILL $procs 2>/dev/null || true
  wait "$SSHD_PID" 2>/dev/null || true
  SSHD_PID=''
}

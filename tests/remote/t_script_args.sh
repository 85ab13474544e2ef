#!/usr/bin/env bash
# scripts/run_presets_remote.sh and run_presets_slurm.sh against shell and
# option injection (issue 28: the class held; kept as a test). No real ssh or
# Slurm: a fake `ssh` first in PATH records its argv and hands the remote
# command to `sh -c`, as a remote login shell would, with a fake `bash`
# there that records the words it got (the agent's VERB ROOT ARGS...) and
# answers like the agent; fake sinfo/sbatch/scancel record theirs. Payloads
# in REMOTE_PATH, the host, the tag, presets, plugin globs and bench's
# arguments each try to touch a marker file: no marker may appear, and each
# payload is either refused with one clear line or arrives as one literal
# word.
# shellcheck disable=SC2015,SC2016,SC2012 # `test && ok || fail` (ok never fails); payloads are literal; ls of our own names
# shellcheck source=tests/cli/lib.sh
. "$SRC/tests/cli/lib.sh"
REMOTE=$SRC/scripts/run_presets_remote.sh
SLURM=$SRC/scripts/run_presets_slurm.sh
export BENCH

# Every payload touches "$MARK<letter>": MARK comes from the environment,
# so a payload needs no '/' (which would make a preset a file path).
export MARK=$T/pwned-
FAKE=$T/fakebin RBIN=$T/remotebin
export LOGDIR=$T/log
mkdir -p "$FAKE" "$RBIN" "$LOGDIR"

# ssh OPTS... -- HOST COMMAND: argv recorded (one word per line, a record
# per call, NUL-ended); the command run by sh with the remote's PATH.
cat >"$FAKE/ssh" <<'SH'
#!/usr/bin/env bash
{ printf '%s\n' "$@"; printf '\0'; } >>"$LOGDIR/ssh.argv"
last=${!#}
PATH=$REMOTE_BIN:$PATH exec sh -c "$last"
SH
# The agent: each word on a line, records NUL-ended; answers prepare and list.
cat >"$RBIN/bash" <<'SH'
#!/bin/sh
shift 2 # -c AGENT
{ printf '%s\n' "$@" "setup=$BENCH_REMOTE_SETUP"; printf '\0'; } >>"$LOGDIR/agent.argv"
case $2 in
prepare) echo "date $(date +%F)"; echo "nproc 2" ;;
list) echo fx_ok ;;
start) exit 2 ;;
esac
exit 0
SH
printf '#!/bin/sh\nexit 12\n' >"$RBIN/rsync"
chmod +x "$FAKE/ssh" "$RBIN/bash" "$RBIN/rsync"
export REMOTE_BIN=$RBIN

no_marker() {
  local m
  m=$(ls -d "$MARK"* 2>/dev/null)
  if [ -z "$m" ]; then ok; else fail "$1: a payload ran: $m"; rm -f "$MARK"*; fi
}

# run_remote WHAT ARGS...: the remote script with the fake ssh; stdout and
# stderr in $T/out, the recorded words fresh for each run.
run_remote() {
  local what=$1
  shift
  rm -f "$LOGDIR"/*
  (cd "$T" && PATH=$FAKE:$PATH timeout 120 "$REMOTE" --no-sync --no-build --results-dir "$T/r" "$@" >"$T/out" 2>&1 </dev/null)
  RC=$?
  [ "$RC" -ne 124 ] && ok || fail "$what: the script hung"
  no_marker "$what"
}

# agent_has WHAT WORD: some agent call got WORD as one whole word.
agent_has() {
  if [ -f "$LOGDIR/agent.argv" ] && python3 - "$LOGDIR/agent.argv" "$2" <<'PY'; then ok; else fail "$1: no agent call got the word '$2' whole"; head -c 2000 "$LOGDIR/agent.argv" | tr '\0' '|'; echo; fi
import sys
recs = open(sys.argv[1], encoding="utf-8", errors="replace").read().split("\0")
want = sys.argv[2]
# a word may hold newlines: compare against each record's text
sys.exit(0 if any(("\n" + want + "\n") in ("\n" + r) for r in recs) else 1)
PY
}

# ssh_host_after_dashdash WHAT HOST: every ssh call has `--` right before HOST.
ssh_dashdash() {
  if [ -f "$LOGDIR/ssh.argv" ] && python3 - "$LOGDIR/ssh.argv" "$2" <<'PY'; then ok; else fail "$1: an ssh call without '--' before the host"; tr '\0' '|' <"$LOGDIR/ssh.argv" | head -c 2000; echo; fi
import sys
recs = [r for r in open(sys.argv[1], encoding="utf-8").read().split("\0") if r.strip()]
host = sys.argv[2]
ok = bool(recs)
for r in recs:
    w = r.split("\n")
    if "--" not in w: ok = False; continue
    i = w.index("--")
    if w[i + 1] != host: ok = False
    # nothing before -- is the host or starts the host's text
    if any(host in x for x in w[:i]): ok = False
sys.exit(0 if ok else 1)
PY
}

# --- REMOTE_PATH payloads: quoted for the remote shell, one literal word.
n=0
for rp in 'rp$(touch ${MARK}a)' 'rp`touch ${MARK}b`' 'rp;touch ${MARK}c' $'rp\ntouch ${MARK}d' \
  "rp'\$(touch \${MARK}e)'" 'rp"$(touch ${MARK}f)"' 'rp|touch ${MARK}g' 'rp&&touch ${MARK}h'; do
  n=$((n + 1))
  run_remote "REMOTE_PATH #$n" --remote-path "$rp" host1 smoke fx_ok
  agent_has "REMOTE_PATH #$n" "$rp"
  ssh_dashdash "REMOTE_PATH #$n" host1
  expect_not_in "$T/out" 'command not found|syntax error|unexpected' "REMOTE_PATH #$n output"
done
# ... also from a configuration file (read as data, never sourced).
printf 'REMOTE_HOST=host1\nREMOTE_PATH=rp$(touch ${MARK}i)\n' >"$T/remote.conf"
run_remote "REMOTE_PATH in the config" --config "$T/remote.conf" - smoke fx_ok
agent_has "REMOTE_PATH in the config" 'rp$(touch ${MARK}i)'

# --- hosts: never an ssh option.
run_remote "host -oProxyCommand" '-oProxyCommand=touch${IFS}${MARK}j' smoke fx_ok
expect_rc 2 "a host that is an option"
expect_in "$T/out" "^run_presets_remote.sh: error: unknown option '-oProxyCommand" "a host that is an option"
[ ! -s "$LOGDIR/ssh.argv" ] && ok || fail "ssh ran for a host that is an option"
printf 'REMOTE_HOST=-oProxyCommand=touch${IFS}${MARK}j2\n' >"$T/host.conf"
run_remote "REMOTE_HOST -oProxyCommand" --config "$T/host.conf" - smoke fx_ok
expect_rc 2 "a configured host that is an option"
expect_in "$T/out" "^run_presets_remote.sh: error: bad HOST '-oProxyCommand" "a configured host that is an option"
[ ! -s "$LOGDIR/ssh.argv" ] && ok || fail "ssh ran for a configured host that is an option"
H='x@-oProxyCommand=touch${IFS}${MARK}k'
run_remote "host x@-oProxyCommand" "$H" smoke fx_ok
ssh_dashdash "host x@-oProxyCommand" "$H"
H='h;touch${IFS}${MARK}l'
run_remote "host with ;" "$H" smoke fx_ok
ssh_dashdash "host with ;" "$H"

# --- tag, preset, plugin glob, bench arguments: literal words on the remote.
run_remote "tag" --tag 't$(touch ${MARK}m);x' host1 smoke fx_ok
agent_has "tag" 't$(touch ${MARK}m);x'
run_remote "preset" host1 'smoke$(touch ${MARK}n)' fx_ok
agent_has "preset" 'smoke$(touch ${MARK}n)'
run_remote "plugin glob" host1 smoke 'fx_*;touch ${MARK}o'
agent_has "plugin glob" 'fx_*;touch ${MARK}o'
run_remote "bench arguments" host1 smoke fx_ok -- --param 'n=`touch ${MARK}p`'
agent_has "bench arguments" 'n=`touch ${MARK}p`'
run_remote "ssh option" --ssh-option '-oProxyCommand=touch ${MARK}q' host1 smoke fx_ok
# (an --ssh-option is the user's own: it reaches ssh as one word, not a shell)
[ -f "$LOGDIR/ssh.argv" ] && grep -qxF -- '-oProxyCommand=touch ${MARK}q' "$LOGDIR/ssh.argv" && ok || fail "--ssh-option not one word"

# --- run_presets_slurm.sh: fake Slurm tools; the payloads end up in the
# task files as NUL-separated words and on sbatch's command line as words.
for tool in sinfo squeue scancel scontrol sbatch sacct; do
  cat >"$FAKE/$tool" <<'SH'
#!/usr/bin/env bash
{ printf '%s\n' "${0##*/}" "$@"; printf '\0'; } >>"$LOGDIR/slurm.argv"
case ${0##*/} in
sinfo) case " $* " in *' -N '*) echo "node1 idle" ;; *%P*) echo "debug*" ;; *) echo "node1" ;; esac ;;
scontrol) echo node1 ;;
sbatch)
  # Refuse, or run the array's tasks here and now, as a node would.
  [ -n "${FAKE_SBATCH_RUN:-}" ] || exit 1
  for a; do case $a in --array=*) ids=${a#--array=} ;; --chdir=*) cd "${a#--chdir=}" || exit 1 ;; esac; done
  for i in ${ids//,/ }; do SLURM_ARRAY_TASK_ID=$i SLURM_JOB_ID=42 bash "${@: -2:1}" "${@: -1}" >/dev/null 2>&1; done
  echo 42 ;;
esac
exit 0
SH
  chmod +x "$FAKE/$tool"
done
run_slurm() {
  local what=$1
  shift
  rm -f "$LOGDIR"/*
  (cd "$T" && PATH=$FAKE:$PATH timeout 120 "$SLURM" --no-build --poll 0.1 --results-dir "$T/rs" "$@" >"$T/out" 2>&1 </dev/null)
  RC=$?
  [ "$RC" -ne 124 ] && ok || fail "$what: the script hung"
  no_marker "$what"
}
run_slurm "slurm payloads" --partition 'debug$(touch ${MARK}r)' --nodelist 'node1;touch ${MARK}s' \
  'smoke`touch ${MARK}t`' 'fx_*$(touch ${MARK}u)' -- --param 'n=$(touch ${MARK}v)'
expect_not_in "$T/out" 'command not found|syntax error' "slurm payloads"
# The same payloads run through the task script on a "node" (the fake sbatch
# runs it): bench gets them as words and refuses them.
FAKE_SBATCH_RUN=1 run_slurm "slurm task" --partition debug --tag-by partition \
  "$SRC/tests/cli/presets/fast.ini" 'fx_ok,fx_*$(touch ${MARK}u2)' -- --plugin-dir "$FX_GOOD" --param 'n=$(touch ${MARK}v2)'
expect_rc 2 "slurm task: bench refused the glob"
log=$(ls "$T"/rs/logs/*_fast_debug.log 2>/dev/null | tail -n 1)
[ -n "$log" ] && ok || fail "slurm task: no log"
[ -z "$log" ] || expect_in "$log" "^bench: error: no plugin named 'fx_\*\\\$\(touch \\\$\{MARK\}u2\)'" "slurm task log"
rm -rf "$T/rs"
FAKE_SBATCH_RUN=1 run_slurm "slurm task param" --partition debug --tag-by partition \
  "$SRC/tests/cli/presets/fast.ini" fx_ok -- --plugin-dir "$FX_GOOD" --param 'n=$(touch ${MARK}v2)'
expect_rc 2 "slurm task: bench refused the parameter"
log=$(ls "$T"/rs/logs/*_fast_debug.log 2>/dev/null | tail -n 1)
[ -n "$log" ] && ok || fail "slurm task param: no log"
[ -z "$log" ] || expect_in "$log" '^bench: error: .*n=\$\(touch \$\{MARK\}v2\)' "slurm task param log"
run_slurm "slurm account" --partition debug --account 'a;touch ${MARK}w' smoke fx_ok
if [ -f "$LOGDIR/slurm.argv" ] && grep -qxF -- '--account=a;touch ${MARK}w' "$LOGDIR/slurm.argv"; then ok
elif grep -q "account" "$T/out"; then ok
else fail "slurm --account: neither one word for sbatch nor refused"; cat "$T/out"; fi

# --- bench's own CLI: names with shell metacharacters are data.
run_bench --preset "$SRC/tests/cli/presets/fast.ini" --plugin-dir "$FX_GOOD" --plugin 'fx_ok;touch${IFS}${MARK}x' \
  --results-dir "$T/rb"
no_marker "bench --plugin"
expect_in "$T/err" "^bench: error: no plugin named 'fx_ok;touch" "bench --plugin"
run_bench --preset "$SRC/tests/cli/presets/fast.ini" --plugin-dir "$FX_GOOD" --plugin fx_ok --tag 'x$(touch ${MARK}y)' \
  --results-dir "$T/rb"
no_marker "bench --tag"
expect_rc_below_128() { [ "$RC" -lt 128 ] && ok || fail "$1: bench died of signal $((RC - 128))"; }
expect_rc_below_128 "bench --tag"
finish

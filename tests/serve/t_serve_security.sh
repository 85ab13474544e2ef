#!/usr/bin/env bash
# bench serve's limits (docs/serve.md), from outside, over 127.0.0.1:
# path traversal on /files/ (../ and its percent-encodings, backslashes,
# %00, // and a/../.., a symlink and a symlinked folder inside the folder
# pointing out) all 404 and never the outside file, a real result file
# served; only GET and HEAD (405); the token on --bind 0.0.0.0 and with
# --token-file (401 without or wrong; ?token=, the cookie bench_token,
# Authorization: Bearer); a loopback bind refuses Host evil.example (421);
# 1,000 connections at once (half idle, half /events) against
# --max-clients 256: alive, the excess refused, RSS bounded, served again
# after; a client that stops reading /events during a 10 MB flood of events:
# the others get every event, it is dropped (--timeout 3), RSS bounded;
# 10 MB requests (a header, a request line, a POST body) refused; hostile
# strings in an events file and its name shown as text in Chromium
# (window.__pwned undefined, body data-errors 0); the folder deleted while
# serving: one line on stderr, /status.json answers with a notice, serving
# resumes when the folder is back. The checks are in security.py.
# shellcheck source=tests/serve/lib.sh
. "$(dirname "$0")/lib.sh"
need_chromium
need_python_selenium
# a real run's result files to serve
"$BENCH" run --preset "$SRC/tests/cli/presets/fast.ini" --plugin-dir "$FX_GOOD" --plugin fx_ok \
  --results-dir "$T/res" >"$T/run.out" 2>"$T/run.err"
rc=$?
expect_eq "$rc" 0 "the run that makes the result files"
files=("$T"/res/*.json)
expect_nonempty "result files" "${files[@]}"
export T BENCH
run_py "$HERE/security.py"
finish

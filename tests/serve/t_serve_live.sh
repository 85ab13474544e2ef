#!/usr/bin/env bash
# bench serve in a browser (docs/serve.md): a fresh results folder served
# with --heartbeat 1 while a run writes its events there (tests/serve/live.ini:
# fast OK cases, an ERROR, a hang of 8 s, a wrong answer); the page, opened
# in headless Chromium during the run, shows each case as it finishes while
# the run goes on, the long case's heartbeats, reconnects when the server is
# killed and started again on its port, and ends with exactly the TEST_END
# events of the file, each once (plugin, index, case, status). Then bench
# run --serve: its server's start line, and its page shows the run's cases.
# Screenshots at 1400 and 400 px: $BUILD/tests/serve/screens (not in git).
# The checks are in live.py (servelib.py's ok/FAIL lines, counted here).
# shellcheck source=tests/serve/lib.sh
. "$(dirname "$0")/lib.sh"
need_chromium
need_python_selenium
mkdir -p "$SCREENS"
export T BENCH FX_GOOD SRC
run_py "$HERE/live.py"
echo "screenshots: $SCREENS"
finish

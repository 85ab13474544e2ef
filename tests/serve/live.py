"""serve.t_serve_live's browser part (tests/serve/t_serve_live.sh runs it).

Part 1: bench serve on a fresh results folder and a run writing its events
there; the page in headless Chromium during the run shows the cases as they
finish, the heartbeats of the long case, reconnects when the server is
restarted on its port, and ends with exactly the run's TEST_END events,
each once. Part 2: bench run --serve starts its own server. Screenshots at
1400 and 400 px go to $SCREENS.
Environment: BENCH, FX_GOOD, SRC, T (the test's folder).
"""
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from servelib import (Proc, Server, all_rows, browser, check, dom, find_start_line, main_guard, note,  # noqa: E402
                      num, read_events, screenshot, set_width, wait_for)

BENCH = os.environ["BENCH"]
FX = os.environ["FX_GOOD"]
SRC = os.environ["SRC"]
T = os.environ["T"]
PRESET = os.path.join(SRC, "tests/serve/live.ini")
PLUGINS = "fx_env,fx_error,fx_hang,fx_noisy,fx_ok,fx_wrong"
HANG = "fx_hang"
W = 60  # seconds: the bound of a wait for the page (both cores may be busy)


def ends_of(path):
    return [e for e in read_events(path) if e.get("event") == "TEST_END"]


def suite_ended(path):
    return any(e.get("event") == "SUITE_END" for e in read_events(path))


def keyset(rows):
    return sorted((r["plugin"], int(r["index"]), r["status"], r["kase"]) for r in rows)


def endset(ends):
    return sorted((e["plugin"], int(e["index"]), e["status"], e["case"]) for e in ends)


def compare_rows(state, ends, what):
    rows = all_rows(state)
    got, want = keyset(rows), endset(ends)
    dups = len(got) - len(set(got))
    check(dups == 0, what + ": no row twice", "%d duplicated rows: %s" % (dups, got))
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    check(not missing, what + ": every TEST_END of the events file has its row", "missing %s" % missing)
    check(not extra, what + ": no row that is not a TEST_END of the events file", "extra %s" % extra)
    check(len(rows) == len(ends), what + ": as many rows as TEST_END events",
          "%d rows, %d TEST_END" % (len(rows), len(ends)))


def part_live(d):
    res = os.path.join(T, "live")
    os.makedirs(os.path.join(res, "events"))
    events = os.path.join(res, "events", "run.jsonl")
    srv = Server(BENCH, res, os.path.join(T, "serve1.err"), ["--heartbeat", "1"])
    check(srv.token is None, "no token on a loopback bind without --token-file", srv.start_line)
    check(srv.start_line.endswith("/") and ("serving %s at http://127.0.0.1:%d/" % (res, srv.port)) in srv.start_line,
          "the start line names the folder and the address", srv.start_line)
    run = Proc([BENCH, "run", "--preset", PRESET, "--plugin-dir", FX, "--plugin", PLUGINS, "--results-dir", res,
                "--events", events], os.path.join(T, "run1.err"), stdout=os.path.join(T, "run1.out"))
    srv2 = None
    try:
        check(wait_for(W, lambda: read_events(events)), "the run wrote its SUITE_START")
        d.get(srv.url)
        if not check(wait_for(W, lambda: dom(d)["ready"] == "1"), "the page is ready (body data-ready=1)"):
            return  # no page to read back: the rest would fail for that one reason

        # cases appear as they finish, while the run goes on: rows present
        # while the long case runs and before SUITE_END is in the file
        def during_hang():
            s = dom(d)
            suites = s["suites"]
            if len(suites) != 1 or not suites[0]["rows"] or not suites[0]["running"]:
                return None
            return s if suites[0]["running"]["plugin"] == HANG else None

        s = wait_for(W, during_hang)
        ended_then = suite_ended(events)
        if check(s is not None, "while the long case runs, the page shows it running and rows of finished cases",
                 dom(d)):
            check(not ended_then, "rows shown before the run's SUITE_END")
            sec = s["suites"][0]
            check(sec["state"] == "running", "the suite is running", sec["state"])
            check(sec["stream"] == "events/run.jsonl", "the suite names its stream", sec["stream"])
            check(sec["total"] == "9", "the suite's data-total is the run's 9 cases", sec["total"])
            done = ends_of(events)
            got = keyset(all_rows(s))
            check(set(got) <= set(endset(done)), "every row shown is a TEST_END already written",
                  (got, endset(done)))
            check(s["errors"] == "0", "no script error so far", s["errors"])
        hb = wait_for(W, lambda: (lambda r: r if r and r["plugin"] == HANG and num(r["heartbeats"]) >= 2 else None)(
            dom(d)["suites"][0]["running"]))
        check(hb is not None, "the long case's heartbeats arrive (data-heartbeats >= 2)", dom(d)["suites"])
        if hb:
            check(num(hb["elapsed"]) >= 0, "the running case has its elapsed time", hb)
        screenshot(d, "live-1400-running.png")
        set_width(d, 400)
        screenshot(d, "live-400-running.png")
        wide = d.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
        check(wide[0] <= wide[1] + 1, "at 400 px the page does not scroll sideways (tables scroll in their box)", wide)
        set_width(d, 1400)

        # restart the server on its port during the run
        hellos = num(dom(d)["conn"]["hellos"])
        check(hellos >= 1, "one hello before the restart", dom(d)["conn"])
        port = srv.port
        check(not suite_ended(events), "the server is restarted mid-run (no SUITE_END yet)")
        restart_ts = time.time()
        srv.stop(signal.SIGKILL)
        check(wait_for(W, lambda: dom(d)["conn"]["state"] in ("connecting", "reconnecting")),
              "the page sees the server gone (#conn connecting or reconnecting)", dom(d)["conn"])
        srv2 = Server(BENCH, res, os.path.join(T, "serve2.err"), ["--heartbeat", "1"], port=port, tries=20)
        check(srv2.port == port, "the server restarted on the same port", srv2.start_line)
        c = wait_for(W, lambda: (lambda c: c if num(c["hellos"]) >= hellos + 1 and c["state"] == "open" else None)(
            dom(d)["conn"]))
        check(c is not None, "the page reconnected to the restarted server (data-hellos >= 2, open)", dom(d)["conn"])

        rc = run.wait(180)
        check(rc == 1, "the run ended with exit status 1 (3 failed cases)", rc)
        ends = ends_of(events)
        check(len(ends) == 9, "9 TEST_END events in the file", len(ends))
        fin = wait_for(W, lambda: (lambda s: s if s["suites"] and s["suites"][0]["state"] == "ended" and
                                   len(all_rows(s)) >= len(ends) else None)(dom(d)))
        check(fin is not None, "the page shows the suite ended with all its rows", dom(d)["suites"])
        s = dom(d)
        compare_rows(s, ends, "after the restart")
        # each case appeared as it finished: the rows of the cases before
        # the hang were seen before the run's end; cases that ended after
        # the restart came through the new server
        end_ts = [e["ts"] for e in read_events(events) if e.get("event") == "SUITE_END"]
        early = [r for r in all_rows(s) if int(r["index"]) < 3]
        check(len(early) == 3 and end_ts and all(num(r["seen_ms"]) < end_ts[0] * 1000 for r in early),
              "the first 3 cases' rows were seen (data-seen-ms) before the SUITE_END's ts",
              ([(r["index"], r["seen_ms"]) for r in early], end_ts))
        late = [e for e in ends if e["ts"] > restart_ts]
        check(len(late) >= 4, "cases finished after the restart (%d) and are shown" % len(late), len(late))
        if s["suites"]:
            sec = s["suites"][0]
            check((sec["done"], sec["total"], sec["failed"]) == ("9", "9", "3"),
                  "the suite's done/total/failed are 9/9/3", (sec["done"], sec["total"], sec["failed"]))
            by = {(r["plugin"], r["kase"]): r for r in sec["rows"]}
            st = {k: r["status"] for k, r in by.items()}
            check(st.get(("fx_hang", "n=8")) == "TIMEOUT" and st.get(("fx_wrong", "n=8")) == "WRONG_ANSWER" and
                  st.get(("fx_error", "n=8")) == "ERROR" and st.get(("fx_ok", "n=16")) == "OK",
                  "the rows' statuses", st)
            r = by.get(("fx_wrong", "n=8"))
            check(r is not None and any("tolerance" in c for c in r["cells"]), "the failed case's row shows its message",
                  r)
            r = by.get(("fx_ok", "n=8"))
            check(r is not None and len(r["cells"]) >= 7 and r["cells"][0] == "fx_ok" and r["cells"][1] == "n=8" and
                  r["cells"][2] == "OK", "an OK row's cells: plugin, case, status first", r)
        check(s["errors"] == "0", "no script error on the page (body data-errors 0)", s["errors"])
        check(wait_for(W, lambda: num(dom(d)["conn"]["pings"]) >= 1), "pings counted once the streams are idle",
              dom(d)["conn"])
        screenshot(d, "live-1400-end.png")
        set_width(d, 400)
        screenshot(d, "live-400-end.png")
        set_width(d, 1400)
        note("conn at the end: %s" % dom(d)["conn"])
        # a page opened after the run: the whole run from the log, once
        d.get(srv2.url)
        late_page = wait_for(W, lambda: (lambda s: s if s["ready"] == "1" and s["suites"] and
                                         s["suites"][0]["state"] == "ended" and len(all_rows(s)) >= len(ends)
                                         else None)(dom(d)))
        check(late_page is not None, "a page opened after the run shows it ended with its rows", dom(d)["suites"])
        compare_rows(dom(d), ends, "a page opened after the run")
    finally:
        run.stop()
        srv.stop()
        if srv2:
            srv2.stop()


def part_run_serve(d):
    res = os.path.join(T, "runserve")
    os.makedirs(res)
    run = Proc([BENCH, "run", "--preset", PRESET, "--plugin-dir", FX, "--plugin", "fx_ok,fx_hang,fx_wrong",
                "--results-dir", res, "--serve", "--serve-port", "0"], os.path.join(T, "run2.err"),
               stdout=os.path.join(T, "run2.out"))
    try:
        m = wait_for(W, lambda: find_start_line(run.text()))
        if not check(m is not None, "bench run --serve prints the server's start line", run.text()):
            return
        check(m.group(1) == res and m.group(3) == "127.0.0.1" and not m.group(5),
              "its start line: the run's folder on 127.0.0.1, no token", m.group(0))
        d.get(m.group(2))
        if not check(wait_for(W, lambda: dom(d)["ready"] == "1"), "the --serve page is ready"):
            return
        evdir = os.path.join(res, "events")
        files = wait_for(W, lambda: [f for f in os.listdir(evdir) if f.endswith(".jsonl")])
        check(files and len(files) == 1, "one events file in the folder's events/", files)
        if not files:
            return
        events = os.path.join(evdir, files[0])
        # the page has the running case or its rows while the run goes on
        live = wait_for(W, lambda: (lambda s: s if s["suites"] and (all_rows(s) or s["suites"][0]["running"]) else None)(
            dom(d)))
        check(live is not None and not suite_ended(events), "the --serve page shows the run while it runs",
              dom(d)["suites"])
        rc = run.wait(180)
        check(rc == 1, "the --serve run ended with exit status 1 (2 failed cases)", rc)
        ends = ends_of(events)
        check(len(ends) == 5, "5 TEST_END events in %s" % files[0], len(ends))
        start = read_events(events)[:1]
        check(start and start[0].get("event") == "SUITE_START", "the events file starts with SUITE_START", start)
        fin = wait_for(W, lambda: (lambda s: s if s["suites"] and s["suites"][0]["state"] == "ended" else None)(dom(d)))
        check(fin is not None, "the --serve page saw the run's end before its server stopped", dom(d)["suites"])
        s = dom(d)
        compare_rows(s, ends, "bench run --serve")
        check(s["suites"] and s["suites"][0]["stream"] == "events/" + files[0], "the suite's stream is the run's file",
              s["suites"][0]["stream"] if s["suites"] else None)
        check(s["errors"] == "0", "no script error on the --serve page", s["errors"])
        screenshot(d, "run-serve-1400-end.png")
        check("bench serve: stopped" in run.text(), "the run's server stopped with the run", run.text()[-2000:])
    finally:
        run.stop()


def main():
    d = browser(1400)
    try:
        part_live(d)
        part_run_serve(d)
    finally:
        d.quit()


if __name__ == "__main__":
    main_guard(main)

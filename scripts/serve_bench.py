"""bench serve's figures (scripts/serve_bench.sh runs it): latency from a
case's end (TEST_END ts) to the page showing its row (the row's data-seen-ms
less data-ts * 1000), median and max over one run; the server's CPU share
while it streams that run (utime + stime from /proc/PID/stat over the wall
time); its RSS with 100 SSE clients connected. Prints a small table.
Environment: BENCH, T (a scratch folder), RUN_ARGS (the run's arguments, one
a line), REPO (the checkout, for tests/serve/servelib.py).
"""
import os
import select
import socket
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.environ["REPO"], "tests", "serve"))
from servelib import Proc, Server, all_rows, browser, cpu_ticks, dom, num, read_events, rss_kib, status_json, wait_for  # noqa: E402

BENCH = os.environ["BENCH"]
T = os.environ["T"]
RUN_ARGS = [a for a in os.environ.get("RUN_ARGS", "").split("\n") if a]
HZ = os.sysconf("SC_CLK_TCK")


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def main():
    res = os.path.join(T, "res")
    os.makedirs(os.path.join(res, "events"))
    events = os.path.join(res, "events", "run.jsonl")
    srv = Server(BENCH, res, os.path.join(T, "serve.err"), ["--heartbeat", "1", "--max-clients", "256"])
    d = browser(1400)
    socks = []
    try:
        d.get(srv.url)
        if not wait_for(60, lambda: dom(d)["ready"] == "1"):
            sys.exit("serve_bench: the page never became ready (body data-ready=1)")
        t0, c0 = time.monotonic(), cpu_ticks(srv.pid)
        run = Proc([BENCH, "run"] + RUN_ARGS + ["--results-dir", res, "--events", events],
                   os.path.join(T, "run.err"), stdout=os.path.join(T, "run.out"))
        rc = run.wait(3600)
        ends = [e for e in read_events(events) if e.get("event") == "TEST_END"]
        shown = wait_for(60, lambda: (lambda s: s if len(all_rows(s)) >= len(ends) else None)(dom(d)))
        t1, c1 = time.monotonic(), cpu_ticks(srv.pid)
        run.stop()
        if not ends:
            sys.exit("serve_bench: the run (exit status %s) wrote no TEST_END; its stderr:\n%s" % (rc, run.text()[-3000:]))
        rows = all_rows(shown or dom(d))
        lat = [num(r["seen_ms"]) - num(r["ts"]) * 1000 for r in rows if r["seen_ms"] and r["ts"]]
        cpu = (c1 - c0) / HZ / (t1 - t0)
        # 100 SSE clients
        for _ in range(100):
            c = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
            c.sendall(("GET /events HTTP/1.0\r\nHost: 127.0.0.1:%d\r\n\r\n" % srv.port).encode())
            c.setblocking(False)
            socks.append(c)

        def drain():
            r, _, _ = select.select(socks, [], [], 0.05)
            for c in r:
                try:
                    c.recv(1 << 20)
                except OSError:
                    pass
            j = status_json(srv.port)
            return j and j["clients"] >= 101

        all_in = wait_for(60, drain, interval=0.05)
        wait_for(1, lambda: drain() and False, interval=0.05)  # each got its backlog of the run's events
        rss = rss_kib(srv.pid)
        hwm = rss_kib(srv.pid, "VmHWM")
        print("bench serve figures (%s)" % time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
        print("%-44s %s" % ("CPU", cpu_model()))
        print("%-44s %s" % ("run", " ".join(RUN_ARGS)))
        print("%-44s %d cases (%d rows on the page), exit status %s, %.1f s" % ("cases", len(ends), len(rows), rc, t1 - t0))
        if lat:
            print("%-44s %.0f ms median, %.0f ms max (%d rows)" % ("TEST_END to row shown", statistics.median(lat),
                                                                  max(lat), len(lat)))
        else:
            print("%-44s n/a (no row had data-seen-ms and data-ts)" % "TEST_END to row shown")
        print("%-44s %.2f%% of one core (%d ticks of 1/%d s over %.1f s%s)" % (
            "server CPU while streaming the run", 100 * cpu, c1 - c0, HZ, t1 - t0,
            ": a longer run gives a finer figure" if c1 - c0 < 20 else ""))
        print("%-44s %.1f MiB (peak %.1f MiB)%s" % ("server RSS, 100 SSE clients + the page", rss / 1024, hwm / 1024,
                                                   "" if all_in else " (not all 100 counted by /status.json)"))
    finally:
        for c in socks:
            c.close()
        d.quit()
        srv.stop()


if __name__ == "__main__":
    main()

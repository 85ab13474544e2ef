"""serve.t_serve_security's checks (tests/serve/t_serve_security.sh runs it).

Environment: BENCH, T (the test's folder, holding res/: a real run's results
folder), SKIP_BROWSER=1 to leave out the part in Chromium.
Bounds stated: RSS under BASE + 48 MiB with 1,000 connections at once, under
BASE + 96 MiB (per 12 MB) after a flood of at least 10 MB of events with a
stalled client; the stalled client dropped within 60 s.
"""
import json
import os
import resource
import shutil
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from servelib import (Server, all_rows, browser, check, dom, fail, main_guard, note, num, pid_alive,  # noqa: E402
                      raw_request, request, rss_kib, status_json, wait_for)

BENCH = os.environ["BENCH"]
T = os.environ["T"]
RES = os.path.join(T, "res")
SECRET = b"SECRET-OUTSIDE-7f3a"
MIB = 1024


def srv(name, d, *args, **kw):
    return Server(BENCH, d, os.path.join(T, name + ".err"), list(args), **kw)


def a_result_file():
    names = sorted(f for f in os.listdir(RES) if f.endswith(".json"))
    return names[0]


# ---- paths ------------------------------------------------------------------

def part_paths():
    outside = os.path.join(T, "outside")
    os.makedirs(outside, exist_ok=True)
    with open(os.path.join(T, "secret.json"), "wb") as f:
        f.write(SECRET + b"\n")
    with open(os.path.join(outside, "secret.json"), "wb") as f:
        f.write(SECRET + b"\n")
    os.symlink(os.path.join(T, "secret.json"), os.path.join(RES, "link.json"))
    os.symlink(outside, os.path.join(RES, "linkdir"))
    os.makedirs(os.path.join(RES, "a"), exist_ok=True)
    # an events file that is a symlink is not followed either
    with open(os.path.join(outside, "ev.jsonl"), "w") as f:
        f.write(json.dumps({"event": "SUITE_START", "ts": time.time(), "total_cases": 1, "plugins": ["SECRETPLUGIN"],
                            "preset": "x", "tag": None}) + "\n")
    os.makedirs(os.path.join(RES, "events"), exist_ok=True)
    os.symlink(os.path.join(outside, "ev.jsonl"), os.path.join(RES, "events", "link.jsonl"))
    real = a_result_file()
    with open(os.path.join(RES, real), "rb") as f:
        real_body = f.read()
    s = srv("paths", RES)
    try:
        st, h, body = request(s.port, "/files/" + real)
        check(st == 200 and body == real_body, "a real result file is served whole (200)", (st, len(body)))
        check(h.get("content-type", "").startswith("application/json"), "as application/json", h.get("content-type"))
        st, h, body = request(s.port, "/files/" + real, method="HEAD")
        check(st == 200 and h.get("content-length") == str(len(real_body)), "HEAD of it: 200 and its length",
              (st, h.get("content-length")))
        st, _, body = request(s.port, "/files/rollup.csv")
        check(st == 200 and body.startswith(b"plugin") or st == 200, "the rollup CSV is served", st)
        # only the listed kinds of file: an HTML or script file in the folder is not served from this origin
        for name in ("evil.html", "evil.js", "evil.svg", "run.sh", "noext"):
            with open(os.path.join(RES, name), "w") as f:
                f.write("<script>window.__pwned=1</script>\n")
            st, _, _ = request(s.port, "/files/" + name)
            check(st == 404, "/files/%s (not .json .txt .csv .jsonl .md): 404" % name, st)
        st, h, body = request(s.port, "/")
        check(st == 200 and h.get("x-content-type-options") == "nosniff" and
              "default-src 'none'" in h.get("content-security-policy", ""),
              "the page comes with nosniff and a Content-Security-Policy", h)
        st, h, body = request(s.port, "/report")
        check(st == 200 and h.get("content-type", "").startswith("text/html") and b"<html" in body.lower(),
              "/report: the report page", (st, h.get("content-type")))
        st, h, body = request(s.port, "/data.json")
        data = json.loads(body) if st == 200 else {}
        check(st == 200 and isinstance(data.get("cases"), list) and data["cases"],
              "/data.json: the report's data with its cases", (st, list(data)[:8]))
        bad = [
            "/files/%0a" + real, "/files/a%0d%0a" + real, "/files/%7f" + real,
            "/files/../secret.json", "/files/%2e%2e/secret.json", "/files/..%2fsecret.json",
            "/files/%2E%2E%2Fsecret.json", "/files/.%2e/secret.json", "/files/%2e./secret.json",
            "/files/%2e%2e%2f%2e%2e%2fsecret.json", "/files/a/../../secret.json", "/files/a/%2e%2e/%2e%2e/secret.json",
            "/files//etc/passwd", "//etc/passwd", "/files/../../../../../../etc/passwd",
            "/files/%2F" + "etc/passwd", "/files/..\\secret.json", "/files/a\\..\\..\\secret.json",
            "/files/..%5csecret.json", "/files/..%5Csecret.json", "/files/%5c%2e%2e%5csecret.json",
            "/files/" + real + "%00", "/files/" + real + "%00.json", "/files/secret.json%00.json",
            "/files/link.json", "/files/linkdir/secret.json", "/files/./" + real, "/files/a/./../" + real,
            "/files/" + real + "/", "/files/" + real.replace(".json", ".JSON"), "/files/", "/files/a",
            "/files/events", "/files/%2e%2e", "/files/..", "/files/.%2E/%2E./secret.json",
            "/files/%252e%252e/secret.json", "/files/..;/secret.json", "/files/%c0%ae%c0%ae/secret.json",
        ]
        for path in bad:
            st, got = raw_request(s.port, ("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n"
                                           % (path, s.port)).encode("latin-1"))
            leaked = SECRET in got or b"root:x:0:0" in got
            check(st == 404 and not leaked, "GET %s: 404 and nothing of the file outside" % path,
                  "got %s%s" % (st, ", LEAKED the outside file" if leaked else ""))
        # NUL as a byte in the request line: refused one way or another, never the file
        st, got = raw_request(s.port, b"GET /files/" + real.encode() + b"\x00.txt HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                              b"Connection: close\r\n\r\n")
        check(SECRET not in got, "a raw NUL byte in the path: never the outside file", st)
        if st != 404:
            note("a raw NUL byte in the request line (GET /files/%s\\0.txt) got %s, not 404: the path is cut at the"
                 " NUL and the result file served" % (real, st))
        streams = (status_json(s.port) or {}).get("streams", [])
        check(all("link" not in x["key"] for x in streams), "a symlinked events file is not followed",
              [x["key"] for x in streams])
        # only GET and HEAD
        for m in ("POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PROPFIND"):
            for path in ("/", "/files/" + real, "/events"):
                st, h, _ = request(s.port, path, method=m, body=b"x=1" if m in ("POST", "PUT") else None)
                check(st == 405, "%s %s: 405" % (m, path), st)
            check("GET" in h.get("allow", ""), "405 says Allow: GET, HEAD", h.get("allow"))
        # a loopback server answers only a loopback Host
        for host in ("evil.example", "evil.example:%d" % s.port, "127.0.0.1.evil.example", "localhost.evil.example"):
            st, _, _ = request(s.port, "/status.json", headers={"Host": host})
            check(st == 421, "Host %s on a loopback bind: 421" % host, st)
            st, _, _ = request(s.port, "/events", headers={"Host": host})
            check(st == 421, "Host %s on /events: 421" % host, st)
        for host in ("127.0.0.1:%d" % s.port, "localhost:%d" % s.port, "[::1]:%d" % s.port, "localhost"):
            st, _, _ = request(s.port, "/status.json", headers={"Host": host})
            check(st == 200, "Host %s on a loopback bind: 200" % host, st)
        check(s.alive(), "the server is alive after the path and method checks")
    finally:
        s.stop()


# ---- tokens -----------------------------------------------------------------

def token_checks(s, token, what):
    port = s.port
    real = "/files/" + a_result_file()
    for path in ("/", "/status.json", "/events", real, "/data.json"):
        st, _, _ = request(port, path)
        check(st == 401, "%s: %s without the token: 401" % (what, path), st)
        st, _, _ = request(port, path + ("&" if "?" in path else "?") + "token=" + "x" * len(token))
        check(st == 401, "%s: %s with a wrong token: 401" % (what, path), st)
    st, _, _ = request(port, "/status.json?token=" + token[:-1])
    check(st == 401, "%s: a token less its last character: 401" % what, st)
    st, _, _ = request(port, "/status.json", headers={"Authorization": "Bearer " + token + "x"})
    check(st == 401, "%s: a wrong Bearer token: 401" % what, st)
    st, _, _ = request(port, "/status.json", headers={"Cookie": "bench_token=nope"})
    check(st == 401, "%s: a wrong cookie: 401" % what, st)
    st, h, body = request(port, "/?token=" + token)
    check(st == 200 and b"<" in body, "%s: the page with ?token=: 200" % what, st)
    cookie = h.get("set-cookie", "")
    check(cookie.startswith("bench_token=" + token) and "HttpOnly" in cookie and "SameSite=Strict" in cookie,
          "%s: the page sets the cookie bench_token, HttpOnly, SameSite=Strict" % what, cookie)
    st, _, _ = request(port, "/status.json?token=" + token)
    check(st == 200, "%s: ?token= on /status.json: 200" % what, st)
    st, _, _ = request(port, "/status.json", headers={"Cookie": "bench_token=" + token})
    check(st == 200, "%s: the cookie bench_token: 200" % what, st)
    st, _, _ = request(port, "/status.json", headers={"Cookie": "a=b; bench_token=" + token + "; c=d"})
    check(st == 200, "%s: the cookie among others: 200" % what, st)
    st, _, _ = request(port, real, headers={"Authorization": "Bearer " + token})
    check(st == 200, "%s: Authorization: Bearer on a file: 200" % what, st)
    st, _ = raw_request(port, ("GET /events?token=%s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % token).encode(), timeout=2)
    check(st == 200, "%s: /events with ?token=: 200" % what, st)


def part_tokens():
    s = srv("any", RES, "--bind", "0.0.0.0")
    try:
        check(s.token is not None and len(s.token) >= 16, "--bind 0.0.0.0: the start line has a token", s.start_line)
        check("http://0.0.0.0:%d/?token=" % s.port in s.start_line, "its start line: the address and ?token=",
              s.start_line)
        if s.token:
            token_checks(s, s.token, "0.0.0.0")
            # not loopback: any Host, but still the token
            st, _, _ = request(s.port, "/status.json?token=" + s.token, headers={"Host": "bench.example"})
            check(st == 200, "0.0.0.0: another Host with the token: 200", st)
    finally:
        s.stop()
    tf = os.path.join(T, "token")
    token = "Abc-def_ghi.jkl~0123456789"
    with open(tf, "w") as f:
        f.write(token + "\nsecond line ignored\n")
    s = srv("tokenfile", RES, "--token-file", tf)
    try:
        check(s.token == token, "--token-file: the start line has the file's token", s.start_line)
        token_checks(s, token, "--token-file")
    finally:
        s.stop()
    for bad in ("short", "has space in it 0123456789", "x" * 257, ""):
        with open(tf, "w") as f:
            f.write(bad + "\n")
        import subprocess

        p = subprocess.run([BENCH, "serve", "--results-dir", RES, "--port", "0", "--token-file", tf],
                           capture_output=True, timeout=30)
        check(p.returncode == 2 and b"token" in p.stderr, "--token-file with %r: usage error 2" % bad[:20],
              (p.returncode, p.stderr[-300:]))


# ---- many connections ---------------------------------------------------------

def part_many():
    """1,000 connections: 500 /events streams, then 500 idle sockets."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 2400
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard) if hard != resource.RLIM_INFINITY else want, hard))
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if not check(soft >= 1100, "RLIMIT_NOFILE raised for 1,000 connections", soft):
        return
    maxc = 256
    s = srv("many", RES, "--max-clients", str(maxc), "--heartbeat", "1", "--timeout", "20")
    socks = []  # [socket or None, kind, state]
    peak = [rss_kib(s.pid)]
    base = peak[0]

    def poll():
        for e in socks:
            c, kind, state = e
            if c is None or state is not None:
                continue
            try:
                b = c.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                e[2] = "closed"
                continue
            if not b:
                e[2] = "closed"
            elif b.startswith(b"HTTP/1.1 200"):
                e[2] = "served"
            elif b.startswith(b"HTTP/1.1 503"):
                e[2] = "503" if b"Retry-After" in b else "503 without Retry-After"
                c.close()  # as a browser's EventSource does with a 503
                e[0] = None
            else:
                e[2] = "other: " + b[:40].decode("latin-1")
        peak[0] = max(peak[0], rss_kib(s.pid))
        return True

    def count(kind, state):
        return sum(1 for e in socks if e[1] == kind and e[2] == state)

    try:
        note("server RSS before: %d KiB" % base)
        for i in range(500):
            try:
                c = socket.create_connection(("127.0.0.1", s.port), timeout=10)
                c.sendall(("GET /events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % s.port).encode())
                c.setblocking(False)
                socks.append([c, "stream", None])
            except OSError as e:
                socks.append([None, "stream", "connect: %s" % e])
            if i % 50 == 49:
                poll()
        done = wait_for(60, lambda: poll() and all(e[2] is not None for e in socks[maxc:]) and
                        count("stream", "served") >= maxc, interval=0.1)
        served, busy = count("stream", "served"), count("stream", "503")
        note("of 500 streams: %d served, %d 503, others %s" %
             (served, busy, sorted({e[2] for e in socks if e[2] not in ("served", "503")}, key=str)))
        check(done, "500 streams against --max-clients %d: each served or answered" % maxc,
              "%d served, %d 503, %d unanswered" % (served, busy, sum(1 for e in socks if e[2] is None)))
        check(served == maxc, "--max-clients %d streams served at once" % maxc, served)
        check(busy == 500 - maxc, "the %d streams over it get 503 with Retry-After" % (500 - maxc),
              [e[2] for e in socks if e[2] != "served"][:5])
        st = status_json(s.port)
        check(st is not None and st["clients"] == maxc, "with the streams full, /status.json answers: %d streams" % maxc,
              st)
        check(pid_alive(s.pid), "the server is alive with %d streams" % maxc)
        for i in range(500):
            try:
                c = socket.create_connection(("127.0.0.1", s.port), timeout=10)
                c.setblocking(False)
                socks.append([c, "idle", None])
            except OSError as e:
                socks.append([None, "idle", "connect: %s" % e])
        poll()
        check(len(socks) == 1000 and sum(1 for e in socks if str(e[2]).startswith("connect")) == 0,
              "1,000 connections made (the excess waits in the listen queue)",
              [e[2] for e in socks if str(e[2]).startswith("connect")][:3])
        wait_for(2, lambda: poll() and False, interval=0.2)  # RSS sampled over 2 s with them all open
        check(pid_alive(s.pid), "the server is alive with 1,000 connections open")
        check(count("stream", "served") == maxc, "the served streams still open", count("stream", "served"))
        note("server RSS peak with 1,000 connections: %d KiB (%d before)" % (peak[0], base))
        check(peak[0] <= base + 48 * MIB, "RSS with 1,000 connections under before + 48 MiB (%d KiB)" %
              (base + 48 * MIB), "%d KiB" % peak[0])
        note("idle sockets closed by the server so far: %d of 500" % count("idle", "closed"))
    finally:
        for e in socks:
            if e[0] is not None:
                e[0].close()
    try:
        st = wait_for(60, lambda: request(s.port, "/status.json", timeout=5)[0] == 200, interval=0.2)
        check(st, "a fresh request is served once they are closed")
        cl = wait_for(30, lambda: (lambda j: j if j and j["clients"] == 0 else None)(status_json(s.port)), interval=0.2)
        check(cl is not None, "no stream counted once they are closed", status_json(s.port))
        st, _ = raw_request(s.port, ("GET /events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % s.port).encode(),
                            timeout=2)
        check(st == 200, "a fresh stream is served after", st)
        check(pid_alive(s.pid), "the server is alive after 1,000 connections")
    finally:
        s.stop()


# ---- a stalled client -------------------------------------------------------

class Reader(threading.Thread):
    """An /events client that reads all the time, counting run events of a stream."""

    def __init__(self, port, stream):
        super().__init__(daemon=True)
        self.port, self.stream, self.count, self.stop_at, self.err = port, stream, 0, time.monotonic() + 180, None
        self.done = False

    def run(self):
        try:
            c = socket.create_connection(("127.0.0.1", self.port), timeout=10)
            # HTTP/1.0: the stream comes without chunked framing, as it is
            c.sendall(("GET /events HTTP/1.0\r\nHost: 127.0.0.1:%d\r\n\r\n" % self.port).encode())
            buf = b""
            key = ('"stream":"%s"' % self.stream).encode()
            while not self.done and time.monotonic() < self.stop_at:
                try:
                    b = c.recv(1 << 20)
                except socket.timeout:
                    continue
                if not b:
                    break
                buf += b
                parts = buf.split(b"\n\n")
                buf = parts.pop()
                self.count += sum(1 for p in parts if b"event: run" in p and key in p)
            c.close()
        except OSError as e:
            self.err = e


def part_stalled():
    d = os.path.join(T, "flood")
    os.makedirs(os.path.join(d, "events"))
    s = srv("stalled", d, "--timeout", "3", "--heartbeat", "1")
    stalled = None
    reader = None
    try:
        base = rss_kib(s.pid)
        stalled = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stalled.connect(("127.0.0.1", s.port))
        stalled.sendall(("GET /events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % s.port).encode())
        reader = Reader(s.port, "events/flood.jsonl")
        reader.start()
        check(wait_for(30, lambda: (status_json(s.port) or {}).get("clients") == 2, interval=0.1),
              "two streams open (the stalled one and a reader)", status_json(s.port))
        # 10 MB, or more where the kernel's socket buffers could hold that:
        # the stalled client's buffers must fill for the server to drop it
        try:
            with open("/proc/sys/net/ipv4/tcp_wmem") as f:
                wmax = int(f.read().split()[2])
        except (OSError, ValueError, IndexError):
            wmax = 4 << 20
        n, pad = min(60000, max(10000, (3 * wmax + (4 << 20)) // 1000)), "p" * 900
        t0 = time.time()
        peak = base
        with open(os.path.join(d, "events", "flood.jsonl"), "w") as f:
            f.write(json.dumps({"event": "SUITE_START", "ts": t0, "total_cases": n - 1, "plugins": ["fx_flood"],
                                "preset": "flood", "tag": None}) + "\n")
            for i in range(1, n):
                f.write(json.dumps({"event": "TEST_END", "ts": t0 + i * 1e-4, "plugin": "fx_flood", "case": "n=%d" % i,
                                    "index": i - 1, "status": "OK", "message": pad}) + "\n")
                if i % 500 == 0:
                    f.flush()
                    peak = max(peak, rss_kib(s.pid))
        size = os.path.getsize(os.path.join(d, "events", "flood.jsonl"))
        note("flood: %d events, %.1f MB" % (n, size / 1e6))

        def all_read():
            nonlocal peak
            peak = max(peak, rss_kib(s.pid))
            return reader.count >= n

        check(wait_for(180, all_read, interval=0.1), "the reader gets every event while a client stalls",
              "%d of %d" % (reader.count, n))
        dropped = wait_for(60, lambda: (status_json(s.port) or {}).get("clients") == 1, interval=0.2)
        check(dropped, "the stalled client is dropped (1 stream left) within 60 s (--timeout 3)",
              status_json(s.port))
        peak = max(peak, rss_kib(s.pid))
        note("server RSS: %d KiB before, %d KiB peak with a 10 MB flood and a stalled client" % (base, peak))
        bound = base + 96 * MIB * max(1, size // (12 << 20))
        check(peak <= bound, "server RSS under before + 96 MiB per 12 MB of flood (%d KiB)" % bound, "%d KiB" % peak)
        # the stalled socket: what it got ends (EOF or reset), short of the whole flood
        stalled.settimeout(5)
        got, end = 0, time.monotonic() + 60
        closed = False
        while time.monotonic() < end:
            try:
                b = stalled.recv(1 << 20)
            except socket.timeout:
                break
            except OSError:
                closed = True
                break
            if not b:
                closed = True
                break
            got += len(b)
        check(closed and got < size, "the stalled client's connection was closed short of the flood",
              "closed=%s, read %d of %d bytes" % (closed, got, size))
        check(pid_alive(s.pid), "the server is alive after the stalled client")
    finally:
        if reader:
            reader.done = True
        if stalled:
            stalled.close()
        s.stop()


# ---- 10 MB requests -----------------------------------------------------------

def part_big():
    s = srv("big", RES, "--timeout", "10")
    try:
        base = rss_kib(s.pid)
        big = b"a" * (10 << 20)
        hdr = b"GET /status.json HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + big + b"\r\n\r\n"
        st, got = raw_request(s.port, hdr, timeout=30)
        note("a 10 MB header got %s" % st)
        check(st != 200 and st in (None, 400, 413, 414, 431), "a 10 MB header: refused", st)
        st, got = raw_request(s.port, b"GET /status.json?" + big + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", timeout=30)
        check(st != 200 and st in (None, 400, 413, 414, 431), "a 10 MB request line: refused", st)
        many = b"".join(b"X-H%d: v\r\n" % i for i in range(200000))
        st, got = raw_request(s.port, b"GET /status.json HTTP/1.1\r\nHost: 127.0.0.1\r\n" + many + b"\r\n", timeout=30)
        check(st != 200 and st in (None, 400, 413, 431), "200,000 headers (2 MB): refused", st)
        body = b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n\r\n" % len(big) + big
        st, got = raw_request(s.port, body, timeout=30)
        note("a POST with a 10 MB body got %s" % st)
        check(st in (None, 405, 413), "a POST with a 10 MB body: refused (405, 413 or closed)", st)
        chunked = b"POST /files/x.json HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n" + \
            b"".join(b"100000\r\n" + b"b" * 0x100000 + b"\r\n" for _ in range(10)) + b"0\r\n\r\n"
        st, got = raw_request(s.port, chunked, timeout=30)
        check(st in (None, 405, 413), "a chunked POST of 10 MB: refused", st)
        check(pid_alive(s.pid), "the server is alive after the 10 MB requests")
        st, _, _ = request(s.port, "/status.json")
        check(st == 200, "and answers a fresh request", st)
        r = rss_kib(s.pid)
        check(r <= base + 32 * MIB, "its RSS stays under before + 32 MiB", "%d KiB before, %d after" % (base, r))
        st, _, _ = request(s.port, "/status.json", headers={"X-Pad": "p" * 15000})
        check(st == 200, "a request just under 16 KiB of headers is served", st)
        st, _, _ = request(s.port, "/status.json", headers={"X-Pad": "p" * 17000})
        check(st != 200, "one over 16 KiB is refused", st)
    finally:
        s.stop()


# ---- hostile strings, in the browser ----------------------------------------

HOSTILE = [
    "</script><img src=x onerror=window.__pwned=1>",
    "\"><svg onload=window.__pwned=1>",
    "'\"`;alert(1)//",
    "line\u2028sep\u2029para",
    "<iframe srcdoc='<script>parent.__pwned=1</script>'>",
    "{{constructor.constructor('window.__pwned=1')()}}",
    "javascript:window.__pwned=1",
]


def part_hostile():
    d = os.path.join(T, "hostile")
    os.makedirs(os.path.join(d, "events"))
    t0 = time.time()
    lines = [json.dumps({"event": "SUITE_START", "ts": t0, "total_cases": len(HOSTILE) + 1, "plugins": HOSTILE,
                         "preset": HOSTILE[0], "tag": HOSTILE[1]}, ensure_ascii=False)]
    for i, h in enumerate(HOSTILE):
        base = {"plugin": h, "case": h, "index": i, "ts": t0 + 0.01 * (i + 1)}
        lines.append(json.dumps(dict(base, event="TEST_START", params={"n": h}, total=len(HOSTILE) + 1, timeout_s=5),
                                ensure_ascii=False))
        lines.append(json.dumps(dict(base, event="TEST_END", status="WRONG_ANSWER" if i % 2 else "OK", exit_code=0,
                                     wall_s=0.1, median_ms=1.0, cv=None, gflops=1.0, gbps=None, primary="gflops",
                                     throughput=1.0, throughput_unit=h, flops=1e6, bytes=None, settled=True,
                                     message=h, telemetry=None), ensure_ascii=False))
    raw = b"\n".join(l.encode("utf-8") for l in lines) + b"\n"
    # a line with invalid UTF-8 in its strings, then one more good case
    n = len(HOSTILE)
    raw += (b'{"event":"TEST_END","ts":%f,"plugin":"bad\xff\xfeutf8","case":"c\xc3(","index":%d,"status":"OK",'
            b'"message":"\xed\xa0\x80 surrogate","telemetry":null}\n' % (t0 + 0.5, n))
    raw += b"not json at all </script><script>window.__pwned=1</script>\n"
    raw += (json.dumps({"event": "SUITE_END", "ts": t0 + 1, "completed": n + 1, "failed": n // 2, "skipped": 0,
                        "total": n + 1, "wall_s": 1.0, "interrupted": False}) + "\n").encode()
    with open(os.path.join(d, "events", "run.jsonl"), "wb") as f:
        f.write(raw)
    # a hostile file name too: a stream key and a result file name
    evil = "x<img src=x onerror=window.__pwned=1>'\""
    with open(os.path.join(d, "events", evil + ".jsonl"), "w") as f:
        f.write(json.dumps({"event": "SUITE_START", "ts": t0, "total_cases": 0, "plugins": [], "preset": evil,
                            "tag": None}) + "\n")
    s = srv("hostile", d, "--heartbeat", "1")
    drv = browser(1400)
    try:
        drv.get(s.url)
        if not check(wait_for(60, lambda: dom(drv)["ready"] == "1"), "the hostile folder's page is ready"):
            return
        st = wait_for(60, lambda: (lambda x: x if len(all_rows(x)) >= n else None)(dom(drv)))
        check(st is not None, "the hostile cases are shown (%d rows at least)" % n, dom(drv)["suites"])
        st = dom(drv)
        rows = all_rows(st)
        plugins = {r["plugin"] for r in rows}
        cells = {c for r in rows for c in r["cells"]}
        for h in HOSTILE:
            check(h in plugins, "the plugin name %r is kept as data (data-plugin)" % h[:30], sorted(plugins)[:10])
            check(h in cells, "and shown as text (textContent of a cell)" if h != HOSTILE[3] else
                  "U+2028/U+2029 kept in a cell's text", [c for c in cells if h[:5] in c][:3])
        check(not st["pwned"], "no hostile string ran (window.__pwned undefined)")
        inj = drv.execute_script("return document.querySelectorAll('#suites img, #suites svg, #suites iframe,"
                                 " #notices img, #notices svg').length")
        check(inj == 0, "no element made from the hostile strings", inj)
        check(st["errors"] == "0", "no script error on the hostile page (body data-errors 0)", st["errors"])
        check(any(sx["stream"] == "events/" + evil + ".jsonl" for sx in st["suites"]),
              "the hostile file name is a suite's data-stream as it is", [sx["stream"] for sx in st["suites"]])
        frames = drv.execute_script("return [...document.querySelectorAll('iframe')].map(f => f.id)")
        check(frames in ([], ["report"]), "no iframe but the report", frames)
        check(drv.execute_script("return typeof window.__pwned") == "undefined", "window.__pwned still undefined")
        check(s.alive(), "the server is alive after the hostile folder")
    finally:
        drv.quit()
        s.stop()


# ---- resuming and idle connections --------------------------------------------

def sse_read(port, until, headers="", timeout=30):
    """Messages [(id, event, data)] of one /events stream (HTTP/1.0: no chunked
    framing) until until(msgs) is true or timeout seconds pass."""
    c = socket.create_connection(("127.0.0.1", port), timeout=1)
    c.sendall(("GET /events HTTP/1.0\r\nHost: 127.0.0.1:%d\r\n%s\r\n" % (port, headers)).encode())
    buf, msgs, end = b"", [], time.monotonic() + timeout
    try:
        while time.monotonic() < end and not until(msgs):
            try:
                b = c.recv(1 << 20)
            except socket.timeout:
                continue
            if not b:
                break
            buf += b
            if not msgs and b"\r\n\r\n" in buf:
                buf = buf.split(b"\r\n\r\n", 1)[1]
            parts = buf.split(b"\n\n")
            buf = parts.pop()
            for p in parts:
                f = dict(l.split(": ", 1) for l in p.decode("utf-8", "replace").split("\n") if ": " in l)
                if "event" in f:
                    msgs.append((f.get("id"), f["event"], json.loads(f.get("data", "null"))))
    finally:
        c.close()
    return msgs


def runs(msgs):
    return [m for m in msgs if m[1] == "run"]


def part_resume():
    d = os.path.join(T, "resume")
    os.makedirs(os.path.join(d, "events"))
    t0 = time.time() - 100
    n = 20
    with open(os.path.join(d, "events", "r.jsonl"), "w") as f:
        f.write(json.dumps({"event": "SUITE_START", "ts": t0, "total_cases": n, "plugins": ["fx_r"], "preset": "p",
                            "tag": None}) + "\n")
        for i in range(n):
            f.write(json.dumps({"event": "TEST_END", "ts": t0 + 1 + i, "plugin": "fx_r", "case": "n=%d" % i,
                                "index": i, "status": "OK"}) + "\n")
    s = srv("resume", d, "--heartbeat", "1", "--timeout", "3")
    try:
        all_msgs = sse_read(s.port, lambda m: len(runs(m)) >= n + 1)
        rs = runs(all_msgs)
        check(all_msgs and all_msgs[0][1] == "hello" and all_msgs[0][0] == "0" and all_msgs[0][2]["resumed"] is False,
              "a stream starts with hello, id 0, resumed false", all_msgs[:1])
        check(len(rs) == n + 1, "a new stream gets every run event", len(rs))
        ids = [m[0] for m in rs]
        check(len(set(ids)) == len(ids), "run events' ids are distinct", ids[:3])
        check(all(m[2]["stream"] == "events/r.jsonl" for m in rs), "each names its stream")
        k = 10
        again = sse_read(s.port, lambda m: len(runs(m)) >= n - k, headers="Last-Event-ID: %s\r\n" % ids[k])
        check(again and again[0][1] == "hello" and again[0][2]["resumed"] is True and again[0][0] == ids[k],
              "Last-Event-ID known: hello says resumed, with that id", again[:1])
        check([m[0] for m in runs(again)] == ids[k + 1:], "and it sends every later run event, none twice",
              [m[0] for m in runs(again)][:3])
        # an id this server does not know (another server's): from its ts less 5 s
        ts_us = int((t0 + 1 + 15) * 1e6)
        unk = sse_read(s.port, lambda m: len(runs(m)) >= 5, headers="Last-Event-ID: %d-deadbeef-1\r\n" % ts_us,
                       timeout=10)
        got = [m[2]["ts"] for m in runs(unk)]
        check(unk and unk[0][2]["resumed"] is False, "an unknown Last-Event-ID: resumed false", unk[:1])
        want = [t0 + 1 + i for i in range(n) if t0 + 1 + i >= ts_us / 1e6 - 5 - 1e-6]
        check(len(got) == len(want) and all(abs(a - b) < 1e-3 for a, b in zip(got, want)),
              "and the run events from its ts less 5 s", (got, want))
        # a stream is never idle (pings every --heartbeat); a silent connection is closed after --timeout
        idle = socket.create_connection(("127.0.0.1", s.port), timeout=1)
        t_idle = time.monotonic()
        stream = sse_read(s.port, lambda m: sum(1 for x in m if x[1] == "ping") >= 5, timeout=20)
        pings = [x for x in stream if x[1] == "ping"]
        check(len(pings) >= 5, "a stream quiet for 5 s gets 5 pings (--heartbeat 1) and is not closed (--timeout 3)",
              len(pings))
        check(all(p[0] == rs[-1][0] for p in pings), "a ping carries the id of the last run event sent",
              [p[0] for p in pings][:2])

        def closed():
            try:
                return idle.recv(1) == b""
            except socket.timeout:
                return False
            except OSError:
                return True

        gone = wait_for(20, closed)
        check(gone and time.monotonic() - t_idle >= 2.5, "a connection that sends nothing is closed after --timeout 3",
              time.monotonic() - t_idle)
        idle.close()
        st, h, b = request(s.port, "/events", method="HEAD")
        check(st == 200 and h.get("content-type", "").startswith("text/event-stream") and b == b"",
              "HEAD /events: 200 text/event-stream, no body", (st, h.get("content-type")))
    finally:
        s.stop()


# ---- the token in the browser ------------------------------------------------

def part_token_page():
    """The page opened with ?token= on --bind 0.0.0.0 (through 127.0.0.1): its
    stream is authorized (by the cookie the page set), and the address
    without the token is refused."""
    s = srv("tokenpage", RES, "--bind", "0.0.0.0", "--heartbeat", "1")
    drv = browser(1400)
    try:
        drv.get("http://127.0.0.1:%d/" % s.port)
        check("token is needed" in drv.page_source or "401" in drv.title or drv.execute_script(
            "return !document.body.dataset.ready"), "the page without the token is refused", drv.page_source[:200])
        drv.get("http://127.0.0.1:%d/?token=%s" % (s.port, s.token))
        c = wait_for(60, lambda: (lambda c: c if c["state"] == "open" and num(c["hellos"]) >= 1 else None)(
            dom(drv)["conn"]))
        check(c is not None, "with ?token= the page's stream opens (hello received)", dom(drv)["conn"])
        check(dom(drv)["errors"] == "0", "no script error on the token page", dom(drv)["errors"])
    finally:
        drv.quit()
        s.stop()


# ---- the folder deleted while serving -----------------------------------------

def part_deleted():
    d = os.path.join(T, "gone")
    os.makedirs(os.path.join(d, "events"))
    t0 = time.time()
    with open(os.path.join(d, "events", "a.jsonl"), "w") as f:
        f.write(json.dumps({"event": "SUITE_START", "ts": t0, "total_cases": 1, "plugins": ["fx_a"], "preset": "p",
                            "tag": None}) + "\n")
    s = srv("gone", d, "--heartbeat", "1")
    try:
        check(wait_for(30, lambda: len((status_json(s.port) or {}).get("streams", [])) == 1),
              "the events file is followed", status_json(s.port))
        st, _, body = request(s.port, "/files/events/a.jsonl")
        check(st == 200 and b"SUITE_START" in body, "an events file is served under /files/events/", st)
        lines0 = len(s.text().splitlines())
        shutil.rmtree(d)
        said = wait_for(30, lambda: len(s.text().splitlines()) > lines0)
        check(said, "the server says something on stderr when the folder is deleted", s.text())
        j = wait_for(30, lambda: (lambda j: j if j and j.get("notice") else None)(status_json(s.port)))
        check(j is not None, "/status.json still answers, with a notice", status_json(s.port))
        check(pid_alive(s.pid), "the server keeps running without its folder")
        st, _, body = request(s.port, "/")
        check(st == 200, "the page is still served", st)
        gone_lines = s.text().splitlines()[lines0:]
        check(len(gone_lines) == 1 and d in gone_lines[0], "one line on stderr, naming the folder, while it is gone",
              gone_lines)
        st, _, _ = request(s.port, "/files/events/a.jsonl")
        check(st == 404, "a file of the deleted folder: 404", st)
        # the folder again, with a new events file and a result
        os.makedirs(os.path.join(d, "events"))
        with open(os.path.join(d, "events", "b.jsonl"), "w") as f:
            f.write(json.dumps({"event": "SUITE_START", "ts": time.time(), "total_cases": 1, "plugins": ["fx_b"],
                                "preset": "p", "tag": None}) + "\n")
        with open(os.path.join(d, "note.txt"), "w") as f:
            f.write("back\n")
        back = wait_for(30, lambda: (lambda j: j if j and any(x["key"] == "events/b.jsonl" for x in j["streams"])
                                     else None)(status_json(s.port)))
        check(back is not None, "serving resumes when the folder is made again (its new events file followed)",
              status_json(s.port))
        st, _, body = request(s.port, "/files/note.txt")
        check(st == 200 and body == b"back\n", "a file of the new folder is served", st)
        j = status_json(s.port) or {}
        check("cannot read" not in (j.get("notice") or ""), "the notice of the vanished folder is over",
              j.get("notice"))
        after = s.text().splitlines()[lines0:]
        note("stderr after the start: %s" % after)
        check(len(after) <= 2, "one line when the folder vanished and at most one when it is back, not one a poll",
              after)
        check(pid_alive(s.pid), "the server is alive after the folder came back")
    finally:
        s.stop()


def main():
    parts = [part_paths, part_tokens, part_big, part_resume, part_many, part_stalled, part_deleted]
    if os.environ.get("SKIP_BROWSER") != "1":
        parts += [part_token_page, part_hostile]
    only = os.environ.get("ONLY")
    for p in parts:
        if only and only not in p.__name__:
            continue
        note("--- " + p.__name__)
        try:
            p()
        except Exception as e:  # noqa: BLE001: one part failing leaves the others to run
            import traceback

            traceback.print_exc()
            fail("%s stopped on %s: %s" % (p.__name__, type(e).__name__, e))


if __name__ == "__main__":
    main_guard(main)

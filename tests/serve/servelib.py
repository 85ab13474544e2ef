"""Shared helpers of the bench serve tests (tests/serve/*.py, scripts/serve_bench.py).

Checks are printed one a line, "ok: WHAT" or "FAIL: WHAT", and counted by
the bash test that runs the script (tests/serve/lib.sh run_py). Every
process started here has its pid appended to $SERVE_PIDS (one a line): the
bash test's EXIT trap ends those by id if this script did not get to. Every
wait is bounded in time (wait_for) and every loop in count. Traffic goes to
127.0.0.1 only.
"""
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

FAILS = 0
CHECKS = 0


def ok(what):
    global CHECKS
    CHECKS += 1
    print("ok: " + what, flush=True)


def fail(what):
    global FAILS
    FAILS += 1
    print("FAIL: " + what, flush=True)


def check(cond, what, detail=""):
    if cond:
        ok(what)
    else:
        fail(what + (": " + str(detail) if detail != "" else ""))
    return bool(cond)


def note(what):
    print("note: " + what, flush=True)


def wait_for(seconds, fn, interval=0.05):
    """fn() until it returns a true value (returned) or seconds pass (None)."""
    end = time.monotonic() + seconds
    while True:
        try:
            v = fn()
        except Exception:  # a page still loading, a file not there yet
            v = None
        if v:
            return v
        if time.monotonic() >= end:
            return None
        time.sleep(interval)


def record_pid(pid, reaped=False):
    """A started process's pid ("PID"), or that it was reaped ("-PID"): the
    bash test's trap ends only those still running (a reaped pid may be
    another process's by then)."""
    path = os.environ.get("SERVE_PIDS")
    if path:
        with open(path, "a") as f:
            f.write("%s%d\n" % ("-" if reaped else "", pid))


def pid_alive(pid):
    """Running and not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except OSError:
        return False


def rss_kib(pid, field="VmRSS"):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


def cpu_ticks(pid):
    """utime + stime of pid, in clock ticks."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


START_RE = re.compile(r"bench serve: serving (.*) at (http://([^/]+):(\d+)/(\?token=([A-Za-z0-9._~-]+))?)\s*$")


class Proc:
    """A started process with its stderr (and stdout) in files."""

    def __init__(self, argv, log, env=None, stdout=None):
        self.argv = argv
        self.log = log
        self.err = open(log, "wb")
        self.out = open(stdout, "wb") if stdout else subprocess.DEVNULL
        # Under AddressSanitizer freed memory waits in a quarantine (256 MiB
        # by default), which the RSS bounds would read as growth: keep it
        # small (the option means nothing to a build without ASan).
        env = dict(os.environ if env is None else env)
        asan = env.get("ASAN_OPTIONS", "")
        env["ASAN_OPTIONS"] = (asan + ":" if asan else "") + "quarantine_size_mb=4:thread_local_quarantine_size_kb=64"
        self.p = subprocess.Popen(argv, stdout=self.out, stderr=self.err, stdin=subprocess.DEVNULL, env=env)
        self.pid = self.p.pid
        record_pid(self.pid)

    def text(self):
        try:
            with open(self.log, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def alive(self):
        return self.p.poll() is None

    def wait(self, seconds):
        try:
            rc = self.p.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return None
        record_pid(self.pid, reaped=True)
        return rc

    def stop(self, sig=signal.SIGTERM, seconds=15):
        if self.p.poll() is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass
            if self.wait(seconds) is None:
                os.kill(self.pid, signal.SIGKILL)
                self.wait(10)
        self.err.close()
        if self.out is not subprocess.DEVNULL:
            self.out.close()
        return self.p.returncode


class Server(Proc):
    """bench serve, started and waited for until its start line names its port."""

    def __init__(self, bench, results_dir, log, args=(), port=0, tries=1):
        self.start_line = None
        for attempt in range(max(1, tries)):
            Proc.__init__(self, [bench, "serve", "--results-dir", results_dir, "--port", str(port)] + list(args), log)
            line = wait_for(30, self._start_line)
            if line:
                break
            # the port not free again yet (a server just killed on it): bounded retries
            self.stop()
            if attempt + 1 < tries:
                time.sleep(0.5)
        if not self.start_line:
            raise RuntimeError("bench serve printed no start line; stderr:\n" + self.text())
        m = START_RE.search(self.start_line)
        self.url = m.group(2)
        self.port = int(m.group(4))
        self.token = m.group(6)

    def _start_line(self):
        for line in self.text().splitlines():
            if START_RE.search(line):
                self.start_line = line
                return line
        if not self.alive():
            return "dead"
        return None


def find_start_line(text):
    for line in text.splitlines():
        m = START_RE.search(line)
        if m:
            return m
    return None


def request(port, path, method="GET", headers=None, body=None, timeout=10):
    """(status, headers dict lower-cased, body bytes) of one request."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        c.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        h = {"Host": "127.0.0.1:%d" % port}
        h.update(headers or {})
        for k, v in h.items():
            if v is not None:
                c.putheader(k, v)
        c.endheaders(body)
        r = c.getresponse()
        data = r.read() if method != "HEAD" else b""
        return r.status, {k.lower(): v for k, v in r.getheaders()}, data
    finally:
        c.close()


def raw_request(port, data, timeout=10, limit=1 << 20):
    """Send bytes as they are and read the answer until EOF: (status or None, whole answer)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    got = b""
    try:
        try:
            s.sendall(data)
        except OSError:
            pass  # the server closed on us mid-request: read what it said
        end = time.monotonic() + timeout
        while len(got) < limit and time.monotonic() < end:
            try:
                b = s.recv(65536)
            except socket.timeout:
                break
            except OSError:
                break
            if not b:
                break
            got += b
    finally:
        s.close()
    m = re.match(rb"HTTP/1\.[01] (\d{3})", got)
    return (int(m.group(1)) if m else None), got


def status_json(port, headers=None):
    st, _, body = request(port, "/status.json", headers=headers, timeout=5)
    return json.loads(body) if st == 200 else None


def read_events(path):
    """The events file's lines as objects (lines that do not parse are skipped)."""
    out = []
    try:
        with open(path, "rb") as f:
            for line in f:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
    except OSError:
        pass
    return out


CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-extensions", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--metrics-recording-only",
                 "--disable-default-apps", "--mute-audio", "--disable-renderer-backgrounding",
                 "--disable-background-timer-throttling", "--disable-backgrounding-occluded-windows"]


def browser(width=1400, height=1000):
    """Headless Chromium through chromedriver."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    o = webdriver.ChromeOptions()
    binary = os.environ.get("CHROMIUM_BIN")
    if binary:
        o.binary_location = binary
    for a in CHROMIUM_ARGS + ["--window-size=%d,%d" % (width, height)]:
        o.add_argument(a)
    svc = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    d = webdriver.Chrome(service=svc, options=o)
    try:
        pid = svc.process.pid
        record_pid(pid)
        quit_ = d.quit

        def quit_and_say():
            quit_()  # stops chromedriver and waits for it
            if svc.process is None or svc.process.poll() is not None:
                record_pid(pid, reaped=True)

        d.quit = quit_and_say
    except AttributeError:
        pass
    d.set_page_load_timeout(60)
    d.set_script_timeout(30)
    return d


def set_width(d, width, height=1000):
    d.set_window_size(width, height)


def screenshot(d, name):
    folder = os.environ.get("SCREENS")
    if not folder:
        return
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    if d.save_screenshot(path):
        note("screenshot " + path)
    else:
        fail("screenshot " + path + " not saved")


# What the page shows, read back from its DOM (docs: the page's DOM contract).
DOM_JS = r"""
const q = (s, r) => (r || document).querySelector(s);
const conn = q('#conn');
const b = document.body;
const suites = [...document.querySelectorAll('#suites > section.suite')].map(s => {
  const run = q('.running', s);
  return {
    stream: s.dataset.stream, suite: s.dataset.suite, state: s.dataset.state,
    done: s.dataset.done, total: s.dataset.total, failed: s.dataset.failed,
    running: run ? {index: run.dataset.index, plugin: run.dataset.plugin, kase: run.dataset.case,
                    elapsed: run.dataset.elapsed, heartbeats: run.dataset.heartbeats} : null,
    rows: [...s.querySelectorAll('table.cases tr.case')].map(r => ({
      index: r.dataset.index, plugin: r.dataset.plugin, kase: r.dataset.case, status: r.dataset.status,
      ts: r.dataset.ts, seen_ms: r.dataset.seenMs,
      cells: [...r.cells].map(c => c.textContent)})),
  };
});
return {
  ready: b.dataset.ready, errors: b.dataset.errors,
  conn: conn ? {state: conn.dataset.state, events: conn.dataset.events, dups: conn.dataset.dups,
                pings: conn.dataset.pings, hellos: conn.dataset.hellos, last_id: conn.dataset.lastId} : null,
  suites: suites,
  notices: [...document.querySelectorAll('#notices li')].map(l => l.textContent),
  pwned: typeof window.__pwned !== 'undefined',
};
"""


def dom(d):
    return d.execute_script(DOM_JS)


def num(v, default=-1):
    try:
        return float(v)
    except (TypeError, ValueError):
        return default


def all_rows(state):
    return [r for s in (state or {}).get("suites", []) for r in s["rows"]]


def finish():
    print("%d passed, %d failed" % (CHECKS, FAILS), flush=True)
    return 0 if FAILS == 0 and CHECKS > 0 else 1


def main_guard(fn):
    """Run fn(); an exception is one failed check (with its traceback), not a crash without a word."""
    import traceback

    try:
        fn()
    except Exception as e:  # noqa: BLE001
        traceback.print_exc()
        fail("the script stopped on %s: %s" % (type(e).__name__, e))
    sys.exit(finish())

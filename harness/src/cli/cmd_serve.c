/* bench serve [--results-dir DIR] [--port N] [--bind ADDR] [--token-file F]:
 * one page and its data from a results folder, the report rebuilt as
 * result files land and a live view of every run writing events there
 * (docs/serve.md). The feed (serve/serve_feed.h) follows the folder from
 * this thread; libmicrohttpd's thread answers (serve/serve_http.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "analyze/report_page.h"
#include "cli/commands.h"
#include "cli/common_options.h"
#include "core/child.h"
#include "core/parse_options.h"
#include "core/term.h"
#include "core/util.h"
#include "serve/serve_auth.h"
#include "serve/serve_feed.h"
#include "serve/serve_http.h"
#include "serve/serve_watch.h"

static const char live_template[] =
#include "live_template.inc"
    ;

#define POLL_MS 200 /* the folder is looked at 5 times a second, and at once when inotify says it changed */
#define DRAIN_S 3.0        /* at SIGTERM: the streams get what is left for this long at most */

struct serve_opts {
  const char *dir, *bind, *token_file, *chartjs;
  int port, heartbeat, max_clients, timeout;
};

#define O struct serve_opts
static const struct opt serve_options[] = {
    OPT_RESULTS_DIR(O, dir),
    OPT_INT("port", O, port, 0, 65535, "N", "the TCP port (default 8765; 0: a free one, said at start)"),
    OPT_STRING("bind", 0, O, bind, "ADDR",
               "the address to listen on (default 127.0.0.1); any other than loopback serves only with the token"),
    OPT_STRING("token-file", 0, O, token_file, "FILE",
               "the token in FILE's first line instead of a random one (then loopback needs it too)"),
    OPT_INT("heartbeat", O, heartbeat, 1, 15, "S", "a ping on a stream idle S seconds (default 15)"),
    OPT_INT("max-clients", O, max_clients, 1, 10000, "N", "live streams at once (more get 503; other requests have 64 connections more) (default 256)"),
    OPT_INT("timeout", O, timeout, 1, 3600, "S", "an idle connection is closed after S seconds (default 30)"),
    OPT_STRING("chartjs", 0, O, chartjs, "FILE", "Chart.js to inline (also $BENCH_CHARTJS)"),
    OPT_END(),
};
#undef O

static const char *const serve_usage[] = {
    "bench serve [--results-dir DIR] [--port N] [--bind ADDR] [--token-file FILE]",
    "            [--heartbeat S] [--max-clients N] [--timeout S] [--chartjs FILE]",
    NULL,
};

const struct cmd_spec spec_serve = {
    "serve", "watch the runs of a results folder live in a browser, with its report", serve_usage, NULL,
    "Serves one page from a results folder: a live view of every run writing events\n"
    "there (bench run --serve, or --events DIR/events/NAME.jsonl): progress and ETA, each\n"
    "case as it finishes, the case running now with its heartbeat, the device's telemetry\n"
    "and the roofline filling in; and the report (as bench report draws it), rebuilt as\n"
    "result files land. The live data are server-sent events that a reconnecting browser\n"
    "resumes without losing or repeating one. Binds 127.0.0.1 (from a laptop: ssh -L\n"
    "8765:127.0.0.1:8765 NODE); any other address serves only with the random token printed\n"
    "at start. Read-only, and nothing outside the folder. docs/serve.md has the endpoints.",
    "Exit status: 0 stopped by SIGINT or SIGTERM; 2 usage error, or the address cannot be bound.\n",
    serve_options, PARSE_NO_ARGS,
};

/* The live page: the template with Chart.js inlined. */
static char *live_page(const char *chartjs, size_t *len) {
  static const char mark[] = "/*BENCH_CHARTJS*/";
  const char *m = strstr(live_template, mark);
  struct strbuf sb = STRBUF_INIT;
  if (!m) {
    strbuf_adds(&sb, live_template);
  } else {
    strbuf_add(&sb, live_template, (size_t)(m - live_template));
    strbuf_adds(&sb, chartjs);
    strbuf_adds(&sb, m + strlen(mark));
  }
  *len = sb.len;
  return strbuf_detach(&sb);
}

/* Room for --max-clients connections, the folder's files and the streams. */
static void raise_fd_limit(unsigned want) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return;
  rlim_t need = (rlim_t)want + 64;
  if (rl.rlim_cur >= need) return;
  rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ? need : rl.rlim_max;
  setrlimit(RLIMIT_NOFILE, &rl);
}

int cmd_serve(int argc, char **argv) {
  struct serve_opts o = {.dir = "results", .bind = "127.0.0.1", .chartjs = getenv("BENCH_CHARTJS"),
                         .port = 8765, .heartbeat = 15, .max_clients = 256, .timeout = 30};
  int nargs, prc = parse_options(&spec_serve, argc, argv, &o, &nargs);
  if (prc != 0) return prc > 0 ? EXIT_OK : EXIT_USAGE;

  char token[SERVE_TOKEN_MAX + 1] = "";
  int loopback = serve_addr_is_loopback(o.bind);
  if (o.token_file) {
    if (serve_token_load(o.token_file, token) != 0) return EXIT_USAGE;
  } else if (!loopback) {
    serve_token_new(token);
  }
  struct strbuf js = STRBUF_INIT;
  const char *js_from;
  if (report_chartjs_load(o.chartjs, &js, &js_from) != 0) return EXIT_USAGE;

  struct serve_feed feed;
  feed_init(&feed, o.dir, js.buf);
  feed_poll(&feed);
  size_t page_len;
  char *page = live_page(js.buf, &page_len);
  struct serve_http_config cfg = {.bind = o.bind, .port = (unsigned)o.port, .token = token[0] ? token : NULL,
                                  .heartbeat_s = o.heartbeat, .max_clients = (unsigned)o.max_clients,
                                  .timeout_s = (unsigned)o.timeout, .page = page, .page_len = page_len};
  raise_fd_limit(cfg.max_clients + 128);
  struct serve_http *http;
  unsigned port;
  if (serve_http_start(&http, &cfg, &feed, &port) != 0) {
    free(page);
    feed_release(&feed);
    strbuf_release(&js);
    return EXIT_USAGE;
  }
  int v6 = strchr(o.bind, ':') != NULL;
  fprintf(stderr, "bench serve: serving %s at http://%s%s%s:%u/%s%s\n", term_str(o.dir), v6 ? "[" : "", o.bind,
          v6 ? "]" : "", port, token[0] ? "?token=" : "", token);
  fflush(stderr);

  child_install_signal_handlers(); /* SIGINT, SIGTERM, SIGHUP: stop (child_interrupted) */
  struct serve_watch watch;
  serve_watch_init(&watch, o.dir);
  while (!child_interrupted()) {
    feed_poll(&feed);
    serve_http_wake(http);
    serve_watch_wait(&watch, POLL_MS);
  }
  serve_watch_release(&watch);
  /* What the run wrote last (a bench run --serve ends its server as it
   * ends) still reaches the pages: one more look, then the streams are
   * given a moment to send it. */
  feed_poll(&feed);
  double until = now_s() + DRAIN_S;
  while (now_s() < until && serve_http_drain_pending(http)) {
    serve_http_wake(http);
    struct timespec ts = {0, 20000000L};
    nanosleep(&ts, NULL);
  }
  serve_http_stop(http);
  fprintf(stderr, "bench serve: stopped\n");
  free(page);
  feed_release(&feed);
  strbuf_release(&js);
  return EXIT_OK;
}

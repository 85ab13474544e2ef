/* bench serve's HTTP side (serve_http.h). */
#include "serve/serve_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "serve/serve_path.h"

/* Requests (line and headers) larger than this are refused by the library. */
#define REQUEST_MEMORY_LIMIT (16u << 10)
/* Connections beyond the streams' limit (--max-clients): the page, the
 * report and a 503 for one stream too many are still answered. */
#define EXTRA_CONNECTIONS 64
#define BUSY_TEXT "too many live streams open (--max-clients); try again later\n"

struct sse_client {
  struct serve_http *h;
  struct MHD_Connection *conn;
  size_t next;               /* the next log index to send */
  char *out;                 /* the message being written, NULL: none */
  size_t out_len, out_off;
  char last_id[64];          /* the last run event sent ("0": none) */
  int hello_sent, resumed, suspended, done;
  unsigned report_seen, notice_seen;
  double last_sent;
  struct sse_client *prev, *after;
};

struct serve_http {
  struct MHD_Daemon *d;
  struct serve_feed *feed; /* its lock guards the streams list too */
  struct serve_http_config cfg;
  int loopback;
  int stopping;
  struct sse_client *clients;
  size_t nclients;
};

/* ---- responses ------------------------------------------------------------ */

static void common_headers(struct MHD_Response *r, const char *type) {
  MHD_add_response_header(r, "Content-Type", type);
  MHD_add_response_header(r, "Cache-Control", "no-store");
  MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
  MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
  MHD_add_response_header(r, "X-Frame-Options", "SAMEORIGIN");
  /* the page and the report are self-contained: their inline scripts and
   * styles, and this server, nothing else */
  MHD_add_response_header(r, "Content-Security-Policy",
                          "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                          "img-src data:; connect-src 'self'; frame-src 'self'; frame-ancestors 'self'; "
                          "base-uri 'none'; form-action 'none'");
}

static enum MHD_Result send_buffer(struct MHD_Connection *c, unsigned status, const char *type, const char *buf,
                                   size_t len, const char *cookie) {
  struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)buf, MHD_RESPMEM_MUST_COPY);
  if (!r) return MHD_NO;
  common_headers(r, type);
  if (cookie) MHD_add_response_header(r, "Set-Cookie", cookie);
  enum MHD_Result ok = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  return ok;
}

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *text) {
  return send_buffer(c, status, "text/plain; charset=utf-8", text, strlen(text), NULL);
}

/* ---- the event stream ----------------------------------------------------- */

/* Unix time, as the events' ts. */
static double unix_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static char *message(const char *id, const char *event, json_t *data) {
  char *d = json_dumps(data, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
  json_decref(data);
  char *m = xasprintf("id: %s\nevent: %s\ndata: %s\n\n", id, event, d ? d : "{}");
  free(d);
  return m;
}

/* The next message for c (under the feed's lock), or NULL when it has
 * nothing to send now (a ping is due only when nothing else was written
 * in this call: wrote 0). */
static char *next_message(struct sse_client *c, int wrote) {
  struct serve_http *h = c->h;
  struct serve_feed *f = h->feed;
  double now = now_s();
  if (!c->hello_sent) {
    c->hello_sent = 1;
    c->report_seen = f->report_version;
    json_t *o = json_object();
    json_object_set_new(o, "results_dir", json_string(f->root));
    json_object_set_new(o, "heartbeat_s", json_real(h->cfg.heartbeat_s));
    json_object_set_new(o, "server_ts", json_real(unix_now()));
    json_object_set_new(o, "resumed", json_boolean(c->resumed));
    json_object_set_new(o, "report_version", json_integer(f->report_version));
    return message(c->last_id, "hello", o);
  }
  if (c->notice_seen != f->notice_version) {
    c->notice_seen = f->notice_version;
    json_t *o = json_object();
    json_object_set_new(o, "level", json_string(f->notice_level));
    json_object_set_new(o, "message", json_string(f->notice));
    return message(c->last_id, "notice", o);
  }
  while (c->next < f->nlog && !f->log[c->next].text) c->next++;
  if (c->next < f->nlog) {
    const struct feed_msg *m = &f->log[c->next++];
    snprintf(c->last_id, sizeof c->last_id, "%s", m->id);
    return xstrdup(m->text);
  }
  if (c->report_seen != f->report_version) {
    c->report_seen = f->report_version;
    json_t *o = json_object();
    json_object_set_new(o, "version", json_integer(f->report_version));
    json_object_set_new(o, "files", json_integer((json_int_t)f->report_files));
    json_object_set_new(o, "cases", json_integer((json_int_t)f->report_cases));
    return message(c->last_id, "report", o);
  }
  if (!wrote && now - c->last_sent >= h->cfg.heartbeat_s) {
    json_t *o = json_object();
    json_object_set_new(o, "server_ts", json_real(unix_now()));
    return message(c->last_id, "ping", o);
  }
  return NULL;
}

static int has_news(const struct sse_client *c, double now) {
  const struct serve_feed *f = c->h->feed;
  return c->h->stopping || c->next < f->nlog || c->report_seen != f->report_version ||
         c->notice_seen != f->notice_version || now - c->last_sent >= c->h->cfg.heartbeat_s;
}

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max) {
  (void)pos;
  struct sse_client *c = cls;
  struct serve_feed *f = c->h->feed;
  pthread_mutex_lock(&f->mu);
  if (c->h->stopping) {
    pthread_mutex_unlock(&f->mu);
    return MHD_CONTENT_READER_END_OF_STREAM;
  }
  size_t w = 0;
  while (w < max) {
    if (!c->out) {
      c->out = next_message(c, w > 0);
      if (!c->out) break;
      c->out_len = strlen(c->out);
      c->out_off = 0;
    }
    size_t n = c->out_len - c->out_off;
    if (n > max - w) n = max - w;
    memcpy(buf + w, c->out + c->out_off, n);
    w += n;
    c->out_off += n;
    if (c->out_off == c->out_len) {
      free(c->out);
      c->out = NULL;
    }
  }
  if (w) {
    c->last_sent = now_s();
  } else {
    c->suspended = 1;
    MHD_suspend_connection(c->conn);
  }
  pthread_mutex_unlock(&f->mu);
  return (ssize_t)w;
}

static void stream_free(void *cls) {
  struct sse_client *c = cls;
  struct serve_http *h = c->h;
  pthread_mutex_lock(&h->feed->mu);
  if (c->prev) c->prev->after = c->after;
  else h->clients = c->after;
  if (c->after) c->after->prev = c->prev;
  h->nclients--;
  pthread_mutex_unlock(&h->feed->mu);
  free(c->out);
  free(c);
}

static enum MHD_Result start_stream(struct serve_http *h, struct MHD_Connection *conn, int head) {
  if (head) return send_buffer(conn, MHD_HTTP_OK, "text/event-stream", "", 0, NULL);
  const char *last = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Last-Event-ID");
  if (!last) last = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "last_id");
  pthread_mutex_lock(&h->feed->mu);
  int full = h->nclients >= h->cfg.max_clients;
  pthread_mutex_unlock(&h->feed->mu);
  if (full) {
    struct MHD_Response *r = MHD_create_response_from_buffer(
        strlen(BUSY_TEXT), (void *)BUSY_TEXT, MHD_RESPMEM_PERSISTENT);
    if (!r) return MHD_NO;
    common_headers(r, "text/plain; charset=utf-8");
    MHD_add_response_header(r, "Retry-After", "10");
    enum MHD_Result ok = MHD_queue_response(conn, MHD_HTTP_SERVICE_UNAVAILABLE, r);
    MHD_destroy_response(r);
    return ok;
  }
  struct sse_client *c = xcalloc(1, sizeof *c);
  c->h = h;
  c->conn = conn;
  snprintf(c->last_id, sizeof c->last_id, "0");
  pthread_mutex_lock(&h->feed->mu);
  int known;
  c->next = feed_resume_index(h->feed, last, &known);
  c->resumed = known;
  if (last && known) snprintf(c->last_id, sizeof c->last_id, "%s", last);
  c->notice_seen = h->feed->notice[0] ? 0 : h->feed->notice_version;
  c->after = h->clients;
  if (h->clients) h->clients->prev = c;
  h->clients = c;
  h->nclients++;
  pthread_mutex_unlock(&h->feed->mu);
  struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, stream_read, c, stream_free);
  if (!r) {
    stream_free(c);
    return MHD_NO;
  }
  common_headers(r, "text/event-stream; charset=utf-8");
  MHD_add_response_header(r, "X-Accel-Buffering", "no");
  enum MHD_Result ok = MHD_queue_response(conn, MHD_HTTP_OK, r);
  MHD_destroy_response(r);
  return ok;
}

void serve_http_wake(struct serve_http *h) {
  pthread_mutex_lock(&h->feed->mu);
  double now = now_s();
  for (struct sse_client *c = h->clients; c; c = c->after) {
    if (c->suspended && has_news(c, now)) {
      c->suspended = 0;
      MHD_resume_connection(c->conn);
    }
  }
  pthread_mutex_unlock(&h->feed->mu);
}

/* ---- the other routes ---------------------------------------------------- */

static enum MHD_Result send_status(struct serve_http *h, struct MHD_Connection *conn) {
  struct serve_feed *f = h->feed;
  json_t *o = json_object();
  pthread_mutex_lock(&f->mu);
  json_object_set_new(o, "results_dir", json_string(f->root));
  json_t *a = json_array();
  for (size_t i = 0; i < f->nstreams; i++) {
    json_t *s = json_object();
    json_object_set_new(s, "key", json_string(f->streams[i].rel));
    json_object_set_new(s, "bytes", json_integer((json_int_t)f->streams[i].off));
    json_object_set_new(s, "events", json_integer((json_int_t)f->streams[i].events));
    json_object_set_new(s, "ended", json_boolean(f->streams[i].ended));
    json_array_append_new(a, s);
  }
  json_object_set_new(o, "streams", a);
  json_object_set_new(o, "clients", json_integer((json_int_t)h->nclients));
  json_object_set_new(o, "report_version", json_integer(f->report_version));
  json_object_set_new(o, "notice", f->notice[0] ? json_string(f->notice) : json_null());
  pthread_mutex_unlock(&f->mu);
  const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
  json_object_set_new(o, "connections", json_integer(di ? (json_int_t)di->num_connections : -1));
  char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(o);
  enum MHD_Result ok = send_buffer(conn, MHD_HTTP_OK, "application/json; charset=utf-8", s ? s : "{}",
                                   s ? strlen(s) : 2, NULL);
  free(s);
  return ok;
}

/* The report's page or data, copied under the lock. */
static enum MHD_Result send_report(struct serve_http *h, struct MHD_Connection *conn, int data) {
  struct serve_feed *f = h->feed;
  pthread_mutex_lock(&f->mu);
  const char *buf = data ? f->data_json : f->report_html;
  size_t len = data ? f->data_len : f->report_len;
  enum MHD_Result ok;
  if (!buf) ok = send_text(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "the report is not built yet\n");
  else ok = send_buffer(conn, MHD_HTTP_OK, data ? "application/json; charset=utf-8" : "text/html; charset=utf-8",
                        buf, len, NULL);
  pthread_mutex_unlock(&f->mu);
  return ok;
}

static enum MHD_Result send_file(struct serve_http *h, struct MHD_Connection *conn, const char *rel) {
  int fd;
  struct stat st;
  if (serve_path_open(h->feed->root, rel, &fd, &st) != 0) return send_text(conn, MHD_HTTP_NOT_FOUND, "not found\n");
  struct MHD_Response *r = MHD_create_response_from_fd64((uint64_t)st.st_size, fd);
  if (!r) {
    close(fd);
    return MHD_NO;
  }
  common_headers(r, serve_path_type(rel));
  enum MHD_Result ok = MHD_queue_response(conn, MHD_HTTP_OK, r);
  MHD_destroy_response(r);
  return ok;
}

/* 1 when the request carries the token (or none is needed). */
static int authorized(const struct serve_http *h, struct MHD_Connection *conn, int *from_query) {
  *from_query = 0;
  if (!h->cfg.token) return 1;
  const char *q = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "token");
  if (serve_token_equal(h->cfg.token, q)) return *from_query = 1;
  const char *cookie = MHD_lookup_connection_value(conn, MHD_COOKIE_KIND, "bench_token");
  if (serve_token_equal(h->cfg.token, cookie)) return 1;
  return serve_token_equal(h->cfg.token,
                           serve_bearer(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization")));
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **con_cls) {
  (void)version;
  (void)upload_data;
  (void)con_cls;
  struct serve_http *h = cls;
  /* answered on the first call, before any body: a body is never read */
  *upload_data_size = 0;
  int head = strcmp(method, "HEAD") == 0;
  if (!head && strcmp(method, "GET") != 0) {
    struct MHD_Response *r = MHD_create_response_from_buffer(20, (void *)"method not allowed\n\n", MHD_RESPMEM_PERSISTENT);
    if (!r) return MHD_NO;
    common_headers(r, "text/plain; charset=utf-8");
    MHD_add_response_header(r, "Allow", "GET, HEAD");
    MHD_add_response_header(r, "Connection", "close");
    enum MHD_Result ok = MHD_queue_response(conn, MHD_HTTP_METHOD_NOT_ALLOWED, r);
    MHD_destroy_response(r);
    return ok;
  }
  if (h->loopback && !serve_host_is_loopback(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host")))
    return send_text(conn, MHD_HTTP_MISDIRECTED_REQUEST,
                     "this server answers only requests to a loopback host (127.0.0.1, localhost, [::1])\n");
  int from_query;
  if (!authorized(h, conn, &from_query))
    return send_text(conn, MHD_HTTP_UNAUTHORIZED,
                     "a token is needed: open the address bench serve printed, with its ?token=...\n");
  if (strcmp(url, "/") == 0 || strcmp(url, "/index.html") == 0) {
    char *cookie = NULL;
    if (from_query && h->cfg.token)
      cookie = xasprintf("bench_token=%s; Path=/; HttpOnly; SameSite=Strict", h->cfg.token);
    enum MHD_Result ok = send_buffer(conn, MHD_HTTP_OK, "text/html; charset=utf-8", h->cfg.page, h->cfg.page_len,
                                     cookie);
    free(cookie);
    return ok;
  }
  if (strcmp(url, "/events") == 0) return start_stream(h, conn, head);
  if (strcmp(url, "/report") == 0) return send_report(h, conn, 0);
  if (strcmp(url, "/data.json") == 0) return send_report(h, conn, 1);
  if (strcmp(url, "/status.json") == 0) return send_status(h, conn);
  if (strncmp(url, "/files/", 7) == 0) return send_file(h, conn, url + 7);
  return send_text(conn, MHD_HTTP_NOT_FOUND, "not found\n");
}

/* %XX decoding that refuses an encoded '.', '/', '\\' or control
 * character: the whole value becomes "\x7f", which no route, file or
 * token matches. */
static size_t unescape(void *cls, struct MHD_Connection *conn, char *s) {
  (void)cls;
  (void)conn;
  char *w = s;
  for (const char *p = s; *p; p++) {
    if (*p == '%' && p[1] && p[2]) {
      char hex[3] = {p[1], p[2], 0}, *end;
      long v = strtol(hex, &end, 16);
      if (*end || end != hex + 2) {
        *w++ = *p;
        continue;
      }
      if (v == '.' || v == '/' || v == '\\' || v < 0x20 || v == 0x7f) {
        s[0] = 0x7f;
        s[1] = '\0';
        return 1;
      }
      *w++ = (char)v;
      p += 2;
    } else {
      *w++ = *p;
    }
  }
  *w = '\0';
  return (size_t)(w - s);
}

static void quiet_log(void *cls, const char *fmt, va_list ap) {
  (void)cls;
  (void)fmt;
  (void)ap;
}

int serve_http_start(struct serve_http **out, const struct serve_http_config *cfg, struct serve_feed *feed,
                     unsigned *port) {
  struct addrinfo hints, *ai = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  char ports[16];
  snprintf(ports, sizeof ports, "%u", cfg->port);
  const char *node = strcmp(cfg->bind, "localhost") == 0 ? "127.0.0.1" : cfg->bind;
  hints.ai_flags |= AI_NUMERICHOST;
  int gai = getaddrinfo(node, ports, &hints, &ai);
  if (gai != 0) return error("bad --bind address '%s': %s (give a numeric IPv4 or IPv6 address)", cfg->bind,
                             gai_strerror(gai));
  struct serve_http *h = xcalloc(1, sizeof *h);
  h->feed = feed;
  h->cfg = *cfg;
  h->loopback = serve_addr_is_loopback(cfg->bind);
  unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME;
  if (ai->ai_family == AF_INET6) flags |= MHD_USE_IPv6;
  h->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h,
                          MHD_OPTION_SOCK_ADDR, ai->ai_addr,
                          MHD_OPTION_CONNECTION_LIMIT, cfg->max_clients + EXTRA_CONNECTIONS,
                          MHD_OPTION_CONNECTION_TIMEOUT, cfg->timeout_s,
                          MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)REQUEST_MEMORY_LIMIT,
                          MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
                          MHD_OPTION_EXTERNAL_LOGGER, quiet_log, NULL,
                          MHD_OPTION_END);
  int err = errno;
  freeaddrinfo(ai);
  if (!h->d) {
    free(h);
    return error("cannot listen on %s port %u: %s", cfg->bind, cfg->port,
                 err ? strerror(err) : "the address is taken or not this machine's");
  }
  const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
  *port = di ? di->port : cfg->port;
  *out = h;
  return 0;
}

int serve_http_drain_pending(struct serve_http *h) {
  pthread_mutex_lock(&h->feed->mu);
  int left = 0;
  for (struct sse_client *c = h->clients; c && !left; c = c->after) left = c->out || c->next < h->feed->nlog;
  pthread_mutex_unlock(&h->feed->mu);
  return left;
}

void serve_http_stop(struct serve_http *h) {
  if (!h) return;
  pthread_mutex_lock(&h->feed->mu);
  h->stopping = 1;
  pthread_mutex_unlock(&h->feed->mu);
  /* every suspended stream resumed: it ends (stream_read) and MHD may stop */
  serve_http_wake(h);
  MHD_quiesce_daemon(h->d);
  for (int i = 0; i < 100; i++) {
    pthread_mutex_lock(&h->feed->mu);
    size_t left = h->nclients;
    int suspended = 0;
    for (struct sse_client *c = h->clients; c; c = c->after) suspended |= c->suspended;
    pthread_mutex_unlock(&h->feed->mu);
    if (!left) break;
    if (suspended) serve_http_wake(h);
    struct timespec ts = {0, 20000000L};
    nanosleep(&ts, NULL);
  }
  MHD_stop_daemon(h->d);
  free(h);
}

/* bench serve's HTTP side, on libmicrohttpd: the routes of docs/serve.md
 * (the page, the event stream, the report, the files), the token and
 * loopback rules (serve_auth.h), and the limits (connections, request
 * size, idle time). Read-only: no request changes anything. An event
 * stream is a position in the feed's log (serve_feed.h) and the message
 * it is writing: a stream with nothing to send is suspended until
 * serve_http_wake() finds something for it (new events, the report, a
 * notice, a ping due). */
#ifndef BENCH_SERVE_HTTP_H
#define BENCH_SERVE_HTTP_H

#include <stddef.h>

#include "serve/serve_auth.h"
#include "serve/serve_feed.h"

struct serve_http_config {
  const char *bind;       /* numeric address or "localhost" */
  unsigned port;          /* 0: any free one */
  const char *token;      /* NULL: none needed */
  double heartbeat_s;     /* a ping on a stream idle this long */
  unsigned max_clients;   /* connections at once */
  unsigned timeout_s;     /* an idle connection is closed */
  const char *page;       /* the live page */
  size_t page_len;
};

struct serve_http;

/* Listen and serve; *port the port bound. 0, or -1 after error(). */
int serve_http_start(struct serve_http **out, const struct serve_http_config *cfg, struct serve_feed *feed,
                     unsigned *port);
/* Resume the streams that have something to send now. */
void serve_http_wake(struct serve_http *h);
/* 1 while a stream has events of the log left to send. */
int serve_http_drain_pending(struct serve_http *h);
/* End every stream and stop. */
void serve_http_stop(struct serve_http *h);

#endif

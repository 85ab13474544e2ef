/* bench serve's wait for a change (serve_watch.h). */
#include "serve/serve_watch.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

#define WATCH_MASK (IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF)

/* (Re-)arm the watches that are missing: the folders may come and go. */
static void arm(struct serve_watch *w) {
  if (w->fd < 0) return;
  if (w->wd_root < 0) w->wd_root = inotify_add_watch(w->fd, w->root, WATCH_MASK | IN_ONLYDIR);
  if (w->wd_events < 0) w->wd_events = inotify_add_watch(w->fd, w->events, WATCH_MASK | IN_ONLYDIR);
}

void serve_watch_init(struct serve_watch *w, const char *root) {
  w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  w->wd_root = w->wd_events = -1;
  w->root = xstrdup(root);
  w->events = xasprintf("%s/events", root);
  arm(w);
}

void serve_watch_wait(struct serve_watch *w, int timeout_ms) {
  arm(w);
  if (w->fd < 0) {
    struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    return;
  }
  struct pollfd p = {w->fd, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) return;
  /* drain; a watch whose folder went away is re-armed next time */
  char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
  for (;;) {
    ssize_t n = read(w->fd, buf, sizeof buf);
    if (n <= 0) break;
    for (char *q = buf; q < buf + n;) {
      const struct inotify_event *e = (const struct inotify_event *)q;
      if (e->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)) {
        if (e->wd == w->wd_root) w->wd_root = -1;
        if (e->wd == w->wd_events) w->wd_events = -1;
        inotify_rm_watch(w->fd, e->wd);
      }
      q += sizeof *e + e->len;
    }
  }
  /* many writes in a row: one look at them, not one per write */
  struct timespec ts = {0, 10000000L};
  nanosleep(&ts, NULL);
}

void serve_watch_release(struct serve_watch *w) {
  if (w->fd >= 0) close(w->fd);
  free(w->root);
  free(w->events);
}

/* Waiting for the results folder to change: inotify on the folder and its
 * events/ (re-armed when they come back after being removed), so a case
 * that ends reaches the pages in milliseconds; the poll interval is the
 * bound all the same (a file system without inotify, a missed event). */
#ifndef BENCH_SERVE_WATCH_H
#define BENCH_SERVE_WATCH_H

struct serve_watch {
  int fd;          /* the inotify descriptor, -1: polling only */
  int wd_root, wd_events;
  char *root, *events;
};

void serve_watch_init(struct serve_watch *w, const char *root);
/* Return when the folder may have changed, or after timeout_ms. */
void serve_watch_wait(struct serve_watch *w, int timeout_ms);
void serve_watch_release(struct serve_watch *w);

#endif

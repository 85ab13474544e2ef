/* bench serve's feed (serve_feed.h): the results folder's events files as
 * one log of server-sent events, and its report. */
#include "serve/serve_feed.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/compare_case.h"
#include "analyze/report_page.h"
#include "analyze/result_set.h"
#include "results/events_read.h"

/* At most this much of the files is read in one poll: a huge file is taken
 * in steps and the clients are served between them. */
#define POLL_READ_MAX (4u << 20)
/* The result files are looked at (and the report rebuilt) at most this often. */
#define REPORT_MIN_INTERVAL_S 1.0

uint32_t feed_hash(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) {
    h ^= (unsigned char)*s;
    h *= 16777619u;
  }
  return h;
}

void feed_event_id(char *out, size_t n, double ts, uint32_t hash, off_t end_offset) {
  long long us = isfinite(ts) && ts > 0 && ts < 1e11 ? llround(ts * 1e6) : 0;
  snprintf(out, n, "%lld-%08" PRIx32 "-%lld", us, hash, (long long)end_offset);
}

void feed_init(struct serve_feed *f, const char *root, const char *chartjs) {
  memset(f, 0, sizeof *f);
  pthread_mutex_init(&f->mu, NULL);
  f->root = xstrdup(root);
  f->start = now_s();
  f->chartjs = chartjs;
  snprintf(f->notice_level, sizeof f->notice_level, "info");
}

void feed_release(struct serve_feed *f) {
  for (size_t i = 0; i < f->nstreams; i++) {
    free(f->streams[i].rel);
    strbuf_release(&f->streams[i].partial);
  }
  free(f->streams);
  for (size_t i = 0; i < f->nlog; i++) free(f->log[i].text);
  free(f->log);
  strmap_release(&f->ids);
  free(f->report_html);
  free(f->data_json);
  free(f->root);
  pthread_mutex_destroy(&f->mu);
}

/* Set the server's notice (under the lock); said once on stderr too. */
static void set_notice(struct serve_feed *f, const char *level, const char *msg) {
  if (strcmp(f->notice, msg) == 0) return;
  snprintf(f->notice, sizeof f->notice, "%s", msg);
  snprintf(f->notice_level, sizeof f->notice_level, "%s", level);
  f->notice_version++;
  f->changes++;
  fprintf(stderr, "bench serve: %s\n", msg);
}

/* Text with invalid UTF-8 (a hand-made or damaged file) is still an event:
 * bytes >= 0x80 become '?' when the line does not parse as it is. */
static json_t *parse_line(const char *line, size_t len) {
  json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL);
  if (o) return o;
  char *copy = xstrndup(line, len);
  int changed = 0;
  for (unsigned char *p = (unsigned char *)copy; *p; p++)
    if (*p >= 0x80) *p = '?', changed = 1;
  if (changed) o = json_loadb(copy, strlen(copy), JSON_REJECT_DUPLICATES, NULL);
  free(copy);
  return o;
}

/* One complete line of stream s ending at byte end: an event of ours
 * becomes a message of the log (under the lock). */
static void take_line(struct serve_feed *f, struct feed_stream *s, const char *line, size_t len, off_t end) {
  while (len && (line[len - 1] == '\r' || line[len - 1] == ' ')) len--;
  if (!len || line[0] != '{') return;
  json_t *o = parse_line(line, len);
  if (!o || !json_is_object(o)) {
    json_decref(o);
    return;
  }
  json_t *ev = json_object_get(o, "event"), *tsj = json_object_get(o, "ts");
  if (!json_is_string(ev) || !json_is_number(tsj)) {
    json_decref(o);
    return;
  }
  const char *name = json_string_value(ev);
  double ts = json_number_value(tsj);
  json_object_set_new(o, "stream", json_string(s->rel));
  char *data = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
  int is_hb = strcmp(name, "HEARTBEAT") == 0;
  if (strcmp(name, "SUITE_START") == 0) s->ended = 0;
  if (strcmp(name, "SUITE_END") == 0) s->ended = 1;
  json_decref(o);
  if (!data) return;
  struct feed_msg m;
  feed_event_id(m.id, sizeof m.id, ts, s->hash, end);
  m.ts = ts;
  m.text = xasprintf("id: %s\nevent: run\ndata: %s\n\n", m.id, data);
  m.len = strlen(m.text);
  free(data);
  size_t have;
  if (strmap_get(&f->ids, m.id, &have)) { /* the same line again (a file rewritten the same) */
    free(m.text);
    return;
  }
  f->log = grow_for_one(f->log, f->nlog, sizeof *f->log);
  /* A stream's older heartbeat says nothing its newest does not: a late
   * client is not sent it. */
  if (is_hb && s->last_hb != SIZE_MAX && f->log[s->last_hb].text) {
    free(f->log[s->last_hb].text);
    f->log[s->last_hb].text = NULL;
  }
  if (is_hb) s->last_hb = f->nlog;
  strmap_put(&f->ids, m.id, f->nlog);
  f->log[f->nlog++] = m;
  s->events++;
  f->changes++;
}

/* Split the bytes read from s at newlines (under the lock). */
static void take_bytes(struct serve_feed *f, struct feed_stream *s, const char *buf, size_t n) {
  size_t i = 0;
  while (i < n) {
    const char *nl = memchr(buf + i, '\n', n - i);
    size_t part = nl ? (size_t)(nl - (buf + i)) : n - i;
    if (!s->skipping) {
      if (s->partial.len + part > EVENTS_LINE_MAX) {
        s->skipping = 1;
        strbuf_reset(&s->partial);
      } else {
        strbuf_add(&s->partial, buf + i, part);
      }
    }
    i += part;
    s->off += (off_t)part;
    if (!nl) break;
    i++;
    s->off++;
    if (!s->skipping && s->partial.len) take_line(f, s, s->partial.buf, s->partial.len, s->off);
    s->skipping = 0;
    strbuf_reset(&s->partial);
  }
}

static struct feed_stream *find_stream(struct serve_feed *f, const char *rel) {
  for (size_t i = 0; i < f->nstreams; i++)
    if (strcmp(f->streams[i].rel, rel) == 0) return &f->streams[i];
  return NULL;
}

/* Read what is new in stream s (under the lock; small reads). */
static size_t read_stream(struct serve_feed *f, struct feed_stream *s, size_t budget) {
  char *path = xasprintf("%s/%s", f->root, s->rel);
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  free(path);
  if (fd < 0) return 0; /* gone: what was read stays served */
  struct stat st;
  size_t got_total = 0;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    if (st.st_dev != s->dev || st.st_ino != s->ino || st.st_size < s->off) {
      /* replaced or rewritten: read it again (ids of lines already sent stay the same) */
      s->dev = st.st_dev;
      s->ino = st.st_ino;
      s->off = 0;
      s->skipping = 0;
      strbuf_reset(&s->partial);
    }
    char buf[65536];
    while (got_total < budget && s->off < st.st_size) {
      ssize_t got = pread(fd, buf, sizeof buf, s->off);
      if (got <= 0) break;
      take_bytes(f, s, buf, (size_t)got);
      got_total += (size_t)got;
    }
  }
  close(fd);
  return got_total;
}

static int is_events_name(const char *name) {
  size_t n = strlen(name);
  return name[0] != '.' && n > 6 && strcmp(name + n - 6, ".jsonl") == 0;
}

/* Look for events files in dir (rel: its path under the root, "" the root). */
static int scan_events_dir(struct serve_feed *f, const char *rel) {
  char *path = *rel ? xasprintf("%s/%s", f->root, rel) : xstrdup(f->root);
  DIR *d = opendir(path);
  free(path);
  if (!d) return -1;
  int dfd = dirfd(d);
  struct dirent *de;
  while ((de = readdir(d))) {
    if (!is_events_name(de->d_name)) continue;
    char *r = *rel ? xasprintf("%s/%s", rel, de->d_name) : xstrdup(de->d_name);
    struct stat st;
    if (find_stream(f, r) || fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        (double)st.st_mtime < f->start - FEED_RECENT_S) {
      free(r);
      continue;
    }
    f->streams = grow_for_one(f->streams, f->nstreams, sizeof *f->streams);
    struct feed_stream *s = &f->streams[f->nstreams++];
    memset(s, 0, sizeof *s);
    s->rel = r;
    s->hash = feed_hash(r);
    s->dev = st.st_dev;
    s->ino = st.st_ino;
    s->last_hb = SIZE_MAX;
    s->partial = (struct strbuf)STRBUF_INIT;
  }
  closedir(d);
  return 0;
}

/* The result files' names, sizes and times, hashed: a change rebuilds the report. */
static uint64_t results_signature(const char *root, size_t *nfiles) {
  uint64_t h = 1469598103934665603ull;
  *nfiles = 0;
  DIR *d = opendir(root);
  if (!d) return 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    size_t n = strlen(de->d_name);
    if (de->d_name[0] == '.' || n <= 5 || strcmp(de->d_name + n - 5, ".json") != 0) continue;
    struct stat st;
    if (fstatat(dirfd(d), de->d_name, &st, 0) != 0 || !S_ISREG(st.st_mode)) continue;
    char key[600];
    int k = snprintf(key, sizeof key, "%s/%lld/%lld.%ld", de->d_name, (long long)st.st_size,
                     (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    /* order-free: the files' hashes are added */
    uint64_t x = 1469598103934665603ull;
    for (int i = 0; i < k && i < (int)sizeof key; i++) {
      x ^= (unsigned char)key[i];
      x *= 1099511628211ull;
    }
    h += x;
    (*nfiles)++;
  }
  closedir(d);
  return h;
}

static const char empty_page[] =
    "<!doctype html><html><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
    "content=\"width=device-width, initial-scale=1\"><title>bench report</title></head>"
    "<body style=\"font-family:system-ui,sans-serif;margin:2em;color:#333\">"
    "<p>No result files in this folder yet: the report appears when a run saves its first case.</p></body></html>";

/* Build the report when the result files changed (no lock held while building). */
static int refresh_report(struct serve_feed *f) {
  /* the files are looked at once a second at most: a run writing events
   * wakes the feed many times a second, and a folder may hold thousands */
  double now = now_s();
  if (f->report_html && now - f->report_checked < REPORT_MIN_INTERVAL_S) return 0;
  f->report_checked = now;
  size_t nfiles;
  uint64_t sig = results_signature(f->root, &nfiles);
  pthread_mutex_lock(&f->mu);
  int same = f->report_html && sig == f->report_sig;
  pthread_mutex_unlock(&f->mu);
  if (same) return 0;

  struct result_set set = {0};
  struct rs_select sel = {0};
  struct strbuf page = STRBUF_INIT;
  char *data = NULL;
  struct report_counts counts = {0};
  if (nfiles && result_set_load(f->root, &sel, &set) == 0 && set.n && f->chartjs) {
    if (report_page_build(&set, f->root, &sel, COMPARE_DEFAULT_THRESHOLD, NULL, 0, f->chartjs, &page, &data,
                          &counts) != 0) {
      strbuf_release(&page);
      free(data);
      data = NULL;
    }
  }
  result_set_release(&set);
  if (!page.len) {
    strbuf_release(&page);
    strbuf_adds(&page, empty_page);
    data = xstrdup("{\"cases\":[],\"roofs\":[]}");
    counts.cases = 0;
  }
  pthread_mutex_lock(&f->mu);
  free(f->report_html);
  free(f->data_json);
  f->report_len = page.len;
  f->report_html = strbuf_detach(&page);
  f->data_len = strlen(data);
  f->data_json = data;
  f->report_sig = sig;
  f->report_files = nfiles;
  f->report_cases = counts.cases;
  f->report_built = now_s();
  f->report_version++;
  f->changes++;
  pthread_mutex_unlock(&f->mu);
  return 1;
}

int feed_poll(struct serve_feed *f) {
  uint64_t before;
  pthread_mutex_lock(&f->mu);
  before = f->changes;
  struct stat st;
  if (stat(f->root, &st) != 0 || !S_ISDIR(st.st_mode)) {
    char msg[512];
    snprintf(msg, sizeof msg, "cannot read the results folder '%s': %s; serving what was read from it",
             f->root, stat(f->root, &st) != 0 ? strerror(errno) : "not a folder");
    set_notice(f, "warning", msg);
    f->folder_missing = 1;
    pthread_mutex_unlock(&f->mu);
    return f->changes != before;
  }
  if (f->folder_missing) {
    char msg[512];
    snprintf(msg, sizeof msg, "the results folder '%s' is readable again", f->root);
    set_notice(f, "info", msg);
    f->folder_missing = 0;
  }
  if (scan_events_dir(f, "") != 0) {
    char msg[512];
    snprintf(msg, sizeof msg, "cannot list the results folder '%s': %s", f->root, strerror(errno));
    set_notice(f, "warning", msg);
  }
  scan_events_dir(f, "events"); /* optional */
  size_t budget = POLL_READ_MAX;
  for (size_t i = 0; i < f->nstreams && budget; i++) {
    size_t got = read_stream(f, &f->streams[i], budget);
    budget = got < budget ? budget - got : 0;
  }
  pthread_mutex_unlock(&f->mu);
  refresh_report(f);
  pthread_mutex_lock(&f->mu);
  int changed = f->changes != before;
  pthread_mutex_unlock(&f->mu);
  return changed;
}

size_t feed_resume_index(struct serve_feed *f, const char *last_id, int *known) {
  *known = 0;
  if (!last_id || !*last_id) return 0;
  size_t at;
  if (strmap_get(&f->ids, last_id, &at)) {
    *known = 1;
    return at + 1;
  }
  /* not ours (the server restarted, or a made-up id): from its ts less the window */
  char *end;
  long long us = strtoll(last_id, &end, 10);
  if (end == last_id || *end != '-' || us <= 0) return 0;
  double from = (double)us * 1e-6 - FEED_RESUME_WINDOW_S;
  for (size_t i = 0; i < f->nlog; i++)
    if (f->log[i].ts >= from) return i;
  return f->nlog;
}

/* What bench serve serves, read from its results folder: the events files
 * of the runs there, followed as they grow, as one shared log of
 * server-sent events (each with its stable id), and the report of the
 * result files, rebuilt when they change. One thread polls (feed_poll);
 * the HTTP threads read under the feed's lock. Nothing is kept per
 * client: a stream is a position in the log. docs/serve.md has the
 * contract. */
#ifndef BENCH_SERVE_FEED_H
#define BENCH_SERVE_FEED_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/strmap.h"
#include "core/util.h"

/* A stream that resumes with an id this server does not know (it
 * restarted) gets the events from this many seconds before that id's ts on. */
#define FEED_RESUME_WINDOW_S 5.0
/* Events files last written longer ago than this are left to the report. */
#define FEED_RECENT_S (24 * 3600.0)

struct feed_msg {
  char *text;   /* the whole message ("id: ...\nevent: run\ndata: ...\n\n"); NULL: superseded */
  size_t len;
  double ts;    /* the event's ts */
  char id[64];
};

struct feed_stream {
  char *rel;        /* its path under the folder: "events/RUN.jsonl" */
  uint32_t hash;    /* FNV-1a of rel, in the ids */
  dev_t dev;
  ino_t ino;
  off_t off;        /* bytes taken (whole lines) */
  struct strbuf partial;
  int skipping;     /* the current line grew past EVENTS_LINE_MAX */
  size_t events;
  int ended;        /* its last suite ended */
  size_t last_hb;   /* log index of its latest HEARTBEAT, SIZE_MAX none */
};

struct serve_feed {
  pthread_mutex_t mu;
  char *root;
  double start;     /* when the feed began (files older than FEED_RECENT_S before it are skipped) */

  struct feed_stream *streams;
  size_t nstreams;
  struct feed_msg *log;
  size_t nlog;
  struct strmap ids; /* id -> log index */

  /* the report: the page and its data (NULL before the first build) */
  char *report_html, *data_json;
  size_t report_len, data_len;
  unsigned report_version;
  size_t report_files, report_cases;
  uint64_t report_sig;
  double report_built;
  double report_checked; /* when the result files were last looked at (the feed thread's) */
  const char *chartjs; /* Chart.js text for the report page (not owned) */

  /* the server's own problem now ("" none), as a notice; bumps its version */
  char notice[512];
  char notice_level[8];
  unsigned notice_version;
  int folder_missing;

  uint64_t changes; /* bumps whenever a client may have something new */
};

void feed_init(struct serve_feed *f, const char *root, const char *chartjs);
void feed_release(struct serve_feed *f);

/* Read what is new in the folder (new events files, new lines, changed
 * result files) into the log and the report. Returns 1 when something
 * changed. Takes the lock only to publish. */
int feed_poll(struct serve_feed *f);

/* Under the lock: the log index a stream resuming after last_id starts
 * at; *known 1 when the id is this server's own. */
size_t feed_resume_index(struct serve_feed *f, const char *last_id, int *known);

/* The stable id of an event (docs/serve.md): TS_US-HASH-OFFSET. */
void feed_event_id(char *out, size_t n, double ts, uint32_t hash, off_t end_offset);
uint32_t feed_hash(const char *s);

#endif

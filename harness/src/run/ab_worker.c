/* The command-driven worker of bench ab (see ab_worker.h). Messages are
 * short text: the parent sends "B <n> <batch>" (a block of n samples of
 * batch iterations each), "V" (verify, teardown
 * and exit); the worker answers on the channel (core/channel.h) with tag
 * 'R' and a line, where line is "ok <batch>",
 * "s <dev_ok> <host> <dev> ..." or a case result in one JSON line. */
#include "run/ab_worker.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "core/channel.h"
#include "core/child.h"
#include "core/util.h"
#include "results/io.h"
#include "run/measure.h"

/* The worker's channel: the descriptor after stdin, stdout and stderr. */
#define WORKER_FD 3

static void send_msg(int fd, const char *nonce, const char *text) {
  channel_send(fd, nonce, 'R', text, strlen(text));
}

static void send_result(int fd, const char *nonce, const struct case_result *r) {
  char *line = case_result_to_json_line(r);
  send_msg(fd, nonce, line);
  free(line);
}

/* The worker's life: never returns. */
static void worker_main(int fd, const char *nonce, const struct plugin *pl,
                        const struct case_def *c, const struct run_policy *pol) {
  struct plugin_run pr;
  struct case_result r;
  case_result_init(&r);
  if (measure_init(&pr, pl) != BENCH_OK) {
    r.status = pr.init.status;
    r.message = xstrdup(pr.init.message ? pr.init.message : "init failed");
    send_result(fd, nonce, &r);
    _exit(0);
  }
  void *state = NULL;
  if (measure_begin(&pr, c, pol, &r, &state) != BENCH_OK) {
    send_result(fd, nonce, &r);
    measure_deinit(&pr);
    _exit(0);
  }
  char msg[64];
  snprintf(msg, sizeof msg, "ok %d", r.batch);
  send_msg(fd, nonce, msg);
  double host[AB_BLOCK_MAX], dev[AB_BLOCK_MAX];
  int ok = 1;
  for (;;) {
    char cmd[64];
    ssize_t n = channel_recv(fd, cmd, sizeof cmd - 1, 0);
    if (n <= 0) _exit(1); /* the parent is gone */
    cmd[n] = '\0';
    if (cmd[0] == 'B') {
      char *end;
      size_t want = (size_t)strtoul(cmd + 1, &end, 10);
      long batch = strtol(end, NULL, 10);
      if (want > AB_BLOCK_MAX) want = AB_BLOCK_MAX;
      if (batch > 0) r.batch = (int)batch; /* the case's, the same on both sides */
      int dev_ok;
      if (measure_block(&pr, state, pol, &r, want, host, dev, &dev_ok) != BENCH_OK) {
        ok = 0;
        break;
      }
      char *out = xcalloc(1, 32 + want * 52);
      size_t len = (size_t)sprintf(out, "s %d", dev_ok);
      for (size_t i = 0; i < want; i++) len += (size_t)sprintf(out + len, " %.17g %.17g", host[i], dev[i]);
      send_msg(fd, nonce, out);
      free(out);
    } else {
      break;
    }
  }
  measure_end(&pr, state, pol, &r, ok);
  send_result(fd, nonce, &r);
  measure_deinit(&pr);
  _exit(0);
}

/* The holes the parent's life left among its mappings (a freed buffer, a
 * closed file, an allocator's chunks), each filled with a PROT_NONE
 * reservation: the kernel places a new mapping at the top of the highest
 * gap it fits, so without this a plugin would land in such a hole, where
 * the parent's history put it, whatever was reserved after. A hole is a
 * gap of at most 1 GiB below the stack; the gap above the heap (brk grows
 * into it) and the wide free areas are left. Best effort: a hole that
 * cannot be taken is left. */
#define HOLE_MAX ((uintptr_t)1 << 30)
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000 /* Linux 4.17; an older kernel takes the address as a hint */
#endif
static void fill_holes(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return;
  uintptr_t prev_end = 0;
  int prev_heap = 0;
  char line[4096];
  while (fgets(line, sizeof line, f)) {
    unsigned long long a, b;
    int ok = sscanf(line, "%llx-%llx", &a, &b) == 2;
    int heap = strstr(line, "[heap]") != NULL, stack = strstr(line, "[stack]") != NULL;
    if (!strchr(line, '\n')) { /* a path longer than the line: skip the rest */
      int ch;
      while ((ch = fgetc(f)) != EOF && ch != '\n') {
      }
    }
    if (!ok) continue;
    if (stack) break;
    if (prev_end && !prev_heap && (uintptr_t)a > prev_end && (uintptr_t)a - prev_end <= HOLE_MAX) {
      void *want = (void *)prev_end;
      size_t len = (uintptr_t)a - prev_end;
      void *got = mmap(want, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
                       -1, 0);
      if (got != MAP_FAILED && got != want) munmap(got, len); /* a kernel that took it as a hint only */
    }
    prev_end = (uintptr_t)b;
    prev_heap = heap;
  }
  fclose(f);
}

/* Fork keeps the parent's address layout: without this every worker of a
 * run would load the plugin at the same addresses and run on a stack at
 * the same offset, so ASLR, which differs from one process to the next and
 * moves timings through branch-predictor and cache aliasing, would be one
 * fixed draw for the whole comparison. Each worker draws its own: with the
 * parent's holes filled (fill_holes), a reservation of 1-4096 pages
 * (PROT_NONE, never touched) moves where the kernel maps the plugin, the
 * libraries it brings and every buffer large enough to get its own mapping;
 * 0-64 KiB taken from the heap moves the top of the heap that new small
 * allocations come from. Returns a stack shift (16-byte steps within 4 KiB)
 * for the caller to take with alloca. */
static size_t shift_layout(void) {
  uint64_t r[3];
  random_bytes(r, sizeof r);
  fill_holes();
  long page = sysconf(_SC_PAGESIZE);
  size_t pages = 1 + (size_t)(r[0] % 4096);
  void *hole = mmap(NULL, pages * (size_t)(page > 0 ? page : 4096), PROT_NONE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  (void)hole; /* kept for the worker's life: it only takes address space */
  static void *heap_shift;
  heap_shift = malloc(16 * (size_t)(r[1] % 4096) + 1);
  (void)heap_shift;
  return 16 * (size_t)(r[2] % 256);
}

/* The last lines the worker printed (at most 2 KiB), or NULL. */
static char *log_tail(struct ab_worker *w) {
  if (w->log_fd < 0) return NULL;
  off_t end = lseek(w->log_fd, 0, SEEK_END);
  if (end <= 0) return NULL;
  off_t from = end > 2048 ? end - 2048 : 0;
  char *buf = xcalloc(1, (size_t)(end - from) + 1);
  ssize_t n = pread(w->log_fd, buf, (size_t)(end - from), from);
  if (n <= 0) {
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  while (n > 0 && buf[n - 1] == '\n') buf[--n] = '\0';
  return buf;
}

static void reap(struct ab_worker *w, int *status) {
  *status = 0;
  if (w->pid > 0) {
    kill(-w->pid, SIGKILL);
    kill(w->pid, SIGKILL);
    while (waitpid(w->pid, status, 0) < 0 && errno == EINTR) {
    }
  }
  w->pid = -1;
  if (w->fd >= 0) close(w->fd);
  w->fd = -1;
  if (w->log_fd >= 0) close(w->log_fd);
  w->log_fd = -1;
}

void ab_worker_kill(struct ab_worker *w) {
  int st;
  reap(w, &st);
}

/* Why the worker gave no answer, into r. */
static void record_gone(struct ab_worker *w, struct case_result *r, int timed_out) {
  int st;
  char *tail = log_tail(w);
  reap(w, &st);
  if (tail) {
    free(r->stderr_tail);
    r->stderr_tail = tail;
  }
  free(r->message);
  if (child_interrupted()) {
    r->status = CASE_INTERRUPTED;
    r->message = xasprintf("interrupted by %s", strsignal(child_interrupted()));
  } else if (timed_out) {
    r->status = CASE_TIMEOUT;
    r->message = xasprintf("the worker gave no answer within %.3g s (the preset's timeout); killed",
                           w->timeout_s);
  } else if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL) {
    r->status = CASE_CRASH;
    r->signal = WTERMSIG(st);
    r->message = xasprintf("killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
  } else {
    r->status = CASE_CRASH;
    r->exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    r->message = xasprintf("the worker ended (status %d) without an answer", r->exit_code);
  }
}

/* The worker's next answer (malloc'd, without the nonce), or NULL after
 * record_gone. Foreign messages are dropped. */
static char *answer(struct ab_worker *w, struct case_result *r) {
  double t0 = now_s();
  char *buf = xcalloc(1, CHANNEL_MSG_MAX + 1);
  for (;;) {
    double left = w->timeout_s > 0 ? w->timeout_s - (now_s() - t0) : 1e9;
    if (left <= 0 || child_interrupted()) break;
    struct pollfd p = {w->fd, POLLIN, 0};
    int prc = poll(&p, 1, left > 1e6 ? -1 : (int)(left * 1000) + 1);
    if (prc < 0 && errno == EINTR) continue;
    if (prc <= 0) continue;
    ssize_t n = channel_recv(w->fd, buf, CHANNEL_MSG_MAX, 0);
    if (n <= 0) {
      free(buf);
      record_gone(w, r, 0);
      return NULL;
    }
    buf[n] = '\0';
    char tag;
    const char *text;
    size_t len;
    if (channel_is_ours(w->nonce, buf, (size_t)n, &tag, &text, &len) && tag == 'R' && len > 0) {
      memmove(buf, text, len + 1);
      return buf;
    }
  }
  free(buf);
  record_gone(w, r, !child_interrupted());
  return NULL;
}

/* ---- a side's telemetry over its workers -------------------------------- */

/* a mean over na and one over nb, weighted by them */
static struct gpu_value mean_of(struct gpu_value a, double na, struct gpu_value b, double nb) {
  if (!a.have || na <= 0) return b.have ? b : a;
  if (!b.have || nb <= 0) return a;
  struct gpu_value m = {1, (a.v * na + b.v * nb) / (na + nb)};
  return m;
}
static struct gpu_value min_of(struct gpu_value a, struct gpu_value b) {
  return !a.have || (b.have && b.v < a.v) ? b : a;
}
static struct gpu_value max_of(struct gpu_value a, struct gpu_value b) {
  return !a.have || (b.have && b.v > a.v) ? b : a;
}

/* Fold the telemetry of one worker (src, taken) into the side's (*dst):
 * the readings' means weighted by the readings, extremes over both, the
 * throttle reasons and times added up, the in-band clock weighted by its
 * samples. A worker whose samples were mostly throttled marks the side
 * (bench ab discards nothing). */
static void telemetry_fold(struct case_telemetry **dst, struct case_telemetry **src) {
  struct case_telemetry *d = *dst, *s = *src;
  if (!s) return;
  if (!d) {
    *dst = s;
    *src = NULL;
    return;
  }
  double na = (double)d->readings, nb = (double)s->readings;
  if (!d->library[0] && s->library[0]) {
    memcpy(d->library, s->library, sizeof d->library);
    d->facts = s->facts;
    d->interval_ms = s->interval_ms;
    d->note[0] = 0;
  }
  d->sm_clock_mean = mean_of(d->sm_clock_mean, na, s->sm_clock_mean, nb);
  d->sm_clock_min = min_of(d->sm_clock_min, s->sm_clock_min);
  d->sm_clock_max = max_of(d->sm_clock_max, s->sm_clock_max);
  d->mem_clock_mean = mean_of(d->mem_clock_mean, na, s->mem_clock_mean, nb);
  d->mem_clock_min = min_of(d->mem_clock_min, s->mem_clock_min);
  d->mem_clock_max = max_of(d->mem_clock_max, s->mem_clock_max);
  for (int i = 0; i < GPU_MAX_XCD; i++) {
    d->xcd_clock_mean[i] = mean_of(d->xcd_clock_mean[i], na, s->xcd_clock_mean[i], nb);
    d->xcd_clock_min[i] = min_of(d->xcd_clock_min[i], s->xcd_clock_min[i]);
  }
  if (s->nxcd > d->nxcd) d->nxcd = s->nxcd;
  d->power_mean = mean_of(d->power_mean, na, s->power_mean, nb);
  d->power_max = max_of(d->power_max, s->power_max);
  if (s->power_limit.have) d->power_limit = s->power_limit;
  d->temp_max = max_of(d->temp_max, s->temp_max);
  d->mem_temp_max = max_of(d->mem_temp_max, s->mem_temp_max);
  d->have_throttle |= s->have_throttle;
  d->throttle |= s->throttle;
  for (int i = 0; i < GPU_THR_TIMES; i++) {
    if (!s->throttle_ns[i].have) continue;
    d->throttle_ns[i].v = (d->throttle_ns[i].have ? d->throttle_ns[i].v : 0) + s->throttle_ns[i].v;
    d->throttle_ns[i].have = 1;
  }
  d->other_procs_max = max_of(d->other_procs_max, s->other_procs_max);
  d->readings += s->readings;
  if (s->clock_samples) {
    double ca = (double)d->clock_samples, cb = (double)s->clock_samples;
    d->clock_min = d->clock_samples && d->clock_min < s->clock_min ? d->clock_min : s->clock_min;
    d->clock_max = d->clock_samples && d->clock_max > s->clock_max ? d->clock_max : s->clock_max;
    d->clock_mean = (d->clock_mean * ca + s->clock_mean * cb) / (ca + cb);
    d->clock_samples += s->clock_samples;
  }
  d->discarded += s->discarded;
  d->recovery_s += s->recovery_s;
  if (s->throttled && !d->throttled) {
    d->throttled = 1;
    memcpy(d->throttled_by, s->throttled_by, sizeof d->throttled_by);
  }
}

/* A case result line from the worker into r (identity kept, timings left). */
static int take_result(struct ab_worker *w, const char *line, struct case_result *r) {
  struct case_result got;
  char err[256];
  if (case_result_from_json_line(line, &got, err, sizeof err) != 0) {
    ab_worker_kill(w);
    free(r->message);
    r->status = CASE_ERROR;
    r->message = xasprintf("unreadable answer from the worker: %s", err);
    return -1;
  }
  r->status = got.status;
  free(r->message);
  r->message = got.message;
  got.message = NULL;
  if (got.status != CASE_OK) {
    char *tail = log_tail(w);
    if (tail) {
      free(r->stderr_tail);
      r->stderr_tail = tail;
    }
  }
  r->check = got.check;
  memcpy(r->output_hash, got.output_hash, sizeof r->output_hash);
  r->determinism = got.determinism;
  if (got.flops > 0 || got.bytes > 0) {
    r->flops = got.flops;
    r->bytes = got.bytes;
    r->work_source = got.work_source;
  }
  for (size_t i = 0; i < got.ninfo; i++)
    if (!kv_list_get(r->ninfo, r->info, got.info[i].key))
      kv_list_add(&r->ninfo, &r->info, got.info[i].key, got.info[i].value);
  if (got.warmup_iters > r->warmup_iters) r->warmup_iters = got.warmup_iters;
  if (got.memory.known && (!r->memory.known || got.memory.peak_rss_bytes > r->memory.peak_rss_bytes))
    r->memory = got.memory; /* the highest of its workers' */
  telemetry_fold(&r->telemetry, &got.telemetry);
  case_result_release(&got);
  return r->status == CASE_OK ? 0 : -1;
}

int ab_worker_start(struct ab_worker *w, const struct plugin *pl, const struct case_def *c,
                    const struct run_policy *pol, struct case_result *r) {
  int sv[2];
  w->pid = -1;
  w->fd = -1;
  w->timeout_s = pol->timeout_s;
  FILE *log = tmpfile(); /* unlinked: gone with the last descriptor */
  w->log_fd = log ? dup(fileno(log)) : -1;
  if (log) fclose(log);
  if (w->log_fd >= 0) fcntl(w->log_fd, F_SETFD, FD_CLOEXEC);
  w->batch = 1;
  channel_nonce(w->nonce);
  if (channel_pair(sv) != 0) {
    if (w->log_fd >= 0) close(w->log_fd);
    w->log_fd = -1;
    r->status = CASE_ERROR;
    r->message = xasprintf("socketpair: %s", strerror(errno));
    return -1;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(sv[0]);
    close(sv[1]);
    if (w->log_fd >= 0) close(w->log_fd);
    w->log_fd = -1;
    r->status = CASE_ERROR;
    r->message = xasprintf("fork: %s", strerror(errno));
    return -1;
  }
  if (pid == 0) {
    close(sv[0]);
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGINT, SIG_IGN);
    /* The worker holds only its own descriptors: 0 /dev/null, 1 and 2 its
     * log, WORKER_FD its channel. Nothing of the harness's or of the other
     * side's worker (its channel, its log) is left for the plugin to write
     * on. The channel goes above 2 first, so that no dup2 below clobbers it. */
    int chan = fcntl(sv[1], F_DUPFD, WORKER_FD + 1);
    close(sv[1]);
    int nul = open("/dev/null", O_RDWR);
    if (nul >= 0 && nul != 0) {
      dup2(nul, 0);
      close(nul);
    }
    if (w->log_fd >= 0) { /* kept for the result of a failed side */
      dup2(w->log_fd, 1);
      dup2(w->log_fd, 2);
    }
    if (chan < 0) _exit(127);
    dup2(chan, WORKER_FD);
    fcntl(WORKER_FD, F_SETFD, FD_CLOEXEC);
    child_close_from(WORKER_FD + 1);
    char *pad = __builtin_alloca(shift_layout() + 16);
    __asm__ volatile("" : : "r"(pad) : "memory"); /* the shift is taken */
    worker_main(WORKER_FD, w->nonce, pl, c, pol);
  }
  setpgid(pid, pid);
  close(sv[1]);
  w->pid = pid;
  w->fd = sv[0];
  char *a = answer(w, r);
  if (!a) return -1;
  if (strncmp(a, "ok ", 3) == 0) {
    w->batch = atoi(a + 3);
    r->batch = w->batch;
    free(a);
    return 0;
  }
  take_result(w, a, r);
  free(a);
  ab_worker_kill(w);
  if (r->status == CASE_OK) {
    r->status = CASE_ERROR;
    free(r->message);
    r->message = xstrdup("the worker answered out of turn");
  }
  return -1;
}

int ab_worker_block(struct ab_worker *w, size_t n, int batch, double *host, double *dev, int *dev_ok,
                    struct case_result *r) {
  char cmd[64];
  if (n > AB_BLOCK_MAX) n = AB_BLOCK_MAX;
  snprintf(cmd, sizeof cmd, "B %zu %d", n, batch);
  if (channel_send_raw(w->fd, cmd, strlen(cmd), 0) != 0) {
    record_gone(w, r, 0);
    return -1;
  }
  char *a = answer(w, r);
  if (!a) return -1;
  if (a[0] != 's') {
    take_result(w, a, r);
    free(a);
    ab_worker_kill(w);
    if (r->status == CASE_OK) r->status = CASE_ERROR;
    return -1;
  }
  char *p = a + 1, *end;
  *dev_ok = (int)strtol(p, &end, 10);
  size_t got = 0;
  for (p = end; got < n; got++) {
    host[got] = strtod(p, &end);
    if (end == p) break;
    dev[got] = strtod(end, &p);
  }
  free(a);
  if (got != n) {
    ab_worker_kill(w);
    r->status = CASE_ERROR;
    free(r->message);
    r->message = xstrdup("a malformed block of samples from the worker");
    return -1;
  }
  return 0;
}

int ab_worker_finish(struct ab_worker *w, struct case_result *r) {
  if (channel_send_raw(w->fd, "V", 1, 0) != 0) {
    record_gone(w, r, 0);
    return -1;
  }
  char *a = answer(w, r);
  if (!a) return -1;
  int rc = take_result(w, a, r);
  free(a);
  ab_worker_kill(w);
  return rc;
}

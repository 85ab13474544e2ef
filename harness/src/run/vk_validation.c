/* The Vulkan validation layer's log, per case (see vk_validation.h). The
 * 1.3.239 layer (Debian 12) reads VK_LAYER_SETTINGS_PATH at instance
 * creation and honours debug_action, report_flags and log_filename there.
 * A message in its log is a line "ID(ERROR / SPEC): msgNum: N - Validation
 * Error: [ ID ] Object 0: ...; | MessageID = 0x... | text The Vulkan spec
 * states: ...", then lines of its objects; a warning says "Validation
 * Warning: [" or "Validation Performance Warning: [". */
#include "run/vk_validation.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"

#define SETTINGS "vk_layer_settings.txt"
#define LOG "validation.log"
#define MESSAGE_MAX 300 /* characters of the layer's text kept in a message */

static char dir[512]; /* the open folder, or "" */
static off_t taken;   /* in a child: bytes of the log already read */

int vk_validation_open(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/bench-vkval.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    warning("cannot make a folder for the Vulkan validation log (%s): %s", dir, strerror(errno));
    dir[0] = '\0';
    return -1;
  }
  char *path = xasprintf("%s/" SETTINGS, dir);
  FILE *f = fopen(path, "w");
  int ok = f && fprintf(f,
                        "khronos_validation.debug_action = VK_DBG_LAYER_ACTION_LOG_MSG\n"
                        "khronos_validation.report_flags = error,warn,perf\n"
                        "khronos_validation.log_filename = %s/" LOG "\n",
                        dir) > 0;
  if (f && fclose(f) != 0) ok = 0;
  free(path);
  if (!ok) {
    warning("cannot write the Vulkan validation settings in %s: %s", dir, strerror(errno));
    vk_validation_close();
    return -1;
  }
  return 0;
}

void vk_validation_close(void) {
  if (!dir[0]) return;
  char *p = xasprintf("%s/" SETTINGS, dir);
  unlink(p);
  free(p);
  p = xasprintf("%s/" LOG, dir);
  unlink(p);
  free(p);
  rmdir(dir);
  dir[0] = '\0';
}

void vk_validation_child_begin(void) {
  if (!dir[0]) return;
  setenv("VK_LAYER_SETTINGS_PATH", dir, 1);
  char *p = xasprintf("%s/" LOG, dir);
  int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd >= 0) close(fd);
  free(p);
  taken = 0;
}

/* What was logged since the last call (NUL-terminated, malloc'd) or NULL. */
static char *read_new(void) {
  char *p = xasprintf("%s/" LOG, dir);
  int fd = open(p, O_RDONLY | O_CLOEXEC);
  free(p);
  if (fd < 0) return NULL;
  off_t end = lseek(fd, 0, SEEK_END);
  if (end < taken) taken = 0; /* a later instance truncated it */
  struct strbuf sb = {0};
  if (end > taken && lseek(fd, taken, SEEK_SET) == taken) {
    char buf[65536];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
      strbuf_add(&sb, buf, (size_t)n);
      taken += n;
    }
  }
  close(fd);
  return sb.len ? strbuf_detach(&sb) : (strbuf_release(&sb), NULL);
}

/* "ID: text" from one log line after its "Validation ...: " prefix: the ID
 * between "[ " and " ]", the text after the last " | " (object handles and
 * the message ID dropped), without the spec's quotation, cut at
 * MESSAGE_MAX characters. */
static char *summary(const char *line, size_t len) {
  char *s = xstrndup(line, len);
  const char *id = "", *text = s;
  char *open = strstr(s, "[ "), *close = open ? strstr(open, " ]") : NULL;
  if (open && close) {
    *close = '\0';
    id = open + 2;
    text = close + 2;
  }
  for (const char *bar; (bar = strstr(text, " | "));) text = bar + 3;
  char *spec = strstr(text, " The Vulkan spec states:");
  if (spec) *spec = '\0';
  while (*text == ' ') text++;
  char *out = strlen(text) > MESSAGE_MAX ? xasprintf("%s: %.*s...", id, MESSAGE_MAX, text)
                                         : xasprintf("%s: %s", id, text);
  free(s);
  return out;
}

static void add_note(struct case_result *r, const char *text) {
  const char *old = kv_list_get(r->ninfo, r->info, "note");
  char *v = old ? xasprintf("%s; %s", old, text) : xstrdup(text);
  kv_list_add(&r->ninfo, &r->info, "note", v);
  free(v);
}

void vk_validation_take(struct case_result *r) {
  if (!dir[0]) return;
  char *log = read_new();
  if (!log) return;
  int errors = 0, warnings = 0;
  char *first_error = NULL, *first_warning = NULL;
  for (char *ln = log; *ln;) {
    char *eol = strchr(ln, '\n');
    size_t len = eol ? (size_t)(eol - ln) : strlen(ln);
    static const char err[] = "Validation Error: [", warn[] = "Warning: [";
    const char *e = memmem(ln, len, err, sizeof err - 1);
    const char *w = e ? NULL : memmem(ln, len, warn, sizeof warn - 1);
    if (w && !memmem(ln, (size_t)(w - ln), "Validation ", 11)) w = NULL;
    const char *body = e ? e + sizeof err - 2 : w ? w + sizeof warn - 2 : NULL; /* at "[" */
    if (e && errors++ == 0) first_error = summary(body, len - (size_t)(body - ln));
    if (w && warnings++ == 0) first_warning = summary(body, len - (size_t)(body - ln));
    ln = eol ? eol + 1 : ln + len;
  }
  if (first_error) {
    char *msg = errors > 1 ? xasprintf("Vulkan validation error: %s (and %d more)", first_error,
                                       errors - 1)
                           : xasprintf("Vulkan validation error: %s", first_error);
    size_t idlen = strcspn(first_error, ":");
    if (r->status == CASE_OK) {
      r->status = CASE_ERROR;
      free(r->message);
      r->message = msg;
    } else if (r->message && idlen && memmem(r->message, strlen(r->message), first_error, idlen)) {
      free(msg); /* the plugin reported it already (vkh's own messenger) */
    } else {
      add_note(r, msg);
      free(msg);
    }
  }
  if (first_warning) {
    char *msg = xasprintf("%d Vulkan validation warning%s; the first: %s", warnings,
                          warnings == 1 ? "" : "s", first_warning);
    add_note(r, msg);
    free(msg);
  }
  free(first_error);
  free(first_warning);
  free(log);
}

/* The Vulkan validation layer's log, per case (see vk_validation.h). The
 * 1.3.239 layer (Debian 12) reads VK_LAYER_SETTINGS_PATH at instance
 * creation and honours debug_action, report_flags and log_filename there.
 * A message in its log is a line "ID(ERROR / SPEC): msgNum: N - Validation
 * Error: [ ID ] Object 0: ...; | MessageID = 0x... | text The Vulkan spec
 * states: ...", then lines of its objects; a warning says "Validation
 * Warning: [" or "Validation Performance Warning: [". */
#include "run/vk_validation.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/backends.h"
#include "core/util.h"

#define SETTINGS "vk_layer_settings.txt"
#define LOG "validation.log"
#define MESSAGE_MAX 300 /* characters of the layer's text kept in a message */

static char dir[512];       /* the open folder, or "" */
static char user_note[768]; /* the user's filters, a note on each case; or "" */
static off_t taken;         /* in a child: bytes of the log already read */

/* The user's settings: $VK_LAYER_SETTINGS_PATH (the file, or a folder
 * holding vk_layer_settings.txt, as the layer reads it), else the file the
 * layer would read from the working folder. NULL when there is none. */
static char *user_settings_path(int *named) {
  const char *env = getenv("VK_LAYER_SETTINGS_PATH");
  *named = env && *env;
  if (!*named) return access(SETTINGS, F_OK) == 0 ? xstrdup(SETTINGS) : NULL;
  struct stat st;
  if (stat(env, &st) == 0 && S_ISDIR(st.st_mode)) return xasprintf("%s/" SETTINGS, env);
  return xstrdup(env);
}

/* The key of a settings line ("key = value"), trimmed, into key; 0 when the
 * line is a comment or has no '='. */
static int line_key(const char *line, char *key, size_t len, const char **value) {
  while (*line == ' ' || *line == '\t') line++;
  const char *eq = strchr(line, '=');
  if (*line == '#' || !eq) return 0;
  size_t n = (size_t)(eq - line);
  while (n && (line[n - 1] == ' ' || line[n - 1] == '\t')) n--;
  snprintf(key, len, "%.*s", (int)n, line);
  for (*value = eq + 1; **value == ' ' || **value == '\t'; (*value)++) {
  }
  return 1;
}

/* The user's settings file copied into out, but for the keys the harness
 * needs: debug_action and log_filename are ours; report_flags keeps the
 * user's flags with "error" added. Fills flags (the user's report_flags,
 * "" when none) and user_note (the filters they apply). Returns 0, or -1
 * with errno set when the file cannot be read. */
static int merge_user_settings(const char *path, struct strbuf *out, char *flags, size_t flen) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  strbuf_addf(out, "# merged by bench's validation (--mode debug, validation = true) from %s\n", path);
  while ((n = getline(&line, &cap, f)) > 0) {
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
    char key[128];
    const char *value;
    if (line_key(line, key, sizeof key, &value)) {
      if (!strcmp(key, "khronos_validation.debug_action") ||
          !strcmp(key, "khronos_validation.log_filename"))
        continue; /* ours: the harness reads the log it names */
      if (!strcmp(key, "khronos_validation.report_flags")) {
        snprintf(flags, flen, "%s", value);
        continue;
      }
      if ((!strcmp(key, "khronos_validation.message_id_filter") ||
           !strcmp(key, "khronos_validation.disables")) && *value) {
        size_t used = strlen(user_note);
        snprintf(user_note + used, sizeof user_note - used, "%s%s = %s", used ? ", " : "",
                 key + strlen("khronos_validation."), value);
      }
    }
    strbuf_addf(out, "%s\n", line);
  }
  int err = ferror(f) ? errno : 0;
  free(line);
  fclose(f);
  if (err) {
    errno = err;
    return -1;
  }
  return 0;
}

int vk_validation_open(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/bench-vkval.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  user_note[0] = '\0';
  if (!mkdtemp(dir)) {
    warning("cannot make a folder for the Vulkan validation log (%s): %s", dir, strerror(errno));
    dir[0] = '\0';
    return -1;
  }
  struct strbuf sb = {0};
  char flags[256] = "";
  int named;
  char *user = user_settings_path(&named);
  if (user && merge_user_settings(user, &sb, flags, sizeof flags) != 0) {
    if (named) /* a file in the working folder that vanished is no news */
      warning("cannot read the Vulkan layer settings %s (VK_LAYER_SETTINGS_PATH): %s; bench "
              "validates with its own settings only",
              user, strerror(errno));
    strbuf_release(&sb);
    flags[0] = '\0';
    user_note[0] = '\0';
  } else if (user_note[0]) {
    char *note = xasprintf("Vulkan validation filtered by the user's %s (%s)", user, user_note);
    snprintf(user_note, sizeof user_note, "%s", note);
    free(note);
  }
  free(user);
  /* report_flags: the user's, with error added (an error is what fails a
   * case); else errors, warnings and performance warnings. */
  int has_error = 0;
  for (const char *t = flags; *t;) {
    t += strspn(t, ", \t");
    size_t len = strcspn(t, ", \t");
    if (len == 5 && !strncmp(t, "error", 5)) has_error = 1;
    t += len;
  }
  strbuf_addf(&sb,
              "khronos_validation.debug_action = VK_DBG_LAYER_ACTION_LOG_MSG\n"
              "khronos_validation.report_flags = %s%s\n"
              "khronos_validation.log_filename = %s/" LOG "\n",
              flags[0] ? flags : "error,warn,perf", flags[0] && !has_error ? ",error" : "", dir);
  char *path = xasprintf("%s/" SETTINGS, dir);
  FILE *f = fopen(path, "w");
  int ok = f && fwrite(sb.buf, 1, sb.len, f) == sb.len;
  if (f && fclose(f) != 0) ok = 0;
  free(path);
  strbuf_release(&sb);
  if (!ok) {
    warning("cannot write the Vulkan validation settings in %s: %s", dir, strerror(errno));
    vk_validation_close();
    return -1;
  }
  return 0;
}

int vk_validation_active(void) { return dir[0] != '\0'; }

#define LAYER_NAME "\"VK_LAYER_KHRONOS_validation\""
#define MANIFEST_MAX 65536 /* a layer manifest is a few KiB */

/* Whether a manifest (*.json) in folder d names the layer. */
static int folder_has_layer(const char *d) {
  DIR *dp = opendir(d);
  if (!dp) return 0;
  int found = 0;
  for (struct dirent *e; !found && (e = readdir(dp));) {
    size_t n = strlen(e->d_name);
    if (n < 5 || strcmp(e->d_name + n - 5, ".json") != 0) continue;
    char *path = xasprintf("%s/%s", d, e->d_name);
    FILE *f = fopen(path, "r");
    free(path);
    if (!f) continue;
    char *buf = xmalloc(MANIFEST_MAX + 1);
    size_t got = fread(buf, 1, MANIFEST_MAX, f);
    buf[got] = '\0';
    fclose(f);
    found = strstr(buf, LAYER_NAME) != NULL;
    free(buf);
  }
  closedir(dp);
  return found;
}

/* Each folder of a ':' list (with suffix appended) into the search. */
static int list_has_layer(const char *list, const char *suffix) {
  int found = 0;
  for (const char *p = list; p && *p && !found;) {
    size_t n = strcspn(p, ":");
    if (n) {
      char *d = xasprintf("%.*s%s", (int)n, p, suffix);
      found = folder_has_layer(d);
      free(d);
    }
    p += n + (p[n] == ':');
  }
  return found;
}

static const char *env_or(const char *name, const char *fallback) {
  const char *v = getenv(name);
  return v && *v ? v : fallback;
}

int vk_validation_layer_installed(void) {
  if (list_has_layer(getenv("VK_ADD_LAYER_PATH"), "")) return 1;
  const char *only = getenv("VK_LAYER_PATH");
  if (only && *only) return list_has_layer(only, "");
  const char *home = getenv("HOME");
  char *config = home ? xasprintf("%s/.config", home) : NULL;
  char *data = home ? xasprintf("%s/.local/share", home) : NULL;
  const char *sub = "/vulkan/explicit_layer.d";
  int found = list_has_layer(env_or("XDG_CONFIG_HOME", config), sub) ||
              list_has_layer(env_or("XDG_CONFIG_DIRS", "/etc/xdg"), sub) ||
              list_has_layer("/etc", sub) ||
              list_has_layer(env_or("XDG_DATA_HOME", data), sub) ||
              list_has_layer(env_or("XDG_DATA_DIRS", "/usr/local/share:/usr/share"), sub);
  free(config);
  free(data);
  return found;
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

void vk_validation_take(struct case_result *r) { vk_validation_take_in(r, NULL); }

void vk_validation_take_in(struct case_result *r, const char *when) {
  if (!dir[0]) return;
  if (!when && user_note[0]) add_note(r, user_note);
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
    char *msg = xasprintf("%s%s%s: %s", backend_find("vulkan")->validation_error, when ? " in " : "",
                          when ? when : "", first_error);
    if (errors > 1) {
      char *more = xasprintf("%s (and %d more)", msg, errors - 1);
      free(msg);
      msg = more;
    }
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
    char *msg = xasprintf("%d Vulkan validation warning%s%s%s; the first: %s", warnings,
                          warnings == 1 ? "" : "s", when ? " in " : "", when ? when : "",
                          first_warning);
    add_note(r, msg);
    free(msg);
  }
  free(first_error);
  free(first_warning);
  free(log);
}

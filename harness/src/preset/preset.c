/* Presets: reading an INI file into a run policy and the plugin sections
 * (checked later against the plugins, in cases.c). inih parses the file
 * through our line reader (ini_lines.c: line numbers, over-long lines,
 * every syntax error); this file gives the keys their meaning: which
 * section they are in, duplicates, the [run] keys (run_schema.c) and the
 * plugin sections' lists. Every problem is collected with its line and
 * printed, in line order, as "path:line: message" (diag.c). */
#include "preset/preset.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "core/strmap.h"
#include "preset/ini_lines.h"

/* A preset is a few dozen lines; a bigger file is surely not one. */
#define PRESET_MAX_BYTES (1u << 20)
/* After this many problems the rest of the file is not read. */
#define PRESET_MAX_PROBLEMS 20

enum section_kind { SEC_NONE, SEC_RUN, SEC_PLUGIN, SEC_SKIP };

struct loader {
  struct ini_lines reader;
  struct diags d;

  enum section_kind sec;
  size_t cur;           /* SEC_PLUGIN: index in out->sections */
  int run_line;         /* line of the first [run] header, 0 if none */
  int run_set[RUN_NKEYS]; /* line where each [run] key was set, 0 if not */
  int run_ok[RUN_NKEYS];  /* ... and its value was good */

  struct strmap sections; /* plugin section name -> index in out->sections */
  struct strmap keys;     /* "<section index> <key>" -> index in its entries */

  struct preset *out;
};

/* A [section] header (name NULL: refused or unreadable, see ini_lines.h). */
static int on_section(void *user, const char *name, int line) {
  struct loader *ld = user;
  if (!name) {
    ld->sec = SEC_SKIP;
    return 1;
  }
  if (strcmp(name, "run") == 0) {
    if (ld->run_line)
      diags_add(&ld->d, line, "section [run] appears twice (first on line %d)", ld->run_line);
    else
      ld->run_line = line;
    ld->sec = SEC_RUN;
    return 1;
  }
  struct preset *p = ld->out;
  size_t i;
  if (strmap_get(&ld->sections, name, &i)) {
    diags_add(&ld->d, line, "section [%s] appears twice (first on line %d)", name, p->sections[i].line);
    ld->sec = SEC_PLUGIN;
    ld->cur = i;
    return 1;
  }
  strmap_put(&ld->sections, name, p->nsections);
  p->sections = grow_for_one(p->sections, p->nsections, sizeof *p->sections);
  struct preset_section *sec = &p->sections[p->nsections];
  memset(sec, 0, sizeof *sec);
  sec->name = xstrdup(name);
  sec->line = line;
  ld->cur = p->nsections++;
  ld->sec = SEC_PLUGIN;
  return 1;
}

/* "timeout = 60s # note": '#' is no inline comment for inih. 1 if so. */
static int hash_comment(struct loader *ld, const char *name, const char *value, int line) {
  if (value[0] != '#' && !strstr(value, " #") && !strstr(value, "\t#")) return 0;
  diags_add(&ld->d, line, "bad value '%s' for %s: '#' starts a comment only at the start of a "
           "line; after a value use ' ; comment'", value, name);
  return 1;
}

static void run_key(struct loader *ld, const char *name, const char *value, int line) {
  int id = run_key_find(name);
  if (id < 0) {
    char *known = run_key_names();
    diags_add(&ld->d, line, "unknown key '%s' in [run] (known: %s)", name, known);
    free(known);
    return;
  }
  if (ld->run_set[id]) {
    diags_add(&ld->d, line, "duplicate key '%s' in [run] (first set on line %d)", name,
             ld->run_set[id]);
    return;
  }
  ld->run_set[id] = line;
  if (hash_comment(ld, name, value, line)) return;
  if (run_key_set(&ld->out->policy, (enum run_key_id)id, value, &ld->d, line) == 0)
    ld->run_ok[id] = line;
}

static void plugin_key(struct loader *ld, const char *name, const char *value, int line) {
  struct preset_section *sec = &ld->out->sections[ld->cur];
  char *id = xasprintf("%zu %s", ld->cur, name);
  size_t first;
  int dup = strmap_get(&ld->keys, id, &first);
  if (!dup) strmap_put(&ld->keys, id, sec->nentries);
  free(id);
  if (dup) {
    diags_add(&ld->d, line, "duplicate key '%s' in [%s] (first set on line %d)", name, sec->name,
             sec->entries[first].line);
    return;
  }
  /* The list's form is checked here; its items against the plugin later. */
  if (hash_comment(ld, name, value, line)) {
    /* reported */
  } else if (!*value) {
    diags_add(&ld->d, line, "missing value for '%s' in [%s]", name, sec->name);
  } else {
    const char *item = value;
    for (;;) {
      const char *comma = strchr(item, ',');
      size_t n = comma ? (size_t)(comma - item) : strlen(item);
      size_t i = 0;
      while (i < n && isspace((unsigned char)item[i])) i++;
      if (i == n) {
        diags_add(&ld->d, line, "empty item in list '%s' for '%s' in [%s]", value, name, sec->name);
        break;
      }
      if (!comma) break;
      item = comma + 1;
    }
  }
  sec->entries = grow_for_one(sec->entries, sec->nentries, sizeof *sec->entries);
  sec->entries[sec->nentries].key = xstrdup(name);
  sec->entries[sec->nentries].value = xstrdup(value);
  sec->entries[sec->nentries].line = line;
  sec->nentries++;
}

static int on_key(void *user, const char *section, const char *name, const char *value) {
  struct loader *ld = user;
  int line = ld->reader.lineno;
  (void)section; /* the reader tracks sections itself, refused headers included */
  if (!*name) {
    diags_add(&ld->d, line, "missing key name before '='");
    return 1;
  }
  switch (ld->sec) {
  case SEC_NONE:
    diags_add(&ld->d, line, "key '%s' outside any section (put it under [run] or a [plugin] section)",
             name);
    break;
  case SEC_SKIP:
    break;
  case SEC_RUN:
    run_key(ld, name, value, line);
    break;
  case SEC_PLUGIN:
    plugin_key(ld, name, value, line);
    break;
  }
  return 1; /* problems are ours to report; inih's return is for syntax only */
}

static char *base_name_of(const char *path) {
  const char *b = strrchr(path, '/');
  b = b ? b + 1 : path;
  size_t n = strlen(b);
  if (n > 4 && strcmp(b + n - 4, ".ini") == 0) n -= 4;
  return xstrndup(b, n);
}

int preset_parse(const char *path, const char *data, size_t len, struct preset *out) {
  memset(out, 0, sizeof *out);
  out->path = xstrdup(path);
  out->name = base_name_of(path);
  sha256_hex(data, len, out->sha256);
  run_policy_defaults(&out->policy);

  struct loader ld;
  memset(&ld, 0, sizeof ld);
  ld.sec = SEC_NONE;
  ld.out = out;
  ini_lines_init(&ld.reader, data, len, &ld.d, PRESET_MAX_PROBLEMS, on_section, &ld);

  ini_lines_parse(&ld.reader, on_key, &ld);
  if (ld.d.n < PRESET_MAX_PROBLEMS)
    run_policy_check_ranges(&out->policy, ld.run_set, ld.run_ok, &ld.d);

  int problems = ld.d.n > 0, stopped = ini_lines_stopped(&ld.reader);
  diags_flush(&ld.d, path, (size_t)-1);
  if (stopped)
    preset_diag(path, ld.reader.lineno, "too many problems (%d); the rest of the file was not read",
                PRESET_MAX_PROBLEMS);
  strmap_release(&ld.sections);
  strmap_release(&ld.keys);
  if (problems) {
    preset_release(out);
    return -1;
  }
  return 0;
}

int preset_load(const char *path, struct preset *out) {
  struct strbuf sb = STRBUF_INIT;
  char why[128];
  memset(out, 0, sizeof *out);
  if (read_regular_file(path, PRESET_MAX_BYTES, &sb, why, sizeof why) != 0)
    return error("cannot read preset '%s': %s", path, why);
  int rc = preset_parse(path, sb.buf, sb.len, out);
  strbuf_release(&sb);
  return rc;
}

void preset_release(struct preset *p) {
  if (!p) return;
  for (size_t i = 0; i < p->nsections; i++) {
    struct preset_section *s = &p->sections[i];
    for (size_t j = 0; j < s->nentries; j++) {
      free(s->entries[j].key);
      free(s->entries[j].value);
    }
    free(s->entries);
    free(s->name);
  }
  free(p->sections);
  free(p->path);
  free(p->name);
  memset(p, 0, sizeof *p);
}

const struct preset_section *preset_find_section(const struct preset *p, const char *name) {
  if (!p) return NULL;
  for (size_t i = 0; i < p->nsections; i++)
    if (strcmp(p->sections[i].name, name) == 0) return &p->sections[i];
  return NULL;
}

/* The CPU's model name (see cpu_model.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cpu_model.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* s without leading and trailing blanks, copied; NULL when nothing is left. */
static char *trimmed_copy(const char *s, size_t len) {
  while (len && isspace((unsigned char)*s)) s++, len--;
  while (len && (isspace((unsigned char)s[len - 1]) || s[len - 1] == '\0')) len--;
  return len ? strndup(s, len) : NULL;
}

/* The value of "key<blanks>: value" when line holds key; NULL otherwise. */
static const char *value_of(const char *line, const char *key) {
  size_t n = strlen(key);
  if (strncmp(line, key, n) != 0) return NULL;
  const char *p = line + n;
  while (*p == ' ' || *p == '\t') p++;
  return *p == ':' ? p + 1 : NULL;
}

char *cpu_model_from_cpuinfo(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  char line[512], *model = NULL, *implementer = NULL, *part = NULL;
  while (!model && fgets(line, sizeof line, f)) {
    const char *v;
    if ((v = value_of(line, "model name"))) model = trimmed_copy(v, strlen(v));
    else if (!implementer && (v = value_of(line, "CPU implementer"))) implementer = trimmed_copy(v, strlen(v));
    else if (!part && (v = value_of(line, "CPU part"))) part = trimmed_copy(v, strlen(v));
  }
  fclose(f);
  if (!model && implementer && part) {
    size_t len = strlen(implementer) + strlen(part) + 40;
    model = malloc(len);
    if (model) snprintf(model, len, "Arm implementer %s part %s", implementer, part);
  }
  free(implementer);
  free(part);
  return model;
}

char *cpu_model_from_cpuid(void) {
#if defined(__x86_64__) || defined(__i386__)
  unsigned r[12];
  if (__get_cpuid_max(0x80000000u, NULL) < 0x80000004u) return NULL;
  for (unsigned i = 0; i < 3; i++) __cpuid(0x80000002u + i, r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
  return trimmed_copy((const char *)r, sizeof r);
#else
  return NULL;
#endif
}

char *cpu_model(void) {
  char *m = cpu_model_from_cpuinfo("/proc/cpuinfo");
  if (!m) m = cpu_model_from_cpuid();
  if (m) return m;
  struct utsname u;
  char text[128] = "unknown CPU";
  if (uname(&u) == 0) snprintf(text, sizeof text, "unknown %s CPU", u.machine);
  m = strdup(text);
  if (!m) abort(); /* out of memory at start-up */
  return m;
}

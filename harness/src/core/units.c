/* The one formatter for durations and rates (see units.h). */
#include "core/units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

char *fmt_sig4(double v) {
  double a = fabs(v);
  if (!isfinite(v)) return xstrdup("-");
  if (a >= FMT_EXP_FROM) return xasprintf("%.3e", v);
  if (a >= 999.95) return xasprintf("%.0f", v);
  if (a >= 99.995) return xasprintf("%.1f", v);
  if (a >= 9.9995) return xasprintf("%.2f", v);
  if (a >= 0.9995 || a == 0.0) return xasprintf("%.3f", v);
  return xasprintf("%.3g", v);
}

char *fmt_time_ns(double ns) {
  static const char *const units[] = {"ns", "us", "ms", "s"};
  if (!isfinite(ns)) return xstrdup("-");
  double v = ns;
  size_t u = 0;
  while (u < 3 && fabs(v) >= 999.95) {
    v /= 1e3;
    u++;
  }
  char *num = fmt_sig4(v);
  char *s = xasprintf("%s %s", num, units[u]);
  free(num);
  return s;
}

char *fmt_time_ns_fixed(double ns) {
  if (!(ns > 0)) return xstrdup("-");
  if (ns < 1e3) return xasprintf("%.1f ns", ns);
  if (ns < 1e6) return xasprintf("%.2f us", ns / 1e3);
  if (ns < 1e9) return xasprintf("%.3f ms", ns / 1e6);
  return xasprintf("%.3f s", ns / 1e9);
}

char *fmt_fixed(double v, int decimals) {
  if (!isfinite(v)) return xstrdup("?");
  if (fabs(v) >= FMT_EXP_FROM) return xasprintf("%.3e", v);
  return xasprintf("%.*f", decimals, v);
}

char *fmt_rate(double v, const char *unit) {
  char *num = fmt_sig4(v);
  char *s = xasprintf("%s %s", num, unit);
  free(num);
  return s;
}

char *fmt_bytes(double bytes) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  if (!isfinite(bytes)) return xstrdup("-");
  double v = bytes;
  size_t u = 0;
  while (u < 4 && fabs(v) >= 1023.95) {
    v /= 1024;
    u++;
  }
  if (u == 0) return xasprintf("%.0f B", v);
  char *num = fmt_sig4(v);
  char *s = xasprintf("%s %s", num, units[u]);
  free(num);
  return s;
}

char *fmt_count_rate(double per_s, const char *unit) {
  static const char *const prefixes[] = {"", "k ", "M ", "G ", "T "};
  if (!isfinite(per_s)) return xstrdup("-");
  double v = per_s;
  size_t p = 0;
  while (p < 4 && fabs(v) >= 999.95) {
    v /= 1e3;
    p++;
  }
  char *num = fmt_sig4(v);
  char *s = xasprintf("%s %s%s/s", num, prefixes[p], unit);
  free(num);
  return s;
}

char *unit_singular(const char *unit) {
  size_t n = strlen(unit);
  static const char *const es[] = {"ches", "shes", "sses", "xes", NULL};
  for (size_t i = 0; es[i]; i++) {
    size_t m = strlen(es[i]);
    if (n > m && strcmp(unit + n - m, es[i]) == 0) return xstrndup(unit, n - 2);
  }
  return xstrndup(unit, n > 1 && unit[n - 1] == 's' && unit[n - 2] != 's' ? n - 1 : n);
}

char *fmt_figure(double v, const char *unit) {
  size_t n = strlen(unit);
  if (strncmp(unit, "ns/", 3) == 0) {
    char *t = fmt_time_ns(v), *s = xasprintf("%s/%s", t, unit + 3);
    free(t);
    return s;
  }
  if (strcmp(unit, "GFLOP/s") == 0 || strcmp(unit, "GB/s") == 0 || n < 3 || strcmp(unit + n - 2, "/s") != 0)
    return fmt_rate(v, unit);
  char *item = xstrndup(unit, n - 2), *s = fmt_count_rate(v, item);
  free(item);
  return s;
}

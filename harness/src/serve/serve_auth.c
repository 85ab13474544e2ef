/* bench serve's token and loopback rules (serve_auth.h). */
#include "serve/serve_auth.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"

void serve_token_new(char out[33]) {
  unsigned char b[16];
  random_bytes(b, sizeof b);
  for (int i = 0; i < 16; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

int serve_token_valid(const char *s) {
  size_t n = strlen(s);
  if (n < SERVE_TOKEN_MIN || n > SERVE_TOKEN_MAX) return 0;
  for (const char *p = s; *p; p++)
    if (!isalnum((unsigned char)*p) && !strchr("._~-", *p)) return 0;
  return 1;
}

int serve_token_load(const char *path, char *out) {
  struct strbuf sb = STRBUF_INIT;
  char why[128];
  if (read_regular_file(path, 4096, &sb, why, sizeof why) != 0)
    return error("cannot read the token file '%s': %s", path, why);
  size_t n = strcspn(sb.buf, "\r\n");
  sb.buf[n] = '\0';
  int ok = serve_token_valid(sb.buf);
  if (ok) snprintf(out, SERVE_TOKEN_MAX + 1, "%s", sb.buf);
  strbuf_release(&sb);
  if (!ok)
    return error("the token file '%s' holds no token: its first line must be %d to %d characters of "
                 "A-Z a-z 0-9 . _ ~ -", path, SERVE_TOKEN_MIN, SERVE_TOKEN_MAX);
  return 0;
}

int serve_token_equal(const char *want, const char *got) {
  if (!got) return 0;
  size_t n = strlen(want), m = strlen(got);
  unsigned char diff = (unsigned char)(n != m);
  for (size_t i = 0; i < n; i++) diff |= (unsigned char)(want[i] ^ (i < m ? got[i] : 0));
  return diff == 0;
}

int serve_cookie_value(const char *header, const char *name, char *out, size_t n) {
  if (!header) return 0;
  size_t nl = strlen(name);
  for (const char *p = header; *p;) {
    while (*p == ' ' || *p == ';') p++;
    const char *end = strchr(p, ';');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len > nl && strncmp(p, name, nl) == 0 && p[nl] == '=') {
      size_t v = len - nl - 1;
      if (v >= n) return 0;
      memcpy(out, p + nl + 1, v);
      out[v] = '\0';
      return 1;
    }
    if (!end) break;
    p = end + 1;
  }
  return 0;
}

const char *serve_bearer(const char *header) {
  if (!header || strncasecmp(header, "Bearer ", 7) != 0) return NULL;
  header += 7;
  while (*header == ' ') header++;
  return header;
}

int serve_addr_is_loopback(const char *addr) {
  if (strcmp(addr, "localhost") == 0) return 1;
  struct in_addr a4;
  struct in6_addr a6;
  if (inet_pton(AF_INET, addr, &a4) == 1) return (ntohl(a4.s_addr) >> 24) == 127;
  if (inet_pton(AF_INET6, addr, &a6) == 1) return IN6_IS_ADDR_LOOPBACK(&a6);
  return 0;
}

int serve_host_is_loopback(const char *host) {
  if (!host) return 0;
  char h[256];
  size_t n = strlen(host);
  if (n == 0 || n >= sizeof h) return 0;
  if (host[0] == '[') { /* [::1]:port */
    const char *close = strchr(host, ']');
    if (!close || (close[1] && close[1] != ':')) return 0;
    n = (size_t)(close - host - 1);
    memcpy(h, host + 1, n);
    h[n] = '\0';
  } else {
    const char *colon = strchr(host, ':');
    if (colon && strchr(colon + 1, ':')) return 0; /* a bare IPv6 address is no Host */
    n = colon ? (size_t)(colon - host) : n;
    memcpy(h, host, n);
    h[n] = '\0';
  }
  return strcasecmp(h, "localhost") == 0 || serve_addr_is_loopback(h);
}

/* Who bench serve answers: the token (random, or from a file), compared in
 * constant time, found in the query, the bench_token cookie or an
 * Authorization: Bearer header; and the loopback rules (a loopback bind
 * answers only requests whose Host names a loopback host, against DNS
 * rebinding). */
#ifndef BENCH_SERVE_AUTH_H
#define BENCH_SERVE_AUTH_H

#include <stddef.h>

#define SERVE_TOKEN_MIN 16
#define SERVE_TOKEN_MAX 256

/* A new random token: 32 hex digits. */
void serve_token_new(char out[33]);
/* The token in the first line of path into out (SERVE_TOKEN_MAX + 1):
 * 0, or -1 after error() naming the file. */
int serve_token_load(const char *path, char *out);
/* 1 when s is a well-formed token: SERVE_TOKEN_MIN..MAX characters of [A-Za-z0-9._~-]. */
int serve_token_valid(const char *s);
/* 1 when got (may be NULL) equals want, in time that depends only on their lengths. */
int serve_token_equal(const char *want, const char *got);
/* The value of cookie name in a Cookie header into out (n bytes): 1 found, else 0. */
int serve_cookie_value(const char *header, const char *name, char *out, size_t n);
/* The token of an "Authorization: Bearer T" header, or NULL. */
const char *serve_bearer(const char *header);

/* 1 when addr (a numeric IPv4 or IPv6 address, or "localhost") is loopback. */
int serve_addr_is_loopback(const char *addr);
/* 1 when a Host header (NULL: none) names a loopback host, with or without a port. */
int serve_host_is_loopback(const char *host);

#endif

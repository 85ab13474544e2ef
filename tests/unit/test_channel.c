/* The harness-child channel (core/channel.h): messages keep their bounds,
 * carry the nonce and tag they were sent with, a message without the nonce
 * (or with another) is foreign, an over-long payload is cut at
 * CHANNEL_PAYLOAD_MAX, and the reader sees EOF once the peer is gone. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/channel.h"
#include "test.h"

static void test_nonce(void) {
  char a[CHANNEL_NONCE_LEN + 1], b[CHANNEL_NONCE_LEN + 1];
  channel_nonce(a);
  channel_nonce(b);
  CHECK(strlen(a) == CHANNEL_NONCE_LEN);
  CHECK(strspn(a, "0123456789abcdef") == CHANNEL_NONCE_LEN);
  CHECK(strcmp(a, b) != 0); /* 64 random bits: equal only by a broken source */
}

static void test_round_trip(void) {
  int sv[2];
  REQUIRE(channel_pair(sv) == 0);
  char nonce[CHANNEL_NONCE_LEN + 1], other[CHANNEL_NONCE_LEN + 1];
  channel_nonce(nonce);
  channel_nonce(other);
  CHECK(channel_send(sv[1], nonce, '.', "hello", 5) == 0);
  CHECK(channel_send(sv[1], nonce, '+', "", 0) == 0);
  CHECK(channel_send(sv[1], other, '.', "forged", 6) == 0);
  CHECK(channel_send_raw(sv[1], "plain text", 10, 0) == 0);
  char buf[CHANNEL_MSG_MAX], tag = 0;
  const char *p;
  size_t len;
  ssize_t n = channel_recv(sv[0], buf, sizeof buf, 0);
  CHECK(n == CHANNEL_NONCE_LEN + 1 + 5); /* one message, its bounds kept */
  CHECK(channel_is_ours(nonce, buf, (size_t)n, &tag, &p, &len));
  CHECK(tag == '.' && len == 5 && memcmp(p, "hello", 5) == 0);
  n = channel_recv(sv[0], buf, sizeof buf, 0);
  CHECK(channel_is_ours(nonce, buf, (size_t)n, &tag, &p, &len) && tag == '+' && len == 0);
  n = channel_recv(sv[0], buf, sizeof buf, 0);
  CHECK(n > 0 && !channel_is_ours(nonce, buf, (size_t)n, &tag, &p, &len)); /* another child's nonce */
  n = channel_recv(sv[0], buf, sizeof buf, 0);
  CHECK(n == 10 && !channel_is_ours(nonce, buf, (size_t)n, &tag, &p, &len));
  /* nothing waiting: EAGAIN when asked not to wait */
  errno = 0;
  CHECK(channel_recv(sv[0], buf, sizeof buf, 1) < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
  /* the other way: raw commands */
  CHECK(channel_send_raw(sv[0], "V", 1, 0) == 0);
  CHECK(channel_recv(sv[1], buf, sizeof buf, 0) == 1 && buf[0] == 'V');
  close(sv[1]);
  CHECK(channel_recv(sv[0], buf, sizeof buf, 0) == 0); /* EOF */
  CHECK(channel_send_raw(sv[0], "a", 1, 1) != 0);       /* no SIGPIPE: an error */
  close(sv[0]);
}

static void test_long_payload_cut(void) {
  int sv[2];
  REQUIRE(channel_pair(sv) == 0);
  char nonce[CHANNEL_NONCE_LEN + 1];
  channel_nonce(nonce);
  size_t big = CHANNEL_MSG_MAX + 100;
  char *text = malloc(big);
  REQUIRE(text != NULL);
  memset(text, 'x', big);
  CHECK(channel_send(sv[1], nonce, 'R', text, big) == 0);
  char *buf = malloc(CHANNEL_MSG_MAX + 1000);
  REQUIRE(buf != NULL);
  ssize_t n = channel_recv(sv[0], buf, CHANNEL_MSG_MAX + 1000, 0);
  CHECK(n == CHANNEL_MSG_MAX);
  char tag;
  const char *p;
  size_t len;
  CHECK(channel_is_ours(nonce, buf, (size_t)n, &tag, &p, &len) && tag == 'R' && len == CHANNEL_PAYLOAD_MAX);
  free(buf);
  free(text);
  close(sv[0]);
  close(sv[1]);
}

static void test_short_is_foreign(void) {
  char nonce[CHANNEL_NONCE_LEN + 1], tag;
  const char *p;
  size_t len;
  channel_nonce(nonce);
  CHECK(!channel_is_ours(nonce, nonce, CHANNEL_NONCE_LEN, &tag, &p, &len)); /* no tag */
  CHECK(!channel_is_ours(nonce, "x", 1, &tag, &p, &len));
}

TEST_MAIN(TEST_ENTRY(test_nonce), TEST_ENTRY(test_round_trip), TEST_ENTRY(test_long_payload_cut),
          TEST_ENTRY(test_short_is_foreign))

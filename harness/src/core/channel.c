/* The harness-child message channel (see channel.h). */
#include "core/channel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/util.h"

void channel_nonce(char nonce[CHANNEL_NONCE_LEN + 1]) {
  unsigned char r[CHANNEL_NONCE_LEN / 2];
  random_bytes(r, sizeof r);
  for (size_t i = 0; i < sizeof r; i++) snprintf(nonce + 2 * i, 3, "%02x", r[i]);
  nonce[CHANNEL_NONCE_LEN] = '\0';
}

int channel_pair(int sv[2]) { return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv); }

int channel_send_raw(int fd, const void *buf, size_t len, int dontwait) {
  for (;;) {
    ssize_t w = send(fd, buf, len, MSG_NOSIGNAL | (dontwait ? MSG_DONTWAIT : 0));
    if (w < 0 && errno == EINTR) continue;
    if (w == (ssize_t)len) return 0;
    if (w >= 0) errno = EMSGSIZE;
    return -1;
  }
}

int channel_send(int fd, const char *nonce, char tag, const void *payload, size_t len) {
  if (len > CHANNEL_PAYLOAD_MAX) len = CHANNEL_PAYLOAD_MAX;
  char *msg = xmalloc(CHANNEL_NONCE_LEN + 1 + len);
  memcpy(msg, nonce, CHANNEL_NONCE_LEN);
  msg[CHANNEL_NONCE_LEN] = tag;
  if (len) memcpy(msg + CHANNEL_NONCE_LEN + 1, payload, len);
  int rc = channel_send_raw(fd, msg, CHANNEL_NONCE_LEN + 1 + len, 0);
  free(msg);
  return rc;
}

ssize_t channel_recv(int fd, void *buf, size_t cap, int dontwait) {
  for (;;) {
    ssize_t n = recv(fd, buf, cap, dontwait ? MSG_DONTWAIT : 0);
    if (n < 0 && errno == EINTR) continue;
    return n;
  }
}

int channel_is_ours(const char *nonce, const char *buf, size_t n, char *tag, const char **payload,
                    size_t *plen) {
  if (n <= CHANNEL_NONCE_LEN || memcmp(buf, nonce, CHANNEL_NONCE_LEN) != 0) return 0;
  *tag = buf[CHANNEL_NONCE_LEN];
  *payload = buf + CHANNEL_NONCE_LEN + 1;
  *plen = n - CHANNEL_NONCE_LEN - 1;
  return 1;
}

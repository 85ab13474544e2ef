/* The message channel between the harness and a child process it forked
 * (core/child.c's children, bench ab's workers): a SOCK_SEQPACKET socket
 * pair, so a message never merges with anything else written there. Each
 * message the child sends starts with a nonce the parent drew for that
 * child (CHANNEL_NONCE_LEN hex characters) and a tag byte the caller
 * chooses: a plugin that writes on the descriptors it finds cannot forge
 * one. A message longer than CHANNEL_MSG_MAX does not exist. */
#ifndef BENCH_CHANNEL_H
#define BENCH_CHANNEL_H

#include <stddef.h>
#include <sys/types.h>

#define CHANNEL_NONCE_LEN 16
#define CHANNEL_MSG_MAX 65536
/* The most payload one message carries: CHANNEL_MSG_MAX less the nonce and the tag. */
#define CHANNEL_PAYLOAD_MAX (CHANNEL_MSG_MAX - CHANNEL_NONCE_LEN - 1)

/* A fresh nonce of CHANNEL_NONCE_LEN hex characters (NUL-terminated). */
void channel_nonce(char nonce[CHANNEL_NONCE_LEN + 1]);

/* The socket pair, both ends close-on-exec: sv[0] the parent's, sv[1] the
 * child's. 0, or -1 with errno set (prints nothing). */
int channel_pair(int sv[2]);

/* Send one message: nonce, tag, then len bytes of payload (at most
 * CHANNEL_PAYLOAD_MAX: longer is cut there). Blocks; retries EINTR; never
 * raises SIGPIPE. 0, or -1 when the peer is gone. */
int channel_send(int fd, const char *nonce, char tag, const void *payload, size_t len);

/* Send len raw bytes as one message (no nonce: the parent's commands and
 * acknowledgements). dontwait: MSG_DONTWAIT. 0, or -1 with errno set. */
int channel_send_raw(int fd, const void *buf, size_t len, int dontwait);

/* Receive one message into buf (cap bytes; a longer one is cut). Retries
 * EINTR. The length (> 0), 0 at EOF, or -1 with errno set (EAGAIN when
 * dontwait and nothing is waiting). */
ssize_t channel_recv(int fd, void *buf, size_t cap, int dontwait);

/* Whether buf[0..n) is a message carrying nonce: then *tag is its tag and
 * payload/plen what follows. A message without it is foreign. */
int channel_is_ours(const char *nonce, const char *buf, size_t n, char *tag, const char **payload,
                    size_t *plen);

#endif

/* SHA-256 (FIPS 180-4) for the SPIR-V cache's keys and checksums: the
 * plugins carry no crypto library. */
#ifndef VKH_SHA256_H
#define VKH_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct vkh_sha256 {
  uint32_t h[8];
  uint64_t bytes;
  unsigned char buf[64];
  size_t nbuf;
};

void vkh_sha256_init(struct vkh_sha256 *s);
void vkh_sha256_add(struct vkh_sha256 *s, const void *data, size_t len);
void vkh_sha256_done(struct vkh_sha256 *s, unsigned char md[32]);

#endif

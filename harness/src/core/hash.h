/* Hashes: SHA-256 of files (provenance in result headers) and FNV-1a 64
 * (bitwise identity of outputs for the determinism check). */
#ifndef BENCH_HASH_H
#define BENCH_HASH_H

#include <stddef.h>
#include <stdint.h>

/* SHA-256 of a file's bytes as 64 hex digits. 0, or -1 after error(). */
int sha256_file(const char *path, char out[65]);
/* SHA-256 of a buffer as 64 hex digits ("" if libcrypto fails). */
void sha256_hex(const void *data, size_t len, char out[65]);

#define FNV1A64_INIT 0xcbf29ce484222325ull
uint64_t fnv1a64(uint64_t h, const void *data, size_t len);

#endif

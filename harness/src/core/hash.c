/* SHA-256 through OpenSSL's libcrypto, FNV-1a by hand (it is four lines). */
#include "core/hash.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"

static void to_hex(const unsigned char *md, unsigned n, char out[65]) {
  static const char digits[] = "0123456789abcdef";
  for (unsigned i = 0; i < n && i < 32; i++) {
    out[2 * i] = digits[md[i] >> 4];
    out[2 * i + 1] = digits[md[i] & 15];
  }
  out[64] = '\0';
}

int sha256_file(const char *path, char out[65]) {
  FILE *f = fopen(path, "rb");
  if (!f) return error("cannot read '%s': %s", path, strerror(errno));
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  int rc = -1;
  if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
    error("sha256: cannot initialise the digest");
    goto done;
  }
  unsigned char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) EVP_DigestUpdate(ctx, buf, n);
  if (ferror(f)) {
    error("cannot read '%s': %s", path, strerror(errno));
    goto done;
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned mdlen = 0;
  EVP_DigestFinal_ex(ctx, md, &mdlen);
  to_hex(md, mdlen, out);
  rc = 0;
done:
  EVP_MD_CTX_free(ctx);
  fclose(f);
  return rc;
}

void sha256_hex(const void *data, size_t len, char out[65]) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned mdlen = 0;
  out[0] = '\0';
  if (EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) != 1 || mdlen != 32) return;
  to_hex(md, mdlen, out);
}

uint64_t fnv1a64(uint64_t h, const void *data, size_t len) {
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/* The peak plugins' shared steps (vk_peak.h). */
#include <string.h>

#include "vk_peak.h"

const struct bench_ext_compare *vk_peak_compare(const struct bench_host *host, int *rc) {
  const struct bench_ext_compare *cmp = bench_host_extension(host, BENCH_EXT_COMPARE);
  *rc = cmp ? BENCH_OK
            : host->skip(host, "needs a bench harness of ABI 1.1 or newer (bench.compare/1): a peak "
                               "case is only as good as the comparison of its output");
  return cmp;
}

int vk_peak_roof(const struct bench_host *host, enum bench_roof_kind kind, const char *id,
                 const char *method) {
  const struct bench_ext_roof *ext = bench_host_extension(host, BENCH_EXT_ROOF);
  if (!ext) return BENCH_OK;
  const struct bench_roof roof = {.kind = kind, .id = id, .method = method};
  return ext->set_roof(host, &roof);
}

int vk_peak_poison(struct vkh *vk, struct vkh_array *a, unsigned char byte) {
  memset(a->host, byte, vkh_array_bytes(a));
  return vkh_upload(vk, &a->dev, a->host, vkh_array_bytes(a));
}

void vk_peak_items(const struct bench_host *host, double items, const char *unit) {
  const struct bench_ext_items *ext = bench_host_extension(host, BENCH_EXT_ITEMS);
  if (ext) ext->set_items(host, items, unit);
}

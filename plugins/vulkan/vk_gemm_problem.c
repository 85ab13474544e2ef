#include "vk_gemm_problem.h"

#include <stdlib.h>

int vk_gemm_setup(const struct bench_host *host, void *ctx, void **state, struct vk_gemm **out) {
  struct vk_gemm *s = calloc(1, sizeof *s);
  *out = s;
  if (!s) return host->fail(host, "out of memory");
  *state = s;
  struct vkh *vk = s->vk = vkh_case(host, ctx);
  s->m = host->param_int(host, "m");
  s->n = host->param_int(host, "n");
  s->k = host->param_int(host, "k");
  int rc;
  if ((rc = bench_param_dtype(host, "dtype", &s->dtype))) return rc;
  if (s->dtype == BENCH_F16 && (rc = vkh_require_fp16(vk))) return rc;
  if ((rc = vkh_array_random(vk, &s->a, (size_t)(s->m * s->k), s->dtype, 1, "A")) ||
      (rc = vkh_array_random(vk, &s->b, (size_t)(s->k * s->n), s->dtype, 2, "B")) ||
      (rc = vkh_array_output(vk, &s->c, (size_t)(s->m * s->n), s->dtype, "C")))
    return rc;
  return BENCH_OK;
}

void vk_gemm_set_work(const struct bench_host *host, const struct vk_gemm *s) {
  host->set_work(host, 2.0 * (double)s->m * (double)s->n * (double)s->k,
                 (double)(vkh_array_bytes(&s->a) + vkh_array_bytes(&s->b) + vkh_array_bytes(&s->c)));
}

int vk_gemm_run(const struct bench_host *host, void *state) {
  (void)host;
  struct vk_gemm *s = state;
  return vkh_kernel_run(s->vk, &s->kern);
}

int vk_gemm_run_batch(const struct bench_host *host, void *state, int64_t n) {
  (void)host;
  struct vk_gemm *s = state;
  return vkh_kernel_run_batch(s->vk, &s->kern, n);
}

int vk_gemm_verify(const struct bench_host *host, void *state) {
  struct vk_gemm *s = state;
  int rc = vkh_array_read(s->vk, &s->c);
  if (rc) return rc;
  const struct bench_check c = {.op = "gemm", .dtype = s->dtype, .out_dtype = s->dtype,
                                .m = s->m, .n = s->n, .k = s->k,
                                .in = {s->a.host, s->b.host}, .out = s->c.host};
  return host->check(host, &c);
}

void vk_gemm_teardown(const struct bench_host *host, void *state) {
  (void)host;
  struct vk_gemm *s = state;
  vkh_kernel_destroy(s->vk, &s->kern);
  vkh_array_free(s->vk, &s->a);
  vkh_array_free(s->vk, &s->b);
  vkh_array_free(s->vk, &s->c);
  free(s);
}

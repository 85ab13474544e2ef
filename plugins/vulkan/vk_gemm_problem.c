#include "vk_gemm_problem.h"

int vk_gemm_setup(const struct bench_host *host, void *ctx, void **state, struct vk_gemm **out) {
  *out = NULL;
  int rc = vkh_case_new(host, ctx, sizeof(struct vk_gemm), state);
  if (rc) return rc;
  struct vk_gemm *s = *out = *state;
  struct vkh *vk = s->vc.vk;
  s->m = host->param_int(host, "m");
  s->n = host->param_int(host, "n");
  s->k = host->param_int(host, "k");
  if ((rc = bench_param_dtype(host, "dtype", &s->dtype))) return rc;
  if (s->dtype == BENCH_F16 && (rc = vkh_require_fp16(vk))) return rc;
  if ((rc = vkh_case_input(&s->vc, &s->a, (size_t)(s->m * s->k), s->dtype, 1, "A")) ||
      (rc = vkh_case_input(&s->vc, &s->b, (size_t)(s->k * s->n), s->dtype, 2, "B")) ||
      (rc = vkh_case_output(&s->vc, &s->c, (size_t)(s->m * s->n), s->dtype, "C")))
    return rc;
  return BENCH_OK;
}

int vk_gemm_kernel(struct vk_gemm *s, struct vkh_kernel *k, const struct vkh_pipeline_desc *d,
                   uint32_t tile_m, uint32_t tile_n) {
  struct vkh_pipeline_desc mnk = *d;
  mnk.push_size = 12;
  const uint32_t push[3] = {(uint32_t)s->m, (uint32_t)s->n, (uint32_t)s->k};
  uint32_t groups[3];
  int rc = vkh_groups_2d(s->vc.vk, ((uint64_t)s->n + tile_n - 1) / tile_n,
                         ((uint64_t)s->m + tile_m - 1) / tile_m, groups);
  return rc ? rc : vkh_case_kernel_create(&s->vc, k, &mnk, push, groups);
}

int vk_gemm_verify(const struct bench_host *host, void *state) {
  struct vk_gemm *s = state;
  int rc = vkh_case_read(&s->vc);
  if (rc) return rc;
  const struct bench_check c = {.op = "gemm", .dtype = s->dtype, .out_dtype = s->dtype,
                                .m = s->m, .n = s->n, .k = s->k,
                                .in = {s->a->host, s->b->host}, .out = s->c->host};
  return host->check(host, &c);
}

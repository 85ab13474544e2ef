/* attn_emu: runs cuda_attention's variant=mma kernels
 * (plugins/hip/hip_attention_mma.h: the RoPE pre-pass and the flash
 * attention) on the CPU (mma_emu.h: each block as fibers, the PTX
 * primitives emulated) and checks the output with the harness's own
 * attention reference and tolerance (check_output, the full comparison
 * `--verify full` makes), as a run on a GPU would be checked.
 *
 * f16 and bf16; head_dim on both kernels (D 64: d 2, 6, 33, 64; D 128: d
 * 80, 128); RoPE none, interleaved and halves; seq 1, 7, 64, 65, 130 and
 * 200 (one tile, partial tiles, several tiles up to the diagonal); more
 * than one batch and head; each causal and without the mask (every key
 * tile, BENCH_ATTN_FULL). Prints one line per configuration and
 * "attn_emu: N configurations, all OK", or the check's message and exits 1. */
#include <math.h>

#include "mma_emu.h"

#include "hip_attention_mma.h"

extern "C" {
#include "check/check.h"
}

struct shape {
  int batch, heads, seq, d, rope; /* rope 0 none, 1 interleaved, 2 halves */
};

/* The rotary table of hip_attention.hip's at_rope_table, on the host. */
static std::vector<float2> rope_table(int seq, int d, double theta) {
  const int half = d / 2 > 0 ? d / 2 : 1;
  std::vector<float2> cs((size_t)seq * half);
  const float log2_theta = (float)log2(theta);
  for (int pos = 0; pos < seq; pos++)
    for (int i = 0; i < d / 2; i++) {
      const float inv_freq = exp2f(-(float)(2 * i) / (float)d * log2_theta);
      const float a = (float)pos * inv_freq;
      cs[(size_t)pos * half + i] = make_float2(cosf(a), sinf(a));
    }
  return cs;
}

template <bool BF16, int D> static int run_one(const shape &sh, int causal) {
  const size_t n = (size_t)sh.batch * sh.heads * sh.seq * sh.d;
  const size_t np = (size_t)sh.batch * sh.heads * sh.seq * D;
  /* 0x7fff: NaN in f16 and bf16, for whatever a kernel leaves unwritten */
  std::vector<uint16_t> q(n), k(n), v(n), o(n, 0x7fff), qr(np, 0x7fff), kr(np, 0x7fff), vr(np, 0x7fff);
  uint32_t x = 777u + (uint32_t)(sh.seq * 131 + sh.d * 7 + sh.rope + 5 * causal);
  auto rnd = [&x]() {
    x = x * 1664525u + 1013904223u;
    const float f = (float)(x >> 8) / 16777216.0f * 2.0f - 1.0f;
    return BF16 ? bench_f32_to_bf16(f) : bench_f32_to_f16(f);
  };
  for (size_t i = 0; i < n; i++) q[i] = rnd(), k[i] = rnd(), v[i] = rnd();
  const double theta = 10000.0;
  const std::vector<float2> cs = rope_table(sh.seq, sh.d, theta);
  const float qscale = 1.4426950408889634f / sqrtf((float)sh.d);
  const int64_t rows = (int64_t)sh.batch * sh.heads * sh.seq;

  const uint16_t *qp = q.data(), *kp = k.data(), *vp = v.data();
  uint16_t *qrp = qr.data(), *krp = kr.data(), *vrp = vr.data(), *op = o.data();
  const float2 *csp = cs.data();
  const int seq = sh.seq, d = sh.d, rope = sh.rope, heads = sh.heads;
  emu_launch([=] { attn_mma_prep<BF16, D>(qp, kp, vp, qrp, krp, vrp, rows, seq, d, rope, csp, qscale); },
             (unsigned)((rows * (D / 2) + AM_THREADS - 1) / AM_THREADS), 1, 1, AM_THREADS, 0);
  emu_launch([=] { attn_mma<BF16, D>(qrp, krp, vrp, op, heads, seq, d, causal); },
             (unsigned)((seq + AM_BQ - 1) / AM_BQ), (unsigned)heads, (unsigned)sh.batch,
             AM_THREADS, (size_t)am_smem_bytes(D));

  struct bench_check c = {};
  c.op = "attention";
  c.dtype = c.out_dtype = BF16 ? BENCH_BF16 : BENCH_F16;
  c.batch = sh.batch;
  c.heads = sh.heads;
  c.seq = sh.seq;
  c.head_dim = sh.d;
  c.theta = theta;
  c.flags = sh.rope == 1 ? BENCH_ATTN_ROPE | BENCH_ROPE_INTERLEAVED
            : sh.rope == 2 ? BENCH_ATTN_ROPE | BENCH_ROPE_HALVES
                           : 0;
  if (!causal) c.flags |= BENCH_ATTN_FULL;
  c.in[0] = q.data();
  c.in[1] = k.data();
  c.in[2] = v.data();
  c.out = o.data();
  struct check_result r;
  static const char *ropes[] = {"none", "interleaved", "halves"};
  if (check_output(&c, VERIFY_FULL, 1, &r) != 0 || !r.checked || !r.pass || r.compared != n) {
    printf("attn_emu: %s D=%d batch=%d heads=%d seq=%d head_dim=%d rope=%s mask=%s: %s (compared "
           "%llu of %zu)\n", BF16 ? "bf16" : "f16", D, sh.batch, sh.heads, sh.seq, sh.d,
           ropes[sh.rope], causal ? "causal" : "none", r.message[0] ? r.message : "not checked",
           (unsigned long long)r.compared, n);
    return 1;
  }
  printf("attn_emu: %s D=%d batch=%d heads=%d seq=%d head_dim=%d rope=%s mask=%s: OK (max rel err "
         "%.2g, rtol %.2g)\n", BF16 ? "bf16" : "f16", D, sh.batch, sh.heads, sh.seq, sh.d,
         ropes[sh.rope], causal ? "causal" : "none", r.max_rel_err, r.rtol);
  return 0;
}

int main() {
  const shape d64[] = {{1, 1, 1, 2, 1}, {1, 2, 7, 6, 2}, {1, 1, 33, 33, 0}, {2, 1, 65, 64, 2},
                       {1, 1, 130, 64, 1}, {1, 2, 64, 64, 0}};
  const shape d128[] = {{1, 1, 130, 80, 1}, {1, 2, 65, 128, 0}, {1, 1, 200, 128, 2}};
  int configs = 0;
  for (int causal = 1; causal >= 0; causal--) {
    for (const shape &sh : d64) {
      if (run_one<false, 64>(sh, causal) || run_one<true, 64>(sh, causal)) return 1;
      configs += 2;
    }
    for (const shape &sh : d128) {
      if (run_one<false, 128>(sh, causal) || run_one<true, 128>(sh, causal)) return 1;
      configs += 2;
    }
  }
  if (configs == 0) {
    printf("attn_emu: no configuration ran\n");
    return 1;
  }
  printf("attn_emu: %d configurations, all OK\n", configs);
  return 0;
}

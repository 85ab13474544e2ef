/* mma_emu: runs cuda_gemm's variant=mma and variant=wgmma kernels
 * (plugins/hip/hip_gemm_mma.h, hip_gemm_wgmma.h) on the CPU (mma_emu.h: the
 * block as fibers, the PTX primitives emulated) and checks C against a GEMM
 * of the same inputs in double.
 *
 * Every tile (and warp layout) the plugin builds runs, f16 and bf16, stages
 * 2, 3 and 4, on shapes with every edge (m, n, k not multiples of the
 * tiles; k and n not multiples of 8, which takes the 16-bit fill). Prints
 * one line per configuration and "mma_emu: N configurations, all OK", or
 * the first wrong element and exits 1. */
#include "mma_emu.h"

#include "hip_gemm_mma.h"
#include "hip_gemm_wgmma.h"

/* ---- the configurations ---------------------------------------------- */

/* One GEMM of m x n x k on random f16/bf16 inputs: launch(a, b, c) runs the
 * kernel; C is checked element by element. */
template <bool BF16, typename Launch>
static int run_case(const char *what, int m, int n, int k, int stages, Launch launch) {
  std::vector<uint16_t> a((size_t)m * k), b((size_t)k * n);
  std::vector<float> af(a.size()), bf(b.size()), c((size_t)m * n, -12345.0f);
  uint32_t x = 12345u + (uint32_t)(m * 31 + n * 7 + k);
  auto rnd = [&x]() {
    x = x * 1664525u + 1013904223u;
    return (float)((x >> 9) % 17) / 8.0f - 1.0f; /* -1 .. 1 in eighths: exact in both */
  };
  for (size_t i = 0; i < a.size(); i++) {
    const float v = rnd();
    a[i] = BF16 ? bench_f32_to_bf16(v) : bench_f32_to_f16(v);
    af[i] = BF16 ? bench_bf16_to_f32(a[i]) : bench_f16_to_f32(a[i]);
  }
  for (size_t i = 0; i < b.size(); i++) {
    const float v = rnd();
    b[i] = BF16 ? bench_f32_to_bf16(v) : bench_f32_to_f16(v);
    bf[i] = BF16 ? bench_bf16_to_f32(b[i]) : bench_f16_to_f32(b[i]);
  }
  launch(a.data(), b.data(), c.data());
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int q = 0; q < k; q++) s += (double)af[(size_t)i * k + q] * bf[(size_t)q * n + j];
      const float got = c[(size_t)i * n + j];
      /* products of eighths, sums of at most a few hundred: exact in fp32 */
      if (!(std::fabs(got - s) <= 1e-3 * (1 + std::fabs(s)))) {
        printf("mma_emu: %s %s stages %d, m=%d n=%d k=%d: C[%d][%d] = %g, want %g\n", what,
               BF16 ? "bf16" : "f16", stages, m, n, k, i, j, got, s);
        return 1;
      }
    }
  return 0;
}

template <bool BF16, int BM, int BN, int WM, int WN>
static int run_one(int m, int n, int k, int stages) {
  char what[64];
  snprintf(what, sizeof what, "mma %dx%d warps %dx%d", BM, BN, WM, WN);
  return run_case<BF16>(what, m, n, k, stages, [=](const uint16_t *a, const uint16_t *b, float *c) {
    emu_launch([=] { gemm_mma<BF16, BM, BN, WM, WN>(a, b, c, m, n, k, stages); },
               (unsigned)((n + BN - 1) / BN), (unsigned)((m + BM - 1) / BM), 1, WM * WN * 32,
               (size_t)mm_smem_bytes(BM, BN, stages));
  });
}

template <bool BF16, int BM, int BN> static int run_wg(int m, int n, int k, int stages) {
  char what[64];
  snprintf(what, sizeof what, "wgmma %dx%d", BM, BN);
  return run_case<BF16>(what, m, n, k, stages, [=](const uint16_t *a, const uint16_t *b, float *c) {
    emu_launch([=] { gemm_wgmma<BF16, BM, BN>(a, b, c, m, n, k, stages); },
               (unsigned)((n + BN - 1) / BN), (unsigned)((m + BM - 1) / BM), 1, BM / 64 * 128,
               (size_t)wg_smem_bytes(BM, BN, stages));
  });
}

static int configs;

template <int BM, int BN, int WM, int WN> static int run_tile() {
  /* shapes: whole tiles and many slices; every edge; k and n not multiples
   * of 8 (the 16-bit fill); fewer slices than stages; one row */
  const int shapes[][3] = {{BM, BN, 96},          {BM + 17, BN + 8, 72}, {BM - 3, 2 * BN - 5, 37},
                           {7, 13, 5},            {1, BN, 8},            {2 * BM, 24, 160}};
  for (const auto &sh : shapes)
    for (int stages = 2; stages <= MM_MAX_STAGES; stages++) {
      if (run_one<false, BM, BN, WM, WN>(sh[0], sh[1], sh[2], stages)) return 1;
      if (run_one<true, BM, BN, WM, WN>(sh[0], sh[1], sh[2], stages)) return 1;
      configs += 2;
    }
  printf("mma_emu: tile %dx%d warps %dx%d: f16 and bf16, stages 2-%d, %zu shapes OK\n", BM, BN,
         WM, WN, MM_MAX_STAGES, sizeof shapes / sizeof shapes[0]);
  return 0;
}

/* variant=wgmma: shapes as above at its 64-deep stages */
template <int BM, int BN> static int run_wg_tile() {
  const int shapes[][3] = {{BM, BN, 192}, {BM + 17, BN + 8, 136}, {BM - 3, 2 * BN - 5, 37},
                           {7, 13, 5}, {1, BN, 64}, {2 * BM, 24, 200}};
  for (const auto &sh : shapes)
    for (int stages = 2; stages <= WG_MAX_STAGES; stages++) {
      if (run_wg<false, BM, BN>(sh[0], sh[1], sh[2], stages)) return 1;
      if (run_wg<true, BM, BN>(sh[0], sh[1], sh[2], stages)) return 1;
      configs += 2;
    }
  printf("mma_emu: wgmma tile %dx%d: f16 and bf16, stages 2-%d, %zu shapes OK\n", BM, BN,
         WG_MAX_STAGES, sizeof shapes / sizeof shapes[0]);
  return 0;
}

int main(int argc, char **argv) {
  /* "quick": the default tile's two layouts and the smallest, wgmma's
   * default and smallest tiles; else every tile and layout hip_gemm.hip
   * builds (GEMM_MMA's and GEMM_WGMMA's lists) */
  const bool quick = argc > 1 && strcmp(argv[1], "quick") == 0;
  int bad = run_tile<128, 128, 2, 2>() || run_tile<128, 128, 2, 4>() || run_tile<32, 32, 2, 2>() ||
            run_wg_tile<128, 128>() || run_wg_tile<64, 64>();
  if (!bad && !quick)
    bad = run_tile<64, 64, 2, 2>() || run_tile<64, 64, 2, 4>() || run_tile<128, 64, 2, 2>() ||
          run_tile<128, 64, 2, 4>() || run_tile<64, 128, 2, 2>() || run_tile<64, 128, 2, 4>() ||
          run_tile<256, 128, 2, 4>() || run_tile<128, 256, 2, 4>() || run_wg_tile<128, 64>() ||
          run_wg_tile<64, 128>() || run_wg_tile<256, 128>() || run_wg_tile<128, 256>();
  if (bad) return 1;
  if (configs == 0) {
    printf("mma_emu: no configuration ran\n");
    return 1;
  }
  printf("mma_emu: %d configurations, all OK\n", configs);
  return 0;
}

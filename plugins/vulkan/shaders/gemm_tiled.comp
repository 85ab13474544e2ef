#version 450
// vk_gemm_tiled and vk_gemm_auto: C[m][n] = A[m][k] B[k][n], fp32
// accumulation. A workgroup computes a BM x BN tile of C; it walks k in
// steps of BK, staging a BM x BK tile of A and a BK x BN tile of B in shared
// memory; each of its (BM/TM)*(BN/TN) invocations keeps a TM x TN block of C
// in registers and reads TM + TN shared values per step of k for TM * TN
// multiply-adds (register blocking).
//
// Tile sizes are specialisation constants (built by glslc, chosen by the
// host), or, when TILE_BM is defined, constants of a variant compiled at run
// time by vk_gemm_auto (the compiler sees the final sizes). Self-contained on
// purpose: vk_gemm_auto compiles this text as it is, without includes.
#ifdef F16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define T float16_t
#else
#define T float
#endif

#ifdef TILE_BM
const uint BM = TILE_BM, BN = TILE_BN, BK = TILE_BK, TM = TILE_TM, TN = TILE_TN;
layout(local_size_x = (TILE_BM / TILE_TM) * (TILE_BN / TILE_TN)) in;
#else
layout(local_size_x_id = 0) in; // the host sets it to (BM/TM)*(BN/TN)
layout(constant_id = 3) const uint BM = 64;
layout(constant_id = 4) const uint BN = 64;
layout(constant_id = 5) const uint BK = 8;
layout(constant_id = 6) const uint TM = 4;
layout(constant_id = 7) const uint TN = 4;
#endif

layout(binding = 0) readonly buffer A { T a[]; };
layout(binding = 1) readonly buffer B { T b[]; };
layout(binding = 2) writeonly buffer C { T c[]; };
layout(push_constant) uniform P { uint m, n, k; } p;

shared float As[BK * BM]; // As[kk * BM + i]: A transposed, rows of the tile contiguous
shared float Bs[BK * BN]; // Bs[kk * BN + j]

void main() {
  const uint threads = (BM / TM) * (BN / TN);
  const uint tid = gl_LocalInvocationID.x;
  const uint ti = tid / (BN / TN), tj = tid % (BN / TN); // this invocation's block
  const uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;

  float acc[TM * TN];
  for (uint i = 0; i < TM * TN; i++) acc[i] = 0.0;
  float ra[TM], rb[TN];

  for (uint k0 = 0; k0 < p.k; k0 += BK) {
    // Stage the tiles; neighbouring invocations read neighbouring elements.
    for (uint e = tid; e < BM * BK; e += threads) {
      uint i = e / BK, kk = e % BK, r = row0 + i, q = k0 + kk;
      As[kk * BM + i] = r < p.m && q < p.k ? float(a[r * p.k + q]) : 0.0;
    }
    for (uint e = tid; e < BK * BN; e += threads) {
      uint kk = e / BN, j = e % BN, q = k0 + kk, col = col0 + j;
      Bs[kk * BN + j] = q < p.k && col < p.n ? float(b[q * p.n + col]) : 0.0;
    }
    barrier();
    for (uint kk = 0; kk < BK; kk++) {
      for (uint i = 0; i < TM; i++) ra[i] = As[kk * BM + ti * TM + i];
      for (uint j = 0; j < TN; j++) rb[j] = Bs[kk * BN + tj * TN + j];
      for (uint i = 0; i < TM; i++)
        for (uint j = 0; j < TN; j++) acc[i * TN + j] = fma(ra[i], rb[j], acc[i * TN + j]);
    }
    barrier();
  }

  for (uint i = 0; i < TM; i++) {
    uint r = row0 + ti * TM + i;
    for (uint j = 0; j < TN; j++) {
      uint col = col0 + tj * TN + j;
      if (r < p.m && col < p.n) c[r * p.n + col] = T(acc[i * TN + j]);
    }
  }
}

#version 450
// vk_gemm_f16acc32: C[m][n] (fp32) = A[m][k] B[k][n] (fp16), fp32
// accumulation, the tiling of gemm_tiled.comp with vectorised loads: A and B
// are zero-padded by the host to whole tiles (rows of kp and np elements,
// multiples of BK and BN), so every tile is read as f16vec4 without bounds
// checks; only the store of C is checked.
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

layout(local_size_x_id = 0) in; // (BM/TM)*(BN/TN)
layout(constant_id = 3) const uint BM = 64;
layout(constant_id = 4) const uint BN = 64;
layout(constant_id = 5) const uint BK = 16; // multiple of 4
layout(constant_id = 6) const uint TM = 4;
layout(constant_id = 7) const uint TN = 4;

layout(binding = 0) readonly buffer A { f16vec4 a4[]; }; // [mp][kp]
layout(binding = 1) readonly buffer B { f16vec4 b4[]; }; // [kp][np]
layout(binding = 2) writeonly buffer C { float c[]; };   // [m][n]
layout(push_constant) uniform P { uint m, n, k, kp, np; } p;

shared float As[BK * BM];
shared float Bs[BK * BN];

void main() {
  const uint threads = (BM / TM) * (BN / TN);
  const uint tid = gl_LocalInvocationID.x;
  const uint ti = tid / (BN / TN), tj = tid % (BN / TN);
  const uint row0 = gl_WorkGroupID.y * BM, col0 = gl_WorkGroupID.x * BN;

  float acc[TM * TN];
  for (uint i = 0; i < TM * TN; i++) acc[i] = 0.0;
  float ra[TM], rb[TN];

  for (uint k0 = 0; k0 < p.k; k0 += BK) {
    for (uint e = tid; e < BM * BK / 4; e += threads) {
      uint i = e / (BK / 4), kq = e % (BK / 4);
      vec4 v = vec4(a4[((row0 + i) * p.kp + k0) / 4 + kq]);
      As[(kq * 4 + 0) * BM + i] = v.x;
      As[(kq * 4 + 1) * BM + i] = v.y;
      As[(kq * 4 + 2) * BM + i] = v.z;
      As[(kq * 4 + 3) * BM + i] = v.w;
    }
    for (uint e = tid; e < BK * BN / 4; e += threads) {
      uint kk = e / (BN / 4), jq = e % (BN / 4);
      vec4 v = vec4(b4[((k0 + kk) * p.np + col0) / 4 + jq]);
      uint at = kk * BN + jq * 4;
      Bs[at] = v.x;
      Bs[at + 1] = v.y;
      Bs[at + 2] = v.z;
      Bs[at + 3] = v.w;
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
      if (r < p.m && col < p.n) c[r * p.n + col] = acc[i * TN + j];
    }
  }
}

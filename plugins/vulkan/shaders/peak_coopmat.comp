#version 450
// vk_peak_coopmat: cooperative-matrix throughput (VK_KHR_cooperative_matrix).
// Each workgroup computes QUADS quads of 4 independent accumulator tiles
// (M x N), spread over however many subgroups it runs as (the subgroup size
// of a SPIR-V 1.6 shader may vary), so the work does not depend on it. Each
// tile t of a quad starts as C[t] and takes acc = A * B + acc p.reps times,
// with A and B loaded once. A is a 0/1 matrix that picks row i % K of B,
// B holds -1, 0, 1 and C small integers, so every value is an exact integer
// (|x| <= 2048 with fp16 accumulation) and D = C[t] + reps * B[i % K][j]
// is known to the host. Builds: -DF16ACC (f16 * f16 + f16), -DF32ACC
// (f16 * f16 + f32), -DI8 (int8 * int8 + int32).
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const uint M = 16;
layout(constant_id = 4) const uint N = 16;
layout(constant_id = 5) const uint K = 16;
layout(constant_id = 6) const uint QUADS = 4;

#if defined(I8)
#define TA int8_t
#define TC int32_t
#elif defined(F32ACC)
#define TA float16_t
#define TC float
#else
#define TA float16_t
#define TC float16_t
#endif
#define MAT_A coopmat<TA, gl_ScopeSubgroup, M, K, gl_MatrixUseA>
#define MAT_B coopmat<TA, gl_ScopeSubgroup, K, N, gl_MatrixUseB>
#define MAT_C coopmat<TC, gl_ScopeSubgroup, M, N, gl_MatrixUseAccumulator>
#define ROW gl_CooperativeMatrixLayoutRowMajor

layout(binding = 0) readonly buffer A { TA a_[]; };
layout(binding = 1) readonly buffer B { TA b_[]; };
layout(binding = 2) readonly buffer C { TC c_[]; };
layout(binding = 3) writeonly buffer D { TC d_[]; };
layout(push_constant) uniform P { uint reps; } p;

void main() {
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  MAT_A a;
  MAT_B b;
  coopMatLoad(a, a_, 0, K, ROW);
  coopMatLoad(b, b_, 0, N, ROW);
  for (uint q = gl_SubgroupID; q < QUADS; q += gl_NumSubgroups) {
    MAT_C c0, c1, c2, c3;
    coopMatLoad(c0, c_, 0u * M * N, N, ROW);
    coopMatLoad(c1, c_, 1u * M * N, N, ROW);
    coopMatLoad(c2, c_, 2u * M * N, N, ROW);
    coopMatLoad(c3, c_, 3u * M * N, N, ROW);
    for (uint r = 0u; r < p.reps; r++) {
      c0 = coopMatMulAdd(a, b, c0);
      c1 = coopMatMulAdd(a, b, c1);
      c2 = coopMatMulAdd(a, b, c2);
      c3 = coopMatMulAdd(a, b, c3);
    }
    uint o = (group * QUADS + q) * 4u * M * N;
    coopMatStore(c0, d_, o, N, ROW);
    coopMatStore(c1, d_, o + M * N, N, ROW);
    coopMatStore(c2, d_, o + 2u * M * N, N, ROW);
    coopMatStore(c3, d_, o + 3u * M * N, N, ROW);
  }
}

#version 450
// vk_gemm: C[m][n] = A[m][k] B[k][n], one invocation per element of C,
// fp32 accumulation, no reuse beyond the caches.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x_id = 0, local_size_y_id = 1) in;
layout(binding = 0) readonly buffer A { T a[]; };
layout(binding = 1) readonly buffer B { T b[]; };
layout(binding = 2) writeonly buffer C { T c[]; };
layout(push_constant) uniform P { uint m, n, k; } p;

void main() {
  uint col = gl_GlobalInvocationID.x, row = gl_GlobalInvocationID.y;
  if (row >= p.m || col >= p.n) return;
  float acc = 0.0;
  for (uint i = 0; i < p.k; i++) acc += float(a[row * p.k + i]) * float(b[i * p.n + col]);
  c[row * p.n + col] = T(acc);
}

#version 450
// vk_rmsnorm: y = x / sqrt(mean(x^2) + eps) * w, one invocation per row.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x_id = 0) in;
layout(binding = 0) readonly buffer X { T x[]; };
layout(binding = 1) readonly buffer W { T w[]; };
layout(binding = 2) writeonly buffer Y { T y[]; };
layout(push_constant) uniform P { uint rows, cols; float eps; } p;

void main() {
  uint row = flat_group() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (row >= p.rows) return;
  uint base = row * p.cols;
  float ss = 0.0;
  for (uint j = 0; j < p.cols; j++) {
    float v = float(x[base + j]);
    ss += v * v;
  }
  float rstd = inversesqrt(ss / float(p.cols) + p.eps);
  for (uint j = 0; j < p.cols; j++) y[base + j] = T(float(x[base + j]) * rstd * float(w[j]));
}

#version 450
// vk_rmsnorm_tiled: y = x / sqrt(mean(x^2) + eps) * w, one workgroup per
// row: strided partial sums, then a subgroup + shared-memory reduction.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x_id = 0) in;
#include "reduce.glsl"
layout(binding = 0) readonly buffer X { T x[]; };
layout(binding = 1) readonly buffer W { T w[]; };
layout(binding = 2) writeonly buffer Y { T y[]; };
layout(push_constant) uniform P { uint rows, cols; float eps; } p;

void main() {
  uint row = flat_group();
  if (row >= p.rows) return; // the whole workgroup: barriers stay uniform
  uint base = row * p.cols, t = gl_LocalInvocationID.x, step = gl_WorkGroupSize.x;
  float ss = 0.0;
  for (uint j = t; j < p.cols; j += step) {
    float v = float(x[base + j]);
    ss += v * v;
  }
  float rstd = inversesqrt(wg_sum(ss) / float(p.cols) + p.eps);
  for (uint j = t; j < p.cols; j += step) y[base + j] = T(float(x[base + j]) * rstd * float(w[j]));
}

#version 450
// vk_softmax_tiled: row softmax, one workgroup per row: max and sum by
// subgroup + shared-memory reductions.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x_id = 0) in;
#include "reduce.glsl"
layout(binding = 0) readonly buffer X { T x[]; };
layout(binding = 1) writeonly buffer Y { T y[]; };
layout(push_constant) uniform P { uint rows, cols; } p;

void main() {
  uint row = flat_group();
  if (row >= p.rows) return;
  uint base = row * p.cols, t = gl_LocalInvocationID.x, step = gl_WorkGroupSize.x;
  float mx = -3.402823466e38;
  for (uint j = t; j < p.cols; j += step) mx = max(mx, float(x[base + j]));
  mx = wg_max(mx);
  float sum = 0.0;
  for (uint j = t; j < p.cols; j += step) sum += exp(float(x[base + j]) - mx);
  float inv = 1.0 / wg_sum(sum);
  for (uint j = t; j < p.cols; j += step) y[base + j] = T(exp(float(x[base + j]) - mx) * inv);
}

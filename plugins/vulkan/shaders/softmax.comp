#version 450
// vk_softmax: y = exp(x - max) / sum(exp(x - max)) along each row, one
// invocation per row, three passes over the row.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x_id = 0) in;
layout(binding = 0) readonly buffer X { T x[]; };
layout(binding = 1) writeonly buffer Y { T y[]; };
layout(push_constant) uniform P { uint rows, cols; } p;

void main() {
  uint row = flat_group() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (row >= p.rows) return;
  uint base = row * p.cols;
  float mx = float(x[base]);
  for (uint j = 1; j < p.cols; j++) mx = max(mx, float(x[base + j]));
  float sum = 0.0;
  for (uint j = 0; j < p.cols; j++) sum += exp(float(x[base + j]) - mx);
  float inv = 1.0 / sum;
  for (uint j = 0; j < p.cols; j++) y[base + j] = T(exp(float(x[base + j]) - mx) * inv);
}

#version 450
// vk_layernorm_tiled: layer norm (two-pass: mean, then squared deviations),
// one workgroup per row, subgroup + shared-memory reductions.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x_id = 0) in;
#include "reduce.glsl"
layout(binding = 0) readonly buffer X { T x[]; };
layout(binding = 1) readonly buffer W { T w[]; };
layout(binding = 2) readonly buffer Bias { T b[]; };
layout(binding = 3) writeonly buffer Y { T y[]; };
layout(push_constant) uniform P { uint rows, cols; float eps; } p;

void main() {
  uint row = flat_group();
  if (row >= p.rows) return;
  uint base = row * p.cols, t = gl_LocalInvocationID.x, step = gl_WorkGroupSize.x;
  float sum = 0.0;
  for (uint j = t; j < p.cols; j += step) sum += float(x[base + j]);
  float mean = wg_sum(sum) / float(p.cols), var = 0.0;
  for (uint j = t; j < p.cols; j += step) {
    float d = float(x[base + j]) - mean;
    var += d * d;
  }
  float rstd = inversesqrt(wg_sum(var) / float(p.cols) + p.eps);
  for (uint j = t; j < p.cols; j += step)
    y[base + j] = T((float(x[base + j]) - mean) * rstd * float(w[j]) + float(b[j]));
}

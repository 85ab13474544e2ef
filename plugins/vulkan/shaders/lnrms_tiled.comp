#version 450
// vk_layernorm_rmsnorm_fused_tiled: y1 = layernorm(x; w1, b1) and
// y2 = rmsnorm(y1 as stored; w2), one workgroup per row, subgroup +
// shared-memory reductions. Each invocation reads back only the elements
// of y1 it wrote itself, so no barrier is needed between the two.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x_id = 0) in;
#include "reduce.glsl"
layout(binding = 0) readonly buffer X { T x[]; };
layout(binding = 1) readonly buffer W1 { T w1[]; };
layout(binding = 2) readonly buffer B1 { T b1[]; };
layout(binding = 3) readonly buffer W2 { T w2[]; };
layout(binding = 4) buffer Y1 { T y1[]; };
layout(binding = 5) writeonly buffer Y2 { T y2[]; };
layout(push_constant) uniform P { uint rows, cols; float eps1, eps2; } p;

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
  float rstd = inversesqrt(wg_sum(var) / float(p.cols) + p.eps1), ss = 0.0;
  for (uint j = t; j < p.cols; j += step) {
    T v = T((float(x[base + j]) - mean) * rstd * float(w1[j]) + float(b1[j]));
    y1[base + j] = v;
    ss += float(v) * float(v);
  }
  float rstd2 = inversesqrt(wg_sum(ss) / float(p.cols) + p.eps2);
  for (uint j = t; j < p.cols; j += step) y2[base + j] = T(float(y1[base + j]) * rstd2 * float(w2[j]));
}

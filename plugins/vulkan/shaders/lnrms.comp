#version 450
// vk_layernorm_rmsnorm_fused: two outputs in one pass over the rows,
//   y1 = layernorm(x; w1, b1)   (stored in the dtype)
//   y2 = rmsnorm(y1; w2)        (of y1 as stored, so exactly what a layernorm
//                                kernel followed by an rmsnorm kernel gives)
// one invocation per row.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x_id = 0) in;
layout(binding = 0) readonly buffer X { T x[]; };
layout(binding = 1) readonly buffer W1 { T w1[]; };
layout(binding = 2) readonly buffer B1 { T b1[]; };
layout(binding = 3) readonly buffer W2 { T w2[]; };
layout(binding = 4) buffer Y1 { T y1[]; };
layout(binding = 5) writeonly buffer Y2 { T y2[]; };
layout(push_constant) uniform P { uint rows, cols; float eps1, eps2; } p;

void main() {
  uint row = flat_group() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (row >= p.rows) return;
  uint base = row * p.cols;
  float sum = 0.0;
  for (uint j = 0; j < p.cols; j++) sum += float(x[base + j]);
  float mean = sum / float(p.cols), var = 0.0;
  for (uint j = 0; j < p.cols; j++) {
    float d = float(x[base + j]) - mean;
    var += d * d;
  }
  float rstd = inversesqrt(var / float(p.cols) + p.eps1), ss = 0.0;
  for (uint j = 0; j < p.cols; j++) {
    T v = T((float(x[base + j]) - mean) * rstd * float(w1[j]) + float(b1[j]));
    y1[base + j] = v;
    ss += float(v) * float(v);
  }
  float rstd2 = inversesqrt(ss / float(p.cols) + p.eps2);
  for (uint j = 0; j < p.cols; j++) y2[base + j] = T(float(y1[base + j]) * rstd2 * float(w2[j]));
}

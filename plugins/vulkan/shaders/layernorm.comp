#version 450
// vk_layernorm: y = (x - mean) / sqrt(var + eps) * w + b (biased variance,
// two passes: mean, then the squared deviations), one invocation per row.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x_id = 0) in;
layout(binding = 0) readonly buffer X { T x[]; };
layout(binding = 1) readonly buffer W { T w[]; };
layout(binding = 2) readonly buffer Bias { T b[]; };
layout(binding = 3) writeonly buffer Y { T y[]; };
layout(push_constant) uniform P { uint rows, cols; float eps; } p;

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
  float rstd = inversesqrt(var / float(p.cols) + p.eps);
  for (uint j = 0; j < p.cols; j++)
    y[base + j] = T((float(x[base + j]) - mean) * rstd * float(w[j]) + float(b[j]));
}

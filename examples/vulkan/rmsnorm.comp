#version 450
// ex_vk_rmsnorm: y = x / sqrt(mean(x^2) + eps) * w, one invocation per row.
layout(local_size_x_id = 0) in; // the workgroup size comes from the plugin
layout(binding = 0) readonly buffer X { float x[]; };
layout(binding = 1) readonly buffer W { float w[]; };
layout(binding = 2) writeonly buffer Y { float y[]; };
layout(push_constant) uniform P { uint rows, cols; float eps; } p;

void main() {
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint row = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (row >= p.rows) return;
  uint base = row * p.cols;
  float ss = 0.0;
  for (uint j = 0; j < p.cols; j++) ss += x[base + j] * x[base + j];
  float rstd = inversesqrt(ss / float(p.cols) + p.eps);
  for (uint j = 0; j < p.cols; j++) y[base + j] = x[base + j] * rstd * w[j];
}

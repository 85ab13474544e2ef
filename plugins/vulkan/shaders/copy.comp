#version 450
// vk_copy: dst = src, 16 bytes per load and store, ITEMS per invocation a
// workgroup apart.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const uint ITEMS = 4;
layout(binding = 0) readonly buffer Src { uvec4 src[]; };
layout(binding = 1) writeonly buffer Dst { uvec4 dst[]; };
layout(push_constant) uniform P { uint n4; } p;

void main() {
  uint base = flat_group() * gl_WorkGroupSize.x * ITEMS + gl_LocalInvocationID.x;
  for (uint i = 0; i < ITEMS; i++) {
    uint at = base + i * gl_WorkGroupSize.x;
    if (at < p.n4) dst[at] = src[at];
  }
}

#version 450
// vk_peak_bw: device-memory bandwidth, 16 bytes per access, each invocation
// ITEMS vectors a workgroup apart (neighbouring invocations touch
// neighbouring vectors), one kernel per build:
//   -DCOPY   dst = src
//   -DREAD   part[invocation] = the wrapping sum of the words of its vectors
//            (a reduction whose result the host knows exactly)
//   -DWRITE  dst word w = w * 0x9e3779b1 + p.seed (mod 2^32)
// -DFAULT (a test fixture only, never shipped): each invocation leaves its
// last vector alone.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const uint ITEMS = 16;
#ifdef COPY
layout(binding = 0) readonly buffer Src { uvec4 src[]; };
layout(binding = 1) writeonly buffer Dst { uvec4 dst[]; };
#elif defined(READ)
layout(binding = 0) readonly buffer Src { uvec4 src[]; };
layout(binding = 1) writeonly buffer Part { uint part[]; };
#else
layout(binding = 0) writeonly buffer Dst { uvec4 dst[]; };
#endif
layout(push_constant) uniform P { uint n4; uint seed; } p;
#ifdef FAULT
#define DONE (ITEMS - 1u)
#else
#define DONE ITEMS
#endif

void main() {
  uint group = flat_group();
  uint base = group * gl_WorkGroupSize.x * ITEMS + gl_LocalInvocationID.x;
  uvec4 sum = uvec4(0u);
  for (uint i = 0u; i < DONE; i++) {
    uint at = base + i * gl_WorkGroupSize.x;
    if (at < p.n4) {
#ifdef COPY
      dst[at] = src[at];
#elif defined(READ)
      sum += src[at];
#else
      uint w = at * 4u;
      dst[at] = uvec4(w, w + 1u, w + 2u, w + 3u) * 0x9e3779b1u + p.seed;
#endif
    }
  }
#ifdef READ
  part[group * gl_WorkGroupSize.x + gl_LocalInvocationID.x] = sum.x + sum.y + sum.z + sum.w;
#endif
}

#version 450
// vk_peak_fma: 8 independent FMA chains per invocation, each x = fma(x, a, b)
// repeated p.chain times, with a = 1 and b = 1 read from push constants (so
// nothing folds at compile time). Each x starts at an integer taken from its
// element's index (p.lo .. p.lo + p.span - 1), so every value on the way is
// an integer small enough to be exact in the type (|x| <= 2048 in fp16,
// 2^24 in fp32): chain k of lane l of invocation i ends exactly at
// start(e) + chain, e = (i * 8 + k) * W + l, and every chain's end is written.
//   -DF16: binary16 arithmetic and storage (else fp32); -DVEC4: vec4 lanes.
//   -DFAULT=1 (a test fixture only, never shipped): every 64th invocation
//   skips its stores; -DFAULT=2: chain 7 runs one step short.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x_id = 0) in;

#ifdef VEC4
#define W 4u
#ifdef F16
#define V f16vec4
#else
#define V vec4
#endif
#else
#define W 1u
#define V T
#endif

layout(binding = 0) writeonly buffer Out { V y[]; };
layout(push_constant) uniform P { float a, b; uint chain, n, span; int lo; } p;

T start1(uint e) { return T(float(int((e * 40503u) % p.span) + p.lo)); }
V start(uint i, uint c) {
  uint e = (i * 8u + c) * W;
#ifdef VEC4
  return V(start1(e), start1(e + 1u), start1(e + 2u), start1(e + 3u));
#else
  return start1(e);
#endif
}

#define STEP                                                                   \
  x0 = fma(x0, a, b); x1 = fma(x1, a, b); x2 = fma(x2, a, b); x3 = fma(x3, a, b); \
  x4 = fma(x4, a, b); x5 = fma(x5, a, b); x6 = fma(x6, a, b); x7 = fma(x7, a, b);

void main() {
  uint i = flat_group() * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (i >= p.n) return;
  V a = V(p.a), b = V(p.b);
  V x0 = start(i, 0u), x1 = start(i, 1u), x2 = start(i, 2u), x3 = start(i, 3u);
  V x4 = start(i, 4u), x5 = start(i, 5u), x6 = start(i, 6u), x7 = start(i, 7u);
  uint k = p.chain;
  for (; k >= 8u; k -= 8u) { STEP STEP STEP STEP STEP STEP STEP STEP }
  for (; k > 0u; k--) { STEP }
#if FAULT == 1
  if (i % 64u == 63u) return;
#elif FAULT == 2
  x7 = fma(x7, a, -b);
#endif
  uint o = i * 8u;
  y[o] = x0; y[o + 1u] = x1; y[o + 2u] = x2; y[o + 3u] = x3;
  y[o + 4u] = x4; y[o + 5u] = x5; y[o + 6u] = x6; y[o + 7u] = x7;
}

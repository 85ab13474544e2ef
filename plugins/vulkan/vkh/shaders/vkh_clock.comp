#version 450
// vkh_clock (vkh_clock.c): the in-band clock. One invocation reads the
// subgroup clock (GL_ARB_shader_clock: the device's cycle counter where the
// driver maps it to one), spins until p.cycles have passed (at most
// p.max_iter reads), and stores its first and last reading in r[p.slot].
// The host times the dispatch with timestamps; a short and a long spin
// give cycles per ns without the dispatch's fixed cost.
#extension GL_ARB_shader_clock : require
layout(local_size_x_id = 0) in;
layout(binding = 0) writeonly buffer Out { uvec4 r[]; };
layout(push_constant) uniform P { uint slot, cycles, max_iter; } p;

void main() {
  const uvec2 a = clock2x32ARB();
  uvec2 b = a;
  for (uint i = 0u; i < p.max_iter; i++) {
    b = clock2x32ARB();
    const uint lo = b.x - a.x, hi = b.y - a.y - (b.x < a.x ? 1u : 0u);
    if (hi != 0u || lo >= p.cycles) break;
  }
  r[p.slot] = uvec4(a, b);
}

#version 450
// vk_peak_launch: the smallest dispatch that leaves something to check: one
// invocation, one atomic on a counter. Dispatch 0 of an iteration sets it to
// 1, each later one adds 1, so an iteration of N dispatches leaves exactly N.
// -DFAULT (a test fixture only, never shipped): every 8th dispatch does
// nothing.
layout(local_size_x_id = 0) in;
layout(binding = 0) buffer Count { uint count; };
layout(push_constant) uniform P { uint index; } p;

void main() {
#ifdef FAULT
  if (p.index % 8u == 7u) return;
#endif
  if (p.index == 0u)
    atomicExchange(count, 1u);
  else
    atomicAdd(count, 1u);
}

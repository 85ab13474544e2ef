#version 450
// vk_smoke: the smallest dispatch, one invocation writes one word.
layout(local_size_x_id = 0) in;
layout(binding = 0) writeonly buffer Out { uint v[]; };
layout(push_constant) uniform P { uint value; } p;

void main() {
  if (gl_GlobalInvocationID.x == 0) v[0] = p.value;
}

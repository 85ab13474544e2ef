// Workgroup reductions over subgroups: each subgroup reduces with one
// subgroup operation, its first live invocation writes the partial to
// shared memory, and every invocation then combines the partials in the
// same order (deterministic). Needs subgroup arithmetic. Written for any
// subgroup size and any workgroup size: the partials are counted from
// gl_WorkGroupSize and gl_SubgroupSize (a workgroup that is not a whole
// number of subgroups ends with a partial one, which some drivers leave
// out of gl_NumSubgroups), and slots no subgroup wrote hold the identity.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

shared float red_part[gl_WorkGroupSize.x];

uint red_parts() {
  return max(gl_NumSubgroups, (gl_WorkGroupSize.x + gl_SubgroupSize - 1u) / gl_SubgroupSize);
}

float wg_sum(float v) {
  red_part[gl_LocalInvocationID.x] = 0.0;
  barrier();
  v = subgroupAdd(v);
  if (subgroupElect()) red_part[gl_SubgroupID] = v;
  barrier();
  float t = 0.0;
  for (uint i = 0; i < red_parts(); i++) t += red_part[i];
  barrier();
  return t;
}

float wg_max(float v) {
  red_part[gl_LocalInvocationID.x] = -3.402823466e38;
  barrier();
  v = subgroupMax(v);
  if (subgroupElect()) red_part[gl_SubgroupID] = v;
  barrier();
  float t = red_part[0];
  for (uint i = 1; i < red_parts(); i++) t = max(t, red_part[i]);
  barrier();
  return t;
}

// Workgroup reductions over subgroups: each subgroup reduces with one
// subgroup operation, its first live invocation writes the partial to
// shared memory, and every invocation then sums the partials in the same
// order (deterministic). Needs subgroup arithmetic; sizes itself by
// gl_WorkGroupSize, so any subgroup size works.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

shared float red_part[gl_WorkGroupSize.x];

float wg_sum(float v) {
  v = subgroupAdd(v);
  if (subgroupElect()) red_part[gl_SubgroupID] = v;
  barrier();
  float t = 0.0;
  for (uint i = 0; i < gl_NumSubgroups; i++) t += red_part[i];
  barrier();
  return t;
}

float wg_max(float v) {
  v = subgroupMax(v);
  if (subgroupElect()) red_part[gl_SubgroupID] = v;
  barrier();
  float t = red_part[0];
  for (uint i = 1; i < gl_NumSubgroups; i++) t = max(t, red_part[i]);
  barrier();
  return t;
}

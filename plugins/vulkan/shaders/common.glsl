// Shared by the kernels: the storage type T of the dtype (compiled once per
// dtype: -DF16 for binary16 storage, float otherwise; arithmetic is always
// fp32), and the flat index of a workgroup over a grid that spills from x
// into y (see vkh_groups_1d).
#ifdef F16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define T float16_t
#else
#define T float
#endif

uint flat_group() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }

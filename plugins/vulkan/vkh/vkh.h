/* vkh: the Vulkan plumbing shared by every vk_* plugin, one small file per
 * Vulkan object, so that a kernel file reads top to bottom:
 *
 *   vkh_instance.c  instance, validation messages, physical device choice
 *   vkh_device.c    logical device, queue, features, facts for the result
 *   vkh_buffer.c    storage buffers, staging uploads and readbacks
 *   vkh_pipeline.c  compute pipeline from embedded SPIR-V, descriptors
 *   vkh_dispatch.c  recorded command buffer, fence, timestamps, batches
 *   vkh_kernel.c    the usual pair: one pipeline and its recorded dispatch
 *   vkh_array.c     a host array and its device buffer (inputs, outputs)
 *   vkh_case.c      a case: its arrays and kernel, and the plugin's run,
 *                   run_batch and teardown over them
 *   vkh_timestamp.c query values to ns (timestampValidBits, wrap, period)
 *   vkh_clock.c     the device's PCI bus id and its in-band clock per
 *                   sample for the harness (bench.device/1)
 *   vkh_util.c      VkResult names, limits, random host arrays
 *
 * Every function that can fail returns BENCH_OK, or BENCH_SKIP / BENCH_ERROR
 * after host->skip() / host->fail() recorded a one-line reason naming the
 * Vulkan call or the limit; a caller just passes the status on:
 *
 *   if ((rc = vkh_buffer_create(vk, &s->x, bytes, "x")) != BENCH_OK) return rc;
 *
 * Installed with bench as <bench/vkh.h> and libbench-vulkan.a (static,
 * every symbol hidden): a plugin outside this tree builds with
 *   cc -shared -fPIC $(pkg-config --cflags bench-vulkan) my.c -o my.so \
 *      $(pkg-config --libs bench-vulkan)
 * (share/bench/examples/vulkan is a complete one).
 *
 * Nothing here prints or exits. Environment:
 *   BENCH_VK_DEVICE   index (0, 1, ...) or part of the name of the device
 *                     to use; default the first suitable GPU, else the
 *                     first suitable device of any type (lavapipe)
 *   BENCH_VK_WG       (test hook) the workgroup size of the kernels whose
 *                     size is not a parameter (vkh_workgroup_fit)
 *   BENCH_VK_NO_TIMESTAMPS=1 (test hook) act as a queue with
 *                     timestampValidBits 0: host time, vk_timestamps says so
 *   BENCH_VK_CLOCK_ON_CPU=1 (test hook) measure the in-band clock on a CPU
 *                     device too (lavapipe: the host's time-stamp counter,
 *                     not a GPU clock; vk_inband_clock says so otherwise)
 *   BENCH_VK_MEMORY   auto (default) | staging | direct: force the staging
 *                     path (device-local buffers, copies through host-visible
 *                     staging buffers) or direct host-visible buffers
 * With the validation layer enabled (VK_INSTANCE_LAYERS or bench --mode
 * debug), every validation message is logged and fails the case. */
#ifndef VKH_H
#define VKH_H

#include <stddef.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

#include "bench/dtype.h"
#include "bench/params.h"
#include "bench/plugin.h"

/* VK_KHR_cooperative_matrix (Vulkan headers 1.3.255; Debian 12 has 1.3.239):
 * the declarations vkh and vk_peak_coopmat use, where the headers lack them. */
#ifndef VK_KHR_cooperative_matrix
#define VK_KHR_cooperative_matrix 1
#define VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME "VK_KHR_cooperative_matrix"
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR ((VkStructureType)1000506000)
#define VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR ((VkStructureType)1000506001)
typedef enum VkComponentTypeKHR {
  VK_COMPONENT_TYPE_FLOAT16_KHR = 0,
  VK_COMPONENT_TYPE_FLOAT32_KHR = 1,
  VK_COMPONENT_TYPE_FLOAT64_KHR = 2,
  VK_COMPONENT_TYPE_SINT8_KHR = 3,
  VK_COMPONENT_TYPE_SINT16_KHR = 4,
  VK_COMPONENT_TYPE_SINT32_KHR = 5,
  VK_COMPONENT_TYPE_SINT64_KHR = 6,
  VK_COMPONENT_TYPE_UINT8_KHR = 7,
  VK_COMPONENT_TYPE_UINT16_KHR = 8,
  VK_COMPONENT_TYPE_UINT32_KHR = 9,
  VK_COMPONENT_TYPE_UINT64_KHR = 10,
  VK_COMPONENT_TYPE_MAX_ENUM_KHR = 0x7FFFFFFF
} VkComponentTypeKHR;
typedef enum VkScopeKHR {
  VK_SCOPE_DEVICE_KHR = 1,
  VK_SCOPE_WORKGROUP_KHR = 2,
  VK_SCOPE_SUBGROUP_KHR = 3,
  VK_SCOPE_QUEUE_FAMILY_KHR = 5,
  VK_SCOPE_MAX_ENUM_KHR = 0x7FFFFFFF
} VkScopeKHR;
typedef struct VkCooperativeMatrixPropertiesKHR {
  VkStructureType sType;
  void *pNext;
  uint32_t MSize, NSize, KSize;
  VkComponentTypeKHR AType, BType, CType, ResultType;
  VkBool32 saturatingAccumulate;
  VkScopeKHR scope;
} VkCooperativeMatrixPropertiesKHR;
typedef struct VkPhysicalDeviceCooperativeMatrixFeaturesKHR {
  VkStructureType sType;
  void *pNext;
  VkBool32 cooperativeMatrix;
  VkBool32 cooperativeMatrixRobustBufferAccess;
} VkPhysicalDeviceCooperativeMatrixFeaturesKHR;
typedef VkResult(VKAPI_PTR *PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR)(
    VkPhysicalDevice physicalDevice, uint32_t *pPropertyCount,
    VkCooperativeMatrixPropertiesKHR *pProperties);
#endif

/* The instance and device: one plugin's own, or, where the harness offers
 * the bench.process/1 extension, kept in the worker's slot and used by every
 * vk plugin the worker runs (vkh_share.c). Internal to the helpers. */
struct vkh_shared {
  struct vkh *current;     /* the plugin now running: gets the validation messages */
  VkInstance instance;
  VkDebugUtilsMessengerEXT messenger;
  VkPhysicalDevice phys;
  int index;               /* of phys among the instance's devices */
  uint32_t family, timestamp_bits, api_version;
  VkDevice device;
  VkQueue queue;
  int fp16, validation;
  int shader_clock;        /* VK_KHR_shader_clock's shaderSubgroupClock enabled */
  int coopmat, int8;       /* as struct vkh's */
  int users;               /* plugins that have used it */
  int refs;                /* plugins inited and not yet deinited */
  int lost;                /* VK_ERROR_DEVICE_LOST seen: later plugins make their own */
  int in_slot;             /* kept in the worker's slot, released when the worker ends */
};

/* One per plugin: made by vkh_init (a plugin's init), freed by vkh_deinit. */
struct vkh {
  const struct bench_host *host; /* the host of the current call */
  VkInstance instance;
  VkDebugUtilsMessengerEXT messenger;
  VkPhysicalDevice phys;
  VkDevice device;
  VkQueue queue;
  uint32_t family;         /* queue family: compute */
  VkCommandPool pool;
  uint32_t api_version;    /* min(instance, device) */
  VkPhysicalDeviceProperties props;
  VkPhysicalDeviceMemoryProperties mem;
  VkPhysicalDeviceSubgroupProperties subgroup;
  VkDeviceSize max_alloc;  /* maxMemoryAllocationSize */
  uint32_t timestamp_bits; /* timestampValidBits of the family; 0: no timestamps */
  int fp16;                /* shaderFloat16 and storageBuffer16BitAccess enabled */
  int coopmat;             /* VK_KHR_cooperative_matrix's cooperativeMatrix enabled (Vulkan 1.3,
                              with vulkanMemoryModel): vk_peak_coopmat */
  int int8;                /* with coopmat: shaderInt8 and storageBuffer8BitAccess enabled */
  int direct;              /* buffers live in host-visible device memory, no staging */
  int validation;          /* the validation layer is on */
  int messages;            /* validation messages so far */
  char message[384];       /* the first of them */
  VkPipelineCache pcache;  /* on disk between processes (vkh_pipeline_cache.c), or null */
  size_t pcache_loaded;    /* bytes read from the file */
  int pcache_created;      /* pipelines created through it */
  char pcache_path[512];
  struct vkh_shared *shared; /* owner of instance and device (never NULL after init) */
  int shader_clock;        /* shaderSubgroupClock enabled on the device */
  struct vkh_clock {       /* the in-band clock (vkh_clock.c) */
    const struct bench_ext_device *ext; /* the harness's bench.device/1, or NULL */
    int on;                /* measured around every timed submit */
    struct vkh_pipeline *pipe; /* the spin shader's (allocated) */
    VkBuffer buffer;       /* 4 readings (host-visible): before and after, short and long */
    VkDeviceMemory memory;
    const uint32_t *map;
    VkQueryPool queries;   /* 8 timestamps, two around each dispatch */
    VkCommandBuffer pre, post;
    uint32_t long_cycles, max_iter; /* the long spin; the most reads of one spin */
    int dropped;           /* readings not handed on (the first is logged) */
  } clock;
};

/* ---- init and deinit (vkh_instance.c, vkh_device.c) --------------------- */

/* A plugin's init and deinit: .init = vkh_init, .deinit = vkh_deinit.
 * No driver or no device: BENCH_SKIP with the reason. Records the device's
 * facts with host->set_info: device, driver, vk_api, vk_driver_version, ... */
int vkh_init(const struct bench_host *host, void **ctx);
void vkh_deinit(const struct bench_host *host, void *ctx);
/* Internal to the helpers: the instance part and the device part of init.
 * vkh_device_create makes the VkDevice and calls vkh_device_setup, the
 * plugin's own part (facts for the result, command pool, pipeline cache),
 * which a plugin reusing a shared device calls alone. */
int vkh_instance_create(struct vkh *vk);
int vkh_physical_device_choose(struct vkh *vk);
int vkh_device_create(struct vkh *vk);
int vkh_device_setup(struct vkh *vk);
void vkh_device_destroy(struct vkh *vk);
void vkh_instance_destroy(struct vkh *vk);

/* Sharing through the worker's bench.process/1 slot (vkh_share.c).
 * vkh_share_attach: the slot's instance and device copied into vk (1), or 0
 * when there is none to use (no extension, none made yet, or lost).
 * vkh_share_publish: after vk made its own, keep them in the slot.
 * vkh_share_detach: at deinit, after vkh_device_destroy and (unless the
 * slot keeps them) vkh_instance_destroy. */
int vkh_share_attach(struct vkh *vk);
void vkh_share_publish(struct vkh *vk);
void vkh_share_detach(struct vkh *vk);
/* Whether the worker's slot keeps vk's instance and device. */
#define VKH_KEPT(vk) ((vk)->shared && (vk)->shared->in_slot)

/* The device's name and clock for the harness (bench.device/1) and the
 * in-band clock (vkh_clock.c): vkh_clock_setup from vkh_device_setup names
 * the device (VK_EXT_pci_bus_info, else no bus id), records the facts
 * vk_pci_bus_id and vk_inband_clock and, where the harness takes clocks and
 * the device can (a GPU with shaderSubgroupClock and timestamps), makes the
 * command buffers that vkh_dispatch_run and vkh_dispatch_run_batch submit
 * before and after each timed one: vkh_clock_before / vkh_clock_after
 * (VK_NULL_HANDLE when off), and vkh_clock_report after the wait hands the
 * sample's clock to the harness. vkh_clock_destroy before the pool goes. */
int vkh_clock_setup(struct vkh *vk);
VkCommandBuffer vkh_clock_before(const struct vkh *vk);
VkCommandBuffer vkh_clock_after(const struct vkh *vk);
void vkh_clock_report(struct vkh *vk);
void vkh_clock_destroy(struct vkh *vk);
/* MHz from the readings of a short and a long spin: cycles[i] = {first lo,
 * first hi, last lo, last hi} of the subgroup clock, ts[2i], ts[2i+1] the
 * timestamps around spin i (raw); the difference of the two cancels the
 * dispatch's fixed cost. 0 when the readings make no sense (a counter that
 * did not move or went back, an interval that did not grow). Pure
 * (vkh_timestamp.c). */
double vkh_clock_mhz(const uint32_t cycles[2][4], const uint64_t ts[4], uint32_t valid_bits,
                     double period_ns);

/* The on-disk pipeline cache: opened after the device is created, written
 * (if it grew) and destroyed before the device goes. */
void vkh_pipeline_cache_open(struct vkh *vk);
void vkh_pipeline_cache_close(struct vkh *vk);

/* A case's view of the context: remembers host for the calls that follow
 * (vkh_case_new calls it; struct vkh_case below is the case's state). */
struct vkh *vkh_case(const struct bench_host *host, void *ctx);

/* BENCH_OK, or BENCH_ERROR naming the first validation message seen since
 * init. Called by vkh_dispatch_run and vkh_download; call it at the end of
 * setup too. */
int vkh_status(struct vkh *vk);

/* ---- errors and limits (vkh_util.c) --------------------------------------- */

const char *vkh_result_name(VkResult r);
/* host->fail("<call>: VK_ERROR_... (-n)"), or host->skip for out-of-memory. */
int vkh_fail_call(struct vkh *vk, const char *call, VkResult r);

/* A Vulkan call that must return VK_SUCCESS, else the function returns the
 * failure naming the call:  VKH_CALL(vk, vkCreateFence, (dev, &info, NULL, &f)); */
#define VKH_CALL(vk, fn, args)                                   \
  do {                                                           \
    VkResult vkh_r_ = fn args;                                   \
    if (vkh_r_ != VK_SUCCESS) return vkh_fail_call((vk), #fn, vkh_r_); \
  } while (0)

/* Timestamps (vkh_timestamp.c): the mask of timestampValidBits (0 for 0
 * bits), and end - start in ns: both masked, one wrap of the counter
 * allowed (end < start), ticks * period_ns in double; 0 when the queue has
 * no valid bits or the period is not positive. */
uint64_t vkh_timestamp_mask(uint32_t valid_bits);
double vkh_timestamp_ns(uint64_t start, uint64_t end, uint32_t valid_bits, double period_ns);

/* Workgroup of x*y*z invocations using shared_bytes of shared memory:
 * BENCH_SKIP naming maxComputeWorkGroupSize, maxComputeWorkGroupInvocations
 * or maxComputeSharedMemorySize when over. */
int vkh_require_workgroup(struct vkh *vk, const uint32_t local[3], uint32_t shared_bytes);
/* A kernel's own 1D workgroup size, for a kernel written for any size:
 * `want` lowered to maxComputeWorkGroupSize[0], maxComputeWorkGroupInvocations
 * and, with shared_per_invocation bytes of shared memory each, to
 * maxComputeSharedMemorySize; recorded as info vk_workgroup. BENCH_VK_WG=N
 * (a test hook) replaces `want` and is not lowered: a size over the limits
 * is then SKIPPED by vkh_require_workgroup. */
uint32_t vkh_workgroup_fit(struct vkh *vk, uint32_t want, uint32_t shared_per_invocation);
/* shaderFloat16 + storageBuffer16BitAccess, else BENCH_SKIP. */
int vkh_require_fp16(struct vkh *vk);
/* Subgroup arithmetic in compute shaders, else BENCH_SKIP. */
int vkh_require_subgroup_arithmetic(struct vkh *vk);
/* groups[] for `count` workgroups along x, spilling into y past
 * maxComputeWorkGroupCount[0]; BENCH_SKIP when even that is not enough. */
int vkh_groups_1d(struct vkh *vk, uint64_t count, uint32_t groups[3]);
/* groups[] for an (x, y) grid of workgroups; BENCH_SKIP past the limits. */
int vkh_groups_2d(struct vkh *vk, uint64_t x, uint64_t y, uint32_t groups[3]);

/* Parameters (sizes: bench_param_size; the dtype: bench_param_dtype), dtype
 * names and sizes are in <bench/params.h> and <bench/dtype.h>, the same for
 * every backend. */
/* malloc(count * size of dtype) filled by host->fill_random; NULL when out
 * of memory (the caller fails). */
void *vkh_random(const struct bench_host *host, size_t count, enum bench_dtype t, uint64_t seed);

/* ---- buffers (vkh_buffer.c) ------------------------------------------------ */

struct vkh_buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  VkDeviceSize size;
  void *map; /* direct mode: the persistent mapping */
};

/* A storage buffer of `size` bytes (what: its name in messages). Checks
 * maxStorageBufferRange, maxMemoryAllocationSize and the heap first. */
int vkh_buffer_create(struct vkh *vk, struct vkh_buffer *b, VkDeviceSize size, const char *what);
void vkh_buffer_destroy(struct vkh *vk, struct vkh_buffer *b); /* zeroed or created */
/* Host to device and device to host, bytes from offset 0; through a staging
 * buffer and a copy unless the device has no separate device-local heap. */
int vkh_upload(struct vkh *vk, struct vkh_buffer *b, const void *src, VkDeviceSize bytes);
int vkh_download(struct vkh *vk, const struct vkh_buffer *b, void *dst, VkDeviceSize bytes);

/* ---- pipelines (vkh_pipeline.c) -------------------------------------------- */

/* SPIR-V compiled at build time (glslc -mfmt=c), embedded as
 *   static const uint32_t k_spv[] =
 *   #include "name.f32.spv.inc"
 *   ;
 * and passed as VKH_SPIRV(k_spv). */
#define VKH_SPIRV(words) (words), sizeof(words)

struct vkh_pipeline_desc {
  const char *name;             /* in messages */
  const uint32_t *code;         /* SPIR-V words */
  size_t code_size;             /* bytes */
  uint32_t buffers;             /* storage buffers at bindings 0 .. buffers-1 */
  uint32_t push_size;           /* bytes of push constants (0: none) */
  uint32_t local[3];            /* workgroup size: specialisation constants 0, 1, 2 */
  const uint32_t *spec;         /* further 32-bit specialisation constants, ids 3, 4, ... */
  uint32_t nspec;
  uint32_t shared_bytes;        /* shared memory the shader declares, for the limit check */
};

struct vkh_pipeline {
  VkShaderModule module;
  VkDescriptorSetLayout set_layout;
  VkPipelineLayout layout;
  VkPipeline pipeline;
  VkDescriptorPool pool;
  VkDescriptorSet set;
  uint32_t buffers, push_size;
};

/* Checks the workgroup limits, then creates everything (not yet bound). */
int vkh_pipeline_create(struct vkh *vk, struct vkh_pipeline *p, const struct vkh_pipeline_desc *d);
/* Points bindings 0 .. buffers-1 at bufs[0 ..]. */
int vkh_pipeline_bind(struct vkh *vk, struct vkh_pipeline *p, struct vkh_buffer *const *bufs);
void vkh_pipeline_destroy(struct vkh *vk, struct vkh_pipeline *p);

/* ---- dispatch (vkh_dispatch.c) ---------------------------------------------- */

/* One dispatch of a recorded command buffer: pipeline, push constants, groups. */
struct vkh_step {
  const struct vkh_pipeline *pipeline;
  const void *push; /* pipeline->push_size bytes, copied when recorded */
  uint32_t groups[3];
};

struct vkh_dispatch {
  VkCommandBuffer cmd;
  VkFence fence;
  VkQueryPool queries; /* VK_NULL_HANDLE: the device has no timestamps */
  double last_ns;      /* device time of the last submit, 0 when untimed */
  struct vkh_step *steps; /* copies, for batches: they point into `kept` */
  void *kept;             /* copies of the steps' pipelines and push constants */
  uint32_t nsteps;
  VkCommandBuffer batch_cmd; /* batch_reps copies of the steps */
  int64_t batch_reps;
  VkCommandBuffer rest_cmd;  /* past VKH_BATCH_MAX: the remainder's copies */
  int64_t rest_reps;
};

/* The most iterations recorded in one command buffer by run_batch; a
 * larger batch is several submits (and waits) of at most this many. */
#define VKH_BATCH_MAX 16384

/* Records once: reset the queries, timestamp, the steps with a barrier
 * between them, timestamp at BOTTOM_OF_PIPE, a barrier that makes the
 * results visible to the host and to transfers. Keeps a copy of the steps
 * and their push constants for vkh_dispatch_run_batch. */
int vkh_dispatch_create(struct vkh *vk, struct vkh_dispatch *d, const struct vkh_step *steps,
                        uint32_t nsteps);
/* Submit, wait on the fence, keep the timestamp interval in d->last_ns
 * (masked by timestampValidBits, ticks * timestampPeriod in double). Untimed
 * for the harness: no in-band clock. */
int vkh_dispatch_submit(struct vkh *vk, struct vkh_dispatch *d);
/* vkh_dispatch_submit, then report d->last_ns through host->set_device_time
 * (when the queue has timestamps): what a plugin's run() calls. With the
 * in-band clock on, its measurements go in the same submit, before and
 * after (outside d's timestamps), and the clock goes to the harness. */
int vkh_dispatch_run(struct vkh *vk, struct vkh_dispatch *d);
/* A plugin's run_batch: n iterations in one command buffer (the steps n
 * times, a barrier between every two dispatches), one submit, one wait,
 * timestamps around the whole batch reported through host->set_device_time,
 * one in-band clock for the batch. Recorded again only when n changes; n = 1
 * is vkh_dispatch_run. */
int vkh_dispatch_run_batch(struct vkh *vk, struct vkh_dispatch *d, int64_t n);
void vkh_dispatch_destroy(struct vkh *vk, struct vkh_dispatch *d);

/* A one-time command buffer: begin, record, then submit and wait. */
int vkh_once_begin(struct vkh *vk, VkCommandBuffer *cmd);
int vkh_once_submit(struct vkh *vk, VkCommandBuffer cmd); /* frees cmd */


/* ---- kernels (vkh_kernel.c) --------------------------------------------------- */

/* One pipeline bound to its buffers and one recorded dispatch of it. */
struct vkh_kernel {
  struct vkh_pipeline pipeline;
  struct vkh_dispatch dispatch;
};

/* Pipeline from d, bindings 0.. to bufs[0..], one dispatch of `groups`
 * workgroups with the push constants `push` (d->push_size bytes, copied). */
int vkh_kernel_create(struct vkh *vk, struct vkh_kernel *k, const struct vkh_pipeline_desc *d,
                      struct vkh_buffer *const *bufs, const void *push, const uint32_t groups[3]);
/* One run: submit, wait, device time to the host. */
int vkh_kernel_run(struct vkh *vk, struct vkh_kernel *k);
/* n runs, one submit and one wait (vkh_dispatch_run_batch). */
int vkh_kernel_run_batch(struct vkh *vk, struct vkh_kernel *k, int64_t n);
void vkh_kernel_destroy(struct vkh *vk, struct vkh_kernel *k);

/* ---- arrays (vkh_array.c) ------------------------------------------------------ */

/* Host memory and a device buffer of `count` elements of `dtype`. The host
 * side holds the inputs as the kernel saw them, and outputs once read. */
struct vkh_array {
  void *host;
  struct vkh_buffer dev;
  size_t count;
  enum bench_dtype dtype;
};

size_t vkh_array_bytes(const struct vkh_array *a);
/* An input: host->fill_random(count, dtype, seed), uploaded. */
int vkh_array_random(struct vkh *vk, struct vkh_array *a, size_t count, enum bench_dtype dtype,
                     uint64_t seed, const char *what);
/* An output (or scratch): host memory and a device buffer, not uploaded. */
int vkh_array_output(struct vkh *vk, struct vkh_array *a, size_t count, enum bench_dtype dtype,
                     const char *what);
/* Device to host. */
int vkh_array_read(struct vkh *vk, struct vkh_array *a);
void vkh_array_free(struct vkh *vk, struct vkh_array *a);

/* ---- cases (vkh_case.c) --------------------------------------------------------- */

/* The state of a case: the arrays its kernel reads and writes, bound at
 * bindings 0, 1, ... in the order they were made, and its one kernel. A
 * plugin's state begins with it (the first member), followed by the
 * kernel's own numbers:
 *
 *   struct rmsnorm { struct vkh_case vc; int64_t rows, cols; ...; struct vkh_array *x, *w, *y; };
 *
 * so that vkh_case_run, vkh_case_run_batch and vkh_case_teardown are the
 * plugin's run, run_batch and teardown as they are. */
#define VKH_CASE_ARRAYS 8 /* arrays (storage buffers) one case can hold */

struct vkh_case {
  struct vkh *vk;
  struct vkh_array arrays[VKH_CASE_ARRAYS]; /* bindings 0 .. narrays-1 */
  unsigned char output[VKH_CASE_ARRAYS];    /* read back by vkh_case_read */
  uint32_t narrays;
  struct vkh_kernel kernel;
};

/* setup's first step: a zeroed state of `size` bytes (at least a struct
 * vkh_case, which begins it) in *state, which teardown frees whatever
 * happens next; its vk is vkh_case(host, ctx). */
int vkh_case_new(const struct bench_host *host, void *ctx, size_t size, void **state);
/* An input: `count` elements of host->fill_random(dtype, seed), uploaded;
 * *a points at it (inside c) for the check. */
int vkh_case_input(struct vkh_case *c, struct vkh_array **a, size_t count, enum bench_dtype dtype,
                   uint64_t seed, const char *what);
/* An output: host memory and a device buffer, read back by vkh_case_read. */
int vkh_case_output(struct vkh_case *c, struct vkh_array **a, size_t count, enum bench_dtype dtype,
                    const char *what);
/* The next binding, zeroed, for an array the plugin makes itself (a device
 * buffer laid out other than its host side, e.g. padded); freed with the
 * case like the others. BENCH_ERROR past VKH_CASE_ARRAYS. */
int vkh_case_array(struct vkh_case *c, struct vkh_array **a, const char *what);
/* The case's kernel: the pipeline of d over every array of the case, in
 * order (d->buffers is the number of arrays when 0, else must equal it),
 * one dispatch of `groups` with the push constants `push` (copied). */
int vkh_case_kernel(struct vkh_case *c, const struct vkh_pipeline_desc *d, const void *push,
                    const uint32_t groups[3]);
/* The same over a kernel the caller owns (a candidate to time: vk_gemm_auto). */
int vkh_case_kernel_create(struct vkh_case *c, struct vkh_kernel *k,
                           const struct vkh_pipeline_desc *d, const void *push,
                           const uint32_t groups[3]);
/* Bytes of every array: each read or written once per run. */
double vkh_case_bytes(const struct vkh_case *c);
/* Every output, device to host (verify's first step). */
int vkh_case_read(struct vkh_case *c);

/* A plugin's run, run_batch and teardown, for a state that begins with a
 * struct vkh_case: one submit and its device time, n runs in one submit
 * (vkh_kernel_run_batch), and the kernel, the arrays and the state freed. */
int vkh_case_run(const struct bench_host *host, void *state);
int vkh_case_run_batch(const struct bench_host *host, void *state, int64_t n);
void vkh_case_teardown(const struct bench_host *host, void *state);

/* In a plugin's BENCH_PLUGIN_DEFINE, for a state that begins with a struct
 * vkh_case: init and deinit (vkh_init, vkh_deinit), the plugin's own setup
 * and verify (NULL: none), and the case's run, run_batch and teardown:
 *   BENCH_PLUGIN_DEFINE = {..., .params = params, VKH_CASE_CALLBACKS(setup, verify)}; */
#define VKH_CASE_CALLBACKS(setup_fn, verify_fn)                                      \
  .init = vkh_init, .deinit = vkh_deinit, .setup = (setup_fn), .run = vkh_case_run, \
  .verify = (verify_fn), .teardown = vkh_case_teardown, .run_batch = vkh_case_run_batch

/* The SPIR-V of a kernel built for both dtypes, as .code and .code_size of
 * a pipeline desc:  VKH_SPIRV_DTYPE(dtype, spv_f32, spv_f16). */
#define VKH_SPIRV_DTYPE(dtype, f32, f16)                   \
  ((dtype) == BENCH_F16 ? (f16) : (f32)),                   \
      ((dtype) == BENCH_F16 ? sizeof(f16) : sizeof(f32))

#endif

/*
 * bench plugin ABI: the one header a kernel plugin needs.
 *
 * A plugin is a shared object that exports exactly one symbol,
 * `bench_plugin_entry`, a const struct bench_plugin whose first field is the
 * ABI version it was built against. The harness hands the plugin a
 * struct bench_host on every call; the plugin reaches the harness only
 * through it (parameters, input data, the CPU reference check, messages).
 * A plugin never prints to the terminal and never exits.
 *
 * Life of one case (in a worker process the harness forks: one per backend,
 * plugin or case, as --isolation says):
 *   init(host, &ctx)           once per process; BENCH_SKIP if it cannot run here
 *   setup(host, ctx, &state)   allocate, fill inputs, host->set_work(...)
 *   run(host, state)           one iteration, finished before it returns;
 *                              called for warm-up and every timed sample
 *   verify(host, state)        read back the output of the last run and hand
 *                              it to host->check(); never recompute it
 *   teardown(host, state)      free what setup allocated; called whenever
 *                              setup left a non-NULL *state, even on error
 *   deinit(host, ctx)          free what init allocated
 * `bench --list` calls only init and deinit.
 *
 * Every callback returns BENCH_OK, or BENCH_SKIP / BENCH_ERROR through
 * host->skip() / host->fail(), which also record the one-line reason.
 *
 * Growth (ABI 1.x): structs only grow at their end, one minor at a time;
 * the harness reads a plugin's struct only as far as the plugin's minor
 * has it (a later field reads as 0), a plugin reads a host member newer
 * than 1.0 only when host->abi_version has it, and new host capabilities
 * are extensions found by a versioned id (bench_host_extension). The
 * rule in full, and why it stays rather than a frozen 2.0: docs/sdk.md,
 * "The ABI: growth rule". A plugin built against a NEWER minor than the
 * harness it runs on ends its entry's initializer with BENCH_PLUGIN_SIZES.
 *
 * The header is C11 and C++ clean; build a plugin outside this tree with
 *   cc -shared -fPIC $(pkg-config --cflags bench-plugin) my.c -o my.so
 */
#ifndef BENCH_PLUGIN_H
#define BENCH_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ABI version: major in the high 16 bits, minor in the low 16.
 * The harness refuses a plugin of another major, or one whose abi_needed
 * is a newer minor than its own (a 1.0 harness also refuses every plugin
 * built with a newer minor: it predates abi_needed). */
#define BENCH_ABI(major, minor) ((uint32_t)(((uint32_t)(major) << 16) | (uint32_t)(minor)))
#define BENCH_ABI_MAJOR 1
#define BENCH_ABI_MINOR 4
#define BENCH_ABI_VERSION BENCH_ABI(BENCH_ABI_MAJOR, BENCH_ABI_MINOR)
#define BENCH_ABI_1_0 BENCH_ABI(1, 0)
#define BENCH_ABI_1_1 BENCH_ABI(1, 1)
#define BENCH_ABI_1_2 BENCH_ABI(1, 2)
#define BENCH_ABI_1_3 BENCH_ABI(1, 3)
#define BENCH_ABI_1_4 BENCH_ABI(1, 4)

/* The name of the one exported symbol, for dlsym. */
#define BENCH_PLUGIN_SYMBOL "bench_plugin_entry"

#if defined(__GNUC__) || defined(__clang__)
#define BENCH_PLUGIN_EXPORT __attribute__((visibility("default")))
#define BENCH_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define BENCH_PLUGIN_EXPORT
#define BENCH_PRINTF(f, a)
#endif

/* Define the entry of a plugin: BENCH_PLUGIN_DEFINE = { .abi_version = ... }; */
#ifdef __cplusplus
#define BENCH_PLUGIN_DEFINE \
  extern "C" BENCH_PLUGIN_EXPORT const struct bench_plugin bench_plugin_entry; \
  extern "C" BENCH_PLUGIN_EXPORT const struct bench_plugin bench_plugin_entry
#else
#define BENCH_PLUGIN_DEFINE \
  BENCH_PLUGIN_EXPORT const struct bench_plugin bench_plugin_entry
#endif

/* Status of every callback. */
enum bench_status {
  BENCH_OK = 0,
  BENCH_SKIP = 1,  /* the case cannot run here; the reason was given to host->skip() */
  BENCH_ERROR = 2  /* the case failed; the reason was given to host->fail() */
};

/* Element types, shared by the data and check helpers. Conversions for
 * f16/bf16 are in <bench/dtype.h>. The integer types and F64 are new in 1.1
 * (a 1.0 harness refuses them in a check as an unknown dtype). */
enum bench_dtype {
  BENCH_F32 = 0,
  BENCH_F16 = 1,  /* IEEE binary16 */
  BENCH_BF16 = 2, /* bfloat16: the top 16 bits of a float */
  BENCH_I8 = 3,   /* int8_t  (1.1) */
  BENCH_U8 = 4,   /* uint8_t (1.1) */
  BENCH_I32 = 5,  /* int32_t (1.1) */
  BENCH_F64 = 6   /* double  (1.1): e.g. a plugin's own reference */
};

/* Preset tiers; each parameter has a default for each. */
enum bench_tier {
  BENCH_TIER_SMOKE = 0,
  BENCH_TIER_STANDARD = 1,
  BENCH_TIER_PERF = 2,
  BENCH_TIER_VERIFY = 3,
  BENCH_TIER_COUNT = 4
};

enum bench_param_type {
  BENCH_PARAM_INT = 0,    /* 64-bit integer, read with host->param_int */
  BENCH_PARAM_FLOAT = 1,  /* double, read with host->param_float */
  BENCH_PARAM_STRING = 2  /* text, read with host->param_str */
};

/* One parameter (an axis) of a plugin's cases, declared as static data.
 * A default or preset value that is a comma list sweeps that axis; the cases
 * are the combinations of all axes, except that axes sharing a nonzero `zip`
 * group advance together (their lists must have equal lengths, or one). */
struct bench_param {
  const char *name;          /* lower-case identifier, e.g. "m", "variant" */
  enum bench_param_type type;
  const char *description;   /* one line, for --list -v and the docs */
  const char *choices;       /* STRING only: comma list of allowed values, or NULL */
  double min, max;           /* INT/FLOAT only: allowed range; both 0 = unbounded */
  int zip;                   /* zip group, 0 = crossed with everything */
  const char *defaults[BENCH_TIER_COUNT]; /* per tier, e.g. "64" or "256,512" */

  /* ---- 1.4: read by the harness only when abi_version >= BENCH_ABI_1_4 ---- */
  /* A tuning knob (tile size, work-group size, variant): it changes how the
   * case is computed, never what. `bench tune` searches the candidates of a
   * plugin's tunables for each problem (the other parameters) and keeps the
   * fastest correct one in a tuning cache; a run leaves a tunable at `auto`
   * (what a tunable is unless a preset or --param pins it), which takes the
   * cached winner for the device and problem, else the default. A tunable's
   * default (per tier) is one value, the untuned choice. Candidates:
   * `candidates`, a comma list in the plugin's order of preference (the
   * default is tried first and wins every tie within the noise), else the
   * choices (STRING), else min..max by `step` (INT/FLOAT, step > 0). A
   * candidate this device cannot run (a work-group over the limit, a tile
   * that does not divide) is refused by setup() with host->skip(): tune
   * lists it as skipped, never as a winner. */
  int tunable;              /* 1: a tuning knob; 0: a problem parameter (as before 1.4) */
  const char *candidates;   /* comma list, or NULL (see above) */
  double step;              /* range candidates: min, min + step, ... <= max */
};

/* What a plugin hands to host->check(): the operation, its shape, its inputs
 * as the plugin used them, and the output of the timed iterations (all in
 * host memory, row-major, contiguous). The harness computes the reference
 * (in double), compares with a dtype-aware tolerance that grows with the
 * reduction length (exact for an integer out_dtype), and records
 * max_abs_err, max_rel_err and the tolerance.
 *
 *   op           shape fields          in[]                       out
 *   "gemm"       m, n, k               A[m*k], B[k*n]             C[m*n]
 *                flags BENCH_GEMM_TRANS_A: A stored as [k][m]; BENCH_GEMM_TRANS_B: B as [n][k]
 *   "copy"  1.1  n (elements)          x[n]                       y[n] = x
 *   "fill"  1.1  n                     value[1] (one element)     y[n] = value
 *   "add"   1.1  n                     x[n], y[n]                 z[n] = x + y
 *   (copy/fill/add: the output is compared exactly after rounding the
 *    reference to out_dtype; add allows one rounding of |x| + |y|.)
 *   "rmsnorm"    rows, cols, eps       x[rows*cols], w[cols]      y[rows*cols]
 *   "layernorm"  rows, cols, eps       x, w[cols], b[cols]        y
 *   "softmax"    rows, cols            x[rows*cols]               y
 *   "rope"       rows=seq*heads... see below                      y
 *   "attention"  batch, heads, seq, head_dim   q, k, v [b][h][s][d]   o[b][h][s][d]
 *
 * rope: x is [seq][heads][head_dim] with rows = seq*heads, cols = head_dim,
 *   position of a row = row / heads; theta (10000 if 0); flags select the
 *   pair layout (BENCH_ROPE_INTERLEAVED or BENCH_ROPE_HALVES).
 * attention: causal scaled dot-product softmax(QK^T/sqrt(d) + mask) V, or
 *   with BENCH_ATTN_FULL no mask (every query sees every key); with
 *   BENCH_ATTN_ROPE, RoPE (theta, layout flag) is applied to q and k first.
 *   (A harness older than BENCH_ATTN_FULL checks the causal product, and
 *   such a case FAILs there: it is never passed on the wrong reference.)
 * dtype is the element type of every input; out_dtype that of the output.
 *
 * Work: for a plugin whose `operation` is one of these, the harness counts
 * the work of a case from the check of that operation its verify() hands
 * over (the same definition for every backend), so such a plugin need not
 * call set_work; if it does, its own figure stands and the result says so.
 *   bytes: every input element read once, every output element written
 *          once, at the sizes of dtype and out_dtype (fill: the output only)
 *   FLOPs: gemm 2mnk; add n; rmsnorm 4, layernorm 8, softmax 5 and rope 3
 *          per output element; attention 4*batch*heads*seq^2*head_dim, halved
 *          when causal;
 *          copy and fill 0. */
enum {
  BENCH_ROPE_INTERLEAVED = 1 << 0, /* pairs (2i, 2i+1), Meta/LLaMA layout */
  BENCH_ROPE_HALVES = 1 << 1,      /* pairs (i, i+d/2), NeoX layout */
  BENCH_ATTN_ROPE = 1 << 2,        /* attention: apply RoPE to q and k */
  BENCH_GEMM_TRANS_A = 1 << 3,     /* gemm (1.1): A is stored transposed, [k][m] */
  BENCH_GEMM_TRANS_B = 1 << 4,     /* gemm (1.1): B is stored transposed, [n][k] */
  BENCH_ATTN_FULL = 1 << 5         /* attention: no causal mask */
};

struct bench_check {
  const char *op;
  enum bench_dtype dtype;      /* inputs */
  enum bench_dtype out_dtype;  /* output */
  int64_t m, n, k;
  int64_t rows, cols;
  int64_t batch, heads, seq, head_dim;
  double eps;
  double theta;
  uint32_t flags;
  const void *in[4];
  const void *out;
};

struct bench_host {
  uint32_t abi_version;  /* the harness's BENCH_ABI_VERSION */
  void *host_data;       /* the harness's own; do not touch */

  /* This case's parameter values. A name the plugin did not declare, or of
   * another type, is a plugin bug: the case fails with that message. */
  int64_t (*param_int)(const struct bench_host *host, const char *name);
  double (*param_float)(const struct bench_host *host, const char *name);
  /* Owned by the harness, valid until the case ends. */
  const char *(*param_str)(const struct bench_host *host, const char *name);

  /* Record the reason and return BENCH_SKIP / BENCH_ERROR:
   *   return host->skip(host, "needs shaderFloat16");          */
  int (*skip)(const struct bench_host *host, const char *fmt, ...) BENCH_PRINTF(2, 3);
  int (*fail)(const struct bench_host *host, const char *fmt, ...) BENCH_PRINTF(2, 3);
  /* A diagnostic kept in the child's log (shown when a case fails). */
  void (*log)(const struct bench_host *host, const char *fmt, ...) BENCH_PRINTF(2, 3);

  /* Environment facts for the result header, e.g. ("device", "llvmpipe"),
   * ("driver", "Mesa 22.3.6"). Copied; call from init or setup. The key
   * "note" is shown with the case on the terminal and in the .txt (e.g.
   * "sized with a default L3: this machine does not say"). The key
   * "primary" (operation "none" or "peak") names the one throughput the
   * case shows, what bounds it: "flops" (GFLOP/s), "bytes" (GB/s), "items"
   * (items per second) or "latency" (median time / items, "85.20 ns/load";
   * items from bench.items/1); any other value is a plugin bug. Without
   * it: items if counted, else GB/s below 4 FLOP/byte, else GFLOP/s. An
   * operation of bench_check's table decides for itself (gemm, attention:
   * flops; the others: bytes); another value is a plugin bug. */
  void (*set_info)(const struct bench_host *host, const char *key, const char *value);

  /* Work done by one iteration of this case (setup): the harness turns time
   * into GFLOP/s and GB/s. Either may be 0. Not needed for an operation
   * the harness checks (see bench_check: it counts that work itself); a
   * figure given here overrides that count. */
  void (*set_work)(const struct bench_host *host, double flops, double bytes);

  /* From run(): the device-side time of this iteration in nanoseconds
   * (e.g. GPU timestamps); from run_batch(): of the whole batch. Optional;
   * host time is always measured. NaN, infinite, negative or absurd values
   * (over 1e13 ns) are a plugin bug: the case ends as ERROR. set_work
   * likewise refuses NaN, infinite or negative figures. */
  void (*set_device_time)(const struct bench_host *host, double ns);

  /* Deterministic pseudo-random inputs, uniform in [-1, 1), rounded to
   * dtype: the same (seed, count, dtype) gives the same values in every
   * plugin of every backend. */
  void (*fill_random)(const struct bench_host *host, void *dst, size_t count,
                      enum bench_dtype dtype, uint64_t seed);

  /* From verify(): compare an output with the harness's CPU reference.
   * Returns BENCH_OK when it matches (or BENCH_ERROR for a malformed check);
   * a mismatch is recorded as WRONG_ANSWER by the harness, and verify should
   * still return BENCH_OK. May be called more than once for several outputs. */
  int (*check)(const struct bench_host *host, const struct bench_check *check);

  /* ---- 1.1: present when abi_version >= BENCH_ABI_1_1 ------------------- */

  /* The extension named by a versioned id (BENCH_EXT_...), a const struct
   * owned by the harness and valid for the whole process, or NULL when this
   * harness does not offer it. Any time. Call it through
   * bench_host_extension(), which also works on a 1.0 harness. */
  const void *(*get_extension)(const struct bench_host *host, const char *id);
};

/* host->get_extension(host, id) where the host has it, else NULL. */
static inline const void *bench_host_extension(const struct bench_host *host, const char *id) {
  if (!host || (host->abi_version >> 16) != BENCH_ABI_MAJOR ||
      host->abi_version < BENCH_ABI_1_1 || !host->get_extension)
    return NULL;
  return host->get_extension(host, id);
}

/* ---- extension "bench.items/1": per-item units ---------------------------
 * From setup(): one iteration processes `items` items named `unit`
 * ("elements", "loads", "launches"; lower-case, at most 31 characters;
 * NULL or "" means "items"). Results then show ns per item and items per
 * second next to GFLOP/s and GB/s. items must be finite and > 0: anything
 * else is a plugin bug (ERROR). */
#define BENCH_EXT_ITEMS "bench.items/1"
struct bench_ext_items {
  void (*set_items)(const struct bench_host *host, double items, const char *unit);
};

/* ---- extension "bench.compare/1": the plugin's own reference -------------
 * For an operation the harness has no reference for (a sum, an int8 dot,
 * ...): from verify(), hand the output and your own CPU reference (an array
 * or a callback); the harness compares, records max_abs_err/max_rel_err
 * and the tolerance, and a mismatch makes the case WRONG_ANSWER (no
 * throughput). Counts as a check: verify() need not call host->check().
 * Integer kernels: hand the integer output as it is (dtype BENCH_I32 for an
 * int8 dot accumulated in int32, ref_dtype BENCH_I32 or BENCH_F64) so it is
 * compared exactly; an integer output compared with a tolerance, or an
 * integer reference compared with a float output under a tolerance, gets a
 * note on the case (an off-by-one in an int kernel would pass unseen). */
enum bench_tolerance {
  /* Dtype-aware: an element passes when
   *   |out - ref| <= atol + rtol * |ref|,
   *   rtol = base(dtype) + 2 sqrt(reduction) 2^-24,  atol = 1e-5,
   * base from PyTorch's assert_close: f32 1.3e-6, f16 1e-3, bf16 1.6e-2,
   * f64 1e-12. Exact for integer dtypes (int8/uint8/int32 out: out == ref).
   * Example: an f32 dot product of 4096 terms (reduction = 4096) whose
   * reference is 12.5 allows 1e-5 + (1.3e-6 + 2 * 64 * 5.96e-8) * 12.5
   * = 1e-5 + 8.93e-6 * 12.5 = 1.2e-4. The tolerance follows |ref| of each
   * element: a result that cancels (a running sum near 0 of terms of size
   * 1) has a tiny |ref| but an error of the size of its terms: use
   * BENCH_TOL_SCALED with the sum of |terms|. */
  BENCH_TOL_DEFAULT = 0,
  BENCH_TOL_EXACT = 1,    /* every element equal (NaN matches NaN) */
  BENCH_TOL_EXPLICIT = 2, /* |out - ref| <= atol + rtol * |ref| with the given rtol/atol */
  /* 1.3 (needs a 1.3 harness: set abi_needed = BENCH_ABI_1_3): norm-wise,
   * scaled by a magnitude per element that the plugin supplies in field
   * scale or scale_fn (e.g. the running sum of |x| of a prefix sum, or
   * sum_k |a_ik b_kj| of a product):
   *   |out - ref| <= atol + rtol * max(scale_i, |ref_i|)
   * with DEFAULT's rtol and atol for dtype and reduction (or the given
   * rtol/atol when either is > 0); never tighter than DEFAULT. Example: an
   * f32 prefix sum whose element i is -12.158 with sum |x| = 25000 allows
   * 1e-5 + 1.42e-6 * 25000 = 0.036 (DEFAULT would allow 2.7e-5). Exact for
   * integer dtypes. */
  BENCH_TOL_SCALED = 3
};

struct bench_compare {
  const char *name;            /* what is compared, for messages: "sum", "dot" */
  enum bench_dtype dtype;      /* element type of out */
  enum bench_dtype ref_dtype;  /* element type of ref (BENCH_F64 for a double reference) */
  int64_t count;               /* elements in out (and ref); > 0 */
  int64_t cols;                /* optional row length: messages say [row,col]; 0: flat [i] */
  const void *out;             /* the output of the timed iterations, host memory */
  const void *ref;             /* the reference, count elements of ref_dtype; or NULL and: */
  /* Reference elements [start, start + n) as doubles into dst (n <= 2^20
   * per call). Return BENCH_OK, or host->fail(...) to end the case as ERROR. */
  int (*ref_fn)(const struct bench_host *host, void *user, int64_t start, int64_t n,
                double *dst);
  void *user;                  /* handed to ref_fn (and scale_fn) */
  enum bench_tolerance tol;
  double rtol, atol;           /* BENCH_TOL_EXPLICIT: both finite, >= 0; SCALED: optional */
  int64_t reduction;           /* DEFAULT, SCALED: terms summed into each element; 0 = 1 */

  /* ---- 1.3: read by the harness only when abi_version >= BENCH_ABI_1_3 ---- */
  /* BENCH_TOL_SCALED: the magnitude of each element, count doubles, each
   * finite and >= 0; or NULL and scale_fn gives elements [start, start + n)
   * into dst (n <= 2^20 per call; return BENCH_OK or host->fail(...)). */
  const double *scale;
  int (*scale_fn)(const struct bench_host *host, void *user, int64_t start, int64_t n,
                  double *dst);
};

#define BENCH_EXT_COMPARE "bench.compare/1"
struct bench_ext_compare {
  /* From verify(). BENCH_OK when well formed (match or mismatch: a mismatch
   * is recorded as WRONG_ANSWER and verify should still return BENCH_OK);
   * BENCH_ERROR with the field at fault for a malformed comparison. */
  int (*compare)(const struct bench_host *host, const struct bench_compare *cmp);
  /* From verify(): the plugin checked its output itself and found it wrong.
   * Records WRONG_ANSWER with this one-line reason; returns BENCH_OK, so
   *   if (bad) return cmp->mismatch(host, "sum %g, expected %g", got, want); */
  int (*mismatch)(const struct bench_host *host, const char *fmt, ...) BENCH_PRINTF(2, 3);
  /* From verify(): the plugin checked its output itself and found it right
   * (`what` says how, e.g. "sum of squares"; may be NULL). Counts as a
   * check; returns BENCH_OK. */
  int (*matched)(const struct bench_host *host, const char *what);
};

struct bench_plugin {
  uint32_t abi_version;         /* BENCH_ABI_VERSION: always first */
  const char *name;             /* unique, e.g. "cpu_gemm"; matches the .so name by convention */
  const char *backend;          /* "cpu", "vulkan", "hip" */
  const char *operation;        /* what it computes: "gemm", "rmsnorm", ...; "none" for calibration */
  const char *description;      /* one line */
  const struct bench_param *params; /* array ended by an entry with name == NULL */

  /* Once per process. Optional (NULL: nothing to do). Sets *ctx for the
   * other calls. BENCH_SKIP with the reason when this machine cannot run it. */
  int (*init)(const struct bench_host *host, void **ctx);
  void (*deinit)(const struct bench_host *host, void *ctx);

  /* Per case. setup and run are required; verify is required unless
   * operation is "none" (no harness reference: such a verify may check its
   * output itself, without host->check()). The rule for host->fail() from
   * verify(): for an operation "none" plugin it means "my own check found
   * the output wrong": the case is WRONG_ANSWER (check.pass false, the
   * plugin's reason as its message); for any other operation it is an
   * error (a read-back failed, ...): ERROR. A plugin of operation "none"
   * whose verify hands nothing to a check (no host->check, compare,
   * mismatch or matched) and returns BENCH_OK is OK but "unchecked", and
   * fails under --require-check;
   * teardown is called whenever setup left a non-NULL *state, whatever
   * setup returned. */
  int (*setup)(const struct bench_host *host, void *ctx, void **state);
  int (*run)(const struct bench_host *host, void *state);
  int (*verify)(const struct bench_host *host, void *state);
  void (*teardown)(const struct bench_host *host, void *state);

  /* ---- 1.1: read by the harness only when abi_version >= BENCH_ABI_1_1 ---- */

  /* The oldest harness ABI this plugin runs on: BENCH_ABI_1_0 when it uses
   * nothing newer (or checks host->abi_version before it does), BENCH_ABI_1_1
   * when it needs 1.1. 0 means BENCH_ABI_MAJOR.0. */
  uint32_t abi_needed;

  /* Optional: n (>= 1) iterations launched back to back and waited for once
   * (one command buffer of n dispatches, n kernel launches then one sync).
   * set_device_time, if used, gets the device time of the whole batch. The
   * harness calls it for warm batched samples and divides by n; it still
   * calls run() for warm-up, cold samples and the determinism rerun. */
  int (*run_batch)(const struct bench_host *host, void *state, int64_t n);

  /* ---- 1.2: read by the harness only when abi_version >= BENCH_ABI_1_2 ---- */

  /* sizeof(struct bench_param) as this plugin was built: the stride of its
   * params array. Set it with BENCH_PLUGIN_SIZES, the last item of the
   * entry's initializer. 0 means the size of the plugin's own minor, which
   * a harness of that minor or newer knows; a harness OLDER than the
   * plugin's minor needs it to read the params (see "Growth" above). */
  uint32_t param_size;
};

/* The last item of the entry's initializer (last, so that C++'s in-order
 * designated initializers accept it):
 *   BENCH_PLUGIN_DEFINE = {.abi_version = BENCH_ABI_VERSION, ..., BENCH_PLUGIN_SIZES}; */
#define BENCH_PLUGIN_SIZES .param_size = (uint32_t)sizeof(struct bench_param)

/* ---- extension "bench.process/1": objects kept for the whole process -----
 * A plugin's init, cases and deinit run in a worker process that may run
 * other plugins of the same backend before and after it (isolation
 * "backend", the default; "plugin" and "case" give each plugin, or each
 * case, its own process). A slot keeps a pointer under a key for the rest
 * of that process, so that plugins can share what is costly to make (a
 * Vulkan instance and device, a GPU context) instead of each making its
 * own: get the key in init, and put what you made when it is absent.
 * The harness never unloads a plugin while its process lives, so a
 * release callback (and anything else of the plugin's code that a slot
 * refers to) stays callable until it has run.
 *   - Keys: 1 to BENCH_PROCESS_KEY_MAX characters; name the owner and the
 *     layout of what is kept, e.g. "vkh.device/2/<sizeof>/<features>": a
 *     plugin built against another version must not pick it up.
 *   - put(key, ptr, release): ptr replaces what key held (whose release
 *     runs now); ptr NULL removes it. release (may be NULL) runs once, in
 *     the worker after the last plugin's deinit (the last put first) or at
 *     replacement; not after a crash or kill (the process is gone).
 *     BENCH_OK, or BENCH_ERROR via host->fail when the key is malformed or
 *     the process's slots (64) are all taken.
 *   - get(key): the pointer, or NULL. Any time, in the plugin's process.
 * Reference counting of a shared object is the plugins' own business: a
 * plugin that sees a shared object in a state it cannot use should make its
 * own. BENCH_NO_PROCESS_SLOTS=1 in the environment hides the extension. */
#define BENCH_EXT_PROCESS "bench.process/1"
#define BENCH_PROCESS_KEY_MAX 127
struct bench_ext_process {
  void *(*get)(const struct bench_host *host, const char *key);
  int (*put)(const struct bench_host *host, const char *key, void *ptr, void (*release)(void *ptr));
};

/* ---- extension "bench.device/1": the GPU a case runs on, and its clock ---
 * For a GPU plugin (the SDK helpers hipb and vkh do this for every plugin
 * built on them). Without it a case is timed as before, but the harness
 * cannot tell which device's telemetry is the case's.
 *   - set_device, from init (then it holds for every case of the process)
 *     or setup (for that case): the PCI bus id of the device the case
 *     runs on ("0000:3b:00.0"; any case of hex, with or without the domain;
 *     NULL or "" when the API does not say) and its default SM/GFX clock in
 *     MHz (CUDA's/HIP's clock-rate attribute; 0 when unknown). The harness
 *     samples that device's clocks, power, temperatures and throttle
 *     reasons with the vendor's management library while the case is
 *     measured, and judges a sample throttled below the preset's
 *     throttle_threshold (default 0.75) of this default clock.
 *   - set_clock, from run() or run_batch(): the SM/GFX clock in MHz the
 *     device ran at during this sample's iterations, measured in-band (a
 *     kernel reading a constant-rate timer against its cycle counter, as
 *     nvbench does); once per sample (several calls in one sample are
 *     averaged). Recorded per sample, and preferred to the management
 *     library's reading by the throttle rule.
 * A bus id that is no bus id, or a clock that is not finite and in
 * (0, 10000] MHz (the default clock may also be 0), is a plugin bug: the
 * case ends as ERROR. BENCH_NO_DEVICE_EXT=1 hides the extension. */
#define BENCH_EXT_DEVICE "bench.device/1"
struct bench_ext_device {
  void (*set_device)(const struct bench_host *host, const char *pci_bus_id, double default_clock_mhz);
  void (*set_clock)(const struct bench_host *host, double mhz);
};

/* ---- extension "bench.roof/1": a case that measures a roof of its device -
 * For a plugin of operation "peak": a kernel made to reach one ceiling of
 * the device (an FMA chain, a copy over a working set, a pointer chase, an
 * empty launch) that `bench peak` turns into the device's roofs file and
 * `bench report` draws. Correctness-gated: a case sets a roof only when it
 * ended OK and its verify() compared its output with the plugin's
 * reference through bench.compare/1's compare() (matched() alone, or no
 * check, never sets a roof): a chain the compiler dead-coded, a kernel
 * that ran on part of its threads or wrote nothing fails that comparison.
 *   - set_roof, from setup(): which roof this case measures.
 *       kind       the figure (from the case's work)       ids, by convention
 *       COMPUTE    GFLOP/s (set_work's flops)              fp32 fp64 fp16 bf16 int8,
 *                                                          fp16_matrix bf16_matrix int8_matrix
 *       BANDWIDTH  GB/s (set_work's bytes)                 l1 l2 l3 dram (CPU); l2 dram lds (GPU: dram is device memory)
 *       LATENCY    ns per item (bench.items/1)             lat_l1 .. lat_dram, launch
 *     id: lower-case letters, digits and '_', 1 to 31 characters, with an
 *     optional suffix ".1t" for a CPU's one-thread roof ("fp32.1t"); the
 *     cases of one id compete and the best is the roof (the highest rate,
 *     the lowest latency). method (optional): how, e.g. "copy", "vec4 fma".
 *     capacity_bytes: a memory level's size, which places a case's working
 *     set in a level (0: unknown, or the last level). datasheet: the same
 *     figure computed from what the device reports (clock x units x width,
 *     bus width x memory clock), 0 when it cannot tell; datasheet_how says
 *     how ("2 cores x 2 FMA x 16 lanes x 2 FLOP x 3.70 GHz").
 *   Returns BENCH_OK, or BENCH_ERROR through host->fail when the roof is
 *   malformed (the case ends as ERROR: a plugin bug).
 * BENCH_NO_ROOF_EXT=1 hides the extension (a plugin then runs unchanged,
 * and its cases set no roof). */
#define BENCH_EXT_ROOF "bench.roof/1"
enum bench_roof_kind {
  BENCH_ROOF_COMPUTE = 0,
  BENCH_ROOF_BANDWIDTH = 1,
  BENCH_ROOF_LATENCY = 2
};
struct bench_roof {
  enum bench_roof_kind kind;
  const char *id;
  const char *method;
  double capacity_bytes;
  double datasheet;
  const char *datasheet_how;
};
struct bench_ext_roof {
  int (*set_roof)(const struct bench_host *host, const struct bench_roof *roof);
};

#ifdef __cplusplus
}
#endif

#endif /* BENCH_PLUGIN_H */

/* The operation table (see operation.h): one entry per reference operation,
 * with the small functions it needs defined next to it. */
#include "check/operation.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check/comparison.h"
#include "check/dtype.h"
#include "check/reference.h"

#define MAX_ELEMS ((int64_t)1 << 46) /* per buffer; far beyond any memory */

/* a * b for counts, or -1 when either is negative or the product passes
 * MAX_ELEMS. */
static int64_t count_mul(int64_t a, int64_t b) {
  if (a < 0 || b < 0) return -1;
  if (b && a > MAX_ELEMS / b) return -1;
  return a * b;
}

#define DIM(field) {#field, offsetof(struct bench_check, field)}

/* ---- gemm: C[m,n] = A[m,k] B[k,n] ------------------------------------ */

static void gemm_shape(const struct bench_check *c, struct op_shape *s) {
  s->in[0] = count_mul(c->m, c->k);
  s->in[1] = count_mul(c->k, c->n);
  s->rows = c->m;
  s->cols = c->n;
}

static int gemm_validate(const struct bench_check *c, char *msg, size_t len) {
  const uint32_t known = BENCH_GEMM_TRANS_A | BENCH_GEMM_TRANS_B;
  if (c->flags & ~known)
    return check_reason(msg, len, "gemm: field flags has bits 0x%x that gemm does not know "
                        "(only BENCH_GEMM_TRANS_A and BENCH_GEMM_TRANS_B)",
                        (unsigned)(c->flags & ~known));
  return 0;
}

static double gemm_reduction(const struct bench_check *c) { return (double)c->k; }

static double gemm_flops(const struct bench_check *c, const struct op_shape *s) {
  (void)s;
  return 2.0 * (double)c->m * (double)c->n * (double)c->k;
}

/* ---- row-wise: rmsnorm, layernorm, softmax, rope --------------------- */

static void rows_shape(const struct bench_check *c, struct op_shape *s) {
  s->in[0] = count_mul(c->rows, c->cols);
  s->rows = c->rows;
  s->cols = c->cols;
}

static void norm_shape(const struct bench_check *c, struct op_shape *s) {
  rows_shape(c, s);
  s->in[1] = c->cols; /* w */
}

static void layernorm_shape(const struct bench_check *c, struct op_shape *s) {
  norm_shape(c, s);
  s->in[2] = c->cols; /* b */
}

static int eps_validate(const struct bench_check *c, char *msg, size_t len) {
  if (!(c->eps > 0 && isfinite(c->eps)))
    return check_reason(msg, len, "%s: field eps must be > 0 (got %g)", c->op, c->eps);
  return 0;
}

static double cols_reduction(const struct bench_check *c) { return (double)c->cols; }

static double rmsnorm_flops(const struct bench_check *c, const struct op_shape *s) {
  (void)c;
  return 4.0 * (double)s->rows * (double)s->cols;
}

static double layernorm_flops(const struct bench_check *c, const struct op_shape *s) {
  (void)c;
  return 8.0 * (double)s->rows * (double)s->cols;
}

static double softmax_flops(const struct bench_check *c, const struct op_shape *s) {
  (void)c;
  return 5.0 * (double)s->rows * (double)s->cols;
}

/* The layout flag and theta of rope, and of attention with BENCH_ATTN_ROPE. */
static int rope_params_validate(const struct bench_check *c, char *msg, size_t len) {
  const uint32_t layout = c->flags & (BENCH_ROPE_INTERLEAVED | BENCH_ROPE_HALVES);
  if (layout != BENCH_ROPE_INTERLEAVED && layout != BENCH_ROPE_HALVES)
    return check_reason(msg, len, "%s: set exactly one of BENCH_ROPE_INTERLEAVED and "
                        "BENCH_ROPE_HALVES (flags 0x%x)", c->op, (unsigned)c->flags);
  if (!(c->theta >= 0) || !isfinite(c->theta))
    return check_reason(msg, len, "%s: theta must be finite and >= 0 (got %g)", c->op, c->theta);
  return 0;
}

static int rope_validate(const struct bench_check *c, char *msg, size_t len) {
  if (c->cols % 2)
    return check_reason(msg, len, "rope: cols (head_dim) must be even (got %" PRId64 ")",
                        c->cols);
  if (c->rows % c->heads)
    return check_reason(msg, len, "rope: rows (%" PRId64 ") must be seq * heads (heads %" PRId64
                        ")", c->rows, c->heads);
  if (c->seq && c->seq != c->rows / c->heads)
    return check_reason(msg, len, "rope: rows (%" PRId64 ") != seq (%" PRId64 ") * heads (%"
                        PRId64 ")", c->rows, c->seq, c->heads);
  if (c->head_dim && c->head_dim != c->cols)
    return check_reason(msg, len, "rope: head_dim (%" PRId64 ") != cols (%" PRId64 ")",
                        c->head_dim, c->cols);
  return rope_params_validate(c, msg, len);
}

static double rope_reduction(const struct bench_check *c) { return (double)(c->cols / 2); }

static double rope_flops(const struct bench_check *c, const struct op_shape *s) {
  (void)c;
  return 3.0 * (double)s->rows * (double)s->cols;
}

/* ---- attention: o = softmax(q k^T / sqrt(d) + causal mask) v ---------- */
/*      (no mask with BENCH_ATTN_FULL)                                       */

static void attention_shape(const struct bench_check *c, struct op_shape *s) {
  const int64_t rows = count_mul(count_mul(c->batch, c->heads), c->seq);
  s->in[0] = s->in[1] = s->in[2] = count_mul(rows, c->head_dim);
  s->rows = rows;
  s->cols = c->head_dim;
}

static int attention_validate(const struct bench_check *c, char *msg, size_t len) {
  if (!(c->flags & BENCH_ATTN_ROPE)) return 0;
  if (c->head_dim % 2)
    return check_reason(msg, len, "attention: head_dim must be even for RoPE (got %" PRId64 ")",
                        c->head_dim);
  return rope_params_validate(c, msg, len);
}

static double attention_reduction(const struct bench_check *c) {
  return (double)(c->seq + c->head_dim);
}

static double attention_flops(const struct bench_check *c, const struct op_shape *s) {
  (void)s;
  const double full = 4.0 * (double)c->batch * (double)c->heads * (double)c->seq *
                      (double)c->seq * (double)c->head_dim;
  return c->flags & BENCH_ATTN_FULL ? full : full / 2;
}

/* ---- elementwise: copy, fill, add (output n x 1) --------------------- */

static void copy_shape(const struct bench_check *c, struct op_shape *s) {
  s->in[0] = c->n;
  s->rows = c->n;
  s->cols = 1;
}

static void fill_shape(const struct bench_check *c, struct op_shape *s) {
  s->in[0] = 1; /* the value */
  s->rows = c->n;
  s->cols = 1;
}

static void add_shape(const struct bench_check *c, struct op_shape *s) {
  s->in[0] = s->in[1] = c->n;
  s->rows = c->n;
  s->cols = 1;
}

static double one_reduction(const struct bench_check *c) {
  (void)c;
  return 1;
}

static double no_flops(const struct bench_check *c, const struct op_shape *s) {
  (void)c, (void)s;
  return 0;
}

static double add_flops(const struct bench_check *c, const struct op_shape *s) {
  (void)c;
  return (double)s->rows;
}

/* ---- the table ------------------------------------------------------- */

static const struct operation table[] = {
    {.name = "gemm", .dims = {DIM(m), DIM(n), DIM(k)}, .inputs = {"A", "B"},
     .shape = gemm_shape, .validate = gemm_validate, .reduction = gemm_reduction,
     .index = OP_INDEX_ROW_COL, .fast = OP_FAST_FREIVALDS, .reference = ref_gemm_rows,
     .flops = gemm_flops, .primary = PRIMARY_FLOPS},
    {.name = "rmsnorm", .dims = {DIM(rows), DIM(cols)}, .inputs = {"x", "w"},
     .shape = norm_shape, .validate = eps_validate, .reduction = cols_reduction,
     .index = OP_INDEX_ROW_COL, .reference = ref_rmsnorm_rows, .flops = rmsnorm_flops,
     .primary = PRIMARY_BYTES},
    {.name = "layernorm", .dims = {DIM(rows), DIM(cols)}, .inputs = {"x", "w", "b"},
     .shape = layernorm_shape, .validate = eps_validate, .reduction = cols_reduction,
     .index = OP_INDEX_ROW_COL, .reference = ref_layernorm_rows, .flops = layernorm_flops,
     .primary = PRIMARY_BYTES},
    {.name = "softmax", .dims = {DIM(rows), DIM(cols)}, .inputs = {"x"},
     .shape = rows_shape, .reduction = cols_reduction, .index = OP_INDEX_ROW_COL,
     .reference = ref_softmax_rows, .flops = softmax_flops,
     .primary = PRIMARY_BYTES},
    {.name = "rope", .dims = {DIM(rows), DIM(cols), DIM(heads)}, .inputs = {"x"},
     .shape = rows_shape, .validate = rope_validate, .reduction = rope_reduction,
     .index = OP_INDEX_ROW_COL, .reference = ref_rope_rows, .flops = rope_flops,
     .primary = PRIMARY_BYTES},
    {.name = "attention", .dims = {DIM(batch), DIM(heads), DIM(seq), DIM(head_dim)},
     .inputs = {"q", "k", "v"}, .shape = attention_shape, .validate = attention_validate,
     .reduction = attention_reduction, .index = OP_INDEX_BHSD, .fast = OP_FAST_ROWS,
     .reference = ref_attention_rows, .flops = attention_flops, .primary = PRIMARY_FLOPS},
    {.name = "copy", .dims = {DIM(n)}, .inputs = {"x"}, .shape = copy_shape,
     .index = OP_INDEX_FLAT, .reference = ref_copy_rows, .flops = no_flops, .primary = PRIMARY_BYTES},
    {.name = "fill", .dims = {DIM(n)}, .inputs = {"value"}, .shape = fill_shape,
     .index = OP_INDEX_FLAT, .reference = ref_fill_rows, .flops = no_flops,
     .output_bytes_only = 1, .primary = PRIMARY_BYTES},
    {.name = "add", .dims = {DIM(n)}, .inputs = {"x", "y"}, .shape = add_shape,
     .reduction = one_reduction, .index = OP_INDEX_FLAT, .reference = ref_add_rows,
     .flops = add_flops, .primary = PRIMARY_BYTES},
};

#define NOPS (sizeof table / sizeof table[0])

const struct operation *operation_find(const char *name) {
  for (size_t i = 0; name && i < NOPS; i++)
    if (strcmp(name, table[i].name) == 0) return &table[i];
  return NULL;
}

const struct operation *operation_at(size_t i) { return i < NOPS ? &table[i] : NULL; }

const char *operation_names(void) {
  static char names[256];
  if (!names[0]) {
    size_t len = 0;
    for (size_t i = 0; i < NOPS && len < sizeof names; i++)
      len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "",
                              table[i].name);
  }
  return names;
}

static const char *const primary_names[] = {"none", "flops", "bytes", "items", "latency"};

const char *primary_name(enum op_primary p) {
  return (unsigned)p < sizeof primary_names / sizeof *primary_names ? primary_names[p] : "none";
}

int primary_parse(const char *s, enum op_primary *out) {
  for (int p = PRIMARY_FLOPS; s && p <= PRIMARY_LATENCY; p++)
    if (strcmp(s, primary_names[p]) == 0) {
      *out = (enum op_primary)p;
      return 0;
    }
  return -1;
}

static int64_t dim_of(const struct bench_check *c, const struct op_dim *d) {
  int64_t v;
  memcpy(&v, (const char *)c + d->offset, sizeof v);
  return v;
}

int operation_validate(const struct operation *op, const struct bench_check *c, int shape_only,
                       struct op_shape *s, char *msg, size_t len) {
  if (!dtype_valid(c->dtype))
    return check_reason(msg, len, "%s: field dtype: unknown input dtype %d", op->name,
                        (int)c->dtype);
  if (!dtype_valid(c->out_dtype))
    return check_reason(msg, len, "%s: field out_dtype: unknown output dtype %d", op->name,
                        (int)c->out_dtype);
  for (int i = 0; i < OP_MAX_DIMS && op->dims[i].name; i++) {
    const int64_t v = dim_of(c, &op->dims[i]);
    if (v <= 0)
      return check_reason(msg, len, "%s: field %s must be positive (got %" PRId64 ")", op->name,
                          op->dims[i].name, v);
  }
  memset(s, 0, sizeof *s);
  op->shape(c, s);
  int ok = count_mul(s->rows, s->cols) >= 0;
  for (int i = 0; i < OP_MAX_INPUTS; i++) ok = ok && s->in[i] >= 0;
  if (!ok) return check_reason(msg, len, "%s: shape too large", op->name);
  if (shape_only) return 0;
  for (int i = 0; i < OP_MAX_INPUTS && op->inputs[i]; i++)
    if (!c->in[i])
      return check_reason(msg, len, "%s: field in[%d] (input %s) is NULL", op->name, i,
                          op->inputs[i]);
  if (!c->out) return check_reason(msg, len, "%s: field out is NULL", op->name);
  return op->validate ? op->validate(c, msg, len) : 0;
}

struct op_work operation_work(const struct operation *op, const struct bench_check *c,
                              const struct op_shape *s) {
  struct op_work w = {op->flops(c, s), 0};
  w.bytes = (double)s->rows * (double)s->cols * (double)dtype_size(c->out_dtype);
  if (!op->output_bytes_only)
    for (int i = 0; i < OP_MAX_INPUTS; i++)
      w.bytes += (double)s->in[i] * (double)dtype_size(c->dtype);
  return w;
}

void operation_format_index(const struct operation *op, const struct bench_check *c,
                            const struct op_shape *s, int64_t flat, char *buf, size_t len) {
  const int64_t row = flat / s->cols, col = flat % s->cols;
  switch (op->index) {
  case OP_INDEX_FLAT: snprintf(buf, len, "[%" PRId64 "]", flat); return;
  case OP_INDEX_BHSD:
    snprintf(buf, len, "[%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "]",
             row / (c->heads * c->seq), row / c->seq % c->heads, row % c->seq, col);
    return;
  case OP_INDEX_ROW_COL: break;
  }
  snprintf(buf, len, "[%" PRId64 ",%" PRId64 "]", row, col);
}

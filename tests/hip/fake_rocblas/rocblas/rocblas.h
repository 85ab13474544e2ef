/* A stand-in for rocBLAS's <rocblas/rocblas.h>, for the hip.rocblas test
 * only: Debian's ROCm 5.2 has no rocBLAS, so this declares just what
 * hip_gemm's variant=rocblas calls, with the types, values and signatures
 * of the real header (rocBLAS 2.x-4.x, ROCm 5 and 6: rocblas-types.h and
 * rocblas-functions.h), so that the test compiles that code and sees that it
 * calls these functions. Never linked, never installed. */
#ifndef BENCH_FAKE_ROCBLAS_H
#define BENCH_FAKE_ROCBLAS_H

#include <hip/hip_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t rocblas_int;
typedef struct _rocblas_handle *rocblas_handle;

typedef enum rocblas_status_ {
  rocblas_status_success = 0,
  rocblas_status_invalid_handle = 1,
  rocblas_status_not_implemented = 2,
  rocblas_status_invalid_pointer = 3,
  rocblas_status_invalid_size = 4,
  rocblas_status_memory_error = 5,
  rocblas_status_internal_error = 6,
} rocblas_status;

typedef enum rocblas_operation_ {
  rocblas_operation_none = 111,
  rocblas_operation_transpose = 112,
  rocblas_operation_conjugate_transpose = 113,
} rocblas_operation;

typedef enum rocblas_datatype_ {
  rocblas_datatype_f16_r = 150,
  rocblas_datatype_f32_r = 151,
  rocblas_datatype_f64_r = 152,
  rocblas_datatype_bf16_r = 168,
} rocblas_datatype;

typedef enum rocblas_gemm_algo_ {
  rocblas_gemm_algo_standard = 0x0,
  rocblas_gemm_algo_solution_index = 0x1,
} rocblas_gemm_algo;

rocblas_status rocblas_create_handle(rocblas_handle *handle);
rocblas_status rocblas_destroy_handle(rocblas_handle handle);
rocblas_status rocblas_set_stream(rocblas_handle handle, hipStream_t stream);
const char *rocblas_status_to_string(rocblas_status status);
rocblas_status rocblas_get_version_string(char *buf, size_t len);
rocblas_status rocblas_get_version_string_size(size_t *len);

rocblas_status rocblas_gemm_ex(rocblas_handle handle, rocblas_operation trans_a,
                               rocblas_operation trans_b, rocblas_int m, rocblas_int n,
                               rocblas_int k, const void *alpha, const void *a,
                               rocblas_datatype a_type, rocblas_int lda, const void *b,
                               rocblas_datatype b_type, rocblas_int ldb, const void *beta,
                               const void *c, rocblas_datatype c_type, rocblas_int ldc, void *d,
                               rocblas_datatype d_type, rocblas_int ldd,
                               rocblas_datatype compute_type, rocblas_gemm_algo algo,
                               int32_t solution_index, uint32_t flags);

#ifdef __cplusplus
}
#endif
#endif

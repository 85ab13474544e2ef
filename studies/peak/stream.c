/* A STREAM-style reference for studies/peak_bench.sh: copy (c = a) and
 * triad (a = b + q c) over arrays of doubles, each at least 4x the
 * last-level cache (huge pages where the kernel gives them, as the CPU
 * plugins ask), on T threads (each touching its own part first), 10
 * trials, the best skipping the first; bytes as STREAM counts them (2 words
 * per element for copy, 3 for triad; no write-allocate traffic). Plain
 * loops compiled with -O3 -march=native, as STREAM is usually built: the
 * compiler decides the stores; and again with non-temporal stores (as STREAM
 * built with streaming stores), on x86 as wide as the build allows: a whole
 * 64-byte line per store with AVX-512, 32 bytes with AVX, else 16 (SSE2; a
 * 16-byte streaming store is 10-40% slower than a full-line one on Zen 4,
 * which made this reference weaker than what it judges). Prints key=value
 * lines:
 *   stream_copy_gbps=...  stream_triad_gbps=...  stream_copy_nt_gbps=...
 * usage: stream BYTES_PER_ARRAY THREADS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_NT 1
#if defined(__AVX512F__)
#define NT_W 8 /* doubles per store */
#define NT_VEC __m512d
#define NT_STORE _mm512_stream_pd
#define NT_LOAD _mm512_load_pd
#define NT_ADD _mm512_add_pd
#define NT_MUL _mm512_mul_pd
#define NT_SET1 _mm512_set1_pd
#define NT_NAME "avx512"
#elif defined(__AVX__)
#define NT_W 4
#define NT_VEC __m256d
#define NT_STORE _mm256_stream_pd
#define NT_LOAD _mm256_load_pd
#define NT_ADD _mm256_add_pd
#define NT_MUL _mm256_mul_pd
#define NT_SET1 _mm256_set1_pd
#define NT_NAME "avx"
#else
#define NT_W 2
#define NT_VEC __m128d
#define NT_STORE _mm_stream_pd
#define NT_LOAD _mm_load_pd
#define NT_ADD _mm_add_pd
#define NT_MUL _mm_mul_pd
#define NT_SET1 _mm_set1_pd
#define NT_NAME "sse2"
#endif
#else
#define NT_W 2
#endif

static double *a, *b, *c;
static long n;
static int nthreads;
static pthread_barrier_t bar;
static double best[4] = {1e30, 1e30, 1e30, 1e30};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *worker(void *arg) {
  long id = (long)arg, i0 = n * id / nthreads, i1 = n * (id + 1) / nthreads;
  for (long i = i0; i < i1; i++) a[i] = 1.0, b[i] = 2.0, c[i] = 0.0;
  for (int trial = 0; trial < 10; trial++) {
#ifdef HAVE_NT
    const int kinds = 4;
#else
    const int kinds = 2;
#endif
    for (int k = 0; k < kinds; k++) {
      pthread_barrier_wait(&bar);
      double t0 = now();
      if (k == 0)
        for (long i = i0; i < i1; i++) c[i] = a[i];
      else if (k == 1)
        for (long i = i0; i < i1; i++) a[i] = b[i] + 3.0 * c[i];
#ifdef HAVE_NT
      else if (k == 2) { /* parts start NT_W-aligned: n is a multiple of NT_W * threads below */
        for (long i = i0; i < i1; i += NT_W) NT_STORE(c + i, NT_LOAD(a + i));
        _mm_sfence();
      } else {
        const NT_VEC q = NT_SET1(3.0);
        for (long i = i0; i < i1; i += NT_W) NT_STORE(a + i, NT_ADD(NT_LOAD(b + i), NT_MUL(q, NT_LOAD(c + i))));
        _mm_sfence();
      }
#endif
      pthread_barrier_wait(&bar);
      double t = now() - t0;
      if (id == 0 && trial > 0 && t < best[k]) best[k] = t;
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3) return fprintf(stderr, "usage: stream BYTES_PER_ARRAY THREADS\n"), 2;
  nthreads = atoi(argv[2]);
  n = atol(argv[1]) / (long)sizeof(double);
  if (nthreads > 0) n -= n % ((long)NT_W * nthreads);
  if (n < 1024 || nthreads < 1) return fprintf(stderr, "stream: bad arguments\n"), 2;
  /* 2 MiB-aligned and marked for transparent huge pages, as the CPU
   * plugins allocate (plugins/cpu/cpu_common.c cpu_alloc): with THP in
   * "madvise" mode, 4 KiB pages cost this reference 15-25% of its
   * bandwidth in page walks, which is not what it is here to measure */
  double **arr[3] = {&a, &b, &c};
  for (int k = 0; k < 3; k++) {
    if (posix_memalign((void **)arr[k], (size_t)2 << 20, (size_t)n * 8))
      return fprintf(stderr, "stream: out of memory\n"), 1;
#ifdef MADV_HUGEPAGE
    madvise(*arr[k], (size_t)n * 8, MADV_HUGEPAGE); /* a hint: failure is fine */
#endif
  }
  pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
  pthread_t *t = malloc(sizeof *t * (size_t)nthreads);
  for (long i = 0; i < nthreads; i++) pthread_create(&t[i], NULL, worker, (void *)i);
  for (long i = 0; i < nthreads; i++) pthread_join(t[i], NULL);
  double ea = 1.0, ec = 0.0; /* each trial: c = a, then a = b + 3 c (twice with NT stores) */
  for (int trial = 0; trial < 10; trial++)
    for (int r = 0; r < (best[2] < 1e30 ? 2 : 1); r++) ec = ea, ea = 2.0 + 3.0 * ec;
  for (long i = 0; i < n; i += n / 7 + 1)
    if (c[i] != ec || a[i] != ea) return fprintf(stderr, "stream: wrong result at %ld\n", i), 1;
  printf("stream_copy_gbps=%.4f\nstream_triad_gbps=%.4f\n", 16.0 * (double)n / best[0] * 1e-9,
         24.0 * (double)n / best[1] * 1e-9);
  if (best[2] < 1e30)
    printf("stream_copy_nt_gbps=%.4f\nstream_triad_nt_gbps=%.4f\nstream_nt_isa=%s\n", 16.0 * (double)n / best[2] * 1e-9,
           24.0 * (double)n / best[3] * 1e-9, NT_NAME);
  return 0;
}

/* The roof of a case (analyze/roofs.h): roofs files written by hand in the
 * documented format (results/roofs_file.h), read from a results folder,
 * and the choice for planted cases: the compute roof of its dtype, the
 * memory level its working set fits in, the one-thread roof, the roofline
 * minimum, matrix cores, latency, a peak plugin's own roof, the note of a
 * share over 100%, a missing roof; a corrupt and a foreign file refused
 * with one line each; the run's annotation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/roofs.h"
#include "test.h"
#include "test_support.h"

#define SHA "0000000000000000000000000000000000000000000000000000000000000000"
#define DATE "2026-12-01T10:00:00Z"

static void put(const char *path, const char *text) {
  FILE *fp = fopen(path, "w");
  if (!fp) {
    perror(path);
    return;
  }
  fputs(text, fp);
  fclose(fp);
}

/* One M record: plugin params status roof kind unit value low high method capacity datasheet how reason. */
static void rec(struct strbuf *sb, const char *plugin, const char *params, const char *status, const char *roof,
                const char *kind, const char *unit, double v, double lo, double hi, double cap, double sheet,
                const char *how, const char *reason) {
  strbuf_addf(sb, "M\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.9g\t%.9g\t%.9g\t%s\t%.9g\t%.9g\t%s\t%s\t%s\n", plugin, SHA, params,
              status, roof, kind, unit, v, lo, hi, "copy", cap, sheet, how, DATE, reason);
}

/* <dir>/roofs: a CPU ("Test CPU": fp32 (two records, the best wins),
 * fp32.1t, a refused fp64, l1 32 KiB, l2 1 MiB, an l3 of 32 MiB that was
 * refused (its size known, no roof), dram, lat_l1, lat_dram); a GPU with
 * matrix cores ("Test GPU": fp16, fp16_matrix, l2, dram with its data
 * sheet figure); one without ("Other GPU": fp16 only); a corrupt and a
 * foreign file. */
static char *make_folder(void) {
  char *dir = make_tmpdir("roofs");
  if (!dir) return NULL;
  char *rd = xasprintf("%s/roofs", dir);
  mkdir(rd, 0755);
  struct strbuf sb = STRBUF_INIT;
  strbuf_adds(&sb, "bench-roofs 1\nK\tdevice=Test CPU;driver=-;arch=x86_64\tTest CPU\n");
  rec(&sb, "peak_fma", "kernel=fma threads=0", "OK", "fp32", "compute", "GFLOP/s", 90, 88, 92, 0, 0, "", "");
  rec(&sb, "peak_fma", "kernel=fma2 threads=0", "OK", "fp32", "compute", "GFLOP/s", 100, 98, 102, 0, 120,
      "2 cores x 2 FMA x 8 lanes x 2 FLOP x 3.75 GHz", "");
  rec(&sb, "peak_fma", "kernel=fma threads=1", "OK", "fp32.1t", "compute", "GFLOP/s", 50, 49, 51, 0, 60, "", "");
  rec(&sb, "peak_fma", "kernel=fma dtype=f64", "WRONG_ANSWER", "fp64", "compute", "GFLOP/s", 0, 0, 0, 0, 0, "",
      "planted mismatch");
  rec(&sb, "peak_bw", "size=16KiB", "OK", "l1", "bandwidth", "GB/s", 400, 390, 410, 32768, 0, "", "");
  rec(&sb, "peak_bw", "size=512KiB", "OK", "l2", "bandwidth", "GB/s", 200, 195, 205, 1048576, 0, "", "");
  rec(&sb, "peak_bw", "size=16MiB", "REFUSED", "l3", "bandwidth", "GB/s", 0, 0, 0, 33554432, 0, "",
      "its output was not checked");
  rec(&sb, "peak_bw", "size=1GiB", "OK", "dram", "bandwidth", "GB/s", 10, 9.5, 10.5, 0, 0, "", "");
  rec(&sb, "peak_lat", "size=16KiB", "OK", "lat_l1", "latency", "ns", 1, 0.95, 1.05, 32768, 0, "", "");
  rec(&sb, "peak_lat", "size=1GiB", "OK", "lat_dram", "latency", "ns", 80, 78, 82, 0, 0, "", "");
  char *p = xasprintf("%s/Test_CPU.tsv", rd);
  put(p, sb.buf);
  free(p);

  strbuf_reset(&sb);
  strbuf_adds(&sb, "bench-roofs 1\nK\tdevice=Test GPU;driver=1.0;arch=gfx942\tTest GPU\n");
  rec(&sb, "peak_gpu", "dtype=f16", "OK", "fp16", "compute", "GFLOP/s", 100, 99, 101, 0, 0, "", "");
  rec(&sb, "peak_gpu", "dtype=f16 mfma=1", "OK", "fp16_matrix", "compute", "GFLOP/s", 1000, 990, 1010, 0, 1300,
      "304 CUs x 2048 FLOP x 2.1 GHz", "");
  rec(&sb, "peak_gpu_bw", "size=4MiB", "OK", "l2", "bandwidth", "GB/s", 2000, 1900, 2100, 4194304, 0, "", "");
  rec(&sb, "peak_gpu_bw", "size=4GiB", "OK", "dram", "bandwidth", "GB/s", 500, 490, 510, 0, 5300,
      "8192-bit bus x 5.2 Gb/s", "");
  p = xasprintf("%s/Test_GPU.tsv", rd);
  put(p, sb.buf);
  free(p);

  strbuf_reset(&sb);
  strbuf_adds(&sb, "bench-roofs 1\nK\tdevice=Other GPU;driver=1.0;arch=gfx90a\tOther GPU\n");
  rec(&sb, "peak_gpu", "dtype=f16", "OK", "fp16", "compute", "GFLOP/s", 100, 99, 101, 0, 0, "", "");
  p = xasprintf("%s/Other_GPU.tsv", rd);
  put(p, sb.buf);
  free(p);

  p = xasprintf("%s/corrupt.tsv", rd);
  put(p, "bench-roofs 1\nK\tdevice=Bad;driver=-;arch=-\tBad\nM\tonly\tthree fields\n");
  free(p);
  p = xasprintf("%s/foreign.tsv", rd);
  put(p, "name\tvalue\nfp32\t100\n");
  free(p);
  p = xasprintf("%s/notes.txt", rd); /* not a .tsv: not read */
  put(p, "hello\n");
  free(p);
  strbuf_release(&sb);
  free(rd);
  return dir;
}

/* An OK case of one sample of median_ns, with its work. */
static void mk(struct case_result *r, const char *plugin, const char *backend, const char *params, double flops,
               double bytes, double median_ns) {
  case_result_init(r);
  r->plugin = xstrdup(plugin);
  r->backend = xstrdup(backend);
  r->operation = xstrdup(strstr(plugin, "gemm") ? "gemm" : "none");
  char *p = xstrdup(params);
  for (char *save = NULL, *kv = strtok_r(p, " ", &save); kv; kv = strtok_r(NULL, " ", &save)) {
    char *eq = strchr(kv, '=');
    if (!eq) continue;
    *eq = '\0';
    kv_list_add(&r->nparams, &r->params, kv, eq + 1);
  }
  free(p);
  r->flops = flops;
  r->bytes = bytes;
  r->nsamples = 1;
  r->host_clock_ns = xmalloc(sizeof *r->host_clock_ns);
  r->host_clock_ns[0] = median_ns;
  stats_compute(r->host_clock_ns, 1, &r->host_clock);
}

static struct roof_set load(const char *dir, char **said) {
  struct roof_set rs;
  struct capture cap;
  capture_begin(&cap);
  roofs_load_measured(dir, &rs);
  *said = capture_end(&cap);
  return rs;
}

static size_t count(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p++) n++;
  return n;
}

/* The folder's roofs as read: per device the best OK record of each id,
 * refused ones as notes, capacities; the corrupt and foreign files said
 * once each and ignored. */
static void test_load(void) {
  char *dir = make_folder();
  REQUIRE(dir);
  char *said;
  struct roof_set rs = load(dir, &said);
  CHECK(rs.n == 3);
  CHECK(count(said, "bench: warning: ") == 2);
  CHECK(count(said, "corrupt.tsv") == 1 && strstr(said, "corrupt.tsv' line 3: not a roofs record"));
  CHECK(count(said, "foreign.tsv") == 1 && strstr(said, "foreign.tsv' is not a bench roofs file"));
  CHECK(strstr(said, "notes.txt") == NULL);
  free(said);
  /* read again in the same process: not said again (a run re-reads them per case) */
  struct roof_set again = load(dir, &said);
  CHECK(strcmp(said, "") == 0);
  free(said);
  roofs_release(&again);

  const struct roof *cpu = roof_of(&rs, "Test CPU");
  REQUIRE(cpu);
  CHECK(cpu->file && strstr(cpu->file, "/roofs/Test_CPU.tsv"));
  const struct roof_line *l = roof_find(cpu, "fp32");
  REQUIRE(l);
  CHECK(l->value == 100 && l->low == 98 && l->high == 102 && l->kind == ROOF_COMPUTE && l->origin == ROOF_MEASURED);
  CHECK_STR(l->source, "measured 2026-12-01 by peak_fma kernel=fma2 threads=0");
  CHECK(l->datasheet == 120);
  CHECK_STR(l->datasheet_how, "2 cores x 2 FMA x 8 lanes x 2 FLOP x 3.75 GHz");
  CHECK(roof_find(cpu, "fp64") == NULL && roof_find(cpu, "l3") == NULL);
  CHECK(roof_find(cpu, "lat_dram") && roof_find(cpu, "lat_dram")->kind == ROOF_LATENCY);
  CHECK(cpu->cap[0] == 32768 && cpu->cap[1] == 1048576 && cpu->cap[2] == 33554432);
  CHECK(cpu->nnotes == 2);
  CHECK(cpu->nnotes == 2 && strstr(cpu->notes[0], "fp64 refused by bench peak: WRONG_ANSWER: planted mismatch") &&
        strstr(cpu->notes[1], "l3 refused by bench peak: REFUSED: its output was not checked"));
  CHECK(roof_of(&rs, "Bad") == NULL);
  roofs_release(&rs);

  /* a folder without roofs, and a result file inside a folder with them */
  struct roof_set none;
  char *empty = make_tmpdir("noroofs");
  roofs_load_measured(empty, &none);
  CHECK(none.n == 0);
  roofs_release(&none);
  rm_tree(empty);
  char *file = xasprintf("%s/2026-12-01_x.json", dir);
  put(file, "{}");
  rs = load(file, &said);
  CHECK(rs.n == 3);
  free(said);
  roofs_release(&rs);
  free(file);
  rm_tree(dir);
}

struct want {
  int rc;
  const char *id;
  double fraction; /* < 0: none */
  const char *note; /* substring; NULL: no note */
  const char *source; /* substring, or NULL */
};

static void expect(const struct roof *roof, const struct case_result *r, struct want w, int line) {
  struct roof_choice c;
  int rc = roof_choose(roof, r, &c);
  int bad = rc != w.rc || (w.id && (!c.id || strcmp(c.id, w.id) != 0)) ||
            (w.fraction >= 0 ? !(fabs(c.fraction - w.fraction) < 1e-6 * (1 + w.fraction)) : c.fraction >= 0) ||
            (w.note ? !c.note || !strstr(c.note, w.note) : c.note != NULL) ||
            (w.source && (!c.source || !strstr(c.source, w.source)));
  test_checks_++;
  if (bad) {
    test_failures_++;
    fprintf(stderr, "line %d: rc %d id %s fraction %.9g note \"%s\" source \"%s\"; want rc %d id %s fraction %.9g note %s\n",
            line, rc, c.id ? c.id : "(null)", c.fraction, c.note ? c.note : "(null)", c.source ? c.source : "(null)",
            w.rc, w.id ? w.id : "(null)", w.fraction, w.note ? w.note : "(none)");
  }
  /* never a share over 100% without a note */
  CHECK(!(c.fraction > 1) || c.note);
  roof_choice_release(&c);
}
#define EXPECT(roof, r, ...) expect(roof, r, (struct want){__VA_ARGS__}, __LINE__)

static void test_choice(void) {
  char *dir = make_folder();
  REQUIRE(dir);
  char *said;
  struct roof_set rs = load(dir, &said);
  free(said);
  const struct roof *cpu = roof_of(&rs, "Test CPU"), *gpu = roof_of(&rs, "Test GPU"), *other = roof_of(&rs, "Other GPU");
  REQUIRE(cpu && gpu && other);
  struct case_result r;

  /* dtype f32, two threads: fp32 with the level its 10 kB fit in (l1), a
   * roofline min(100, 100 FLOP/byte x 400) = 100: 10 GFLOP/s is 10% */
  mk(&r, "cpu_gemm", "cpu", "m=64 dtype=f32 threads=2", 1e6, 1e4, 1e5);
  EXPECT(cpu, &r, 0, "fp32+l1", 0.1, NULL, "fp32 measured 2026-12-01 by peak_fma kernel=fma2");
  case_result_release(&r);
  /* no dtype: fp32 too */
  mk(&r, "cpu_gemm", "cpu", "m=64", 1e6, 1e4, 1e5);
  EXPECT(cpu, &r, 0, "fp32+l1", 0.1, NULL, NULL);
  case_result_release(&r);
  /* one thread (the parameter, or the info of what ran): fp32.1t, 50 */
  mk(&r, "cpu_gemm", "cpu", "m=64 dtype=f32 threads=1", 1e6, 1e4, 1e5);
  EXPECT(cpu, &r, 0, "fp32.1t+l1", 0.2, NULL, NULL);
  case_result_release(&r);
  mk(&r, "cpu_gemm", "cpu", "m=64 dtype=f32 threads=0", 1e6, 1e4, 1e5);
  kv_list_add(&r.ninfo, &r.info, "threads", "1");
  EXPECT(cpu, &r, 0, "fp32.1t+l1", 0.2, NULL, NULL);
  case_result_release(&r);
  /* on a GPU, threads=1 means nothing: no .1t */
  mk(&r, "vk_gemm", "vulkan", "m=64 dtype=f16 threads=1", 1e6, 1e4, 1e5);
  kv_list_add(&r.ninfo, &r.info, "device", "Test GPU");
  EXPECT(gpu, &r, 0, "fp16+l2", 0.1, NULL, NULL);
  case_result_release(&r);

  /* the roofline's minimum: 1e3 FLOP on 1e6 bytes (fits l2: 1 MiB) at
   * 0.001 FLOP/byte x 200 GB/s = 0.2 GFLOP/s; 0.1 GFLOP/s is 50% */
  mk(&r, "cpu_gemm", "cpu", "dtype=f32", 1e3, 1e6, 1e4);
  EXPECT(cpu, &r, 0, "fp32+l2", 0.5, NULL, "(l2 binds at 0.001 FLOP/byte)");
  case_result_release(&r);
  /* dram beyond the last known level */
  mk(&r, "membw_cpu", "cpu", "kernel=copy size=1GiB", 0, 2e9, 4e8);
  EXPECT(cpu, &r, 0, "dram", 0.5, NULL, "measured 2026-12-01 by peak_bw size=1GiB");
  case_result_release(&r);
  /* the working set the plugin states (4 MiB: l3) over its bytes per
   * iteration; l3 is not measured: against dram, 2 GB/s = 20% */
  mk(&r, "membw_cpu", "cpu", "kernel=triad", 0, 1e3, 500);
  kv_list_add(&r.ninfo, &r.info, "working_set_bytes", "4194304");
  EXPECT(cpu, &r, 0, "dram", 0.2, "the working set (4 MiB) fits in l3, whose roof is not measured", NULL);
  case_result_release(&r);
  /* over 100% against it: the note says which roof and why */
  mk(&r, "membw_cpu", "cpu", "kernel=triad", 0, 1e4, 500);
  kv_list_add(&r.ninfo, &r.info, "working_set_bytes", "4194304");
  EXPECT(cpu, &r, 0, "dram", 2.0,
         "above the measured dram roof: the working set (4 MiB) fits in l3, whose roof is not measured", NULL);
  case_result_release(&r);
  /* over 100% inside the roof's own interval (100.5 of 100 [98, 102]) */
  mk(&r, "cpu_gemm", "cpu", "dtype=f32", 1.005e6, 0, 1e4);
  EXPECT(cpu, &r, 0, "fp32", 1.005, "above the measured fp32 roof: within its 95% interval [98, 102] GFLOP/s", NULL);
  case_result_release(&r);
  /* and beyond it */
  mk(&r, "cpu_gemm", "cpu", "dtype=f32", 1.5e6, 0, 1e4);
  EXPECT(cpu, &r, 0, "fp32", 1.5, "above the measured fp32 roof: the case beats the figure bench peak measured", NULL);
  case_result_release(&r);

  /* a missing roof: fp64 was refused; flops and bytes: the memory roof
   * alone, said; flops only: missing (rc 1, no share, a note) */
  mk(&r, "cpu_gemm", "cpu", "dtype=f64", 1e3, 1e6, 1e4);
  EXPECT(cpu, &r, 0, "l2", 0.5, "no fp64 roof: against the memory roof alone", NULL);
  case_result_release(&r);
  /* over 100% of that memory roof: a missing ceiling only understates,
   * so it is said after the reason, never as the reason */
  mk(&r, "cpu_gemm", "cpu", "dtype=f64", 1e3, 1e6, 1e3);
  EXPECT(cpu, &r, 0, "l2", 5.0,
         "above the measured l2 roof: the case beats the figure bench peak measured (measure it again: bench peak); "
         "no fp64 roof: against the memory roof alone", NULL);
  case_result_release(&r);
  mk(&r, "cpu_gemm", "cpu", "dtype=f64", 1e6, 0, 1e4);
  EXPECT(cpu, &r, 1, "fp64", -1, "no fp64 roof for this device", NULL);
  case_result_release(&r);
  mk(&r, "cpu_gemm", "cpu", "dtype=bf16", 1e6, 1e4, 1e4);
  EXPECT(other, &r, 1, "bf16+dram", -1, "no bf16 or dram roof for this device", NULL);
  case_result_release(&r);

  /* matrix cores: an f16 GEMM of variant mfma takes fp16_matrix (1000)
   * where it is measured, else the vector fp16 (100), said */
  mk(&r, "hip_gemm", "hip", "m=4096 dtype=f16 variant=mfma", 5e5, 0, 1e3);
  kv_list_add(&r.ninfo, &r.info, "device", "Test GPU");
  EXPECT(gpu, &r, 0, "fp16_matrix", 0.5, NULL, "peak_gpu dtype=f16 mfma=1");
  EXPECT(other, &r, 0, "fp16", 5.0, "it runs on matrix hardware, but fp16_matrix is not measured", NULL);
  case_result_release(&r);
  /* the same GEMM on its SIMT variant: the vector roof */
  mk(&r, "hip_gemm", "hip", "m=4096 dtype=f16 variant=tiled", 5e4, 0, 1e3);
  EXPECT(gpu, &r, 0, "fp16", 0.5, NULL, NULL);
  case_result_release(&r);
  /* an f16 softmax is no GEMM */
  mk(&r, "hip_softmax", "hip", "dtype=f16 variant=matrix", 5e4, 0, 1e3);
  EXPECT(gpu, &r, 0, "fp16", 0.5, NULL, NULL);
  case_result_release(&r);

  /* latency: ns per load against the latency roof of its level */
  mk(&r, "memlat_cpu", "cpu", "size=16KiB", 0, 64000, 2000);
  r.items = 1000;
  snprintf(r.item_unit, sizeof r.item_unit, "loads");
  kv_list_add(&r.ninfo, &r.info, "working_set_bytes", "16384");
  EXPECT(cpu, &r, 0, "lat_l1", 0.5, NULL, "peak_lat size=16KiB");
  case_result_release(&r);
  /* in l2 (no lat_l2, no lat_l3): lat_dram, 5 ns against 80 is 16x, with the note */
  mk(&r, "memlat_cpu", "cpu", "size=512KiB", 0, 64000, 5000);
  r.items = 1000;
  snprintf(r.item_unit, sizeof r.item_unit, "loads");
  kv_list_add(&r.ninfo, &r.info, "working_set_bytes", "524288");
  EXPECT(cpu, &r, 0, "lat_dram", 16.0, "above the measured lat_dram roof: the working set (512 KiB) fits in l2", NULL);
  case_result_release(&r);
  /* a launch without a launch roof */
  mk(&r, "hip_noop_launch", "hip", "-", 0, 0, 5000);
  r.items = 1;
  snprintf(r.item_unit, sizeof r.item_unit, "launches");
  EXPECT(gpu, &r, 1, "launch", -1, "no launch latency roof", NULL);
  case_result_release(&r);

  /* a peak plugin's own case: the roof it names (info), not its dtype's */
  mk(&r, "peak_gpu_bw", "hip", "size=4MiB", 0, 1e6, 1e3);
  kv_list_add(&r.ninfo, &r.info, "roof", "l2");
  kv_list_add(&r.ninfo, &r.info, "roof_kind", "bandwidth");
  EXPECT(gpu, &r, 0, "l2", 0.5, NULL, "measured 2026-12-01 by peak_gpu_bw size=4MiB");
  case_result_release(&r);

  /* nothing to place: not OK, no work, no roof for the device */
  mk(&r, "cpu_gemm", "cpu", "dtype=f32", 1e6, 1e4, 1e5);
  r.status = CASE_WRONG_ANSWER;
  EXPECT(cpu, &r, -1, NULL, -1, NULL, NULL);
  case_result_release(&r);
  mk(&r, "cpu_noop", "cpu", "-", 0, 0, 1e3);
  EXPECT(cpu, &r, -1, NULL, -1, NULL, NULL);
  case_result_release(&r);
  mk(&r, "cpu_gemm", "cpu", "dtype=f32", 1e6, 1e4, 1e5);
  EXPECT(NULL, &r, -1, NULL, -1, NULL, NULL);
  case_result_release(&r);

  roofs_release(&rs);
  rm_tree(dir);
}

/* The run's annotation (cmd_run's case_ends): the measured roof of the
 * case's device in its folder, in percent; none where the folder has no
 * roofs or its device has none. */
static void test_annotate(void) {
  char *dir = make_folder();
  REQUIRE(dir);
  struct run_env env = {0};
  env.cpu = xstrdup("Test CPU");
  struct case_result r;
  mk(&r, "cpu_gemm", "cpu", "dtype=f32", 1e6, 1e4, 1e5);
  struct capture cap;
  capture_begin(&cap);
  roofs_annotate(dir, &env, &r);
  free(capture_end(&cap));
  REQUIRE(r.roof);
  CHECK_STR(r.roof->id, "fp32+l1");
  CHECK_STR(r.roof->unit, "GFLOP/s");
  CHECK_NEAR(r.roof->pct, 10, 1e-9);
  CHECK_NEAR(r.roof->value, 100, 1e-9);
  CHECK(strstr(r.roof->source, "fp32 measured 2026-12-01 by peak_fma kernel=fma2 threads=0; l1 measured") != NULL);
  CHECK(r.roof->note == NULL);
  case_result_release(&r);
  /* a missing roof is recorded as such: an id, a note, no share */
  mk(&r, "cpu_gemm", "cpu", "dtype=f64", 1e6, 0, 1e5);
  roofs_annotate(dir, &env, &r);
  REQUIRE(r.roof);
  CHECK_STR(r.roof->id, "fp64");
  CHECK(r.roof->pct < 0 && r.roof->value == 0 && r.roof->note);
  case_result_release(&r);
  /* another device, and a folder without roofs: nothing */
  mk(&r, "vk_gemm", "vulkan", "dtype=f32", 1e6, 1e4, 1e5);
  kv_list_add(&r.ninfo, &r.info, "device", "llvmpipe");
  roofs_annotate(dir, &env, &r);
  CHECK(r.roof == NULL);
  case_result_release(&r);
  char *empty = make_tmpdir("noroofs");
  mk(&r, "cpu_gemm", "cpu", "dtype=f32", 1e6, 1e4, 1e5);
  roofs_annotate(empty, &env, &r);
  CHECK(r.roof == NULL);
  case_result_release(&r);
  rm_tree(empty);
  free(env.cpu);
  rm_tree(dir);
}

TEST_MAIN(TEST_ENTRY(test_load), TEST_ENTRY(test_choice), TEST_ENTRY(test_annotate))

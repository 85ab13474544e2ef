// Google Benchmark side of studies/anchors.sh: the very function cpu_spin
// runs (plugins/cpu/cpu_spin_chain.c, linked in unchanged) and an empty
// loop, timed by Google Benchmark so that bench's cpu_spin median and
// cpu_noop floor can be read against them.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "cpu_spin_chain.h"

static void BM_spin(benchmark::State &state) {
  const uint64_t iters = static_cast<uint64_t>(state.range(0));
  uint64_t x = 1;
  for (auto _ : state) {
    x = cpu_spin_chain(iters, x);
    benchmark::DoNotOptimize(x);
  }
}
// Registered in main with the chain length of --spin_iters=N (ours, taken
// off the command line before Google Benchmark reads its own flags).

static void BM_empty(benchmark::State &state) {
  for (auto _ : state) {
  }
}
BENCHMARK(BM_empty);

// What bench's cpu_noop times per iteration, the harness's calls aside: a
// call through a function pointer to a function that does nothing.
extern "C" {
static int noop_run(const void *host, void *state) {
  (void)host;
  (void)state;
  return 0;
}
}

static void BM_noop_call(benchmark::State &state) {
  int (*volatile run)(const void *, void *) = noop_run;
  for (auto _ : state) benchmark::DoNotOptimize(run(nullptr, nullptr));
}
BENCHMARK(BM_noop_call);

int main(int argc, char **argv) {
  int64_t iters = 1000000;
  int out = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!std::strncmp(a, "--spin_iters=", 13))
      iters = std::atoll(a + 13);
    else
      argv[out++] = argv[i];
  }
  argc = out;
  benchmark::RegisterBenchmark("BM_spin", BM_spin)->Arg(iters);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

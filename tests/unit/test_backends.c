/* The backend table (backend/backends.h): lookups and the CPU default, the
 * validation-error prefix, the device facts, the default noise the
 * comparisons take, and the --mode debug variables as a child gets them
 * through core/child.c (the user's Vulkan layers kept, the validation
 * layer added once). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/compare_stats.h"
#include "backend/backends.h"
#include "core/child.h"
#include "core/util.h"
#include "test.h"

static void test_lookup(void) {
  REQUIRE(backends_count() >= 4);
  CHECK(strcmp(backends_at(0)->name, "cpu") == 0); /* the default is first */
  CHECK(backends_at(backends_count()) == NULL);
  const char *names[] = {"cpu", "vulkan", "hip", "cuda"};
  for (size_t i = 0; i < 4; i++) {
    const struct backend *b = backend_find(names[i]);
    CHECK(b && strcmp(b->name, names[i]) == 0);
    CHECK(backend_or_default(names[i]) == b);
  }
  CHECK(backend_find("opencl") == NULL && backend_find(NULL) == NULL);
  CHECK(backend_or_default("opencl") == backends_at(0));
  CHECK(backend_or_default(NULL) == backends_at(0));
}

static void test_validation_prefix(void) {
  CHECK(backends_validation_error_outside_case("Vulkan validation error in deinit(): VUID-x: y"));
  CHECK(backends_validation_error_outside_case("Vulkan validation error in init(): z"));
  CHECK(!backends_validation_error_outside_case("Vulkan validation error: VUID-x: in a case"));
  CHECK(!backends_validation_error_outside_case("init failed"));
  CHECK(!backends_validation_error_outside_case(NULL));
}

static void test_facts_and_noise(void) {
  const struct backend *vk = backend_find("vulkan");
  REQUIRE(vk && vk->facts);
  CHECK(strcmp(vk->facts[0].key, "vk_driver_version") == 0 && strcmp(vk->facts[0].label, "driver version") == 0);
  size_t n = 0;
  while (vk->facts[n].key) n++;
  CHECK(n == 9);
  CHECK(backend_find("cpu")->facts == NULL || backend_find("cpu")->facts[0].key == NULL);
  /* hipb's device and clock facts, for hip and its CUDA build alike */
  CHECK(strcmp(backend_find("hip")->facts[0].key, "pci_bus_id") == 0);
  CHECK(backend_find("cuda")->facts == backend_find("hip")->facts);
  /* the comparisons' default: a + b / sqrt(n), the CPU's for an unknown backend */
  for (size_t i = 0; i < backends_count(); i++) {
    const struct backend *b = backends_at(i);
    CHECK_NEAR(cs_between_default(b->name, 4), b->noise_a + b->noise_b / 2, 1e-15);
  }
  CHECK_NEAR(cs_between_default(NULL, 1), 0.30, 1e-15);
  CHECK_NEAR(cs_between_default("opencl", 0), 0.30, 1e-15);
}

static void report_env(void *arg, int fd) {
  (void)arg;
  const char *l = getenv("VK_INSTANCE_LAYERS"), *h = getenv("HIP_LAUNCH_BLOCKING");
  char line[512];
  snprintf(line, sizeof line, "%s|%s", l ? l : "-", h ? h : "-");
  child_send_line(fd, line);
}

/* The child's VK_INSTANCE_LAYERS and HIP_LAUNCH_BLOCKING with the debug
 * variables, when the parent's VK_INSTANCE_LAYERS is layers (NULL: unset). */
static char *debug_child_env(const char *layers) {
  if (layers)
    setenv("VK_INSTANCE_LAYERS", layers, 1);
  else
    unsetenv("VK_INSTANCE_LAYERS");
  unsetenv("HIP_LAUNCH_BLOCKING");
  struct child_opts o = {30, 0, NULL, NULL, backends_debug_env(), NULL, NULL, NULL, NULL};
  struct child_outcome out;
  if (child_run(report_env, NULL, &o, &out) != 0) return NULL;
  char *line = out.line ? xstrdup(out.line) : NULL;
  child_outcome_release(&out);
  return line;
}

static void test_debug_env_in_child(void) {
  char *s = debug_child_env(NULL);
  CHECK(s && strcmp(s, "VK_LAYER_KHRONOS_validation|1") == 0);
  free(s);
  s = debug_child_env("");
  CHECK(s && strcmp(s, "VK_LAYER_KHRONOS_validation|1") == 0);
  free(s);
  s = debug_child_env("VK_LAYER_MESA_overlay");
  CHECK(s && strcmp(s, "VK_LAYER_MESA_overlay:VK_LAYER_KHRONOS_validation|1") == 0);
  free(s);
  s = debug_child_env("VK_LAYER_KHRONOS_validation:VK_LAYER_MESA_overlay");
  CHECK(s && strcmp(s, "VK_LAYER_KHRONOS_validation:VK_LAYER_MESA_overlay|1") == 0);
  free(s);
  /* without the debug variables the child gets the parent's environment */
  setenv("VK_INSTANCE_LAYERS", "mine", 1);
  struct child_opts o = {30, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  struct child_outcome out;
  REQUIRE(child_run(report_env, NULL, &o, &out) == 0);
  CHECK(out.line && strcmp(out.line, "mine|-") == 0);
  child_outcome_release(&out);
  unsetenv("VK_INSTANCE_LAYERS");
}

TEST_MAIN(TEST_ENTRY(test_lookup), TEST_ENTRY(test_validation_prefix), TEST_ENTRY(test_facts_and_noise),
          TEST_ENTRY(test_debug_env_in_child))

/* run/vk_validation.c: the settings it writes, and what a validation log
 * does to a case: an error fails an OK case with the ID and the text, a
 * case already failed keeps its message (a note, or nothing when its
 * message names the ID), warnings become a note, each case sees only what
 * was logged since the previous one; messages outside a case name where
 * (deinit); the user's own settings file is merged, their keys kept. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "run/vk_validation.h"
#include "test.h"

#define ERR1                                                                                     \
  "VUID-vkCmdPushConstants-offset-01795(ERROR / SPEC): msgNum: 666667206 - Validation Error: [ " \
  "VUID-vkCmdPushConstants-offset-01795 ] Object 0: handle = 0x55, type = "                    \
  "VK_OBJECT_TYPE_COMMAND_BUFFER; | MessageID = 0x27bc88c6 | vkCmdPushConstants(): bad stage. "  \
  "The Vulkan spec states: For each byte (https://example)\n    Objects: 1\n"                    \
  "        [0] 0x55, type: 6, name: NULL\n"
#define WARN1                                                                                   \
  "UNASSIGNED-x(WARNING / PERFORMANCE): msgNum: 1 - Validation Performance Warning: [ "         \
  "UNASSIGNED-x ] Object 0: VK_NULL_HANDLE | MessageID = 0x1 | slow thing.\n"

static char *log_path(void) {
  const char *d = getenv("VK_LAYER_SETTINGS_PATH");
  return d ? xasprintf("%s/validation.log", d) : NULL;
}

static void append(const char *text) {
  char *p = log_path();
  FILE *f = p ? fopen(p, "a") : NULL;
  if (f) {
    fputs(text, f);
    fclose(f);
  }
  free(p);
}

static void test_settings(void) {
  REQUIRE(vk_validation_open() == 0);
  vk_validation_child_begin();
  const char *d = getenv("VK_LAYER_SETTINGS_PATH");
  REQUIRE(d != NULL);
  char *p = xasprintf("%s/vk_layer_settings.txt", d);
  struct strbuf sb = {0};
  CHECK(read_file(p, &sb) == 0);
  char *want = xasprintf("khronos_validation.log_filename = %s/validation.log", d);
  CHECK(sb.buf && strstr(sb.buf, want));
  CHECK(sb.buf && strstr(sb.buf, "khronos_validation.debug_action = VK_DBG_LAYER_ACTION_LOG_MSG"));
  CHECK(sb.buf && strstr(sb.buf, "khronos_validation.report_flags = error,warn"));
  strbuf_release(&sb);
  free(want);
  vk_validation_close();
  FILE *gone = fopen(p, "r");
  CHECK(gone == NULL); /* the folder is removed */
  if (gone) fclose(gone);
  free(p);
  unsetenv("VK_LAYER_SETTINGS_PATH");
}

static void test_cases(void) {
  REQUIRE(vk_validation_open() == 0);
  vk_validation_child_begin();
  struct case_result r;

  case_result_init(&r); /* nothing logged: untouched */
  r.status = CASE_OK;
  vk_validation_take(&r);
  CHECK(r.status == CASE_OK && r.message == NULL && r.ninfo == 0);
  case_result_release(&r);

  append(ERR1 ERR1 WARN1); /* an OK case fails with the first error */
  case_result_init(&r);
  r.status = CASE_OK;
  vk_validation_take(&r);
  CHECK(r.status == CASE_ERROR);
  CHECK_STR(r.message, "Vulkan validation error: VUID-vkCmdPushConstants-offset-01795: "
                       "vkCmdPushConstants(): bad stage. (and 1 more)");
  CHECK_STR(kv_list_get(r.ninfo, r.info, "note"),
            "1 Vulkan validation warning; the first: UNASSIGNED-x: slow thing.");
  case_result_release(&r);

  case_result_init(&r); /* the next case sees only its own messages */
  r.status = CASE_OK;
  vk_validation_take(&r);
  CHECK(r.status == CASE_OK && r.message == NULL);
  case_result_release(&r);

  append(ERR1); /* a failed case keeps its message; the error is a note */
  case_result_init(&r);
  r.status = CASE_WRONG_ANSWER;
  r.message = xstrdup("12 of 64 elements out of tolerance");
  vk_validation_take(&r);
  CHECK(r.status == CASE_WRONG_ANSWER);
  CHECK_STR(r.message, "12 of 64 elements out of tolerance");
  const char *note = kv_list_get(r.ninfo, r.info, "note");
  CHECK(note && strstr(note, "Vulkan validation error: VUID-vkCmdPushConstants-offset-01795"));
  case_result_release(&r);

  append(ERR1); /* ... and nothing when its message names the ID (vkh) */
  case_result_init(&r);
  r.status = CASE_ERROR;
  r.message = xstrdup("1 Vulkan validation message; the first: validation error: Validation "
                      "Error: [ VUID-vkCmdPushConstants-offset-01795 ] ...");
  vk_validation_take(&r);
  CHECK(r.ninfo == 0);
  case_result_release(&r);

  char *longer = xasprintf("Validation Error: [ VUID-long ] | MessageID = 0x2 | %0400d\n", 7);
  append(longer); /* a long text is cut */
  free(longer);
  case_result_init(&r);
  r.status = CASE_OK;
  vk_validation_take(&r);
  CHECK(r.message && strlen(r.message) < 400 && strstr(r.message, "VUID-long: 000") &&
        strstr(r.message, "..."));
  case_result_release(&r);

  vk_validation_close();
  unsetenv("VK_LAYER_SETTINGS_PATH");
  case_result_init(&r); /* closed: nothing read */
  r.status = CASE_OK;
  vk_validation_take(&r);
  CHECK(r.status == CASE_OK);
  case_result_release(&r);
}

static void test_outside_case(void) {
  REQUIRE(vk_validation_open() == 0);
  vk_validation_child_begin();
  CHECK(vk_validation_active());
  append(ERR1); /* logged by deinit: named so */
  struct case_result r;
  case_result_init(&r);
  r.status = CASE_OK;
  vk_validation_take_in(&r, "deinit()");
  CHECK(r.status == CASE_ERROR);
  CHECK_STR(r.message, "Vulkan validation error in deinit(): VUID-vkCmdPushConstants-offset-01795: "
                       "vkCmdPushConstants(): bad stage.");
  case_result_release(&r);
  vk_validation_close();
  CHECK(!vk_validation_active());
  unsetenv("VK_LAYER_SETTINGS_PATH");
}

/* The merged settings file, after open with the user's VK_LAYER_SETTINGS_PATH. */
static char *merged(void) {
  const char *d = getenv("VK_LAYER_SETTINGS_PATH");
  char *p = d ? xasprintf("%s/vk_layer_settings.txt", d) : NULL;
  struct strbuf sb = {0};
  if (!p || read_file(p, &sb) != 0) strbuf_addf(&sb, "(unreadable)");
  free(p);
  return strbuf_detach(&sb);
}

static void test_user_settings(void) {
  char user[] = "/tmp/test-vkval-user.XXXXXX";
  REQUIRE(mkdtemp(user) != NULL);
  char *file = xasprintf("%s/vk_layer_settings.txt", user);
  FILE *f = fopen(file, "w");
  REQUIRE(f != NULL);
  fputs("# the user's own\n"
        "khronos_validation.message_id_filter = VUID-x-00001\n"
        "khronos_validation.report_flags = warn\n"
        "khronos_validation.log_filename = /tmp/theirs.log\n"
        "khronos_validation.debug_action = VK_DBG_LAYER_ACTION_BREAK\n"
        "khronos_validation.enables = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT\n",
        f);
  fclose(f);
  for (int as_file = 0; as_file < 2; as_file++) { /* the folder, then the file itself */
    setenv("VK_LAYER_SETTINGS_PATH", as_file ? file : user, 1);
    REQUIRE(vk_validation_open() == 0);
    vk_validation_child_begin();
    char *m = merged();
    char *log = xasprintf("khronos_validation.log_filename = %s/validation.log",
                          getenv("VK_LAYER_SETTINGS_PATH"));
    CHECK(strstr(m, "khronos_validation.message_id_filter = VUID-x-00001\n"));
    CHECK(strstr(m, "khronos_validation.enables = VK_VALIDATION_FEATURE_ENABLE_SYNC"));
    CHECK(strstr(m, "khronos_validation.report_flags = warn,error\n"));
    CHECK(strstr(m, "khronos_validation.debug_action = VK_DBG_LAYER_ACTION_LOG_MSG\n"));
    CHECK(strstr(m, log));
    CHECK(!strstr(m, "theirs.log") && !strstr(m, "ACTION_BREAK"));
    free(log);
    free(m);
    struct case_result r; /* each case says the user's filter applied */
    case_result_init(&r);
    r.status = CASE_OK;
    vk_validation_take(&r);
    CHECK(r.status == CASE_OK);
    const char *note = kv_list_get(r.ninfo, r.info, "note");
    CHECK(note && strstr(note, "Vulkan validation filtered by the user's") &&
          strstr(note, "message_id_filter = VUID-x-00001"));
    case_result_release(&r);
    vk_validation_close();
  }
  /* a settings file that cannot be read: a warning, bench's settings */
  setenv("VK_LAYER_SETTINGS_PATH", "/nonexistent/vk_layer_settings.txt", 1);
  REQUIRE(vk_validation_open() == 0);
  vk_validation_child_begin();
  char *m = merged();
  CHECK(strstr(m, "khronos_validation.report_flags = error,warn,perf\n"));
  CHECK(!strstr(m, "message_id_filter"));
  free(m);
  struct case_result r;
  case_result_init(&r);
  r.status = CASE_OK;
  vk_validation_take(&r);
  CHECK(r.ninfo == 0);
  case_result_release(&r);
  vk_validation_close();
  unsetenv("VK_LAYER_SETTINGS_PATH");
  unlink(file);
  rmdir(user);
  free(file);
}

int main(void) {
  static const struct test_entry tests[] = {TEST_ENTRY(test_settings), TEST_ENTRY(test_cases),
                                            TEST_ENTRY(test_outside_case),
                                            TEST_ENTRY(test_user_settings)};
  return test_run_all(tests, sizeof tests / sizeof tests[0]);
}

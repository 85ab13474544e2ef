/* libFuzzer target: the result JSON reader used by rollup, through its
 * public API (results/io.h). A document it accepts must survive writing and
 * reading back; a child's one-line result is read too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "results/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  char err[256];

  struct run_file f;
  if (run_file_from_json(text, &f, err, sizeof err) == 0) {
    char *again = run_file_to_json(&f);
    struct run_file g;
    if (run_file_from_json(again, &g, err, sizeof err) != 0) abort(); /* what we write, we read */
    char *twice = run_file_to_json(&g);
    if (strcmp(again, twice) != 0) abort();
    free(twice);
    run_file_release(&g);
    free(again);
    run_file_release(&f);
  }

  struct case_result r;
  if (case_result_from_json_line(text, &r, err, sizeof err) == 0) {
    char *line = case_result_to_json_line(&r);
    free(line);
    case_result_release(&r);
  }
  free(text);
  return 0;
}

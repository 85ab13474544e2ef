/* libFuzzer target: the streaming result reader (read.c), which cuts the
 * cases array of a file too large to load whole into its elements with a
 * byte scanner. The input is read from a memfd both ways: whole and
 * streamed. What the streamed read accepts, the whole read accepts too,
 * and both give the same run file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "results/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int fd = memfd_create("fuzz_result", MFD_CLOEXEC);
  if (fd < 0) abort();
  size_t done = 0;
  while (done < size) {
    ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) abort();
    done += (size_t)n;
  }
  char path[64], err[512];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd); /* no .json: no journal */
  struct run_file whole, streamed;
  int rw = results_read_file_flags(path, 0, &whole, err, sizeof err);
  int rs = results_read_file_flags(path, RESULTS_READ_STREAM, &streamed, err, sizeof err);
  if (rs == 0) {
    if (rw != 0) abort(); /* streamed accepted what the whole read refuses */
    char *a = run_file_to_json(&whole), *b = run_file_to_json(&streamed);
    if (strcmp(a, b) != 0) abort();
    free(a);
    free(b);
    run_file_release(&streamed);
  }
  if (rw == 0) run_file_release(&whole);
  close(fd);
  return 0;
}

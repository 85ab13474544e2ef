/* libFuzzer target: the events reader of `bench events` (events_read.h)
 * and its table. The input is fed in two reads split where its first byte
 * says, so lines that straddle reads are covered; the table is printed to
 * /dev/null, the ETA and row numbers included. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "results/events_read.h"

static FILE *sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!sink) sink = fopen("/dev/null", "w");
  struct ev_log l;
  memset(&l, 0, sizeof l);
  size_t cut = size ? data[0] % (size + 1) : 0;
  ev_log_feed(&l, (const char *)data, cut);
  ev_log_feed(&l, (const char *)data + cut, size - cut);
  ev_log_feed_end(&l);
  if (sink) {
    ev_log_print(sink, &l, size ? data[size - 1] % 8 : 0);
    fflush(sink);
  }
  ev_log_release(&l);
  return 0;
}

#!/usr/bin/env bash
# Every CPU plugin on the verify tier's awkward shapes (sizes of 1, primes,
# sizes that are not multiples of the tiles, odd thread counts): all OK
# against the reference, every element compared, outputs bitwise equal
# when run twice.
. "$(dirname "$0")/cpu_lib.sh"

run_bench --preset "$SRC/tests/cpu/verify-quick.ini" --plugin "$CPU_GLOB" --results-dir "$T/r"
expect_rc 0
check_results "$T/r" verify-quick && ok || fail "verify results"
finish

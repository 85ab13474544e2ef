/* Numbers with units as bench prints them, one spelling everywhere (the
 * terminal case line, the .txt, the events table, compare and history
 * tables): times "850.0 ns", "12.35 us", "1.234 ms", "2.500 s" (ASCII "us",
 * as presets write it), rates "47.66 GFLOP/s", counts per second "12.35 M
 * loads/s", times per item "85.20 ns/load". */
#ifndef BENCH_UNITS_H
#define BENCH_UNITS_H

/* From this magnitude on numbers are printed with an exponent ("1.000e+308"),
 * so that an absurd value read from a file is never hundreds of digits. */
#define FMT_EXP_FROM 1e12

/* A number with four significant digits and no exponent where it fits
 * ("1234", "47.66", "4.468", "0.000123" as "0.000123"), "1.235e+15" from
 * FMT_EXP_FROM on; "-" when not finite. */
char *fmt_sig4(double v);

/* A time in nanoseconds in the unit that keeps 1..999.9 ("850.0 ns",
 * "12.35 us", "1.234 ms", "2.500 s"); "-" when not finite. */
char *fmt_time_ns(double ns);

/* A time in nanoseconds with the decimals fixed per unit ("850.0 ns",
 * "123.40 us", "1.234 ms", "2.500 s"): bench ab's rows, where the
 * columns of old and new line up by unit; "-" when not positive (or NaN). */
char *fmt_time_ns_fixed(double ns);

/* v with that many decimals ("12.50"), "1.000e+308" from FMT_EXP_FROM on,
 * "?" when not finite: seconds and counts read from events or results. */
char *fmt_fixed(double v, int decimals);

/* A rate with its unit ("47.66 GFLOP/s", "4.468 GB/s"). */
char *fmt_rate(double v, const char *unit);

/* Items per second with an SI prefix that keeps 1..999.9 ("850.0 loads/s",
 * "12.35 M loads/s", "1.234 G elements/s"); "-" when not finite. */
char *fmt_count_rate(double per_s, const char *unit);

/* A figure in the unit results/result.h's case_figure names: "GFLOP/s"
 * and "GB/s" as fmt_rate, "<items>/s" as fmt_count_rate, "ns/<item>" as
 * fmt_time_ns per item ("85.20 ns/load", "12.35 us/launch"). */
char *fmt_figure(double v, const char *unit);

/* An item unit in the singular: "loads" load, "launches" launch,
 * "accesses" access; a word without a plural s as it is. Caller frees. */
char *unit_singular(const char *unit);

/* A size in bytes in binary units that keep 1..1023 ("812 B", "45.20 MiB",
 * "1.250 GiB"); "-" when not finite. */
char *fmt_bytes(double bytes);

#endif

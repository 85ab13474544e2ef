/* The CPU's model name for the result header, from whatever this machine
 * offers: /proc/cpuinfo's "model name" (x86) or "CPU implementer"/"CPU part"
 * (Arm), then the CPUID brand string (x86), then the architecture from
 * uname ("unknown aarch64 CPU"). */
#ifndef BENCH_CPU_MODEL_H
#define BENCH_CPU_MODEL_H

/* This machine's model, never NULL; free() it. */
char *cpu_model(void);

/* The model from a /proc/cpuinfo-format file; NULL when it names none
 * (no such file, or none of the keys above). free() it. */
char *cpu_model_from_cpuinfo(const char *path);

/* The x86 CPUID brand string, trimmed; NULL elsewhere or when blank. */
char *cpu_model_from_cpuid(void);

#endif

/* The table of bench's commands (git's git.c table): main.c dispatches by
 * it, and --help, the man page, docs/cli.md and bash completion list it. */
#include "cli/commands.h"

#include <stddef.h>
#include <stdio.h>

#include "core/parse_options.h"

const struct command bench_commands[] = {
    {&spec_run, NULL},
    {&spec_list, NULL},
    {&spec_compare, cmd_compare},
    {&spec_ab, cmd_ab},
    {&spec_tune, cmd_tune},
    {&spec_peak, cmd_peak},
    {&spec_history, cmd_history},
    {&spec_report, cmd_report},
    {&spec_events, cmd_events},
    {&spec_serve, cmd_serve},
    {&spec_rollup, cmd_rollup},
    {&spec_results, cmd_results},
    {&spec_help, cmd_help},
    {&spec_completion, cmd_completion},
    {NULL, NULL},
};

/* bench --help: the other commands' synopses (first lines) and one line each. */
void print_command_synopses(FILE *f) {
  for (const struct command *c = bench_commands; c->spec; c++)
    for (size_t i = 0; c->fn && c->spec->usage[i]; i++)
      if (c->spec->usage[i][0] != ' ') fprintf(f, "       %s\n", c->spec->usage[i]);
  fprintf(f, "\nCommands (bench COMMAND --help for each):\n");
  for (const struct command *c = bench_commands; c->spec; c++)
    fprintf(f, "  %-12s%s\n", *c->spec->name ? c->spec->name : "run", c->spec->summary);
}


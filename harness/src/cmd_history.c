#include "commands.h"
int cmd_history(int argc, char **argv) { (void)argc; (void)argv; return EXIT_USAGE; }

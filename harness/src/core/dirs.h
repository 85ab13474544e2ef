/* Folders: making a folder and its parents. */
#ifndef BENCH_DIRS_H
#define BENCH_DIRS_H

/* mkdir -p: make path and every missing parent. `purpose` ("results")
 * words the messages: "cannot create folder 'P' for results: REASON"
 * (without it: "cannot create folder 'P': REASON"); an empty path is
 * "the results folder name is empty". 0, or -1 after error(). A path that
 * exists and is no folder is refused. */
int make_dirs(const char *path, const char *purpose);

#endif

/* Opening a file under bench serve's results folder from a request's path,
 * and nothing outside it: a segment that is empty, "." or "..", starts
 * with '.', or holds a backslash or a control character is refused; every
 * segment is opened beneath the one before without following symlinks; only
 * a regular file with one of the served extensions is opened. (Encoded
 * dots, slashes and NULs never reach here: serve_http.c's unescaping
 * refuses them.) */
#ifndef BENCH_SERVE_PATH_H
#define BENCH_SERVE_PATH_H

#include <stddef.h>
#include <sys/stat.h>

#define SERVE_PATH_MAX 1024
#define SERVE_PATH_DEPTH 4

/* The Content-Type of a served file by its name, or NULL when it is not served. */
const char *serve_path_type(const char *name);

/* Open rel (the request path after "/files/", decoded) beneath root:
 * 0 and *fd (O_RDONLY, close-on-exec) with *st, or -1 (refused or not
 * there: the caller answers 404 either way). */
int serve_path_open(const char *root, const char *rel, int *fd, struct stat *st);

#endif

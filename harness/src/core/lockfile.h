/* Temporary files and locks: the one home of how bench replaces a file and
 * guards a read-modify-write, in the shape of git's lockfile API.
 *
 * A file is replaced whole: tempfile_open makes a new file beside it under
 * a name nobody can plant beforehand, tempfile_write fills it,
 * tempfile_commit makes it durable and puts it in place (fsync, rename,
 * fsync of the folder), tempfile_rollback removes it. A reader sees the old
 * file or the new one, never a part.
 *
 * A read-modify-write holds an exclusive flock (lockfile_acquire) on a lock
 * file ("<path>.lock", created and left in place: an flock dies with its
 * holder, so a crash never leaves a stale lock) or on a folder, reads,
 * writes through a tempfile, then releases. */
#ifndef BENCH_LOCKFILE_H
#define BENCH_LOCKFILE_H

#include <stddef.h>

/* ---- temporary files ------------------------------------------------------ */

struct tempfile {
  int fd;     /* open while writing, else -1 */
  char *path; /* the file it replaces */
  char *tmp;  /* its own name, beside path */
};
#define TEMPFILE_INIT {-1, NULL, NULL}

/* Create the temporary file beside path (temp_file_beside). 0, or -1 with
 * errno set and t empty. Prints nothing. */
int tempfile_open(struct tempfile *t, const char *path);
/* tempfile_open and one tempfile_write of data[0..len): 0, or -1 with
 * errno set and t empty (the temporary file removed). */
int tempfile_open_with(struct tempfile *t, const char *path, const void *data, size_t len);
/* Append len bytes (a file-size limit is a failed write, not SIGXFSZ). 0,
 * or -1 with errno set (the file stays for tempfile_rollback). */
int tempfile_write(struct tempfile *t, const void *data, size_t len);
/* fsync and close it, keeping it under its temporary name t->tmp (for a
 * caller that publishes it by link()). 0, or -1 with errno set after the
 * temporary file is removed. */
int tempfile_close(struct tempfile *t);
/* tempfile_close, then rename it onto path, fsync the folder (best effort).
 * 0, or -1 with errno set: the temporary file is removed and path is left
 * as it was. t is empty afterwards either way. */
int tempfile_commit(struct tempfile *t);
/* Close and remove it (nothing when t is empty). */
void tempfile_rollback(struct tempfile *t);

/* Make a rename or a new name durable in the folder of path (fsync of the
 * folder; best effort: some file systems cannot fsync a folder). */
void sync_dir_of(const char *path);

/* Replace path with data[0..len) through a tempfile; on any failure path
 * is left as it was. 0, or -1 after error() naming path. The _quiet form
 * prints nothing and leaves the errno in *err. */
int write_file_atomic(const char *path, const char *data, size_t len);
int write_file_atomic_quiet(const char *path, const char *data, size_t len, int *err);

/* The temporary name itself: a new, empty file beside path named
 * "<dir>/.<name>.tmp.<pid>.<random>", opened O_WRONLY | O_CREAT | O_EXCL |
 * O_NOFOLLOW | O_CLOEXEC (mode 0666 less the umask), so a file, a hard link
 * or a symlink planted under any name is never opened or followed; the
 * random part (8 characters from getrandom) is drawn again on each
 * collision (up to TEMP_FILE_TRIES). The fd, with the name in *tmp (caller
 * frees); or -1 with errno set and *tmp NULL. Prints nothing. Every
 * temporary file bench writes beside its target is made here. */
#define TEMP_FILE_TRIES 100
int temp_file_beside(const char *path, char **tmp);
/* The length of a name temp_file_beside makes for a name of n characters. */
size_t temp_file_name_len(size_t n);
/* The pid of a temporary name ".<name>.tmp.<pid>[.<random>]" (the form
 * temp_file_beside makes, or the older one without a random part), or 0
 * when name is none. */
long temp_file_pid(const char *name);

/* ---- locks ------------------------------------------------------------------ */

struct lockfile {
  int fd; /* open while held (or while waiting for it), else -1 */
};
#define LOCKFILE_INIT {-1}
#define LOCKFILE_FOLDER 1 /* path is a folder: lock it, create nothing */

/* Open what is locked: the file path (created when missing, mode 0666 less
 * the umask) or, with LOCKFILE_FOLDER, the folder path. 0, or -1 with
 * errno set. Prints nothing. */
int lockfile_open(struct lockfile *lk, const char *path, int flags);
/* Take the exclusive lock on the open lk: wait until it is free (EINTR is
 * retried), or with nowait try once. 0 when held, 1 when another process
 * holds it (nowait only), -1 with errno set when the file system cannot
 * lock it. */
int lockfile_take(struct lockfile *lk, int nowait);
/* lockfile_open and lockfile_take(lk, 0): 0, or -1 with errno set (lk empty). */
int lockfile_acquire(struct lockfile *lk, const char *path, int flags);
/* Drop the lock and close (nothing when lk is empty). */
void lockfile_release(struct lockfile *lk);
/* Take the exclusive lock on the open lk, waiting at most max_s seconds
 * while another process holds it: after a second, and then every
 * LOCK_WAIT_NOTE_S, one line on stderr says what is waited for ("bench:
 * waiting for the lock on WHAT (held by pid N (comm)): 3 s of at most 30 s
 * (BENCH_LOCK_WAIT_S); Ctrl-C stops waiting"); SIGINT, SIGTERM or SIGHUP
 * end the wait. 0 when held; LOCK_GAVE_UP when the bound passed and
 * LOCK_INTERRUPTED (*sig the signal) when a signal came: lk is released,
 * holder says who held it ("held by pid 12 (flock)"), and the caller says
 * what that means in one line, then raises *sig again so that its own
 * handler or the default action sees it. -1 with errno set when the file
 * system cannot lock it. */
#define LOCK_GAVE_UP 1
#define LOCK_INTERRUPTED 2
#define LOCK_WAIT_NOTE_S 5.0
int lockfile_take_bounded(struct lockfile *lk, const char *what, double max_s, int *sig,
                          char *holder, size_t holderlen);
/* The lock of a file bench updates in place (the tuning cache, a roofs
 * file), held by lk open on "<path>.lock": lockfile_take_bounded with the
 * bound lock_wait_max_s(dflt_s), and the one line each failure gets:
 * "cannot lock the NOUN 'PATH': ...", "interrupted by SIG while waiting for
 * the lock on the NOUN PATH (held by ...): KEPT" (then the signal is raised
 * again), "gave up waiting for the lock on the NOUN PATH after N s (...;
 * BENCH_LOCK_WAIT_S sets the bound): KEPT". 0 when held, -1 after the line. */
int lockfile_take_update(struct lockfile *lk, const char *path, const char *noun, const char *kept,
                         double dflt_s);
/* The longest wait for a lock: BENCH_LOCK_WAIT_S when it is a number of
 * seconds >= 0 (else a warning), otherwise dflt. */
double lock_wait_max_s(double dflt);
/* "held by pid N (comm)" / "held by another process": who holds the lock
 * on the file open as fd. */
void lock_describe_holder(int fd, char *out, size_t len);
/* The pid of a process holding a lock on the file open as fd, from
 * /proc/locks (flock or POSIX, read or write), or 0 when none is listed or
 * it cannot be told (no /proc, another pid namespace). */
long lock_holder_pid(int fd);

#endif

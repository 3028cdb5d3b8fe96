/* Failing I/O for tests: an LD_PRELOAD library that makes reads, writes or
 * fsyncs of chosen files fail with EIO, as a dying disk would, without a
 * device-mapper target (which needs a kernel module this machine may lack).
 *
 *   STRATA_EIO_MATCH  a substring of the file's path (from /proc/self/fd)
 *   STRATA_EIO_OPS    which calls fail: any of "read", "write", "fsync"
 *   STRATA_EIO_AFTER  how many matching calls succeed first (default 0)
 *
 * Every other call goes to the C library unchanged. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static long matched_calls;

/* Whether this call, of kind `op` on `fd`, is to fail. */
static int should_fail(const char *op, int fd) {
    const char *match = getenv("STRATA_EIO_MATCH");
    const char *ops = getenv("STRATA_EIO_OPS");
    if (!match || !ops || !strstr(ops, op)) return 0;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0) return 0;
    path[n] = 0;
    if (!strstr(path, match)) return 0;
    const char *after = getenv("STRATA_EIO_AFTER");
    long allowed = after ? atol(after) : 0;
    return __atomic_fetch_add(&matched_calls, 1, __ATOMIC_SEQ_CST) >= allowed;
}

#define NEXT(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))
#define FAIL_IF(op, fd)              \
    if (should_fail(op, fd)) {       \
        errno = EIO;                 \
        return -1;                   \
    }

ssize_t write(int fd, const void *buf, size_t count) {
    FAIL_IF("write", fd);
    return NEXT(write)(fd, buf, count);
}
ssize_t writev(int fd, const struct iovec *iov, int iovcnt) {
    FAIL_IF("write", fd);
    return NEXT(writev)(fd, iov, iovcnt);
}
ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset) {
    FAIL_IF("write", fd);
    return NEXT(pwrite64)(fd, buf, count, offset);
}
ssize_t read(int fd, void *buf, size_t count) {
    FAIL_IF("read", fd);
    return NEXT(read)(fd, buf, count);
}
ssize_t readv(int fd, const struct iovec *iov, int iovcnt) {
    FAIL_IF("read", fd);
    return NEXT(readv)(fd, iov, iovcnt);
}
ssize_t pread64(int fd, void *buf, size_t count, off_t offset) {
    FAIL_IF("read", fd);
    return NEXT(pread64)(fd, buf, count, offset);
}
int fsync(int fd) {
    FAIL_IF("fsync", fd);
    return NEXT(fsync)(fd);
}
int fdatasync(int fd) {
    FAIL_IF("fsync", fd);
    return NEXT(fdatasync)(fd);
}

/*
 * The libc seam: the few system calls newlib needs, provided by the firmware.
 * Output goes to the console UART; there is no input and no file system.
 * newlib for MIPS is built with MISSING_SYSCALL_NAMES, so the calls carry
 * their plain names (write, sbrk, ...). Swapping newlib for picolibc means
 * replacing this file, nothing else.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include "hal/uart.h"
#include "hal/martini.h"
#include "hal/cpu.h"

#undef errno
extern int errno;

extern char _end[];         /* ld/dimmnet1.ld: end of .bss */
extern char _heap_limit[];  /* ... and where the stack reserve begins */

int write(int fd, const void *buf, size_t n)
{
    if (fd != 1 && fd != 2) {
        errno = EBADF;
        return -1;
    }
    uart_write(buf, n);
    return (int)n;
}

int read(int fd, void *buf, size_t n)
{
    (void)fd; (void)buf; (void)n;
    errno = ENOSYS;
    return -1;
}

void *sbrk(ptrdiff_t incr)
{
    static char *brk = _end;
    char *old = brk;

    if (incr < 0 || (size_t)incr > (size_t)(_heap_limit - brk)) {
        errno = ENOMEM;
        return (void *)-1;
    }
    brk += incr;
    return old;
}

int close(int fd)
{
    (void)fd;
    errno = EBADF;
    return -1;
}

int fstat(int fd, struct stat *st)
{
    (void)fd;
    st->st_mode = S_IFCHR;
    return 0;
}

int isatty(int fd)
{
    return fd <= 2;
}

int lseek(int fd, int off, int whence)
{
    (void)fd; (void)off; (void)whence;
    errno = ESPIPE;
    return -1;
}

int getpid(void)
{
    return 1;
}

int kill(int pid, int sig)
{
    (void)pid; (void)sig;
    errno = EINVAL;
    return -1;
}

void _exit(int status)
{
    (void)status;
    hal_fw_failed();
    for (;;) {
        cpu_idle();
    }
}

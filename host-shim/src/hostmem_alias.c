/*
 * Pages of the process moved onto the card: the NIC reaches host memory only
 * through the DIMM it sits in (receive memory), so memory that remote writes
 * and reads must reach is put there. The pages keep their addresses: their
 * contents are copied into receive memory and the range is mapped onto it
 * (the receive memory file, MAP_FIXED), as an operating system would migrate
 * pages into the card's DIMM. dn_hostmem_unalias() moves them back.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "internal.h"
#include "dimmnet1/memmap.h"

#define ALIAS_PAGE (1u << DN1_PAGE_SHIFT)

/*
 * mmap by system call, not through libc: MPI libraries hook libc's mmap and
 * munmap to learn of memory being released (Open MPI's memory patcher),
 * and would take a mapping over registered pages for their release (it
 * aborts: "Attempt to free memory that is still in use"). Nothing is
 * released here: the pages stay, with their bytes, on other backing.
 */
static void *remap(void *addr, size_t len, int flags, int fd, off_t off)
{
    long r = syscall(SYS_mmap, addr, len, PROT_READ | PROT_WRITE, flags | MAP_FIXED, fd, off);

    return r < 0 && r > -4096 ? MAP_FAILED : (void *)r;
}

static int alias_args_ok(dn_node *n, const void *addr, size_t len, uint64_t off)
{
    return n && addr && len && !((uintptr_t)addr % ALIAS_PAGE) &&
           !(len % ALIAS_PAGE) && !(off % ALIAS_PAGE) &&
           (uintptr_t)addr + len > (uintptr_t)addr;
}

int dn_hostmem_alias(dn_node *n, void *addr, size_t len, uint64_t off)
{
    if (!alias_args_ok(n, addr, len, off)) {
        return DN_EINVAL;
    }
    if (off > n->hostmem_size || len > n->hostmem_size - off) {
        return DN_ERANGE;
    }
    /* Our own view of receive memory must not be what moves. */
    if ((uint8_t *)addr < n->hostmem + n->hostmem_size &&
        (uint8_t *)addr + len > n->hostmem) {
        return DN_EINVAL;
    }
    int fd = open(n->hostmem_path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        return DN_EIO;
    }
    /* The copy is the host's writes into the card (write-combined). */
    dn_copy(n, n->hostmem + off, addr, len);
    void *p = remap(addr, len, MAP_SHARED, fd, (off_t)off);
    close(fd);
    return p == addr ? DN_OK : DN_EIO;
}

int dn_hostmem_unalias(dn_node *n, void *addr, size_t len, uint64_t off)
{
    if (!alias_args_ok(n, addr, len, off)) {
        return DN_EINVAL;
    }
    if (off > n->hostmem_size || len > n->hostmem_size - off) {
        return DN_ERANGE;
    }
    void *p = remap(addr, len, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != addr) {
        return DN_EIO;
    }
    /* Reads of the card's memory, charged as the profile's loads. */
    dn_copy(n, addr, n->hostmem + off, len);
    return DN_OK;
}

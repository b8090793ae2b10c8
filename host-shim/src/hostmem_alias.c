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
#include <unistd.h>
#include "internal.h"
#include "dimmnet1/memmap.h"

#define ALIAS_PAGE (1u << DN1_PAGE_SHIFT)

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
    void *p = mmap(addr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
                   (off_t)off);
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
    void *p = mmap(addr, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p != addr) {
        return DN_EIO;
    }
    /* Reads of the card's memory, charged as the profile's loads. */
    dn_copy(n, addr, n->hostmem + off, len);
    return DN_OK;
}

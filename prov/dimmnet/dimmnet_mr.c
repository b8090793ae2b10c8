/*
 * Memory registration (fi_mr(3)), enforced by the NIC: a registration open
 * to remote access becomes an entry of the node's registration table in
 * LLCM (docs/hardware.md section 14), which only this host can write; the
 * key is the RVATLB context remote writes and reads carry, and the
 * firmware fills the RVATLB from the table on a miss or refuses (NACK
 * PROTECTION: the initiator's FI_EACCES). The NIC reaches host memory only
 * in receive memory, the DIMM it sits in, so the pages of a registration
 * outside it are moved there, keeping their addresses (dn_hostmem_alias),
 * and moved back when the last registration using them closes.
 *
 * Receive buffers of the zero-copy rendezvous (dimmnet.h) are moved the
 * same way and kept there afterwards (the receive cache: most programs
 * receive into the same buffers again), up to RCACHE_MAX runs, the least
 * recently used moved back when the pool runs short. A buffer freed and
 * its addresses mapped again meanwhile would no longer be on the card:
 * every use first checks, page by page, that a store through the card's
 * view shows through the buffer's address (bytes of the receive's own
 * buffer only), and a run that fails is forgotten, never moved back over
 * what now lives there; moving back checks /proc/self/maps first.
 *
 * Paged registrations (docs/hardware.md section 14, "Paged
 * registrations"): a registration for remote access that does not fit
 * what is left of the pool (or is larger than an entry can say, 16 MiB)
 * is not refused: its table entry says NR, its pages stay where they are,
 * and a remote access to it is NACKed NOT_RESIDENT and posted in the
 * node's fault ring. Our progress reads the ring (dnf_mr_page_service)
 * and moves the 1 MiB pieces asked for (DNF_MR_EXTENT of the remote
 * addresses, on their grid, which the initiator's RMA pieces never cross;
 * smaller ones, dnf_share.extent, in a port's pool of several)
 * onto the card as internal registrations of their own (same key,
 * resident entries), the oldest pieces moved back when the pool or the
 * table runs short; the initiator sends again after a pause. What only
 * the host touches never needs the card.
 *
 * Keys: with FI_MR_PROV_KEY the provider's (0x8000-0xffff, the table's
 * contexts); otherwise the application's requested_key below 0x8000,
 * carried as 0x8000 | key. Addresses: the buffer's own (FI_MR_VIRT_ADDR)
 * or offsets from the registration's start plus the offset given.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dimmnet.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/mr.h"
#include "dimmnet1/packet.h"

#define MR_PAGE          (1u << DN1_PAGE_SHIFT)
#define MR_CLEAR_MS      10000
#define MR_MAX_LEN       (16u << 20)      /* the table's length field */
#define RCACHE_MAX       16               /* receive buffers kept on the card */
#define PAGED_MAX_LEN    UINT32_MAX       /* an NR entry's length field */

/* Pages moved onto the card: [addr, addr + len) at receive memory @off. */
struct dnf_alias {
    struct dnf_alias *next;
    uint8_t *addr;
    size_t len;
    uint64_t off;
    int refs;
    int kept;                    /* a registration on it not withdrawn: the pool
                                  * pages stay taken (the NIC may still write them);
                                  * 2: until the owed sync goes through */
    int cached;                  /* the receive cache holds a reference */
    int busy;                    /* zero-copy receives into it under way */
    int received;                /* the cache took it for a receive, not only a send */
    uint64_t used;               /* the receive cache's clock at its last use */
};

/* The process's node's registrations (one node a process, shared by its
 * domains): table entries, moved pages, the pool they live in. */
static pthread_mutex_t mr_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dnf_mr *mr_entry[DN_MR_ENTRIES];
static struct dnf_mr *mr_all;              /* every open registration */
static struct dnf_alias *aliases;
static uint8_t pool_used[DNF_MR_POOL_SIZE / MR_PAGE];   /* the first pool_size's */
#define POOL_OWED 2                     /* pool_used: waits for the owed sync */
struct dnf_share dnf_share = {
    .ports = 1, .off = DNF_EP_AREA_OFF, .pool_off = DNF_MR_POOL_OFF,
    .pool_size = DNF_MR_POOL_SIZE, .extent = DNF_MR_EXTENT, .mr_end = DN_MR_ENTRIES,
};

#define PAGE_IN_MIN (16u * MR_PAGE)   /* the smallest piece of a paged registration */
void dnf_share_init(dn_node *n)
{
    unsigned ports, port = dn_port(n, &ports);
    uint64_t share = ((8u << 20) - DNF_EP_AREA_OFF) / ports & ~4095ull;

    dnf_share.port = port;
    dnf_share.ports = ports;
    dnf_share.off = DNF_EP_AREA_OFF + port * share;
    dnf_share.pool_off = (dnf_share.off + DNF_EPS * DNF_EP_AREA + 4095u) & ~4095ull;
    dnf_share.pool_size = dnf_share.off + share - dnf_share.pool_off;   /* one port: all */
    /* A piece of a paged registration (two for an access that crosses)
     * must fit beside resident ones: a 1 MiB window piece did not fit a
     * port's 1,904 KiB beside a 1 MiB buffer Open MPI's btl registers.
     * One port: 1 MiB, as before. */
    dnf_share.extent = DNF_MR_EXTENT;
    while (dnf_share.extent > PAGE_IN_MIN && 4 * dnf_share.extent > dnf_share.pool_size) {
        dnf_share.extent /= 2;
    }
    dn_mr_entries(n, &dnf_share.mr_first, &dnf_share.mr_end);
}

/* The first registration-table entry of ours not in use; mr_end: none. */
static unsigned entry_free(void)
{
    unsigned idx;

    for (idx = dnf_share.mr_first; idx < dnf_share.mr_end && mr_entry[idx]; idx++) {
    }
    return idx;
}
static uint32_t next_key;
static uint64_t rcache_clock;
static atomic_int paged_open;            /* paged registrations open */
/* A close whose MR_SYNC found no link (a board without a switch): the
 * entry is off and no packet can come, but translations the NIC filled
 * before stay until a sync goes through. Their pool pages are marked
 * POOL_OWED until one does (sync_owed), never reused before. */
static int sync_owed;
static uint32_t fault_seen;              /* the fault ring read so far */
static uint64_t extent_clock;
uint64_t dnf_mr_paged_in, dnf_mr_paged_out;

/* First fit of @pages contiguous pool pages: their receive memory offset,
 * or UINT64_MAX. */
static uint64_t pool_alloc(size_t pages)
{
    size_t run = 0;

    for (size_t i = 0; i < dnf_share.pool_size / MR_PAGE; i++) {
        run = pool_used[i] ? 0 : run + 1;
        if (run == pages) {
            memset(pool_used + i + 1 - pages, 1, pages);
            return dnf_share.pool_off + (uint64_t)(i + 1 - pages) * MR_PAGE;
        }
    }
    return UINT64_MAX;
}

static void pool_free(uint64_t off, size_t len)
{
    memset(pool_used + (off - dnf_share.pool_off) / MR_PAGE, 0, len / MR_PAGE);
}

/* The pool pages of a run that goes: free, or, if a registration on it was
 * not withdrawn from the NIC, kept taken (kept 1) or kept until the owed
 * sync goes through (kept 2, POOL_OWED). */
static void pool_release(uint64_t off, size_t len, int kept)
{
    if (!kept) {
        pool_free(off, len);
    } else if (kept == 2) {
        memset(pool_used + (off - dnf_share.pool_off) / MR_PAGE, POOL_OWED, len / MR_PAGE);
    }
}

/* Does [buf, buf + len) lie in the provider's own view of receive memory?
 * Its offset there. */
static int in_recv_mem(dn_node *n, const uint8_t *buf, size_t len, uint64_t *off)
{
    size_t size;
    uint8_t *mem = dn_hostmem(n, &size);

    if (buf >= mem && len <= size && buf - mem <= (ptrdiff_t)(size - len)) {
        *off = (uint64_t)(buf - mem);
        return 1;
    }
    return 0;
}

/* Where [buf, buf + len) lies in receive memory, if it does: in the
 * provider's own view of it or in pages moved there. */
static int nic_off_of(dn_node *n, const uint8_t *buf, size_t len, uint64_t *off)
{
    if (in_recv_mem(n, buf, len, off)) {
        return 1;
    }
    for (struct dnf_alias *a = aliases; a; a = a->next) {
        /* Runs only the receive cache holds may have been unmapped since:
         * not trusted here (rndv_take checks them before each use). */
        if (a->refs == a->cached && !a->busy) {
            continue;
        }
        if (buf >= a->addr && len <= a->len && buf - a->addr <= (ptrdiff_t)(a->len - len)) {
            *off = a->off + (uint64_t)(buf - a->addr);
            return 1;
        }
    }
    return 0;
}

int dnf_mr_nic(struct dnf_domain *dom, const void *buf, size_t len, uint64_t *off)
{
    pthread_mutex_lock(&mr_lock);
    int rc = nic_off_of(dom->node, buf, len, off);
    pthread_mutex_unlock(&mr_lock);
    return rc;
}

static unsigned mr_access_bits(uint64_t access)
{
    return ((access & FI_REMOTE_WRITE) ? DN_MR_REMOTE_WRITE : 0) |
           ((access & FI_REMOTE_READ) ? DN_MR_REMOTE_READ : 0);
}

/* Registration @m's memory now lies at receive memory @nic_off: a new
 * table entry with its key first, then the old one cleared (which drops
 * the key's translations): a miss in between finds either, both pointing
 * at the same bytes until the old pages go. */
static int entry_move(dn_node *n, struct dnf_mr *m, uint64_t nic_off)
{
    unsigned idx = entry_free();
    int st;

    if (idx == dnf_share.mr_end) {
        /* No spare entry: off, then on again (refused meanwhile). */
        idx = (unsigned)m->entry;
        if ((st = dn_mr_clear(n, idx, MR_CLEAR_MS)) != DN_OK) {
            return st;
        }
        mr_entry[idx] = NULL;
    }
    st = dn_mr_set(n, idx, m->wire, m->base, (uint32_t)nic_off, (uint32_t)m->len,
                   mr_access_bits(m->access));
    if (st != DN_OK) {
        return st;
    }
    if ((unsigned)m->entry != idx) {
        int old = m->entry;
        mr_entry[idx] = m;
        m->entry = (int)idx;
        st = dn_mr_clear(n, (unsigned)old, MR_CLEAR_MS);
        mr_entry[old] = NULL;
    } else {
        mr_entry[idx] = m;
    }
    m->nic_off = nic_off;
    return st;
}

/* The pages under [buf, buf + len): from page_lo to page_hi. */
static uint8_t *page_lo(const uint8_t *buf)
{
    return (uint8_t *)((uintptr_t)buf & ~(uintptr_t)(MR_PAGE - 1));
}

static uint8_t *page_hi(const uint8_t *buf, size_t len)
{
    return (uint8_t *)(((uintptr_t)buf + len + MR_PAGE - 1) & ~(uintptr_t)(MR_PAGE - 1));
}

static int overlaps(const struct dnf_alias *a, const uint8_t *lo, const uint8_t *hi)
{
    return lo < a->addr + a->len && hi > a->addr;
}

/*
 * Move the pages under [buf, buf + len) onto the card, or take a share of
 * those already moved. Pages already moved for other registrations that
 * only partly cover these (neighbours on the heap share pages) are moved
 * again together with them, into one contiguous run of the pool, and
 * those registrations' table entries follow; remote writes that land in
 * the old pages during the call are lost.
 */
static int alias_take(dn_node *n, uint8_t *buf, size_t len, struct dnf_alias **out)
{
    uint8_t *lo = page_lo(buf), *hi = page_hi(buf, len);
    struct dnf_alias *a, *na;
    int grown;

    for (a = aliases; a; a = a->next) {
        if (lo >= a->addr && hi <= a->addr + a->len) {
            a->refs++;
            *out = a;
            return 0;
        }
    }
    do {                        /* the union with every overlapping run */
        grown = 0;
        for (a = aliases; a; a = a->next) {
            if (overlaps(a, lo, hi) && (a->addr < lo || a->addr + a->len > hi)) {
                lo = a->addr < lo ? a->addr : lo;
                hi = a->addr + a->len > hi ? a->addr + a->len : hi;
                grown = 1;
            }
        }
    } while (grown);
    for (a = aliases; a; a = a->next) {
        if (overlaps(a, lo, hi) && a->busy) {
            return -FI_EBUSY;   /* a zero-copy receive is being written there */
        }
    }
    if (!(na = calloc(1, sizeof(*na)))) {
        return -FI_ENOMEM;
    }
    na->addr = lo;
    na->len = (size_t)(hi - lo);
    na->off = pool_alloc(na->len / MR_PAGE);
    if (na->off == UINT64_MAX) {
        /* Not yet a failure: callers make room (cached runs, paged
         * pieces) and try again, and say so if they give up. */
        FI_INFO(&dnf_prov, FI_LOG_MR, "no %zu bytes of receive memory left for "
                "registrations (%llu in all)\n", na->len,
                (unsigned long long)dnf_share.pool_size);
        free(na);
        return -FI_ENOSPC;
    }
    /* Copied through the pages as they are mapped now: moved ones from
     * their old run. */
    int rc = dn_hostmem_alias(n, na->addr, na->len, na->off);
    if (rc != DN_OK) {
        pool_free(na->off, na->len);
        free(na);
        return rc == DN_EINVAL ? -FI_EINVAL : -FI_EIO;
    }
    na->refs = 1;
    for (struct dnf_alias **p = &aliases; *p;) {
        a = *p;
        if (!overlaps(a, lo, hi)) {
            p = &a->next;
            continue;
        }
        for (struct dnf_mr *m = mr_all; m; m = m->next) {
            if (m->alias != a) {
                continue;
            }
            m->alias = na;
            na->refs++;
            if (entry_move(n, m, na->off + (uint64_t)(m->buf - na->addr)) != DN_OK) {
                FI_WARN(&dnf_prov, FI_LOG_MR, "registration %#x could not follow its "
                        "pages\n", m->wire);
                a->kept = 1;
            }
        }
        if (a->cached && !na->cached) {
            na->cached = 1;      /* the receive cache keeps the merged run */
            na->refs++;
        }
        na->received |= a->received;
        na->used = a->used > na->used ? a->used : na->used;
        *p = a->next;
        pool_release(a->off, a->len, a->kept);
        free(a);
    }
    na->next = aliases;
    aliases = na;
    *out = na;
    return 0;
}

static void alias_unlink(struct dnf_alias *a)
{
    for (struct dnf_alias **p = &aliases; *p; p = &(*p)->next) {
        if (*p == a) {
            *p = a->next;
            break;
        }
    }
}

static void alias_drop(dn_node *n, struct dnf_alias *a)
{
    if (--a->refs) {
        return;
    }
    alias_unlink(a);
    if (dn_hostmem_unalias(n, a->addr, a->len, a->off) != DN_OK) {
        FI_WARN(&dnf_prov, FI_LOG_MR, "pages at %p could not be moved back\n",
                (void *)a->addr);
        return;     /* they stay on the card, and their pool pages taken */
    }
    pool_release(a->off, a->len, a->kept);
    free(a);
}

/* ---- the receive cache ---------------------------------------------------- */

/* Carve the pages under [lo, hi) out of run @a, which only the receive
 * cache holds, into a run of their own (returned), the rest of @a staying
 * cached as runs of their own: the pages stay where they are, nothing is
 * copied. So a small receive into a buffer whose run a large one left
 * pins only its own pages, and the rest can make room for others. */
static struct dnf_alias *alias_split(struct dnf_alias *a, uint8_t *lo, uint8_t *hi)
{
    struct dnf_alias *part[2] = { NULL, NULL };
    uint8_t *cut[2][2] = { { a->addr, lo }, { hi, a->addr + a->len } };

    for (int i = 0; i < 2; i++) {
        if (cut[i][1] <= cut[i][0]) {
            continue;
        }
        if (!(part[i] = calloc(1, sizeof(*part[i])))) {
            free(part[0]);
            return a;                         /* keep it whole */
        }
    }
    for (int i = 0; i < 2; i++) {
        if (part[i]) {
            *part[i] = *a;
            part[i]->refs = 1;                /* the cache's */
            part[i]->addr = cut[i][0];
            part[i]->len = (size_t)(cut[i][1] - cut[i][0]);
            part[i]->off = a->off + (uint64_t)(cut[i][0] - a->addr);
            part[i]->next = aliases;
            aliases = part[i];
        }
    }
    a->off += (uint64_t)(lo - a->addr);
    a->addr = lo;
    a->len = (size_t)(hi - lo);
    return a;
}

/* The card file's device and inode, as our own view of receive memory
 * shows them in /proc/self/maps (@f): 0 if not found. */
static int card_file(dn_node *n, FILE *f, unsigned long *maj, unsigned long *min,
                     unsigned long *ino)
{
    size_t size;
    uintptr_t mem = (uintptr_t)dn_hostmem(n, &size);
    char line[512];

    rewind(f);
    while (fgets(line, sizeof(line), f)) {
        unsigned long lo, hi, off, ma, mi, in;

        if (sscanf(line, "%lx-%lx %*s %lx %lx:%lx %lu", &lo, &hi, &off, &ma, &mi, &in) == 6 &&
            mem >= lo && mem < hi) {
            *maj = ma, *min = mi, *ino = in;
            return 1;
        }
    }
    return 0;
}

/* Run @a forgotten: some of its addresses are no longer its pages (freed
 * and mapped again: a heap trimmed at its top, a mapping unmapped), so it
 * is not moved back as a whole. But its pages still mapped from its pool
 * at their place are moved back, span by span, before its pool pages go
 * free: left there, they would alias whatever run takes those pool pages
 * next (seen: a heap run cut at its top, its lower pages, other heap
 * chunks on them, written through by a later receive's zero-copy rest). */
static void alias_forget(dn_node *n, struct dnf_alias *a)
{
    uintptr_t start = (uintptr_t)a->addr, end = start + a->len;
    unsigned long maj, min, ino;
    struct { uintptr_t lo, hi; } span[32];
    unsigned spans = 0;
    int moved = 1;
    char line[512];
    FILE *f = fopen("/proc/self/maps", "r");

    if (f && card_file(n, f, &maj, &min, &ino)) {
        rewind(f);
        while (fgets(line, sizeof(line), f)) {
            unsigned long lo, hi, off, ma, mi, in;

            if (sscanf(line, "%lx-%lx %*s %lx %lx:%lx %lu", &lo, &hi, &off, &ma, &mi,
                       &in) != 6 || ma != maj || mi != min || in != ino ||
                hi <= start || lo >= end || off - lo != a->off - start) {
                continue;           /* not this run's pages at their place */
            }
            if (spans == sizeof(span) / sizeof(span[0])) {
                moved = 0;
                break;
            }
            span[spans].lo = lo > start ? lo : start;
            span[spans++].hi = hi < end ? hi : end;
        }
    } else {
        moved = 0;
    }
    if (f) {
        fclose(f);
    }
    for (unsigned i = 0; i < spans; i++) {
        moved &= dn_hostmem_unalias(n, (void *)span[i].lo, span[i].hi - span[i].lo,
                                    a->off + (span[i].lo - start)) == DN_OK;
    }
    alias_unlink(a);
    if (!moved) {
        /* Some may still be mapped from the pool: its pages stay taken. */
        FI_WARN(&dnf_prov, FI_LOG_MR, "pages at %p could not be moved back\n",
                (void *)a->addr);
        free(a);
        return;
    }
    pool_release(a->off, a->len, a->kept);
    free(a);
}

/* Does [buf, buf + len) (a receive's buffer, in run @a) still show the
 * card's pages? A store through the card's view of each page must show
 * through the buffer's byte there; the byte is put back. */
static int alias_valid(dn_node *n, const struct dnf_alias *a, uint8_t *buf, size_t len)
{
    size_t size, pages = 0;
    uint8_t *mem = dn_hostmem(n, &size);
    int ok = 1;

    for (uint8_t *p = buf; ok && p < buf + len;
         p = (uint8_t *)(((uintptr_t)p | (MR_PAGE - 1)) + 1)) {
        volatile uint8_t *v = p, *c = mem + a->off + (size_t)(p - a->addr);
        uint8_t old = *c;

        *c = (uint8_t)(old ^ 0xa5);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        ok = *v == (uint8_t)(old ^ 0xa5);
        *c = old;
        pages++;
    }
    dn_host_work(n, DN_HOST_STORE, (uint32_t)(2 * pages));
    dn_host_work(n, DN_HOST_LOAD, (uint32_t)(2 * pages));
    return ok;
}

/* Is every page of run @a still mapped from the card at its place
 * (/proc/self/maps: the card file's device, inode and offset, as our own
 * view of receive memory shows them)? Only then may it be moved back. */
static int alias_intact(dn_node *n, const struct dnf_alias *a)
{
    size_t size;
    uintptr_t mem = (uintptr_t)dn_hostmem(n, &size);
    uintptr_t cur = (uintptr_t)a->addr, end = cur + a->len;
    unsigned long dev_maj = 0, dev_min = 0, ino = 0;
    int found = 0;
    char line[512];
    FILE *f = fopen("/proc/self/maps", "r");

    if (!f) {
        return 0;
    }
    for (int pass = 0; pass < 2; pass++) {
        rewind(f);
        while (fgets(line, sizeof(line), f)) {
            unsigned long lo, hi, off, ma, mi, in;

            if (sscanf(line, "%lx-%lx %*s %lx %lx:%lx %lu", &lo, &hi, &off, &ma, &mi,
                       &in) != 6) {
                continue;
            }
            if (pass == 0) {
                if (mem >= lo && mem < hi) {
                    dev_maj = ma, dev_min = mi, ino = in;
                    found = 1;
                }
                continue;
            }
            if (!found || cur >= end || hi <= cur) {
                continue;
            }
            if (lo > cur || ma != dev_maj || mi != dev_min || in != ino ||
                off + (cur - lo) != a->off + (cur - (uintptr_t)a->addr)) {
                break;          /* a hole, or not the card's page there */
            }
            cur = hi < end ? hi : end;
        }
    }
    fclose(f);
    return found && cur >= end;
}


/* How many bytes of [buf, buf + len) lie on the card, where the host reads
 * them with uncached loads: in the provider's view of receive memory, or
 * in pages moved there (a zero-copy buffer's, while they are mapped from
 * the card). For fi_dimmnet_touch. */
size_t dnf_mr_card_bytes(dn_node *n, const void *vbuf, size_t len)
{
    const uint8_t *lo = vbuf, *hi = lo + len;
    size_t bytes = 0;
    uint64_t off;

    if (in_recv_mem(n, lo, len, &off)) {
        return len;
    }
    pthread_mutex_lock(&mr_lock);
    for (struct dnf_alias *a = aliases; a; a = a->next) {
        const uint8_t *s = lo > a->addr ? lo : a->addr;
        const uint8_t *e = hi < a->addr + a->len ? hi : a->addr + a->len;

        /* A run only the receive cache holds may have been unmapped. */
        if (s < e && (a->refs != a->cached || a->busy || alias_intact(n, a))) {
            bytes += (size_t)(e - s);
        }
    }
    pthread_mutex_unlock(&mr_lock);
    return bytes;
}

/* Move back (or forget) the least recently used run only the receive
 * cache holds; @sends_only: only runs it took for sends. 0: none. */
static int rcache_evict(dn_node *n, int sends_only)
{
    struct dnf_alias *v = NULL;

    for (struct dnf_alias *a = aliases; a; a = a->next) {
        if (a->cached && a->refs == 1 && !a->busy && !(sends_only && a->received) &&
            (!v || a->used < v->used)) {
            v = a;
        }
    }
    if (!v) {
        return 0;
    }
    v->cached = 0;
    if (alias_intact(n, v)) {
        alias_drop(n, v);
    } else {
        alias_forget(n, v);
    }
    return 1;
}

/*
 * alias_take for [buf, buf + len), after the runs there that are no longer
 * the card's pages are forgotten (if only the receive cache holds them;
 * else -FI_EBUSY), and with runs only the cache holds moved back while the
 * pool is short. @store_ok: the bytes are the caller's alone (a receive's
 * buffer), so each page may be checked by a store through the card's
 * view; else (a send's buffer, a registration's) against /proc/self/maps.
 * @for_send: a send's buffer; one larger than half the pool moves back
 * only runs taken for sends: a send goes as well from where its buffer is
 * (BOTF), a receive does not, so a 4 MiB ping-pong keeps its receive
 * buffer on the card instead of moving both buffers in and out on every
 * round trip.
 */
static int alias_take_checked(dn_node *n, uint8_t *buf, size_t len, int store_ok,
                              int for_send, struct dnf_alias **out)
{
    uint8_t *lo = page_lo(buf), *hi = page_hi(buf, len);
    struct dnf_alias *a, *next;
    int rc;

    for (a = aliases; a; a = next) {
        next = a->next;
        if (!overlaps(a, lo, hi)) {
            continue;
        }
        int covers = lo >= a->addr && hi <= a->addr + a->len;

        if (covers && store_ok ? alias_valid(n, a, buf, len) : alias_intact(n, a)) {
            continue;
        }
        if (a->busy || a->refs != a->cached) {
            return -FI_EBUSY;
        }
        alias_forget(n, a);
    }
    /* Smaller sends move back receive runs too: two buffers of their size
     * (a ping-pong's send and receive) fit the pool side by side. */
    if (for_send && 2u * (size_t)(hi - lo) <= dnf_share.pool_size) {
        for_send = 0;
    }
    while ((rc = alias_take(n, buf, len, out)) == -FI_ENOSPC &&
           rcache_evict(n, for_send)) {
    }
    return rc;
}

static void rcache_trim(dn_node *n)
{
    unsigned kept = 0;

    for (struct dnf_alias *a = aliases; a; a = a->next) {
        kept += a->cached != 0;
    }
    while (kept-- > RCACHE_MAX && rcache_evict(n, 0)) {
    }
}

static int rndv_take(struct dnf_domain *dom, void *vbuf, size_t len, uint64_t *off,
                     void **handle, int src);

int dnf_mr_rndv_take(struct dnf_domain *dom, void *buf, size_t len, uint64_t *off,
                     void **handle)
{
    return rndv_take(dom, buf, len, off, handle, 0);
}

int dnf_mr_rndv_take_src(struct dnf_domain *dom, const void *buf, size_t len,
                         uint64_t *off, void **handle)
{
    return rndv_take(dom, (void *)buf, len, off, handle, 1);
}

/* @src: a send's buffer, which others may read meanwhile: checked against
 * /proc/self/maps, never by a store. */
static int rndv_take(struct dnf_domain *dom, void *vbuf, size_t len, uint64_t *off,
                     void **handle, int src)
{
    dn_node *n = dom->node;
    uint8_t *buf = vbuf;
    struct dnf_alias *a;
    int rc;

    *handle = NULL;
    if (!len) {
        return -FI_EINVAL;
    }
    if (in_recv_mem(n, buf, len, off)) {
        return 0;                             /* on the card already */
    }
    pthread_mutex_lock(&mr_lock);
    if ((rc = alias_take_checked(n, buf, len, !src, src, &a))) {
        goto out;
    }
    if (!a->cached) {
        a->cached = 1;
        a->refs++;
    }
    if (a->refs == 2 && !a->busy && !a->kept) {      /* the cache's and this take's */
        uint8_t *lo = page_lo(buf), *hi = page_hi(buf, len);

        if (lo > a->addr || hi < a->addr + a->len) {
            a = alias_split(a, lo, hi);
        }
    }
    a->received |= !src;
    a->busy++;
    a->used = ++rcache_clock;
    *off = a->off + (uint64_t)(buf - a->addr);
    *handle = a;
out:
    pthread_mutex_unlock(&mr_lock);
    return rc;
}

void dnf_mr_rndv_give(struct dnf_domain *dom, void *handle)
{
    struct dnf_alias *a = handle;

    if (!a) {
        return;
    }
    pthread_mutex_lock(&mr_lock);
    a->busy--;
    alias_drop(dom->node, a);       /* the receive's reference; the cache's stays */
    rcache_trim(dom->node);
    pthread_mutex_unlock(&mr_lock);
}

void dnf_mr_cache_flush(struct dnf_domain *dom)
{
    pthread_mutex_lock(&mr_lock);
    while (rcache_evict(dom->node, 0)) {
    }
    pthread_mutex_unlock(&mr_lock);
}

static int key_in_use(uint16_t wire)
{
    for (struct dnf_mr *m = mr_all; m; m = m->next) {
        if (m->wire == wire) {
            return 1;
        }
    }
    return 0;
}

int dnf_mr_wire(const struct dnf_domain *dom, uint64_t key, uint16_t *wire, int *event)
{
    if (event) {
        *event = 0;
    }
    if (dom->mr_mode & FI_MR_PROV_KEY) {
        if (key < DNF_MR_KEY_BIT || key > 0xffff) {
            return -FI_EKEYREJECTED;
        }
        *wire = (uint16_t)key;
        if (event) {
            *event = (key & DNF_MR_KEY_EVENT) != 0;
        }
    } else {
        if (key >= DNF_MR_KEY_BIT) {
            return -FI_EKEYREJECTED;
        }
        *wire = (uint16_t)(DNF_MR_KEY_BIT | key);
    }
    return 0;
}

/* ---- paged registrations -------------------------------------------------- */

static void mr_unlink(struct dnf_mr *m)
{
    for (struct dnf_mr **p = &mr_all; *p; p = &(*p)->next) {
        if (*p == m) {
            *p = m->next;
            break;
        }
    }
}

/* Piece @c off the card: out of the table and the NIC's translations
 * first, then its pages moved back (or its share of a run dropped). */
static void piece_drop(dn_node *n, struct dnf_mr *c)
{
    int st = dn_mr_clear(n, (unsigned)c->entry, MR_CLEAR_MS);

    if (st == DN_ELINKDOWN) {
        sync_owed = 1;          /* as in mr_close */
        c->alias->kept = 2;
    } else if (st != DN_OK) {
        FI_WARN(&dnf_prov, FI_LOG_MR, "piece of registration %#x not withdrawn from the "
                "NIC: %s\n", c->wire, dn_strerror(st));
        c->alias->kept = 1;     /* its pool pages stay taken */
    }
    mr_entry[c->entry] = NULL;
    mr_unlink(c);
    dnf_mr_paged_out += c->len;
    alias_drop(n, c->alias);
    free(c);
}

/* Move back the oldest piece of any paged registration: 0 when none. */
static int piece_evict(dn_node *n)
{
    struct dnf_mr *v = NULL;

    for (struct dnf_mr *m = mr_all; m; m = m->next) {
        if (m->parent && (!v || m->used < v->used)) {
            v = m;
        }
    }
    if (!v) {
        return 0;
    }
    piece_drop(n, v);
    return 1;
}

/* Bytes [off, off + len) of paged registration @m onto the card: the
 * dnf_share.extent pieces of its remote addresses they touch (one, as the
 * initiator cuts its pieces; two for an access that crosses), widened to
 * whole pages, as one piece with an entry of its own; halved while the
 * pool, every other piece and cached run moved back, has no room that
 * long (resident registrations cut it into holes). Pieces of @m whose
 * pages those share (neighbours, where the remote addresses are off the
 * page grid) go back first, so that runs never merge and grow. Nothing
 * when a piece holds the bytes already (a fault posted twice). */
static void page_in(dn_node *n, struct dnf_mr *m, uint64_t off, uint64_t len)
{
    uint8_t *s = m->buf + off, *e = s + len, *lo, *hi;
    struct dnf_alias *a;
    struct dnf_mr *c;
    unsigned idx;
    int rc;

    for (c = mr_all; c; c = c->next) {
        if (c->parent == m && s >= c->buf && e <= c->buf + c->len) {
            return;
        }
    }
    for (uint64_t ext = dnf_share.extent;; ext /= 2) {
        uint64_t r0 = (m->base + off) & ~(ext - 1);
        uint64_t r1 = (m->base + off + len + ext - 1) & ~(ext - 1);

        lo = r0 <= m->base ? m->buf : m->buf + (r0 - m->base);
        hi = r1 - m->base >= m->len ? m->buf + m->len : m->buf + (r1 - m->base);
        for (struct dnf_mr **p = &mr_all; *p;) {
            struct dnf_mr *x = *p;

            if (x->parent == m && page_lo(x->buf) < page_hi(lo, (size_t)(hi - lo)) &&
                page_hi(x->buf, x->len) > page_lo(lo)) {
                piece_drop(n, x);
                p = &mr_all;        /* the list changed under us */
            } else {
                p = &x->next;
            }
        }
        while ((rc = alias_take_checked(n, lo, (size_t)(hi - lo), 0, 0, &a)) == -FI_ENOSPC &&
               piece_evict(n)) {
        }
        if (rc != -FI_ENOSPC || ext <= PAGE_IN_MIN) {
            break;
        }
    }
    if (rc) {
        FI_WARN(&dnf_prov, FI_LOG_MR, "%zu bytes of registration %#x could not be moved "
                "onto the card: %d\n", (size_t)(hi - lo), m->wire, rc);
        return;
    }
    while ((idx = entry_free()) == dnf_share.mr_end && piece_evict(n)) {
    }
    if (idx == dnf_share.mr_end || !(c = calloc(1, sizeof(*c)))) {
        FI_WARN(&dnf_prov, FI_LOG_MR, "no table entry for a piece of registration %#x\n",
                m->wire);
        alias_drop(n, a);
        return;
    }
    c->parent = m;
    c->dom = m->dom;
    c->buf = lo;
    c->len = (size_t)(hi - lo);
    c->access = m->access;
    c->base = m->base + (uint64_t)(lo - m->buf);
    c->wire = m->wire;
    c->alias = a;
    c->nic_off = a->off + (uint64_t)(lo - a->addr);
    c->used = ++extent_clock;
    int st = dn_mr_set(n, idx, c->wire, c->base, (uint32_t)c->nic_off, (uint32_t)c->len,
                       mr_access_bits(c->access));
    if (st != DN_OK) {
        FI_WARN(&dnf_prov, FI_LOG_MR, "piece of registration %#x: %s\n", m->wire,
                dn_strerror(st));
        alias_drop(n, a);
        free(c);
        return;
    }
    c->entry = (int)idx;
    mr_entry[idx] = c;
    c->next = mr_all;
    mr_all = c;
    dnf_mr_paged_in += c->len;
}

void dnf_mr_page_service(struct dnf_domain *dom)
{
    dn_mr_fault f[DN1_MR_FAULT_SLOTS];

    if (!atomic_load_explicit(&paged_open, memory_order_relaxed)) {
        return;
    }
    pthread_mutex_lock(&mr_lock);
    int k = dn_mr_faults(dom->node, &fault_seen, f, DN1_MR_FAULT_SLOTS);
    for (int i = 0; i < k; i++) {
        for (struct dnf_mr *m = mr_all; m; m = m->next) {
            if (m->paged && m->wire == f[i].key && m->entry >= 0) {
                uint64_t off = f[i].va - m->base;

                if (f[i].va >= m->base && off < m->len) {
                    page_in(dom->node, m, off, f[i].len < m->len - off ? f[i].len
                                                                       : m->len - off);
                }
                break;
            }
        }
    }
    pthread_mutex_unlock(&mr_lock);
}

/* @m (remote access, its fields set, mr_lock held) as a paged
 * registration: its NR entry; the oldest piece of another moved back if
 * the table is full. */
static int paged_register(dn_node *n, struct dnf_mr *m)
{
    unsigned idx;

    while ((idx = entry_free()) == dnf_share.mr_end && piece_evict(n)) {
    }
    if (idx == dnf_share.mr_end) {
        FI_WARN(&dnf_prov, FI_LOG_MR, "all %u registrations for remote access in use\n",
                dnf_share.mr_end - dnf_share.mr_first);
        return -FI_ENOSPC;
    }
    int st = dn_mr_set_paged(n, idx, m->wire, m->base, m->len, mr_access_bits(m->access));
    if (st != DN_OK) {
        return -dnf_errno(st);
    }
    FI_INFO(&dnf_prov, FI_LOG_MR, "registration %#x of %zu bytes paged: moved onto the "
            "card as the NIC asks\n", m->wire, m->len);
    m->paged = 1;
    m->entry = (int)idx;
    mr_entry[idx] = m;
    atomic_fetch_add(&paged_open, 1);
    return 0;
}

/* The owed sync (mr_lock held): once the NIC has forgotten every
 * translation (a free entry of ours cleared: MR_SYNC of every key), the
 * pages waiting for it are free. */
static void sync_retry(dn_node *n)
{
    unsigned idx;

    if (!sync_owed || (idx = entry_free()) == dnf_share.mr_end ||
        dn_mr_clear(n, idx, MR_CLEAR_MS) != DN_OK) {
        return;
    }
    for (size_t i = 0; i < dnf_share.pool_size / MR_PAGE; i++) {
        pool_used[i] = pool_used[i] == POOL_OWED ? 0 : pool_used[i];
    }
    sync_owed = 0;
}

static int mr_close(struct fid *fid)
{
    struct dnf_mr *m = container_of(fid, struct dnf_mr, mr.fid);
    dn_node *n = m->dom->node;
    int rc = 0;

    dnf_enter();
    pthread_mutex_lock(&mr_lock);
    sync_retry(n);
    if (m->entry >= 0) {
        /* Off in the table and out of the RVATLB before the memory goes. */
        int st = dn_mr_clear(n, (unsigned)m->entry, MR_CLEAR_MS);
        if (st == DN_ELINKDOWN) {
            /* No link: nothing can reach the entry, which is off; the
             * sync is owed, and the pages wait for it. */
            sync_owed = 1;
            if (m->alias) {
                m->alias->kept = 2;
            }
        } else if (st != DN_OK) {
            FI_WARN(&dnf_prov, FI_LOG_MR, "registration %#x not withdrawn from the "
                    "NIC: %s\n", m->wire, dn_strerror(st));
            rc = -dnf_errno(st);
            if (m->alias) {
                m->alias->kept = 1;
            }
        }
        mr_entry[m->entry] = NULL;
    }
    mr_unlink(m);
    if (m->paged) {             /* no new faults now: its pieces go too */
        for (struct dnf_mr **p = &mr_all; *p;) {
            if ((*p)->parent == m) {
                piece_drop(n, *p);
                p = &mr_all;
            } else {
                p = &(*p)->next;
            }
        }
        atomic_fetch_sub(&paged_open, 1);
    }
    if (m->alias) {
        alias_drop(n, m->alias);
    }
    pthread_mutex_unlock(&mr_lock);
    for (int k = 0; k < 2; k++) {
        if (m->cntr_remote[k]) {
            m->cntr_remote[k]->refs--;
        }
    }
    atomic_fetch_sub(&m->dom->mr_refs, 1);
    free(m);
    return rc;
}

/*
 * fi_mr_bind: a counter of this domain bumped by the remote writes
 * (FI_REMOTE_WRITE) and reads (FI_REMOTE_READ) of a registration made for
 * RMA events (the FI_RMA_EVENT flag, or a domain with FI_RMA_EVENT); a
 * second binding of a kind replaces the first.
 */
static int mr_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
    struct dnf_mr *m = container_of(fid, struct dnf_mr, mr.fid);
    struct dnf_cntr *c;

    dnf_enter();
    if (!bfid || bfid->fclass != FI_CLASS_CNTR || !flags ||
        (flags & ~(uint64_t)(FI_REMOTE_WRITE | FI_REMOTE_READ))) {
        return -FI_EINVAL;
    }
    c = container_of(bfid, struct dnf_cntr, cntr.fid);
    if (c->dom != m->dom || !m->event) {
        FI_WARN(&dnf_prov, FI_LOG_MR, "counter on a registration %s\n",
                c->dom != m->dom ? "of another domain"
                                 : "not made for RMA events (FI_RMA_EVENT)");
        return -FI_EINVAL;
    }
    pthread_mutex_lock(&mr_lock);
    for (int k = 0; k < 2; k++) {
        if (flags & (k ? FI_REMOTE_READ : FI_REMOTE_WRITE)) {
            if (m->cntr_remote[k]) {
                m->cntr_remote[k]->refs--;
            }
            m->cntr_remote[k] = c;
            c->refs++;
        }
    }
    pthread_mutex_unlock(&mr_lock);
    return 0;
}

/* FI_ENABLE (FI_MR_RMA_EVENT's step): nothing to do, events flow at once. */
static int mr_control(struct fid *fid, int command, void *arg)
{
    dnf_enter();
    (void)fid;
    (void)arg;
    return command == FI_ENABLE ? 0 : -FI_ENOSYS;
}

void dnf_mr_event(struct dnf_domain *dom, uint16_t wire, int read)
{
    pthread_mutex_lock(&mr_lock);
    for (struct dnf_mr *m = mr_all; m; m = m->next) {
        if (m->wire == wire && m->entry >= 0 && m->dom == dom && !m->parent) {
            dnf_cntr_bump(m->cntr_remote[read != 0], 0);
            break;
        }
    }
    pthread_mutex_unlock(&mr_lock);
}

static struct fi_ops mr_fi_ops = {
    .size = sizeof(struct fi_ops),
    .close = mr_close,
    .bind = mr_bind,
    .control = mr_control,
    .ops_open = dnf_no_ops_open,
    .tostr = dnf_no_tostr,
    .ops_set = dnf_no_ops_set,
};

#define MR_ACCESS (FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE)

static int mr_register(struct dnf_domain *dom, uint8_t *buf, size_t len, uint64_t access,
                       uint64_t offset, uint64_t requested_key, uint64_t flags,
                       void *context, struct fid_mr **out)
{
    int remote = (access & (FI_REMOTE_READ | FI_REMOTE_WRITE)) != 0;
    struct dnf_mr *m;
    int rc = 0;

    dnf_enter();
    if (!out || (!buf && len) || (flags & ~(uint64_t)FI_RMA_EVENT) ||
        (access & ~(uint64_t)MR_ACCESS)) {
        return -FI_EINVAL;
    }
    if (remote && (!len || len > PAGED_MAX_LEN)) {
        FI_WARN(&dnf_prov, FI_LOG_MR, "remote access to %zu bytes: 1 to %u only\n",
                len, PAGED_MAX_LEN);
        return -FI_EINVAL;
    }
    if (!(m = calloc(1, sizeof(*m)))) {
        return -FI_ENOMEM;
    }
    m->dom = dom;
    m->buf = buf;
    m->len = len;
    m->access = access;
    m->entry = -1;
    m->nic_off = UINT64_MAX;
    m->event = remote && ((flags & FI_RMA_EVENT) || dom->rma_event);
    m->base = (dom->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)buf : offset;
    if (m->base > DN1_RVA_VA(~0ull) || len > DN1_RVA_VA(~0ull) - m->base + 1) {
        free(m);
        return -FI_EINVAL;          /* beyond the 48 bits an RVA carries */
    }

    pthread_mutex_lock(&mr_lock);
    sync_retry(dom->node);
    if (dom->mr_mode & FI_MR_PROV_KEY) {
        /* The node's incarnation of this process (7 bits) above a count
         * (7 bits): no key of the node's 127 processes before matches one
         * of ours, so a write of a dead job still in the network finds no
         * registration (refused), whatever its key. 32 entries at most
         * live at once, so 128 keys go round without a clash. */
        /* With several host ports the count's top 2 bits are the port:
         * the processes of a node never make the same key (a table entry
         * each, at most 16 a port then, so 32 keys go round). */
        int inc = dn_port_incarnation(dom->node);
        unsigned tries = 0, count_bits = dnf_share.ports > 1 ? 5 : 7;
        do {
            m->wire = (uint16_t)(DNF_MR_KEY_BIT | (m->event ? DNF_MR_KEY_EVENT : 0) |
                                 (unsigned)(inc > 0 ? inc & 0x7f : 0) << 7 |
                                 dnf_share.port << count_bits |
                                 (next_key++ & ((1u << count_bits) - 1)));
        } while (key_in_use(m->wire) && ++tries < 0x80u);
        m->mr.key = m->wire;
    } else if (dnf_mr_wire(dom, requested_key, &m->wire, NULL) || key_in_use(m->wire)) {
        rc = -FI_ENOKEY;
        goto out;
    } else {
        m->mr.key = requested_key;
    }
    FI_INFO(&dnf_prov, FI_LOG_MR, "register %p+%zu access %#llx\n", (void *)buf, len,
            (unsigned long long)access);
    if (remote) {
        unsigned idx;

        if (entry_free() == dnf_share.mr_end) {
            FI_WARN(&dnf_prov, FI_LOG_MR, "all %u registrations for remote access in "
                    "use\n", dnf_share.mr_end - dnf_share.mr_first);
            rc = -FI_ENOSPC;
            goto out;
        }
        if (!in_recv_mem(dom->node, buf, len, &m->nic_off)) {
            /* Moved onto the card (or a share of pages moved already,
             * which then stay while this registration lives; runs the
             * receive cache kept are checked first, or moved back for
             * room). What does not fit is paged: moved there a piece at
             * a time as the NIC asks for it. */
            rc = len <= MR_MAX_LEN
                     ? alias_take_checked(dom->node, buf, len, 0, 0, &m->alias) : -FI_ENOSPC;
            if (rc == -FI_ENOSPC && !(rc = paged_register(dom->node, m))) {
                m->nic_off = UINT64_MAX;
                m->next = mr_all;
                mr_all = m;
                goto out;
            }
            if (rc) {
                goto out;
            }
            m->nic_off = m->alias->off + (uint64_t)(buf - m->alias->addr);
        }
        /* Chosen now: moving other registrations' pages may take entries. */
        idx = entry_free();
        int st = idx < dnf_share.mr_end
                     ? dn_mr_set(dom->node, idx, m->wire, m->base, (uint32_t)m->nic_off,
                                 (uint32_t)len, mr_access_bits(access))
                     : DN_EBUSY;
        if (st != DN_OK) {
            if (m->alias) {
                alias_drop(dom->node, m->alias);
            }
            rc = st == DN_EBUSY ? -FI_ENOSPC : -dnf_errno(st);
            goto out;
        }
        m->entry = (int)idx;
        mr_entry[idx] = m;
    } else {
        nic_off_of(dom->node, buf, len, &m->nic_off);    /* an RDMA source if so */
    }
    m->next = mr_all;
    mr_all = m;
out:
    pthread_mutex_unlock(&mr_lock);
    if (rc) {
        free(m);
        return rc;
    }
    m->mr.fid.fclass = FI_CLASS_MR;
    m->mr.fid.context = context;
    m->mr.fid.ops = &mr_fi_ops;
    m->mr.mem_desc = m;
    atomic_fetch_add(&dom->mr_refs, 1);
    *out = &m->mr;
    return 0;
}

static int mr_reg(struct fid *fid, const void *buf, size_t len, uint64_t access,
                  uint64_t offset, uint64_t requested_key, uint64_t flags,
                  struct fid_mr **mr, void *context)
{
    struct dnf_domain *dom = container_of(fid, struct dnf_domain, dom.fid);

    if (fid->fclass != FI_CLASS_DOMAIN) {
        return -FI_EINVAL;
    }
    return mr_register(dom, (uint8_t *)buf, len, access, offset, requested_key, flags,
                       context, mr);
}

/* One contiguous piece only (iov_limit 1). */
static int mr_regv(struct fid *fid, const struct iovec *iov, size_t count,
                   uint64_t access, uint64_t offset, uint64_t requested_key,
                   uint64_t flags, struct fid_mr **mr, void *context)
{
    if (count != 1 || !iov) {
        return -FI_EINVAL;
    }
    return mr_reg(fid, iov[0].iov_base, iov[0].iov_len, access, offset, requested_key,
                  flags, mr, context);
}

static int mr_regattr(struct fid *fid, const struct fi_mr_attr *attr, uint64_t flags,
                      struct fid_mr **mr)
{
    if (!attr || attr->auth_key_size || attr->iface != FI_HMEM_SYSTEM) {
        return -FI_EINVAL;
    }
    return mr_regv(fid, attr->mr_iov, attr->iov_count, attr->access, attr->offset,
                   attr->requested_key, flags, mr, attr->context);
}

struct fi_ops_mr dnf_mr_ops = {
    .size = sizeof(struct fi_ops_mr),
    .reg = mr_reg,
    .regv = mr_regv,
    .regattr = mr_regattr,
};

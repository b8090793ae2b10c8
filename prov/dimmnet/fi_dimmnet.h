/*
 * What the provider "dimmnet" offers beyond libfabric's API, for
 * benchmarks: the modeled clock of the process's DIMMnet-1 board, and the
 * charge for an application's own reads and writes of card memory. Found
 * with dlsym() in the provider libfabric loaded (an MPI program has no
 * libfabric handles): dlopen("FI_PROVIDER_PATH/libdimmnet-fi.so",
 * RTLD_NOW | RTLD_NOLOAD), then dlsym(handle, "fi_dimmnet_clock").
 */
#ifndef FI_DIMMNET_H
#define FI_DIMMNET_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The board's clock in ns (its virtual time: modeled under --timing);
 * *host_sync (may be NULL) is 1 when the host is synced too
 * (--deterministic): then host waits cost modeled time, not wall-clock
 * time, and differences of this clock are the modeled figures. 0, or
 * -FI_ENODEV when no domain is open in this process, or -FI_EIO. */
int fi_dimmnet_clock(uint64_t *now_ns, int *host_sync);
typedef int (*fi_dimmnet_clock_fn)(uint64_t *now_ns, int *host_sync);

/* A symbol of the provider libfabric loaded from FI_PROVIDER_PATH, or NULL
 * (not loaded). */
static inline void *fi_dimmnet_sym(const char *name)
{
    const char *dir = getenv("FI_PROVIDER_PATH");
    char path[4096];
    void *h;

    snprintf(path, sizeof(path), "%s/libdimmnet-fi.so", dir ? dir : ".");
    h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);     /* the one libfabric loaded */
    return h ? dlsym(h, name) : NULL;
}

/* The clock of the provider libfabric loaded, or NULL (not loaded, no
 * domain open yet, or no board clock). */
static inline fi_dimmnet_clock_fn fi_dimmnet_find_clock(void)
{
    return (fi_dimmnet_clock_fn)(uintptr_t)fi_dimmnet_sym("fi_dimmnet_clock");
}

/* That clock if the cluster keeps deterministic modeled time (host sync:
 * its differences are modeled figures), else NULL. */
static inline fi_dimmnet_clock_fn fi_dimmnet_modeled_clock(void)
{
    fi_dimmnet_clock_fn clock = fi_dimmnet_find_clock();
    uint64_t ns;
    int sync = 0;

    return clock && clock(&ns, &sync) == 0 && sync ? clock : NULL;
}

/* An application reads (@write 0) or writes (@write 1) @len bytes at
 * @buf: the bytes of it that lie on the card (a zero-copy receive's
 * pages, moved onto the card and mapped from there) are charged, under
 * host sync, as the host profile's uncached loads or write-combined
 * stores of the card's memory (docs/hardware.md section 9); bytes in host
 * memory cost the application's own work, which is not charged. Returns
 * the bytes found on the card, -FI_ENODEV when no domain is open in this
 * process, -FI_EINVAL for a NULL @buf with a length. Found as the clock
 * is, by dlsym(handle, "fi_dimmnet_touch"). */
long fi_dimmnet_touch(const void *buf, size_t len, int write);
typedef long (*fi_dimmnet_touch_fn)(const void *buf, size_t len, int write);

static inline fi_dimmnet_touch_fn fi_dimmnet_find_touch(void)
{
    return (fi_dimmnet_touch_fn)(uintptr_t)fi_dimmnet_sym("fi_dimmnet_touch");
}

/*
 * The shim's collective engine (dn_coll_*, dimmnet1(3) "Collectives") on
 * the process's node, for an MPI library's coll component: every call
 * takes the provider's lock. Opaque handles; status codes are the shim's
 * (DN_OK 0, DN_E* negative). fi_dimmnet_coll_ops(FI_DIMMNET_COLL_VERSION)
 * is NULL for another version or when no domain is open.
 */
#define FI_DIMMNET_COLL_VERSION 3u
struct dn_coll_join;
struct dn_coll_config;
struct fi_dimmnet_coll_ops {
    unsigned version;
    uint16_t addr;          /* this process: node | port << 12 */
    unsigned nodes;         /* nodes of the cluster */
    unsigned ports;         /* host ports a node: multicast (group 0) iff 1 */
    size_t join_size;       /* sizeof(struct dn_coll_join) */
    void (*config_default)(struct dn_coll_config *cfg);
    int (*join_prepare)(struct dn_coll_join *mine);
    void (*join_cancel)(const struct dn_coll_join *mine);
    int (*create_joined)(const struct dn_coll_config *cfg,
                         const struct dn_coll_join *all, void **comm);
    void (*comm_free)(void *comm);
    /* Non-blocking starts; type and op are enum dn_coll_type / dn_coll_op. */
    int (*ibarrier)(void *comm, void **req);
    int (*ibcast)(void *comm, void *buf, size_t count, int type, unsigned root,
                  void **req);
    int (*ireduce)(void *comm, const void *sbuf, void *rbuf, size_t count,
                   int type, int op, unsigned root, void **req);
    int (*iallreduce)(void *comm, const void *sbuf, void *rbuf, size_t count,
                      int type, int op, void **req);
    int (*iallgather)(void *comm, const void *sbuf, void *rbuf, size_t count,
                      int type, void **req);
    int (*ialltoall)(void *comm, const void *sbuf, void *rbuf, size_t count,
                     int type, void **req);
    int (*ireduce_scatter)(void *comm, const void *sbuf, void *rbuf, size_t count,
                           int type, int op, void **req);
    int (*test)(void *req, int *done);      /* frees req once done */
    int (*progress)(void *comm);
    /* A blocking wait's turn without news: the node's idle (dn_idle)
     * alone (since version 3); the caller gives the other traffic its
     * turns (coll/dimmnet: opal_progress, now and then). */
    int (*idle)(void);
};
const struct fi_dimmnet_coll_ops *fi_dimmnet_coll_ops(unsigned version);
typedef const struct fi_dimmnet_coll_ops *(*fi_dimmnet_coll_ops_fn)(unsigned version);

static inline const struct fi_dimmnet_coll_ops *fi_dimmnet_find_coll_ops(void)
{
    const char *dir = getenv("FI_PROVIDER_PATH");
    char path[4096];
    fi_dimmnet_coll_ops_fn fn = NULL;
    void *h;

    snprintf(path, sizeof(path), "%s/libdimmnet-fi.so", dir ? dir : ".");
    h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (h) {
        fn = (fi_dimmnet_coll_ops_fn)(uintptr_t)dlsym(h, "fi_dimmnet_coll_ops");
    }
    return fn ? fn(FI_DIMMNET_COLL_VERSION) : NULL;
}

#endif

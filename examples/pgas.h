/*
 * What the two PGAS examples (ompl_flag.c, splitc_sync.c) share: the
 * libfabric side of a partitioned global address space on DIMMnet-1.
 *
 * Every node opens one endpoint on the provider "dimmnet" and registers one
 * segment of the same size for remote writes and reads (the NIC refuses
 * anything outside it). Every node learns every other node's fabric
 * address, segment base and key through the launcher's rendezvous, so a
 * global address is (node, offset into that node's segment).
 *
 * Completions are counted, not queued: the CQ is bound with
 * FI_SELECTIVE_COMPLETION and every write, read and atomic bumps one
 * counter (FI_WRITE | FI_READ). Waiting for all of them is waiting for the
 * counter to reach the number posted.
 */
#ifndef EXAMPLES_PGAS_H
#define EXAMPLES_PGAS_H

#include <stddef.h>
#include <stdint.h>
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>

#define PGAS_MAX_NODES 16
#define PGAS_WAIT_MS   60000     /* a guard against hanging, not a measure */

struct pgas {
    unsigned me, nodes;
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_cntr *cntr;
    struct fid_ep *ep;
    struct fid_mr *mr;
    uint8_t *seg;                        /* this node's segment */
    size_t seg_len;
    int virt_addr;                       /* remote addresses: pointers, or offsets */
    fi_addr_t addr[PGAS_MAX_NODES];      /* node i in the AV */
    uint64_t base[PGAS_MAX_NODES];       /* node i's segment byte 0, as a remote address */
    uint64_t key[PGAS_MAX_NODES];        /* node i's segment key */
    uint64_t posted;                     /* operations posted that bump cntr */
};

/*
 * Open everything, register a zeroed segment of @seg_len bytes from malloc
 * (its pages move onto the card) and meet the other nodes. @virt_addr: 1
 * for FI_MR_VIRT_ADDR (a remote address is the target's pointer), 0 for
 * offsets from the segment's start (Split-C's base + offset). @caps: extra
 * capabilities (FI_MSG for remote CQ data). Exits on failure.
 */
void pgas_init(struct pgas *g, size_t seg_len, int virt_addr, uint64_t caps);
/* Every node reaches this point, then close everything. */
void pgas_finalize(struct pgas *g);

/* The remote address of @off in node @node's segment. */
uint64_t pgas_raddr(const struct pgas *g, unsigned node, size_t off);

/* Post a write (@src must stay put until it completes) / a read of node
 * @node's segment at @off; retried while the provider answers -FI_EAGAIN.
 * Each bumps the counter once when done. */
void pgas_put(struct pgas *g, unsigned node, size_t off, const void *src, size_t len);
void pgas_get(struct pgas *g, unsigned node, size_t off, void *dst, size_t len);
/* Write the 64-bit @value to node @node's segment at @off (injected: the
 * value is copied at once). @fence: FI_FENCE, so it starts only once every
 * operation posted before it on this endpoint has completed. */
void pgas_put_word(struct pgas *g, unsigned node, size_t off, uint64_t value, int fence);

/* Wait until every operation posted so far has completed (the counter
 * reaches g->posted); returns how many completed in error (0: all good). */
uint64_t pgas_sync(struct pgas *g);

/* Drive the provider once (manual progress: queued operations, such as one
 * behind a fence, go out only inside calls into the provider). */
void pgas_progress(struct pgas *g);

/* Wait until the 64-bit word at @off of this node's own segment holds
 * @value, driving progress and yielding the CPU meanwhile. 0 when it did,
 * -1 after PGAS_WAIT_MS without. */
int pgas_wait_word(struct pgas *g, size_t off, uint64_t value);
/* The word's value now (one atomic load). */
uint64_t pgas_load_word(const struct pgas *g, size_t off);

/* Bytes of a pattern that names what wrote them (seed) and where (i). */
void pgas_fill(uint8_t *p, size_t n, uint32_t seed);
/* The first index that differs from the pattern, or n if none. */
size_t pgas_check(const uint8_t *p, size_t n, uint32_t seed);

#endif

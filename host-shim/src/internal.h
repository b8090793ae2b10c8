/* Host shim internals shared by its source files. */
#ifndef DN_INTERNAL_H
#define DN_INTERNAL_H

#include <stdint.h>
#include "dimmnet1/dn.h"
#include "dimmnet1/hostbus.h"
#include "dimmnet1/shared_mem.h"

/* Transfers remembered until waited for; a transfer must be waited for
 * before this many later ones start, or dn_wait() says DN_ESTALE. */
#define DN_XFER_SLOTS 64u

/* Tags of transfers stay below bit 30 (they start there and 2^30 packets
 * would have to pass to reach bit 31); message packets have bit 31 set,
 * barrier packets bit 30 (DN_BAR_TAG_BIT). */
#define DN_XFER_TAG_MASK 0x3fffffffu
#define DN_MSG_TAG_BIT   0x80000000u
#define DN_ANSWERED      (2u * DN1_LLCM_CQ_ENTRIES)
#define DN_ANSWERED_NONE 0xffffffffu   /* no transfer's tag (bit 31 set) */

struct dn_msg_state;
struct dn_atomic_state;

/*
 * Posted host-bus requests (docs/hardware.md, "Host bus"): a BOTF kick or
 * an AOTF store of a packet that will be answered (a message packet, a
 * tracked transfer's) goes without waiting for the NIC's response, on a
 * board without timing. At most this many are not yet taken by the NIC;
 * each one's packet (destination, tag) is kept until then, so that an
 * error notice reaches its owner.
 */
#define DN_HB_POSTED_MAX 64u
/* Posted requests the message layer may hold before one write: as many
 * as the board takes in one read (MARTINI_HB_BATCH). */
#define DN_HB_COMBINE_MAX 16u

int dn_wait_ready(dn_node *n, int timeout_ms, int wait_link);

/* A transfer's packets carry the consecutive tags first_tag.. */
struct dn_xfer_rec {
    int in_use;
    uint32_t id;
    uint32_t first_tag;
    uint32_t packets;          /* sent so far */
    uint32_t acked;
    uint32_t nacked;
    uint8_t reason;            /* of the first NACK */
    uint16_t from;
    uint32_t failed;           /* posted packets the NIC refused */
    int error;                 /* the first such refusal's DN_E* */
    uint64_t answered;         /* packet k (< 64) answered: bit k */
    /* What dn_resend needs to send an unanswered packet again (remote
     * writes only): how it went, where to, and its bytes. */
    uint8_t redo;              /* DN_REDO_* */
    uint8_t redo_flags;        /* DN1_FLAG_VA for an RVA */
    uint16_t redo_dst;
    uint64_t redo_raddr;
    const uint8_t *redo_buf;   /* BOTF: the caller's bytes */
    uint64_t redo_local;       /* RDMA: their receive memory offset */
    size_t redo_len;
};
enum { DN_REDO_NONE, DN_REDO_BOTF, DN_REDO_RDMA };
/* Packets of a transfer dn_resend can tell apart. */
#define DN_REDO_PACKETS 64u

/*
 * dn_idle without host sync: yield this many turns in a row with nothing
 * new from the NIC, then sleep this long each turn (the CPU goes to the
 * boards' processes; a reply in the emulated cluster takes longer).
 */
#define DN_IDLE_SPINS    128u
#define DN_IDLE_SLEEP_NS 10000

/* Host sync: virtual time one turn of a polling loop costs (an LLCM load). */
#define DN_POLL_NS DN1_HOST_LOAD_NS
/* A polling turn with host sync (dn_idle, the barrier's): the loads it
 * made, or one; the shim's instructions for it; *now_ns the board's clock. */
int dn_sync_turn(dn_node *n, uint64_t *now_ns);

/* A host profile (host_cost.c): what the host's own work costs. */
struct dn_host_profile {
    const char *name;
    uint32_t ps_insn;          /* picoseconds an instruction */
    uint32_t ps_copy_byte;     /* a byte copied in host memory */
    uint32_t ps_pio_byte;      /* a byte the host writes into NIC memory */
    uint32_t uc_read_bytes;    /* bytes one uncached load of a bulk read takes */
};
/* dn_host_charge's kinds past the public ones: bytes written into window
 * memory (a BOTF window, an RDMA descriptor; the board charges the DIMM's
 * rate for them, the shim what the profile's host takes beyond it); bytes
 * read from / written to the card's memory in bulk (host_cost.c). */
/*
 * The shim's own instructions on the data path, charged at the profile's
 * rate for a program that calls it directly: a barrier call, a transfer or
 * message call (a send or receive and its wait), a packet it builds and
 * sends (a BOTF packet, an RDMA descriptor; an AOTF store is the host's
 * one store), a turn of a polling loop. Their counts are the host-charge
 * table's rows shim.* (host_charges.c; bench/measure_shim_insns.py counts
 * them with callgrind; docs/hardware.md section 9). A layer that counted
 * the shim's with its own (the libfabric provider) turns them off
 * (dn_host_self).
 */
enum dn_self_path { DN_SELF_BARRIER, DN_SELF_XFER, DN_SELF_PACKET, DN_SELF_TURN, DN_SELF_PATHS };
void dn_self(dn_node *n, enum dn_self_path path);
/* The collectives' own paths, charged at their estimates (COLL_*_INSNS; not
 * yet in the table: docs/collectives.md, "Limitations"). */
void dn_self_count(dn_node *n, uint64_t insns);
/* The table (host_charges.c), at dn_open: required under host sync with a
 * profile that charges instructions (a clear error on stderr otherwise). */
int dn_host_charges_load(dn_node *n, int required);

#define DN_HOST_PIO       100
#define DN_HOST_NIC_READ  DN_HOST_CARD_READ
#define DN_HOST_NIC_WRITE DN_HOST_CARD_WRITE

struct dn_node {
    unsigned node_id;
    /* Host port (contract 1.27): this process's host-bus stream of the
     * board's `ports`; its completion queue and posted counters are at
     * LLCM `llcm_port`, and it owns a share of the BOTF windows, RDMA
     * descriptors and registration entries. */
    unsigned port, ports;
    uint32_t llcm_port;
    uint8_t port_inc;          /* dn_port_incarnation, ports above 0 */
    unsigned win_first, win_count;
    unsigned desc_first, desc_count;
    unsigned mr_first, mr_end;     /* registration-table entries */
    int hb_fd;
    int host_sync;             /* requests take effect in virtual time */
    const struct dn_host_profile *host;
    uint64_t host_ps;          /* work charged, not yet sent with a request */
    uint64_t host_charged_ns;  /* sent so far */
    uint64_t dimm_bytes;       /* moved over the DIMM bus, not yet sent */
    uint64_t by_kind_ps[8];    /* charged since dn_open (dn_host_charges) */
    uint32_t turn_loads;       /* uncached loads since the last dn_idle */
    int self_off;              /* a layer above charges the shim's instructions */
    uint64_t self_insns[DN_SELF_PATHS];     /* the table's shim.* rows */
    struct dn_charge_row *charges;          /* the host-charge table */
    unsigned ncharges;
    int timed;                 /* the board keeps modeled time (TIMING_SYNC) */
    uint8_t *hostmem;
    char *hostmem_path;         /* for dn_hostmem_alias */
    size_t hostmem_size;
    uint8_t *llcm;
    size_t llcm_size;
    uint8_t *window;
    size_t window_size;

    unsigned next_window;      /* BOTF windows are used in turn */
    unsigned botf_windows;     /* how many: 2, or more without timing (0: 2) */
    unsigned next_desc;        /* RDMA descriptors, round robin */
    uint32_t first_tag;        /* tag of the first packet since dn_open */
    uint32_t next_tag;
    uint16_t next_seq;
    uint32_t cq_consumed;
    uint32_t completed;        /* packets answered (or given up), so that
                                  next_tag - first_tag - completed are in flight */
    uint32_t next_xfer_id;
    struct dn_xfer_rec xfers[DN_XFER_SLOTS];
    /* The tags answered lately, at tag % DN_ANSWERED (DN_ANSWERED_NONE:
     * none): a second answer to one packet (a duplicate the network made,
     * or a receiver's firmware answering a duplicate again) is not counted.
     * Twice the packets that may be in flight, so a slot is not reused
     * while its packet could still be answered. */
    uint32_t answered[DN_ANSWERED];
    /* Posted requests: numbered as the NIC counts them (LLCM HB_POSTED). */
    int hb_post;               /* post what may be posted (timing off) */
    uint32_t hb_posted;        /* the number the next posted request gets */
    uint32_t hb_taken;         /* LLCM HB_POSTED, as last read */
    uint32_t hb_failed;        /* error notices read (vs. LLCM HB_FAILED) */
    /* Write combining (timing off): posted requests the message layer made
     * wait here and go in one write (dn_hb_flush). */
    int hb_combine;            /* allowed (DIMMNET_HB_COMBINE) */
    int hb_combining;          /* now: the message layer is sending */
    unsigned hb_wcount;
    uint8_t hb_wbuf[DN_HB_COMBINE_MAX * sizeof(struct dn1_hb_req)];
    struct {
        uint32_t tag;
        uint16_t dst;
    } hb_owner[DN_HB_POSTED_MAX];   /* by number % DN_HB_POSTED_MAX */
    /* The posted kick that last used each BOTF window: the window is the
     * NIC's until it has taken that kick. */
    uint32_t win_kick[DN1_BOTF_WINDOWS];
    uint8_t win_kick_posted[DN1_BOTF_WINDOWS];
    /* dn_idle without host sync: what the NIC last wrote that the shim
     * watches, and how many idle turns saw nothing new since. */
    uint32_t idle_sig;
    uint32_t idle_turns;
    struct {
        int open;
        int ack;               /* channel asks for ACKs */
        uint32_t size;
        uint16_t dst;          /* where it points (for re-pointing only on change) */
        uint64_t raddr;
    } aotf[DN1_AOTF_CHANNELS];
    uint32_t coll_ch_used[8];  /* collectives' channels (coll.h): last use, for LRU */
    uint32_t coll_ch_tick;
    struct dn_msg_state *msg;  /* message exchange, once dn_msg_init ran */
    struct dn_atomic_state *atomic;    /* remote atomics, from the first post */
    struct dn_barrier *barriers[16];   /* by id (DN_BARRIER_MAX) */
    uint8_t coll_slots;                /* collectives: comm slots in use (bit s) */
    int (*coll_idle)(void *arg);       /* ... their waits' idle turn (dn_coll_set_idle) */
    void *coll_idle_arg;
    struct dn_coll_comm *coll_comm[8]; /* ... and the communicator open in each */
    unsigned barrier_created[16];      /* how often each id was created */
};

/* Host port @port of @ports (contract 1.27): its LLCM block and shares. */
void dn_port_setup(dn_node *n, unsigned port, unsigned ports);

/* Little-endian fields of shared memories and the host bus. */
static inline void dn_put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static inline uint64_t dn_get_le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--) {
        v = v << 8 | p[i];
    }
    return v;
}

/* A 32-bit LLCM word shared with the NIC (little-endian, like this host). */
static inline volatile uint32_t *dn_llcm32(dn_node *n, uint32_t off)
{
    return (volatile uint32_t *)(n->llcm + off);
}

int dn_hb_call(dn_node *n, uint32_t op, uint64_t arg0, uint64_t arg1,
               uint64_t arg2, uint64_t *value);

/* Host profile (host_cost.c): pick it from DIMMNET_HOST_PROFILE (DN_EINVAL
 * for an unknown name); charge work; the op bits that carry the charge
 * to the next request (and take it off what waits), and the DIMM time of
 * the host's accesses in *arg2's bits 32-63. */
int dn_host_profile_init(dn_node *n);
void dn_host_charge(dn_node *n, int kind, uint64_t count);
uint32_t dn_host_take(dn_node *n, uint64_t *arg2);

/*
 * The host's uncached accesses to LLCM words (docs/hardware.md section 9,
 * "The host's accesses to the card"), each charged: dn_ld32 an acquiring
 * load, dn_st32 a releasing store; dn_nic_read a bulk read from the
 * card's memory (a record, a notice) into host memory.
 */
static inline uint32_t dn_ld32(dn_node *n, uint32_t off)
{
    dn_host_charge(n, DN_HOST_LOAD, 1);
    return __atomic_load_n((uint32_t *)(n->llcm + off), __ATOMIC_ACQUIRE);
}

static inline void dn_st32(dn_node *n, uint32_t off, uint32_t v)
{
    dn_host_charge(n, DN_HOST_STORE, 1);
    __atomic_store_n((uint32_t *)(n->llcm + off), v, __ATOMIC_RELEASE);
}

void dn_nic_read(dn_node *n, void *dst, const void *src, size_t len);

/* Send @op posted (n->hb_post must be set): no response awaited. A failure
 * reaches the owner of (@dst, @tag) later: dn_msg_on_post_error for a
 * message packet, else the transfer whose packet it was (dn_wait). *num:
 * the request's number. */
int dn_hb_post(dn_node *n, uint32_t op, uint64_t arg0, uint64_t arg1,
               uint64_t arg2, unsigned dst, uint32_t tag, uint32_t *num);
/* Read what the NIC says of posted requests (taken, failed; a failure's
 * notice goes to its owner). Cheap when nothing is posted. */
int dn_hb_reap(dn_node *n);
/* Wait until the NIC has taken posted request @num. */
int dn_hb_wait_taken(dn_node *n, uint32_t num);
/* Posting starts from the NIC's count (after a first response). */
void dn_hb_posted_init(dn_node *n);
/* Wait until every posted request has been taken (dn_close). */
void dn_hb_settle(dn_node *n);
/* Write the posted requests that wait in the combining buffer (every
 * other request, dn_idle and dn_hb_wait_taken do so first). */
int dn_hb_flush(dn_node *n);
/* A posted packet of transfer tag @tag failed with @err (completion.c). */
void dn_xfer_post_error(dn_node *n, uint32_t tag, int err);

/* A soft-indirect pointer slot's LLCM offset: 16-aligned, in the user area. */
int dn_soft_slot_ok(uint32_t slot_off);

/* BOTF windows the shim uses in turn: the paper's two with timing (the
 * modeled figures), all 16 without, for more posted kicks in flight;
 * DIMMNET_BOTF_WINDOWS=N (2..16) sets how many then. */
void dn_botf_windows_init(dn_node *n);

/* Build one packet in the next BOTF window (they take turns) and kick it,
 * asking for an ACK unless @dst is a group. */
int dn_botf_packet(dn_node *n, uint8_t type, uint8_t flags, unsigned dst,
                   uint64_t raddr, uint32_t xoff, const uint8_t *payload,
                   uint16_t len, uint32_t tag, uint16_t seq);
/* The same, the kick posted if the node posts (n->hb_post): for a packet
 * whose tag has an owner (a message packet's, a tracked transfer's). */
int dn_botf_packet_posted(dn_node *n, uint8_t type, uint8_t flags,
                          unsigned dst, uint64_t raddr, uint32_t xoff,
                          const uint8_t *payload, uint16_t len, uint32_t tag,
                          uint16_t seq);

/* One RDMA packet of @len (<= 2048) bytes the NIC reads at @local of this
 * node's receive memory, with the given tag, f_seq and offset. */
int dn_rdma_packet(dn_node *n, uint8_t type, unsigned dst, uint64_t raddr,
                   uint64_t local, uint32_t xoff, uint16_t len, uint32_t tag,
                   uint16_t seq);

/* A remote write of @len bytes the NIC reads at @local, in RDMA packets
 * that ask for no ACK (nothing is tracked; the collectives' reader asks
 * again for what it misses). */
int dn_rdma_untracked(dn_node *n, unsigned dst, uint64_t raddr, uint64_t local, size_t len);

/* What dn_resend needs of a remote write: @buf (BOTF) or @local (RDMA). */
void dn_xfer_redo(struct dn_xfer_rec *r, uint8_t how, uint8_t flags, unsigned dst,
                  uint64_t raddr, const void *buf, uint64_t local, size_t len);
/* dn_resend's sends: one BOTF packet under a tracked transfer's @tag (the
 * kick posted as a transfer's are), and an RDMA run of @len bytes whose
 * packets take the tags @first_tag.. (*sent: the packets that left). */
int dn_botf_packet_tracked(dn_node *n, uint8_t type, uint8_t flags, unsigned dst,
                           uint64_t raddr, uint32_t xoff, const uint8_t *payload,
                           uint16_t len, uint32_t tag);
int dn_rdma_run_tracked(dn_node *n, uint8_t flags, unsigned dst, uint64_t raddr,
                        uint64_t local, size_t len, uint32_t first_tag, uint32_t xoff,
                        uint64_t *sent);

/* Message exchange (msg*.c): a completion record for a message packet
 * (tag with DN_MSG_TAG_BIT), and teardown at dn_close. */
void dn_msg_on_record(dn_node *n, uint32_t tag, uint8_t kind, uint8_t reason,
                      uint16_t from);
void dn_msg_fini(dn_node *n);
/* A posted kick of a message packet to @dst failed with @err. */
void dn_msg_on_post_error(dn_node *n, unsigned dst, uint32_t tag, int err);
/* Packets of messages in flight (they share the completion queue). */
uint32_t dn_msg_inflight(const dn_node *n);

/* Start a transfer record for @x; after each packet sent, dn_xfer_sent(). */
struct dn_xfer_rec *dn_xfer_begin(dn_node *n, dn_xfer *x);
void dn_xfer_sent(dn_node *n, struct dn_xfer_rec *r, dn_xfer *x);
void dn_cq_drain(dn_node *n);
/*
 * Records the host does not count as in flight but the NIC may still post:
 * a second answer to a packet the network duplicated or the shim resent
 * under its tag, a late answer to a transfer forgotten. Room is kept for
 * them, so that they do not overflow the queue and take the place of a
 * record someone waits for (the NIC drops what does not fit, ERR_CQ_FULL).
 */
#define DN_CQ_SPARE 32u

/* Wait until fewer than @limit packets are in flight, DN_CQ_SPARE kept
 * besides. */
int dn_cq_wait_room(dn_node *n, uint32_t limit, int timeout_ms);
int64_t dn_now_ms(void);
/* Now, in ns: the board's modeled clock with host sync, else wall clock. */
uint64_t dn_msg_now_ns(dn_node *n);

/* Remote atomics (atomic.c): tags 0x60000000 | 29 bits (barrier tags never
 * have bit 29); a completion record for one (1 if it was an atomic's);
 * answers awaited (they share the completion queue); teardown. */
#define DN_ATOMIC_TAG_MASK 0xe0000000u
#define DN_ATOMIC_TAG      0x60000000u
int dn_atomic_on_record(dn_node *n, uint32_t tag, uint8_t kind, uint8_t reason);
uint32_t dn_atomic_inflight(const dn_node *n);
void dn_atomic_fini(dn_node *n);

/* dn_botf_packet flags: ask for no ACK (a firmware type that answers
 * itself, e.g. ATOMIC); never on the wire. */
#define DN_BOTF_NO_ACK 0x80u

/* Barrier packets' completion records (tags with DN_BAR_TAG_BIT). */
#define DN_BAR_TAG_BIT   0x40000000u
void dn_barrier_on_record(dn_node *n, uint32_t tag, uint8_t kind, uint8_t reason,
                          uint16_t from);
void dn_barrier_fini(dn_node *n);

/* node.c: the node opened under host sync, if any (NULL otherwise). */
extern dn_node *dn_sync_waiter;

#endif

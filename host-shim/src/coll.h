/*
 * Collectives internals (NBC-SIA, seed 001), shared by coll_area.c (the
 * area in receive memory, frames and stamps, writes, resend requests,
 * credits), coll_comm.c (communicators), coll_sched.c (requests, epochs,
 * progress), coll_algo.c (the implementations' schedules), coll_select.c
 * (run-time choice) and coll_op.c (reduction kernels, canonical order).
 * Design: docs/collectives.md; the area: docs/hardware.md section 7.
 */
#ifndef DN_COLL_H
#define DN_COLL_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"

/*
 * The collectives' area: receive memory [0, DN_COLL_AREA_SIZE), host port
 * p of K owning [p, p + 1) * DN_COLL_AREA_SIZE / K. A port's share starts
 * with a header (COLL_HDR bytes), then DN_COLL_COMMS comm slots; a slot is
 * a landing half (where others write to this process) and a staging half
 * (what this process's NIC reads for its RDMA writes), each of
 * DN_COLL_INFLIGHT regions, one an epoch in flight (epoch e uses region
 * e mod DN_COLL_INFLIGHT).
 */
#define COLL_HDR           0x8000u
#define COLL_JOIN          0x0000u   /* root of a first comm: member r's join word at + 8 r:
                                        {attempt:32, nonce:32} */
#define COLL_WELCOME       0x0200u   /* member: the root's answer {nonce echoed, incarnation} */
#define COLL_NONCE         0x0208u   /* nonces this port handed out (kept by the board) */
#define COLL_SLOT_BLOCK(s) (0x1000u + 0x800u * (s))
#define COLL_FREED         0x000u    /* in a slot block: {gen, epochs freed} (this process) */
#define COLL_NEED          0x040u    /* + 8 r: member r's resend request to this process:
                                        gen:24 seq:12 mask:4 epoch:24 (coll_area.c, ask) */
#define COLL_CREDIT        0x400u    /* + 8 r: member r's freed word, read remotely */
#define COLL_PUSHED        0x600u    /* + 8 r: member r's freed word, pushed by AOTF */
#define COLL_FRAME         2048u     /* an RDMA packet: frames of unicast messages */
#define COLL_MFRAME        464u      /* a BOTF packet: frames of multicast messages */
#define COLL_STAMP         8u        /* a frame's first and last 8 bytes */
#define COLL_OVER          24u       /* a frame's bytes beside its payload: stamps, check */

_Static_assert(COLL_SLOT_BLOCK(DN_COLL_COMMS) <= COLL_HDR, "slot blocks fit the header");
_Static_assert(COLL_PUSHED + 8u * DN_COLL_MAX_MEMBERS <= 0x800u, "pushed words fit a slot block");
_Static_assert(DN_COLL_COMMS <= 8, "dn_node's coll_comm[] and coll_slots hold 8");
_Static_assert(DN_COLL_INFLIGHT <= 4, "a resend request's mask has 4 bits");

/*
 * Small messages (docs/collectives.md "Small messages"): up to 8 bytes on
 * a communicator where every member may send AOTF (one host port a node)
 * go as AOTF stores of AOTF channels COLL_AOTF_CH0.. (one a destination,
 * its whole collectives' area: re-pointed only for a new one) into the cell, the
 * payload word at + 16, then the check word at + 8 (coll_small_check); no
 * stamps, no staging, no RDMA. An empty message is the check word alone.
 */
#define COLL_AOTF_CH0      8u
#define COLL_AOTF_CHS      8u        /* channels 8-15 */
#define COLL_SMALL         8u

/* The host's instructions a message posted costs the library (an RDMA
 * post's or an AOTF arrival's bookkeeping): an estimate until measured. */
#define COLL_SEND_INSNS    120u

/* Layout of a port's share, the same on every process of a run (ports = K). */
struct coll_layout {
    uint64_t share;              /* bytes a port owns */
    uint64_t slot;               /* bytes a comm slot owns */
    uint64_t region;             /* bytes a region owns (a multiple of 8) */
};
void coll_layout(unsigned ports, struct coll_layout *l);
/* Receive memory offset of port @port's share, of its comm slot @s, of
 * region @r of the landing (@staging 0) or staging half. */
uint64_t coll_share_off(unsigned port, unsigned ports);
uint64_t coll_region_off(unsigned port, unsigned ports, unsigned s, int staging, unsigned r);

/* Stamp of frame @f of cell @cell, epoch @epoch, comm incarnation @gen:
 * never 0 (bit 63), and different for every other frame a cell could
 * hold: the incarnation's low 23 bits, the epoch's 24, cell and frame. */
static inline uint64_t coll_stamp(uint32_t gen, uint32_t epoch, unsigned cell, unsigned f)
{
    return (uint64_t)(gen & 0x7fffffu) << 40 | (uint64_t)(epoch & 0xffffffu) << 16 |
           (uint64_t)(cell & 0xffu) << 8 | (f & 0xffu) | 1ull << 63;
}

/* The frames of a message: @fs bytes apart (COLL_FRAME, COLL_MFRAME, or the
 * whole cell when smaller), each a stamp, a check word, up to fs - 24
 * payload bytes (padded to 8), a stamp. The check (coll_check of the
 * payload, seeded by the stamp) catches what the stamps cannot: a late
 * packet of an earlier epoch (a duplicate, one the network held) smaller
 * than the frame, landed inside its payload between the writer's write
 * and the reader's copy, touching neither stamp. */
struct coll_geom {
    uint32_t fs;                 /* frame stride */
    uint32_t frames;
    uint32_t span;               /* bytes from the first frame's start to the last's end */
};
void coll_geom(uint32_t cell_size, int mcast, size_t bytes, struct coll_geom *g);

/* A frame's check word: @len payload bytes (the last word zero-padded)
 * mixed word by word from the frame's stamp, then finished (murmur3's
 * fmix64) so that every bit of every word reaches every bit of the check.
 * Unfinished, a word's top three bits never reached the low half, which
 * is all a small message's check keeps: a late 4-byte message of an
 * earlier epoch, a float 2.0 beside it read as 0.0, passed (issue 37). */
static inline uint64_t coll_check(uint64_t stamp, const uint8_t *p, size_t len)
{
    uint64_t h = stamp * 0x9e3779b97f4a7c15ull;

    for (size_t i = 0; i < len; i += 8) {
        uint64_t w = 0;
        memcpy(&w, p + i, len - i < 8 ? len - i : 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 29;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

/* The host's instructions of coll_check over @words payload words (xor,
 * multiply, shift a word; eight for the finish): charged to writer and
 * reader. */
#define COLL_CHECK_INSNS(words) (3u * (words) + 8u)

/* A small message's check word: the upper half a tag of the stamp alone
 * (coll_small_tag), which a reader polls with one load, the lower half a
 * check of the payload seeded by the stamp, which catches a late store of
 * an earlier epoch's payload word that landed beside this epoch's check.
 * @tag: coll_small_tag(@stamp), which a reader has already. */
static inline uint64_t coll_small_tag(uint64_t stamp)
{
    return coll_check(stamp, NULL, 0) & 0xffffffff00000000ull;
}

static inline uint64_t coll_small_check(uint64_t stamp, uint64_t tag, uint64_t word,
                                        size_t bytes)
{
    uint8_t w[8];

    dn_put_le(w, word, 8);
    return tag | (uint32_t)coll_check(stamp, w, bytes);
}
/* Payload bytes a cell of @cell_size holds. */
size_t coll_cell_cap(uint32_t cell_size, int mcast);
/* Lay @bytes of @src out as frames at @dst (host or card memory; charged
 * by where it lies): stamps for (gen, epoch, cell). */
void coll_frames_write(dn_node *n, uint8_t *dst, const void *src, size_t bytes,
                       const struct coll_geom *g, uint32_t gen, uint32_t epoch,
                       unsigned cell);

/* Ops of a schedule. */
enum {
    OP_SEND = 1,       /* write a message to peer's cell (RDMA from staging) */
    OP_MCAST,          /* write one to every member's cell (switch multicast) */
    OP_RECV,           /* take a message from my cell: copy into dst */
    OP_RECV_RED,       /* take one and combine with dst (incoming on the right,
                          or on the left with flag OPF_LEFT) */
    OP_COPY,           /* local copy src -> dst */
    OP_CANON,          /* dst = canonical combine of the N blocks at src (stride bytes) */
    OP_FW,             /* the firmware combine: arrive with src's value at rank 0's
                          counter, wait for the result, copy it to dst (coll_fw.c) */
};
#define OPF_LEFT  1u
#define OPF_MCAST 2u   /* RECV of a multicast message (its frame geometry) */

struct coll_op {
    uint8_t kind, flags, done;
    uint16_t peer;               /* SEND: destination rank; RECV: source rank */
    uint8_t cell;                /* SEND: its cell at the peer; RECV: mine */
    uint8_t msg;                 /* SEND/MCAST: the staged message (staging index) */
    void *dst;
    const void *src;
    size_t bytes;
    size_t count;                /* RECV_RED, CANON: elements */
    size_t stride;               /* CANON: bytes between blocks */
    uint64_t frames_done;        /* RECV: frame f taken: bit f */
    uint64_t wait_since, ask_at; /* RECV: when it began waiting; next resend request */
    uint16_t asks;
    uint64_t word, check;        /* SEND/MCAST of a small message: what was stored */
    uint32_t fw_epoch;           /* FW: its epoch at the counter (0: not arrived yet) */
};

struct coll_round { uint16_t first, count; };

#define COLL_MAX_OPS    (4u * DN_COLL_MAX_MEMBERS + 16u)
#define COLL_MAX_ROUNDS (2u * DN_COLL_MAX_MEMBERS + 8u)

/* One epoch: a piece of a collective with its own region and schedule. */
struct coll_epoch {
    uint32_t epoch;
    struct dn_coll_req *req;
    unsigned nops, nrounds, round;
    struct coll_op ops[COLL_MAX_OPS];
    struct coll_round rounds[COLL_MAX_ROUNDS];
    uint32_t cell_size;          /* landing cells of this epoch's implementation */
    uint64_t staged;             /* staging message k written: bit k */
    uint64_t dsts;                /* members written to (bit r): the staging's readers */
    void *tmp;                   /* scratch of the schedule */
    int started, done;
    uint8_t *mcast_copy;         /* a multicast message's frames, for resends */
    size_t mcast_len;
    uint8_t mcast_cell;
};

/* Implementations (coll_algo.c): index into a kind's table. */
struct coll_impl {
    const char *name;
    int mcast;                   /* needs the switch group */
    int pow2;                    /* needs a power-of-two size */
    unsigned (*ncells)(unsigned nmembers);
    /* Elements a piece may have, from the payload a cell holds. */
    size_t (*piece)(size_t cell_cap, size_t esize, unsigned nmembers);
    /* Build epoch @ep: piece [@a, @b) of request @rq's elements. */
    int (*build)(struct dn_coll_comm *c, struct coll_epoch *ep, size_t a, size_t b);
    /* Can it serve a call of @type, @op and @bytes on @c? (NULL: any call
     * the communicator allows.) */
    int (*usable)(const struct dn_coll_comm *c, unsigned type, unsigned op, size_t bytes);
};
#define COLL_MAX_IMPLS 5u
extern const struct coll_impl *const coll_impls[DN_COLL_KINDS][COLL_MAX_IMPLS + 1];

/* Selection (coll_select.c): one key a (kind, op, type, size class). */
#define COLL_SEL_KEYS 64u
struct coll_sel {
    int used;
    uint8_t kind, op, type, sclass;
    int chosen;                  /* impl index, -1 while trying */
    unsigned calls;              /* calls seen */
    unsigned cand[COLL_MAX_IMPLS];   /* candidates' impl indexes, in trial order */
    unsigned ncand;
    /* This member's span over a candidate's trials but the first (a
     * warm-up: it takes the skew the previous calls left): from the
     * earliest start to the latest end, so the host's time between calls
     * and a root's run ahead count as a caller sees them. */
    uint64_t span_start[COLL_MAX_IMPLS], span_end[COLL_MAX_IMPLS];
    uint64_t own_ns[COLL_MAX_IMPLS];     /* the span */
    uint64_t slowest_ns[COLL_MAX_IMPLS]; /* the slowest member's: what is compared */
    unsigned trials_done[COLL_MAX_IMPLS];
    uint8_t reduced[COLL_MAX_IMPLS];     /* its max-reduction started */
    unsigned pending;            /* max-reductions of candidates' times in flight */
    unsigned outstanding;        /* trial calls not complete yet */
};

struct dn_coll_req {
    struct dn_coll_comm *c;
    uint8_t kind, type, op;
    unsigned root;
    const void *sbuf;
    void *rbuf;
    size_t count;                /* elements (a block's for allgather/alltoall/reduce_scatter) */
    size_t esize;
    int impl;                    /* index in coll_impls[kind] */
    int sel_key, sel_cand;       /* selection key and candidate being tried (-1: none) */
    unsigned sel_trial;          /* which of the candidate's trials, from 0 */
    int internal;                /* the selection's own max-reduction */
    int checking;                /* DIMMNET_COLL_CHECK's comparison (not selected, not counted) */
    uint64_t sel_value;          /* internal: the value reduced */
    uint32_t first_epoch, epochs, epochs_started, epochs_done;
    int complete;
    uint64_t t_start, t_end;
    int status;
    int64_t deadline_ms;
    struct dn_coll_req *next;    /* the comm's queue of requests not yet all started */
    void *tmp;                   /* a request's own scratch (reductions in place) */
};

struct coll_peer {
    uint16_t addr;
    uint8_t slot;                /* its comm slot */
    uint32_t freed;              /* epochs it freed, as last read */
    int credit_busy;
    dn_xfer credit_x;
    uint64_t credit_at;
    uint64_t blocked_at;         /* a write first waited for its credit (0: none waits) */
    uint32_t wrote;              /* the last epoch this process wrote to it */
    uint8_t wrote_any;
    uint64_t need_seen;          /* its last resend request handled */
    uint8_t in_comm;             /* seen in this communicator (a frame taken, its freed word) */
    uint8_t left;                /* then its freed word of another incarnation: it freed this one */
};

struct dn_coll_comm {
    dn_node *n;
    struct dn_coll_config cfg;
    unsigned rank, size, ports;
    unsigned slot;               /* my comm slot */
    uint32_t gen;                /* the comm's incarnation: the same on every member */
    int broken;                  /* a collective failed: the members no longer agree */
    int progressing;             /* inside its progress (another comm's turn skips it) */
    int check;                   /* DIMMNET_COLL_CHECK: calls compared before they start */
    int mcast_ok;                /* one port a node, the same slot everywhere, a group */
    int aotf_ok;                 /* small messages by AOTF: one port a node */
    struct coll_layout lay;
    struct coll_peer peer[DN_COLL_MAX_MEMBERS];
    uint32_t next_epoch;         /* the next epoch to give out */
    uint32_t freed;              /* epochs below this one done (published) */
    uint32_t pushed;             /* freed as last pushed to writers (AOTF comms) */
    uint64_t push_to;            /* writers of epochs freed since: members */
    /* The latest epoch of each region (e at e % DN_COLL_INFLIGHT), kept
     * once done until a later epoch takes the region: its staging still
     * serves resend requests. */
    struct coll_epoch *ep[DN_COLL_INFLIGHT];
    struct dn_coll_req *queue, *queue_tail;    /* requests with epochs not yet started */
    unsigned in_flight;          /* requests started, not yet complete */
    uint64_t resend_ns, resend_cap_ns;
    uint64_t scan_at;            /* next look at the resend requests */
    uint32_t ask_seq;            /* resend requests made (each word differs) */
    /* First comm's root: joins answered (nonce last welcomed per member). */
    int first;
    uint64_t joined[DN_COLL_MAX_MEMBERS];  /* {attempt, nonce} last answered */
    /* Selection. */
    int forced[DN_COLL_KINDS];   /* impl index, -1: auto */
    struct coll_sel sel[COLL_SEL_KEYS];
    /* The firmware combine (coll_fw.c): usable here, the epochs of rank
     * 0's combining group (the first, the next to give out, the last
     * whose result this member took), its AOTF channel's base. */
    int fw_ok;
    uint32_t fw_base, fw_next, fw_seen;
    uint64_t fw_ch_raddr;
    struct dn_coll_stats st;
    uint64_t impl_calls[DN_COLL_KINDS][COLL_MAX_IMPLS];
};

static inline int coll_small(const struct dn_coll_comm *c, size_t bytes)
{
    return c->aotf_ok && bytes <= COLL_SMALL;
}

/* coll_comm.c: an idle turn of a collectives' wait (dn_coll_set_idle). */
int coll_idle(dn_node *n);

/* coll_area.c */
uint64_t coll_now(struct dn_coll_comm *c);
uint64_t coll_my_block(struct dn_coll_comm *c);
uint64_t coll_peer_block(struct dn_coll_comm *c, unsigned r);
uint64_t coll_peer_region(struct dn_coll_comm *c, unsigned r, unsigned region);
int coll_word_put(struct dn_coll_comm *c, uint16_t addr, uint64_t raddr, uint64_t v);
uint64_t coll_ld64(dn_node *n, uint64_t off);
void coll_st64(dn_node *n, uint64_t off, uint64_t v);
/* Credit: may epoch @epoch be written into member @r's region? (else a
 * read of its freed word is under way). */
int coll_credit(struct dn_coll_comm *c, unsigned r, uint32_t epoch);
/* A turn of the sender's side: credit replies, resend requests (now and then). */
void coll_serve(struct dn_coll_comm *c, uint64_t now);
int coll_try_op(struct dn_coll_comm *c, struct coll_epoch *ep, struct coll_op *o, uint64_t now);
void coll_publish_freed(struct dn_coll_comm *c);
/* Epochs [@from, c->freed) freed: tell their writers (AOTF comms). */
void coll_push_freed(struct dn_coll_comm *c, uint32_t from);

/* coll_select.c: an unstarted allreduce MAX of @count uint64 (the first
 * implementation, not selected), for the library's own agreements. */
/* How many of a candidate's @trials are warm-ups, not timed. */
unsigned coll_sel_warmup(unsigned trials);
struct dn_coll_req *coll_max_req(const uint64_t *in, uint64_t *out, size_t count);

/* coll_sched.c */
void coll_epoch_free(struct coll_epoch *ep);
int coll_start(struct dn_coll_comm *c, struct dn_coll_req *rq, dn_coll_req **out);
int coll_progress(struct dn_coll_comm *c);
struct coll_op *coll_add(struct coll_epoch *ep, int kind);
void coll_round_end(struct coll_epoch *ep);

/* coll_select.c */
int coll_select(struct dn_coll_comm *c, struct dn_coll_req *rq);
void coll_selected_done(struct dn_coll_comm *c, struct dn_coll_req *rq);
/* May implementation @i of @kind serve a call of @type, @op and @bytes on @c? */
int coll_impl_ok(struct dn_coll_comm *c, unsigned kind, unsigned i, unsigned type, unsigned op,
                 size_t bytes);

/* coll_fw.c: the firmware combine (docs/collectives.md "The firmware
 * combine"; contract: docs/hardware.md section 11, "Combining"). Rank 0's
 * node counts in its barrier group COLL_FW_GROUP(slot); every member's
 * result lands in its LLCM at COLL_FW_LLCM(slot); its arrivals go through
 * AOTF channel COLL_FW_CH(slot). */
#define COLL_FW_GROUP(s)   (DN_BARRIER_MAX + (s))
#define COLL_FW_LLCM(s)    (DN_BARRIER_LLCM_OFF + 0x400u * COLL_FW_GROUP(s))
#define COLL_FW_CH(s)      (24u + (s))
/* When the communicator opens: can it combine in firmware (one port a
 * node, ranks in ascending node id, every member's area in the same
 * slot)? Rank 0 sets its group up. */
void coll_fw_open(struct dn_coll_comm *c);
int coll_fw_usable(const struct dn_coll_comm *c, unsigned type, unsigned op, size_t bytes);
int coll_fw_usable_barrier(const struct dn_coll_comm *c, unsigned type, unsigned op,
                           size_t bytes);
/* An OP_FW of @bytes (<= 8) from @src into @dst (NULL: the result is not
 * wanted), its epoch at the counter given out now. */
int coll_fw_add(struct dn_coll_comm *c, struct coll_epoch *ep, const void *src, void *dst,
                size_t bytes);
int coll_fw_try(struct dn_coll_comm *c, struct coll_epoch *ep, struct coll_op *o, uint64_t now);

/* coll_op.c: @inout = @inout op @in (or @in op @inout with @left), @count
 * elements; the canonical combine of @nblocks blocks. Charges the host's
 * work. */
int coll_op_ok(unsigned type, unsigned op);
/* Names for messages and reports ("?" out of range). */
const char *coll_type_name(unsigned type);
const char *coll_op_name(unsigned op);
void coll_combine(dn_node *n, unsigned type, unsigned op, void *inout, const void *in,
                  size_t count, int left);
void coll_canon(dn_node *n, unsigned type, unsigned op, void *out, const uint8_t *blocks,
                size_t stride, unsigned nblocks, size_t count);
/* Order-sensitive (floating-point sums and products). */
int coll_op_inexact(unsigned type, unsigned op);

#endif

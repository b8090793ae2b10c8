/*
 * Barrier internals, shared by barrier.c (objects, AUTO's choice, the
 * report, resending), barrier_fw.c (the firmware counting barriers: ours
 * and the paper's as the paper built it) and
 * barrier_host.c (the host-assisted ones and the max-reduction AUTO uses).
 * Design: docs/barriers.md; contract: docs/hardware.md section 11.
 */
#ifndef DN_BARRIER_H
#define DN_BARRIER_H

#include <stdint.h>
#include "internal.h"
#include "dimmnet1/barrier.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/packet.h"

/* The barrier's LLCM block on every member (DN_BARRIER_LLCM_OFF + 1024 id):
 * 8-byte words {u32 epoch, u32 value}, each written by one AOTF store. */
#define BAR_BLOCK_SIZE   0x400u
#define BAR_DONE         0x000u   /* firmware completions land here */
#define BAR_RELEASE      0x008u   /* HOST_MCAST: the root's multicast release */
#define BAR_ARRIVE       0x010u   /* HOST_MCAST, at the root: member r's arrival at + 8 r */
#define BAR_ROUNDS       0x210u   /* HOST: dissemination round k at + 8 k */
#define BAR_REDUCE       0x240u   /* AUTO's max-reduction, round k at + 8 k */
#define BAR_JOIN_ANSWER  0x280u   /* the root's answer to this member's join: {join word
                                     echoed, incarnation} (barrier_join.c) */
#define BAR_PAPER_DONE   0x288u   /* FIRMWARE_PAPER*: its completions land here */
#define BAR_JOIN_STATE   0x290u   /* this node's, kept across processes (host only):
                                     {joins asked, last incarnation taken or given} */
#define BAR_REPORT       0x300u   /* the report, for dnctl (host-written) */
#define BAR_MAX_ROUNDS   6u       /* ceil(log2 64) */
#define BAR_REPORT_MAGIC 0x52524142u   /* "BARR" */

/* Epochs of one incarnation of a barrier object start at incarnation <<
 * BAR_EPOCH_SHIFT (so that packets of an earlier object, of this process or
 * of a dead one, still in the network or left in LLCM, are older than any
 * new one): barrier_join.c. */
#define BAR_EPOCH_SHIFT  20u

struct dn_barrier {
    dn_node *n;
    struct dn_barrier_config cfg;
    unsigned rank, root_rank;     /* indexes into cfg.members */
    uint32_t llcm;                /* LLCM offset of the block */
    unsigned channel;             /* AOTF channel, re-pointed as needed */
    int ch_open;
    uint8_t ch_type;
    uint16_t ch_dst;
    uint64_t ch_raddr;
    uint64_t resend_ns, resend_cap_ns;

    /* Last epoch entered, per family; the last word sent, for resends. */
    uint32_t fw_epoch, dis_epoch, cen_epoch, red_epoch;
    int in_fw, in_cen;            /* inside a FIRMWARE* / HOST_MCAST call */
    unsigned dis_sent, red_sent;  /* rounds sent at least once */
    uint64_t dis_last[BAR_MAX_ROUNDS], red_last[BAR_MAX_ROUNDS];
    uint32_t cen_released;        /* root: last epoch released (0: none) */
    int fw_mode;                  /* root: mode last written in the descriptor */
    uint32_t inc;                 /* the object's incarnation, the same on every member */
    uint32_t join;                /* member: its join word until answered (0: joined) */
    int answering;                /* root: answers joins (until its first barrier is done) */
    uint32_t answered[DN1_BAR_MAX_NODE];   /* root: join word answered, per rank */
    uint32_t paper_epoch;         /* FIRMWARE_PAPER*: calls so far (only tags packets) */
    int paper_ready;              /* FIRMWARE_PAPER*: the root's set-up is armed */

    enum dn_barrier_algorithm current;   /* chosen (AUTO while trying) */
    unsigned cand[4], ncand;      /* AUTO's candidates */
    uint64_t calls, resends, nacks, last_ns;
    struct { uint32_t trials; uint64_t own_ns, slowest_ns; } stat[DN_BARRIER_ALGORITHMS];
    struct bar_timer { uint64_t next, step; } idle;   /* dn_barrier_progress's resend
                                                         timer (next 0: not started) */
    int fatal;
    uint8_t last_nack;
    char text[160];
};

/* One 8-byte AOTF store of {epoch, value} to @dst's LLCM word @off (in this
 * barrier's block), or of type BARRIER to the root's counter. */
int bar_store_word(struct dn_barrier *b, unsigned dst, uint32_t off, uint32_t epoch,
                   uint32_t value);
int bar_store_counter(struct dn_barrier *b, uint32_t epoch);
int bar_store_paper(struct dn_barrier *b, uint32_t epoch);
/* One 4-byte AOTF store of @join into the root's LLCM word @off. */
int bar_store_join(struct dn_barrier *b, uint32_t off, uint32_t join);
static inline int bar_is_paper(enum dn_barrier_algorithm a)
{
    return a == DN_BARRIER_FIRMWARE_PAPER || a == DN_BARRIER_FIRMWARE_PAPER_MCAST;
}

/* The word @off of this node's block: epoch and value. */
uint64_t bar_word(struct dn_barrier *b, uint32_t off);
/* Has @word (its epoch half) reached @epoch of the object's incarnation?
 * Only an epoch of this incarnation's window [inc << BAR_EPOCH_SHIFT,
 * + 2^BAR_EPOCH_SHIFT) counts, so a word an earlier object left (in LLCM,
 * or written late by a packet still in the network) needs no resetting:
 * the host never writes a word the NIC writes (on a DIMM slot a host
 * store or atomic is not atomic against the NIC's writes). */
static inline int bar_epoch_reached(const struct dn_barrier *b, uint64_t word, uint32_t epoch)
{
    uint32_t base = b->inc << BAR_EPOCH_SHIFT;
    uint32_t got = (uint32_t)word - base;

    return got < (1u << BAR_EPOCH_SHIFT) && got >= epoch - base;
}

/* Poll until @done(b, arg) says so, resending this member's parts when it
 * takes resend_ns (doubling up to a cap), giving up after timeout_ms. */
int bar_wait(struct dn_barrier *b, int (*done)(struct dn_barrier *, void *), void *arg);
/* Send again everything this member may owe others (see barrier.c). */
void bar_resend(struct dn_barrier *b);
uint32_t bar_tag(const struct dn_barrier *b, uint32_t epoch);

/* The object's incarnation (barrier_join.c): the root takes the next one
 * at create (bar_join_start); every other member takes its join word
 * there and asks the root at its first wait, waiting for the answer
 * (bar_join_wait); the root answers from its polling loop (bar_join_poll)
 * while b->answering; bar_join_resend asks or answers again. */
int bar_join_start(struct dn_barrier *b);
int bar_join_wait(struct dn_barrier *b);
void bar_join_poll(struct dn_barrier *b);
void bar_join_resend(struct dn_barrier *b);

int bar_fw_setup(struct dn_barrier *b);
int bar_fw_wait(struct dn_barrier *b, int mcast);
int bar_paper_setup(struct dn_barrier *b);
int bar_paper_wait(struct dn_barrier *b);
int bar_dissemination(struct dn_barrier *b, uint32_t value, uint32_t *max_out, int reduce);
int bar_central_wait(struct dn_barrier *b);

#endif

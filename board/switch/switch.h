/*
 * dimmnet1-switch: the cluster's switch model (RHiNET-2/SW class: 8x8 and up,
 * multicast). Boards' link ports connect to its port sockets; it forwards
 * each frame by the packet's destination node (port = node id), replicates
 * multicast groups, injects seeded faults and writes one pcap of all traffic.
 * Contract: docs/hardware.md, "Switch".
 */
#ifndef DIMMNET1_SWITCH_H
#define DIMMNET1_SWITCH_H

#include <stdint.h>
#include <stdio.h>
#include "dimmnet1/link.h"
#include "dimmnet1/link_reasm.h"
#include "dimmnet1/packet.h"
#include "topology.h"

#define SW_MAX_PORTS   SW_MAX_NODES   /* board ports: port i = board i */
#define SW_FRAME_MAX   (DN1_LINK_FRAME_HDR + DN1_PKT_MAX_SIZE)
#define SW_MASK_WORDS  (SW_MAX_PORTS / 64)

struct sw_port {
    int listen_fd;
    int fd;                    /* -1: no board connected */
    struct dn1_link_reasm in;
    /* Output: frames the board has not read yet, in order; out_sent bytes
     * of the first one are already written. */
    uint8_t *out;
    size_t out_len, out_cap;
    uint32_t *out_sizes;       /* size of each queued frame, oldest first */
    size_t out_frames, out_sizes_cap, out_sent;
    uint8_t held[SW_FRAME_MAX];  /* a frame kept back to reorder */
    uint32_t held_len;
    struct sw_fault fault;
    uint64_t rng;
    int64_t reached;           /* timing: the horizon this board got to */
    uint32_t rx_seq;           /* frames numbered as they came in (sw_id.seq) */
    int booting;               /* ... and said so with DNB1 (still booting) */
    int64_t out_free;          /* timing: when the output link is free */
    /* Counters */
    uint64_t rx_frames, tx_frames, bad_frames, no_route, dropped, duplicated,
             corrupted, reordered, contended, held_back;
};

/* Which frame, and which copy of it: its source board, the number the
 * switch gave it as it came in from there, and each cable's duplicate
 * fault on its way (a bit a cable crossed: 1 for the second copy). Carried
 * with the frame, so that events are ordered by what they are, never by
 * when one process happened to make them (docs/scale.md, the fold plan). */
struct sw_id {
    uint32_t src, seq;
    uint64_t copy;
};

/* Timing: a frame waiting for its quantum, at one step of its way: from
 * board src into its switch (at < 0), at switch at after a link (stamp:
 * when its head left the switch before), or a held frame due to leave for
 * board out. Taken in the order of (stamp, frame id, at, out). */
struct sw_pend {
    int64_t stamp;
    struct sw_id id;
    uint32_t size;
    int32_t out;               /* >= 0: a held frame for board port out */
    int32_t at;                /* >= 0: the switch it has reached */
    uint8_t down, hops;        /* came down a link; switches crossed so far */
    uint64_t *members;         /* multicast: boards still to reach, else NULL */
    uint8_t *f;
};

struct sw_hold {               /* a frame held back (fault hold) */
    int64_t due;               /* timing: its new stamp; else wall-clock ns */
    uint32_t port, size;
    struct sw_id id;
    uint8_t *f;
};

/* Folds (fold.c): this process's part of a topology folded over several. */
#define SW_MAX_FOLDS   8
struct sw_fold_peer {
    int fd;                    /* -1: not connected (yet) */
    uint8_t *out, *in;
    size_t out_len, out_cap, in_fill;
    int64_t sub_h;             /* its last sub-window said done: horizon, phase */
    unsigned sub_phase;
    int64_t flags_h;           /* its last phase 2: horizon and flags */
    uint32_t flags;
};
struct sw_fold {
    unsigned index, count;     /* process index of count (count <= 1: alone) */
    int listen_fd;
    struct sw_fold_peer peer[SW_MAX_FOLDS];
    unsigned phase;            /* timing: 0 boards run; 1, 2: sub-window sent */
    int booting;               /* this process's boards all boot (phase 0) */
    int boards;                /* ... and it has some */
    uint64_t sent, sent_phase1;   /* events sent to peers, and at phase 1 */
    int broken;                /* a peer went away: stop */
};

struct sw {
    unsigned nports;
    struct sw_fold fold;
    struct sw_port port[SW_MAX_PORTS];
    struct sw_topo topo;
    uint64_t group[DN1_MCAST_GROUPS][SW_MASK_WORDS];   /* members per group */
    uint64_t hops[SW_MAX_HOPS + 1];   /* frames delivered, by switches crossed */
    FILE *pcap;
    int64_t quantum;           /* timing on: virtual ns granted at a time */
    int64_t horizon;           /* granted so far (0: not started) */
    uint64_t grants, boot_grants;  /* quanta granted, boot quanta of them */
    struct sw_pend *pend;      /* timing: this quantum's frames */
    size_t npend, pend_cap;
    struct sw_hold *hold;      /* frames held back, any port */
    size_t nhold, hold_cap;
};

typedef void (*sw_route_fn)(struct sw *sw, const struct sw_pend *e);
typedef void (*sw_release_fn)(struct sw *sw, unsigned port, uint8_t *f,
                              uint32_t size);

/* faults.c */
uint32_t sw_rand(uint64_t *state);
void sw_flip_bit(uint64_t *rng, uint8_t *f, uint32_t size);
int sw_parse_fault(struct sw *sw, const char *spec);
int sw_link_fault(struct topo_port *l, uint8_t *f, uint32_t size);

/* hop.c */
void sw_enter(struct sw *sw, unsigned src, uint32_t seq, uint8_t *f, uint32_t size);
void sw_step(struct sw *sw, const struct sw_pend *e);
void sw_emit(struct sw *sw, unsigned node, const uint8_t *f, uint32_t size,
             unsigned hops, const struct sw_id *id);

/* timing.c */
int sw_id_cmp(const struct sw_id *x, const struct sw_id *y);
void sw_batch_add(struct sw *sw, unsigned src, const uint8_t *f, uint32_t size);
void sw_batch_push(struct sw *sw, const struct sw_pend *e);
void sw_batch_flush(struct sw *sw, int64_t before, sw_route_fn route,
                    sw_release_fn release);
void sw_contend(struct sw_port *p, uint8_t *f, uint32_t size);
int64_t sw_link_contend(struct topo_port *l, int64_t left, uint32_t size);

/* hold.c */
void sw_hold_add(struct sw *sw, unsigned port, const uint8_t *f, uint32_t size,
                 int64_t due, const struct sw_id *id);
int64_t sw_hold_next(const struct sw *sw);
void sw_hold_release(struct sw *sw, int64_t before, sw_release_fn release);
void sw_hold_to_batch(struct sw *sw, int64_t before);

/* fold.c */
unsigned sw_fold_owner(const struct sw *sw, unsigned s);
int sw_fold_owns_port(const struct sw *sw, unsigned i);
void sw_fold_setup(struct sw *sw, const char *dir);
void sw_fold_accept(struct sw *sw);
int sw_fold_connected(const struct sw *sw);
void sw_fold_send(struct sw *sw, const struct sw_pend *e);
void sw_fold_send_sub(struct sw *sw, int64_t horizon, unsigned phase, uint32_t flags);
int sw_fold_all_sub(const struct sw *sw, int64_t horizon, unsigned phase, uint32_t *flags);
void sw_fold_flush(struct sw *sw, unsigned j);
void sw_fold_input(struct sw *sw, unsigned j, sw_route_fn route);

/* pcap.c */
int sw_pcap_open(struct sw *sw, const char *path);
void sw_pcap_record(struct sw *sw, const uint8_t *frame, uint32_t size);

#endif

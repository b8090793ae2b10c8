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

#define SW_MAX_PORTS   64
#define SW_FRAME_MAX   (DN1_LINK_FRAME_HDR + DN1_PKT_MAX_SIZE)

struct sw_fault {              /* per output port, probabilities in 1/1e6 */
    uint32_t drop, dup, corrupt, reorder, hold;
    uint64_t delay_ns;         /* added to the frame's time stamp */
    uint64_t hold_ns;          /* a held frame goes out this much later */
};

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
    int booting;               /* ... and said so with DNB1 (still booting) */
    int64_t out_free;          /* timing: when the output link is free */
    /* Counters */
    uint64_t rx_frames, tx_frames, bad_frames, no_route, dropped, duplicated,
             corrupted, reordered, contended, held_back;
};

struct sw_pend {               /* timing: a frame waiting for its quantum */
    int64_t stamp;
    uint32_t src, order, size;
    int32_t out;               /* -1: to route; else a held frame for port out */
    uint8_t *f;
};

struct sw_hold {               /* a frame held back (fault hold) */
    int64_t due;               /* timing: its new stamp; else wall-clock ns */
    uint32_t port, size, order;
    uint8_t *f;
};

struct sw {
    unsigned nports;
    struct sw_port port[SW_MAX_PORTS];
    uint64_t group[DN1_MCAST_GROUPS];   /* member bit mask per group */
    FILE *pcap;
    int64_t quantum;           /* timing on: virtual ns granted at a time */
    int64_t horizon;           /* granted so far (0: not started) */
    uint64_t grants, boot_grants;  /* quanta granted, boot quanta of them */
    struct sw_pend *pend;      /* timing: this quantum's frames */
    size_t npend, pend_cap;
    uint32_t pend_order;
    struct sw_hold *hold;      /* frames held back, any port */
    size_t nhold, hold_cap;
    uint32_t hold_order;
};

typedef void (*sw_route_fn)(struct sw *sw, unsigned src, const uint8_t *f,
                            uint32_t size);
typedef void (*sw_release_fn)(struct sw *sw, unsigned port, uint8_t *f,
                              uint32_t size);

/* faults.c */
uint32_t sw_rand(uint64_t *state);
int sw_parse_fault(struct sw *sw, const char *spec);

/* timing.c */
void sw_batch_add(struct sw *sw, unsigned src, const uint8_t *f, uint32_t size);
void sw_batch_flush(struct sw *sw, int64_t before, sw_route_fn route,
                    sw_release_fn release);
void sw_contend(struct sw_port *p, uint8_t *f, uint32_t size);

/* hold.c */
void sw_hold_add(struct sw *sw, unsigned port, const uint8_t *f, uint32_t size,
                 int64_t due);
int64_t sw_hold_next(const struct sw *sw);
void sw_hold_release(struct sw *sw, int64_t before, sw_release_fn release);
void sw_hold_to_batch(struct sw *sw, int64_t before);

/* pcap.c */
int sw_pcap_open(struct sw *sw, const char *path);
void sw_pcap_record(struct sw *sw, const uint8_t *frame, uint32_t size);

#endif

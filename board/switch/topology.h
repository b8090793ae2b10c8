/*
 * Topologies of switches for the switch model (docs/hardware.md, "Topologies"):
 * which switch each board hangs on, the cables between switches, and the
 * up*-down* routing tables computed from them. One dimmnet1-switch process
 * models the whole topology, so virtual time stays one timeline.
 */
#ifndef DIMMNET1_SWITCH_TOPOLOGY_H
#define DIMMNET1_SWITCH_TOPOLOGY_H

#include <stdint.h>
#include <stdio.h>

#define SW_MAX_NODES     512    /* boards a topology can describe */
#define SW_MAX_SWITCHES  2048
#define SW_MAX_RADIX     64     /* ports of one switch (port masks: 64 bits) */
#define SW_DEFAULT_RADIX 8      /* RHiNET-2/SW: 8 x 8 */
#define SW_MAX_HOPS      32     /* switches a route may cross */

struct sw_fault {              /* per output port, probabilities in 1/1e6 */
    uint32_t drop, dup, corrupt, reorder, hold;
    uint64_t delay_ns;         /* added to the frame's time stamp */
    uint64_t hold_ns;          /* a held frame goes out this much later */
};

struct topo_port {
    int32_t node;              /* the board on this port, or -1 */
    int32_t peer;              /* the switch at the other end, or -1 */
    uint32_t peer_port;
    /* A port toward a switch is an output link of its own: */
    int64_t out_free;          /* timing: when it is free */
    struct sw_fault fault;     /* drop, dup, corrupt and delay only */
    uint64_t rng;
    uint64_t tx_frames, contended, dropped, duplicated, corrupted;
};

struct topo_switch {
    unsigned radix, used;      /* ports it has; how many are cabled */
    struct topo_port *port;
    int depth;                 /* hops from the root set; -1: unreachable */
    int height;                /* hops from the nearest switch with boards */
    int leaf;                  /* index among switches with boards, or -1 */
};

struct sw_topo {
    unsigned nswitches, nnodes, nleaves;
    struct topo_switch *sw;
    uint16_t node_sw[SW_MAX_NODES];
    uint8_t node_port[SW_MAX_NODES];
    uint16_t *leaf_sw;         /* switch of each leaf index */
    /* route[(s * nleaves + leaf) * 2 + down]: the ports switch s may send a
     * frame for a board on that leaf out of; down = it came down a link. */
    uint64_t *route;
    char desc[96];             /* for the statistics */
};

/* Build @t for @nodes boards: @spec is NULL or "single" (one switch, port i
 * = node i), "fat-tree" (k-ary n-tree of @radix-port switches), "mesh:WxH",
 * "torus:WxH", or a topology file. 0, or -1 with a message in @err. */
int topo_build(struct sw_topo *t, const char *spec, unsigned nodes,
               unsigned radix, char *err, size_t errlen);

/* Compute the up*-down* tables; -1 with a message if some board cannot
 * reach another. */
int topo_route(struct sw_topo *t, char *err, size_t errlen);

/* The port switch @s sends a frame for board @node out of; @down: it
 * arrived over a link from above. -1: none (cannot happen once routed). */
int topo_next(const struct sw_topo *t, unsigned s, unsigned node, int down);

/* Whether a frame going from switch @a to its neighbour @b goes down. */
int topo_is_down(const struct sw_topo *t, unsigned a, unsigned b);

/* Walk every pair's route: legal (up* then down*), loop-free, and the
 * channel dependency graph acyclic. Prints a summary line (and with @all
 * one line per pair) to @out; 0 if all holds. */
int topo_check(const struct sw_topo *t, FILE *out, int all);

#endif

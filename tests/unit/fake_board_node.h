/*
 * A FAKE board for the shim's unit tests: a node whose host bus is one end
 * of a socket pair (the test plays the board on the other) and whose LLCM,
 * window memory and receive memory are the test's plain buffers.
 */
#ifndef TESTS_UNIT_FAKE_BOARD_NODE_H
#define TESTS_UNIT_FAKE_BOARD_NODE_H

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "../../host-shim/src/internal.h"
#include "dimmnet1/memmap.h"

/* The node (calloc'ed; free it), the board's end of the host bus in
 * *board; NULL if no socket pair. @hostmem may be NULL. */
static inline dn_node *fake_board_node(int *board, uint8_t *llcm, size_t llcm_size,
                                       uint8_t *window, size_t window_size,
                                       uint8_t *hostmem, size_t hostmem_size)
{
    dn_node *n = calloc(1, sizeof(*n));
    int sv[2];

    if (!n || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        free(n);
        return NULL;
    }
    *board = sv[1];
    n->hb_fd = sv[0];
    n->llcm = llcm;
    n->llcm_size = llcm_size;
    n->window = window;
    n->window_size = window_size;
    n->hostmem = hostmem;
    n->hostmem_size = hostmem_size;
    dn_port_setup(n, 0, 1);             /* a board of one host port */
    for (unsigned i = 0; i < DN_ANSWERED; i++) {
        n->answered[i] = DN_ANSWERED_NONE;
    }
    return n;
}

/* Message exchange settings for such a node: the defaults, with system
 * buffers for 2 senders that fit a test's 1 MiB receive memory. */
static inline void fake_msg_config(dn_node *n, struct dn_msg_config *cfg)
{
    dn_msg_config_default(n, cfg);
    cfg->sysbuf_off = 0x80000;
    cfg->sysbuf_bytes = 0x1000;
    cfg->senders = 2;
}

/* The NIC posts a completion record (ACK or NACK of the packet with @tag,
 * answered by node @src) into the completion queue of @llcm. */
static inline void fake_cq_post(uint8_t *llcm, uint32_t tag, uint8_t kind, uint16_t src)
{
    uint32_t produced;
    memcpy(&produced, llcm + DN1_LLCM_CQ_PRODUCED, 4);
    struct dn1_cq_rec rec = { .tag = tag, .kind = kind, .src = src, .index = produced };
    memcpy(llcm + DN1_LLCM_CQ_RING + (produced % DN1_LLCM_CQ_ENTRIES) * sizeof(rec),
           &rec, sizeof(rec));
    __atomic_store_n((uint32_t *)(llcm + DN1_LLCM_CQ_PRODUCED), produced + 1,
                     __ATOMIC_RELEASE);
}

#endif

/*
 * Bandwidth between two nodes, timed as the paper times Fig. 2 (seed 002,
 * section 5): from send start until the receiver's ACK for the last packet
 * is back, one blocking transfer after another. Node 0 sends, node 1
 * receives. Run it under the launcher; with --deterministic the figures
 * are modeled (the boards' virtual clock), otherwise wall-clock. Not a
 * test: it prints figures.
 *
 *   fig2_bench --series S [--count N] [--sysbuf BYTES] [--slow-receiver US]
 *              [--gap US] SIZE...
 *
 * Series (the names of build/bench/fig2.csv):
 *   botf-direct    remote direct write by BOTF, 464-byte packets, two windows
 *   rdma-direct    remote direct write by RDMA from receive memory, 2048-byte packets
 *   indirect       remote indirect write (firmware continue path), BOTF
 *   message        message exchange (dn_msg_send) by BOTF
 *   message-rdma   message exchange from receive memory, so by RDMA
 *   rvatlb-miss-continue  BOTF writes to remote virtual addresses the
 *                  receiver's RVATLB never holds: each packet misses and its
 *                  firmware continues it at the pointer kept in LLCM
 *   patlb-miss-continue   BOTF writes into a window the receiver's PATLB
 *                  never holds: the same through the PATLB
 *   patlb-miss-continue-nonintr  the same, the firmware polling instead of
 *                  taking the interrupt
 *   soft-indirect  "MP by soft indirect": every packet taken in firmware
 *                  (write started by it, flow control, notice, its own ACK)
 *   soft-indirect-fseq  the same with f_seq on each packet
 *   S-batched      for S one of soft-indirect, soft-indirect-fseq,
 *                  rvatlb-miss-continue, patlb-miss-continue: the same with
 *                  the receiver's firmware serving every held packet in one
 *                  interrupt (variant BATCH, ours); without the suffix one
 *                  interrupt a packet, as the paper's firmware
 *
 * --sysbuf gives each sender a system buffer of BYTES at the receiver and
 * --slow-receiver makes the receiver let US microseconds of host time pass
 * before each receive: together they fill the buffer, so that the firmware
 * NACKs (the message-nack path of build/bench/handlers.csv). --gap lets US
 * microseconds pass between the sender's transfers, so that each packet
 * gets an interrupt of its own (handler costs; not for bandwidth).
 *
 * Prints per size one line:
 *   fig2: series=S bytes=B count=N modeled|wall-clock us_per_xfer=.. mb_per_s=..
 * (MB = 10^6 bytes), and exits 1 on the first transfer that fails. Sizes
 * up to 1 MiB.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dimmnet1/dn.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/packet.h"

#define TIMEOUT_MS 600000
#define MAX_SIZES 32
#define MAX_BYTES (1u << 20)        /* below TX_SOURCE from RX_TARGET, below the system buffers */
#define RX_TARGET 0x100000u        /* where direct and indirect writes land */
#define TX_SOURCE 0x400000u        /* RDMA source in the sender's receive memory */
#define POINTER_SLOT (DN_RADDR_LLCM_USER + 0x100)  /* indirect: in LLCM, as in the paper */
#define WINDOW 0x800000u           /* PATLB variants: sent here, redirected to RX_TARGET */
#define RVA_BASE DN_RVA(1, 0x10000000u)
#define DONE_FLAG 0x200u           /* LLCM user area: the sender's "all done" */
#define DONE_VALUE 0x66696732646f6e65ull
#define READY_FLAG 0x208u          /* the receiver's "variant set" */
#define READY_VALUE 0x6669673272656479ull

#define SOFT_SLOT (DN1_LLCM_NIC_RESERVED + 0x300u)  /* soft indirect: LLCM offset */

enum series { BOTF_DIRECT, RDMA_DIRECT, INDIRECT, RVATLB_MISS, PATLB_MISS,
              PATLB_MISS_POLL, SOFT_INDIRECT, SOFT_INDIRECT_FSEQ, MESSAGE,
              MESSAGE_RDMA };
static const char *const series_names[] = {
    "botf-direct", "rdma-direct", "indirect", "rvatlb-miss-continue",
    "patlb-miss-continue", "patlb-miss-continue-nonintr", "soft-indirect",
    "soft-indirect-fseq", "message", "message-rdma",
};

static uint64_t now_ns(dn_node *n, int modeled)
{
    if (modeled) {
        uint64_t v = 0;
        dn_clock(n, &v);
        return v;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int usage(void)
{
    fprintf(stderr, "usage: fig2_bench --series botf-direct|rdma-direct|indirect|"
            "rvatlb-miss-continue|patlb-miss-continue|patlb-miss-continue-nonintr|"
            "soft-indirect|soft-indirect-fseq|message|message-rdma [--count N] SIZE... (under dimmnet-cluster -n 2)\n"
            "       (soft-indirect, soft-indirect-fseq, rvatlb-miss-continue and "
            "patlb-miss-continue also as NAME-batched)\n");
    return 2;
}

/* Series whose firmware work the variant BATCH changes. */
static int batchable(int s)
{
    return s == SOFT_INDIRECT || s == SOFT_INDIRECT_FSEQ || s == RVATLB_MISS ||
           s == PATLB_MISS;
}

/* One blocking transfer of @len bytes from node 0 to node 1. */
static int transfer(dn_node *n, enum series s, const uint8_t *buf, size_t len,
                    uint32_t i)
{
    dn_xfer x;
    int rc;

    switch (s) {
    case BOTF_DIRECT:
        rc = dn_botf_put(n, 1, RX_TARGET, buf, len, &x);
        break;
    case RDMA_DIRECT:
        rc = dn_rdma_write(n, DN1_TYPE_PUSH, 1, RX_TARGET, TX_SOURCE, len, &x);
        break;
    case INDIRECT:
        rc = dn_indirect_write(n, 1, POINTER_SLOT, buf, len, &x);
        break;
    case RVATLB_MISS:
        rc = dn_botf_put_rva(n, 1, RVA_BASE, buf, len, &x);
        break;
    case PATLB_MISS:
    case PATLB_MISS_POLL:
        rc = dn_botf_put(n, 1, WINDOW, buf, len, &x);
        break;
    case SOFT_INDIRECT:
    case SOFT_INDIRECT_FSEQ:
        rc = dn_soft_indirect_write(n, 1, SOFT_SLOT, buf, len,
                                    s == SOFT_INDIRECT_FSEQ, &x);
        break;
    default:
        return dn_msg_send(n, 1, i, buf, len, TIMEOUT_MS);
    }
    return rc == DN_OK ? dn_wait(n, &x, TIMEOUT_MS) : rc;
}

/* Wait, within virtual time, until a flag word the other node writes over
 * the network holds @value: with host sync a host blocked outside the shim
 * (a file rendezvous) stops its board, and so the whole cluster. */
static int wait_flag(dn_node *n, uint32_t off, uint64_t value)
{
    size_t size;
    volatile uint64_t *w = (volatile uint64_t *)(dn_llcm_user(n, &size) + off);
    time_t t0 = time(NULL);

    while (*w != value) {
        if (time(NULL) - t0 > TIMEOUT_MS / 1000) {
            return DN_ETIMEDOUT;
        }
        dn_idle(n);
    }
    return DN_OK;
}

static int send_flag(dn_node *n, unsigned dst, uint32_t off, uint64_t value)
{
    dn_xfer x;
    int rc = dn_botf_put(n, dst, DN_RADDR_LLCM_USER + off, &value, sizeof(value), &x);
    return rc == DN_OK ? dn_wait(n, &x, TIMEOUT_MS) : rc;
}

static int miss_variant(int s)
{
    return s >= RVATLB_MISS && s <= PATLB_MISS_POLL;
}

/* Receiver: the paper's miss-continue, the pointer kept in LLCM; soft
 * indirect sets its variant too (the same CONTROL either way, so that a
 * batched run and the paper's differ in BATCH alone). */
static int set_variant(dn_node *n, enum series s, int batched)
{
    struct dn_fw_variant v = {
        .miss_mode = miss_variant(s) ? DN_MISS_CONTINUE : DN_MISS_NACK,
        .patlb = miss_variant(s) && s != RVATLB_MISS,
        .poll = s == PATLB_MISS_POLL,
        .window_base = s == RVATLB_MISS ? RVA_BASE : WINDOW,
        .window_size = 1u << 20,
        .pointer_off = (uint32_t)(POINTER_SLOT - DN1_RADDR_LLCM),
        .batch = batched,
    };
    return dn_fw_variant_set(n, &v);
}

int main(int argc, char **argv)
{
    unsigned long count = 20, sysbuf = 0, slow_us = 0, gap_us = 0;
    int s = -1, batched = 0;
    char name[64] = "";
    size_t sizes[MAX_SIZES];
    int nsizes = 0;
    dn_node *n;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--count") && i + 1 < argc) {
            count = strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--sysbuf") && i + 1 < argc) {
            sysbuf = strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--gap") && i + 1 < argc) {
            gap_us = strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--slow-receiver") && i + 1 < argc) {
            slow_us = strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--series") && i + 1 < argc) {
            size_t len = strlen(argv[++i]);
            snprintf(name, sizeof(name), "%s", argv[i]);
            if (len > 8 && len < sizeof(name) && !strcmp(name + len - 8, "-batched")) {
                name[len - 8] = '\0';
                batched = 1;
            }
            for (unsigned k = 0; k < sizeof(series_names) / sizeof(*series_names); k++) {
                if (!strcmp(name, series_names[k])) {
                    s = (int)k;
                }
            }
            if (s >= 0 && batched && !batchable(s)) {
                s = -1;
            }
            snprintf(name, sizeof(name), "%s", argv[i]);
        } else if (nsizes < MAX_SIZES && argv[i][0] >= '0' && argv[i][0] <= '9') {
            sizes[nsizes++] = strtoul(argv[i], NULL, 0);
        } else {
            return usage();
        }
    }
    if (s < 0 || !nsizes || !count) {
        return usage();
    }
    int rc = dn_open_env(&n, 60000);
    if (rc != DN_OK) {
        fprintf(stderr, "fig2_bench: cannot open the node: %s\n", dn_strerror(rc));
        return 1;
    }
    unsigned me = dn_node_id(n);
    int modeled = dn_host_sync(n);
    size_t max = 0;
    for (int k = 0; k < nsizes; k++) {
        max = sizes[k] > max ? sizes[k] : max;
    }
    if (s == MESSAGE || s == MESSAGE_RDMA) {
        struct dn_msg_config cfg;
        dn_msg_config_default(n, &cfg);
        if (sysbuf) {
            cfg.sysbuf_bytes = (uint32_t)sysbuf;
        }
        if (slow_us) {
            cfg.stash_bytes = 0;    /* arrivals wait in the ring: it fills */
        }
        if ((rc = dn_msg_init(n, &cfg)) != DN_OK) {
            fprintf(stderr, "fig2_bench: message set-up: %s\n", dn_strerror(rc));
            return 1;
        }
    }
    if ((s == INDIRECT || miss_variant(s)) && me == 1 &&
        (rc = dn_indirect_slot_set(n, POINTER_SLOT, RX_TARGET)) != DN_OK) {
        fprintf(stderr, "fig2_bench: pointer slot: %s\n", dn_strerror(rc));
        return 1;
    }
    if ((s == SOFT_INDIRECT || s == SOFT_INDIRECT_FSEQ) && me == 1 &&
        (rc = dn_soft_slot_set(n, SOFT_SLOT, RX_TARGET, MAX_BYTES)) != DN_OK) {
        fprintf(stderr, "fig2_bench: soft-indirect slot: %s\n", dn_strerror(rc));
        return 1;
    }
    size_t memsize;
    uint8_t *mem = dn_hostmem(n, &memsize);
    uint8_t *buf = s == MESSAGE_RDMA && me == 0 ? mem + TX_SOURCE : calloc(1, max ? max : 1);
    if (max > MAX_BYTES || !buf) {
        return usage();
    }
    for (size_t k = 0; k < max; k++) {
        buf[k] = (uint8_t)(k * 7 + 1);
    }
    if (s == RDMA_DIRECT && me == 0) {
        memcpy(mem + TX_SOURCE, buf, max);
    }
    if (dn_rendezvous("fig2-start", TIMEOUT_MS) != DN_OK) {
        fprintf(stderr, "fig2_bench: the other node never came\n");
        return 1;
    }
    if (miss_variant(s) || batchable(s)) {
        /* The sender starts once the receiver's firmware runs the variant. */
        rc = me == 1 ? set_variant(n, (enum series)s, batched) : DN_OK;
        if (rc == DN_OK && me <= 1) {
            rc = me == 1 ? send_flag(n, 0, READY_FLAG, READY_VALUE)
                         : wait_flag(n, READY_FLAG, READY_VALUE);
        }
        if (rc != DN_OK) {
            fprintf(stderr, "fig2_bench: firmware variant: %s\n", dn_strerror(rc));
            return 1;
        }
    }
    for (int k = 0; k < nsizes && me <= 1; k++) {
        if (me == 1) {
            for (unsigned long i = 0; i < count && s >= MESSAGE; i++) {
                if (slow_us) {
                    dn_delay(n, slow_us * 1000u, NULL);
                }
                if ((rc = dn_msg_recv(n, 0, DN_ANY_TAG, buf, max, NULL, TIMEOUT_MS)) != DN_OK) {
                    fprintf(stderr, "fig2_bench: receive: %s\n", dn_strerror(rc));
                    return 1;
                }
            }
            continue;
        }
        uint64_t t0 = now_ns(n, modeled);
        for (unsigned long i = 0; i < count; i++) {
            if (gap_us) {
                dn_delay(n, gap_us * 1000u, NULL);
            }
            if ((rc = transfer(n, (enum series)s, buf, sizes[k], (uint32_t)i)) != DN_OK) {
                fprintf(stderr, "fig2_bench: %s, %zu bytes: %s\n", name,
                        sizes[k], dn_strerror(rc));
                return 1;
            }
        }
        double ns = (double)(now_ns(n, modeled) - t0);
        printf("fig2: series=%s bytes=%zu count=%lu %s us_per_xfer=%.3f mb_per_s=%.3f\n",
               name, sizes[k], count, modeled ? "modeled" : "wall-clock",
               ns / count / 1e3, sizes[k] * (double)count / (ns / 1e9) / 1e6);
        fflush(stdout);
    }
    /* The receiver stays until the sender has all its ACKs (a flag over
     * the network, not a rendezvous: see wait_flag). */
    if (me <= 1) {
        rc = me == 0 ? send_flag(n, 1, DONE_FLAG, DONE_VALUE)
                     : wait_flag(n, DONE_FLAG, DONE_VALUE);
        if (rc != DN_OK) {
            fprintf(stderr, "fig2_bench: the end of the run: %s\n", dn_strerror(rc));
            return 1;
        }
    }
    if (s < MESSAGE) {
        /* The last transfer's bytes must be where they were sent. */
        if (me == 1 && memcmp(mem + RX_TARGET, buf, sizes[nsizes - 1])) {
            fprintf(stderr, "fig2_bench: received data differ\n");
            return 1;
        }
    }
    if ((s == SOFT_INDIRECT || s == SOFT_INDIRECT_FSEQ) && me == 1) {
        /* The firmware told of every transfer once it was whole. */
        uint32_t done = 0;
        if (dn_soft_done(n, SOFT_SLOT, &done) != DN_OK ||
            done != count * (unsigned long)nsizes) {
            fprintf(stderr, "fig2_bench: %u soft-indirect notices, want %lu\n",
                    done, count * (unsigned long)nsizes);
            return 1;
        }
    }
    dn_close(n);
    return 0;
}

/*
 * Two-node remote indirect write, run by the cluster launcher on each node.
 *
 * Node 1 (receiver) chooses where the data shall land: it stores a pointer to
 * that place in a slot of its receive memory and publishes the slot's address.
 * Node 0 (sender) indirect-writes a buffer to the slot and waits for the ACKs.
 * The receiver then checks that the data landed at the pointed-to place and
 * that no other byte of its receive memory changed, and that every packet
 * went through its firmware (held, then continued).
 *
 *   indirect_write_demo [--bytes N] [--seed S] [--timeout-ms T]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "dimmnet1/dn.h"
#include "dimmnet1/regs.h"

#define SENTINEL   0xa5u
#define SLOT_ADDR  0x1000u     /* where node 1 keeps the pointer */
#define LAND_ADDR  0x20010u    /* where node 1 wants the data */

struct opts {
    size_t bytes;
    unsigned seed;
    int timeout_ms;
};

static uint8_t pattern_byte(size_t i, unsigned seed)
{
    uint32_t x = (uint32_t)i * 2654435761u + seed;
    return (uint8_t)(x >> 24 ^ x >> 11);
}

static int fail(const char *what, int rc)
{
    fprintf(stderr, "%s: %s\n", what, dn_strerror(rc));
    return 1;
}

static int run_sender(dn_node *n, const struct opts *o)
{
    char value[64];
    int rc = dn_lookup("slot", value, sizeof(value), o->timeout_ms);
    if (rc != DN_OK) {
        return fail("waiting for node 1's pointer slot", rc);
    }
    uint64_t slot = strtoull(value, NULL, 0);
    uint8_t *buf = malloc(o->bytes ? o->bytes : 1);
    if (!buf) {
        return fail("buffer", DN_ENOMEM);
    }
    for (size_t i = 0; i < o->bytes; i++) {
        buf[i] = pattern_byte(i, o->seed);
    }
    dn_xfer x;
    rc = dn_indirect_write(n, 1, slot, buf, o->bytes, &x);
    free(buf);
    if (rc != DN_OK) {
        return fail("indirect write", rc);
    }
    rc = dn_wait(n, &x, o->timeout_ms);
    if (rc == DN_ENACK) {
        fprintf(stderr, "indirect write NACKed by node %u, reason %u\n",
                x.nack_from, x.nack_reason);
        return 1;
    }
    if (rc != DN_OK) {
        return fail("waiting for ACKs", rc);
    }
    printf("node 0: indirect write of %zu bytes to node 1 slot 0x%" PRIx64
           ": %u packets, %u ACKs\n", o->bytes, slot, x.packets, x.acked);
    return 0;
}

static int run_receiver(dn_node *n, const struct opts *o)
{
    size_t size;
    uint8_t *mem = dn_hostmem(n, &size);
    char value[32];

    if (LAND_ADDR + o->bytes > size) {
        return fail("transfer size", DN_ERANGE);
    }
    memset(mem, SENTINEL, size);
    int rc = dn_indirect_slot_set(n, SLOT_ADDR, LAND_ADDR);
    if (rc != DN_OK) {
        return fail("setting the pointer slot", rc);
    }
    snprintf(value, sizeof(value), "0x%x", SLOT_ADDR);
    rc = dn_publish("slot", value);
    if (rc != DN_OK) {
        return fail("publishing the slot", rc);
    }

    /* The sender's ACKs mean the data is written; poll until it shows. */
    uint32_t packets = (uint32_t)(o->bytes ? (o->bytes + DN_BOTF_MAX_PAYLOAD - 1) /
                                             DN_BOTF_MAX_PAYLOAD : 1);
    uint32_t continued = 0;
    for (int waited = 0; continued < packets; waited += 10) {
        rc = dn_reg_read(n, DN1_REG_CNT(DN1_CNT_RX_CONTINUED), &continued);
        if (rc != DN_OK) {
            return fail("reading counters", rc);
        }
        if (waited > o->timeout_ms) {
            fprintf(stderr, "node 1: only %u of %u packets arrived\n",
                    continued, packets);
            return 1;
        }
        if (continued < packets) {
            struct timespec ts = { 0, 10 * 1000000L };
            nanosleep(&ts, NULL);
        }
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);

    size_t bad = 0, first_bad = 0;
    for (size_t i = 0; i < size; i++) {
        uint8_t want = SENTINEL;
        if (i >= LAND_ADDR && i < LAND_ADDR + o->bytes) {
            want = pattern_byte(i - LAND_ADDR, o->seed);
        } else if (i >= SLOT_ADDR && i < SLOT_ADDR + 8) {
            continue;
        }
        if (mem[i] != want && bad++ == 0) {
            first_bad = i;
        }
    }
    uint32_t held, errors;
    if ((rc = dn_reg_read(n, DN1_REG_CNT(DN1_CNT_RX_HELD), &held)) ||
        (rc = dn_reg_read(n, DN1_REG_CNT(DN1_CNT_ERR_RANGE), &errors))) {
        return fail("reading counters", rc);
    }
    if (bad) {
        fprintf(stderr, "node 1: %zu bytes wrong, first at 0x%zx\n", bad, first_bad);
        return 1;
    }
    if (held != packets || continued != packets || errors != 0) {
        fprintf(stderr, "node 1: firmware counts held=%u continued=%u "
                "range errors=%u, want %u/%u/0\n", held, continued, errors,
                packets, packets);
        return 1;
    }
    printf("node 1: %zu bytes landed at 0x%x (pointer at 0x%x, chosen by node 1); "
           "%u packets held and continued by firmware; rest of memory unchanged\n",
           o->bytes, LAND_ADDR, SLOT_ADDR, packets);
    return 0;
}

static int parse(int argc, char **argv, struct opts *o)
{
    o->bytes = 1000;
    o->seed = 1;
    o->timeout_ms = 30000;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (i + 1 < argc && !strcmp(argv[i], "--bytes")) {
            o->bytes = strtoull(argv[++i], &end, 0);
        } else if (i + 1 < argc && !strcmp(argv[i], "--seed")) {
            o->seed = (unsigned)strtoul(argv[++i], &end, 0);
        } else if (i + 1 < argc && !strcmp(argv[i], "--timeout-ms")) {
            o->timeout_ms = (int)strtol(argv[++i], &end, 0);
        } else {
            return -1;
        }
        if (!end || *end) {
            return -1;
        }
    }
    return o->timeout_ms > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    struct opts o;
    dn_node *n;

    if (parse(argc, argv, &o) != 0) {
        fprintf(stderr, "usage: %s [--bytes N] [--seed S] [--timeout-ms T]\n", argv[0]);
        return 2;
    }
    int rc = dn_open_env(&n, o.timeout_ms);
    if (rc != DN_OK) {
        return fail("opening this node (run me under tools/dimmnet-cluster)", rc);
    }
    switch (dn_node_id(n)) {
    case 0:
        rc = run_sender(n, &o);
        break;
    case 1:
        rc = run_receiver(n, &o);
        break;
    default:
        rc = 0;   /* other nodes take no part */
        break;
    }
    dn_close(n);
    return rc;
}

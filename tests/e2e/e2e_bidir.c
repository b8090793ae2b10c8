/*
 * Both nodes indirect-write to each other at the same time, every packet held
 * and continued by firmware, with ACKs crossing the data: the boards must
 * neither lose a byte nor stall each other.
 *
 *   e2e_bidir [--bytes N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/check.h"
#include "dimmnet1/dn.h"
#include "dimmnet1/packet.h"

#define TIMEOUT_MS 120000
#define SLOT       0x100u
#define LAND       0x10000u

static uint8_t pattern(size_t i, unsigned from)
{
    uint32_t x = (uint32_t)i * 2654435761u + from * 97u;
    return (uint8_t)(x >> 24 ^ x >> 9);
}

int main(int argc, char **argv)
{
    size_t bytes = 8u << 20;
    dn_node *n;
    char key[16], v[16];

    if (argc == 3 && !strcmp(argv[1], "--bytes")) {
        bytes = strtoull(argv[2], NULL, 0);
    }
    if (dn_open_env(&n, TIMEOUT_MS) != DN_OK) {
        fprintf(stderr, "cannot open node\n");
        return 1;
    }
    unsigned me = dn_node_id(n), peer = 1 - me;
    size_t size;
    uint8_t *mem = dn_hostmem(n, &size);
    CHECK(LAND + bytes <= size);
    memset(mem, 0, size);
    CHECK_EQ(dn_indirect_slot_set(n, SLOT, LAND), DN_OK);
    snprintf(key, sizeof(key), "ready%u", me);
    CHECK_EQ(dn_publish(key, "1"), DN_OK);
    snprintf(key, sizeof(key), "ready%u", peer);
    CHECK_EQ(dn_lookup(key, v, sizeof(v), TIMEOUT_MS), DN_OK);

    uint8_t *buf = malloc(bytes);
    for (size_t i = 0; i < bytes; i++) {
        buf[i] = pattern(i, me);
    }
    dn_xfer x;
    CHECK_EQ(dn_indirect_write(n, peer, SLOT, buf, bytes, &x), DN_OK);
    CHECK_EQ(dn_wait(n, &x, TIMEOUT_MS), DN_OK);
    CHECK_EQ(x.acked, (bytes + DN_BOTF_MAX_PAYLOAD - 1) / DN_BOTF_MAX_PAYLOAD);
    free(buf);

    /* Our ACKs mean our data is there; the peer's "sent" means theirs is here. */
    snprintf(key, sizeof(key), "sent%u", me);
    CHECK_EQ(dn_publish(key, "1"), DN_OK);
    snprintf(key, sizeof(key), "sent%u", peer);
    CHECK_EQ(dn_lookup(key, v, sizeof(v), TIMEOUT_MS), DN_OK);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    size_t wrong = 0;
    for (size_t i = 0; i < bytes; i++) {
        wrong += mem[LAND + i] != pattern(i, peer);
    }
    CHECK_EQ(wrong, 0);
    printf("node %u: sent %zu bytes, received %zu bytes intact\n", me, bytes,
           bytes - wrong);
    /* Stay until the peer has checked too: its reads need our board up. */
    snprintf(key, sizeof(key), "checked%u", me);
    CHECK_EQ(dn_publish(key, "1"), DN_OK);
    snprintf(key, sizeof(key), "checked%u", peer);
    CHECK_EQ(dn_lookup(key, v, sizeof(v), TIMEOUT_MS), DN_OK);
    dn_close(n);
    return check_failures ? 1 : 0;
}

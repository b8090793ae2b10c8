/*
 * Host-assisted barriers (docs/barriers.md): only the hardware aids, AOTF
 * stores that the Mini-OTF receiver writes into LLCM and hosts polling
 * their own LLCM; no NIC processor involved.
 *
 * HOST: dissemination. In round k (of ceil(log2 N)) member r stores
 * {epoch, value} into member r + 2^k's round-k word and waits for its own
 * round-k word to reach the epoch (written by r - 2^k). The value rides
 * along as a running maximum: with reduce set this is the max-reduction
 * AUTO compares candidates with (max is idempotent, so the rounds'
 * overlaps for N not a power of two do no harm).
 *
 * HOST_MCAST: central. Members store their epoch into the root's arrival
 * word for them; the root's host polls those and releases everyone with
 * one AOTF store to the switch group (multicast).
 */
#include "barrier.h"

struct round_wait {
    uint32_t off;
    uint32_t epoch;
};

static int round_done(struct dn_barrier *b, void *arg)
{
    const struct round_wait *w = arg;
    return bar_epoch_reached(b, bar_word(b, w->off), w->epoch);
}

int bar_dissemination(struct dn_barrier *b, uint32_t value, uint32_t *max_out, int reduce)
{
    unsigned nm = b->cfg.nmembers;
    uint32_t epoch = reduce ? ++b->red_epoch : ++b->dis_epoch;
    uint32_t base = reduce ? BAR_REDUCE : BAR_ROUNDS;
    uint64_t *last = reduce ? b->red_last : b->dis_last;
    unsigned *sent = reduce ? &b->red_sent : &b->dis_sent;

    for (unsigned k = 0; (1u << k) < nm; k++) {
        unsigned to = b->cfg.members[(b->rank + (1u << k)) % nm];
        last[k] = (uint64_t)value << 32 | epoch;
        if (*sent <= k) {
            *sent = k + 1;
        }
        int rc = bar_store_word(b, to, base + 8 * k, epoch, value);
        if (rc != DN_OK) {
            return rc;
        }
        struct round_wait w = { base + 8 * k, epoch };
        rc = bar_wait(b, round_done, &w);
        if (rc != DN_OK) {
            return rc;
        }
        uint32_t got = (uint32_t)(bar_word(b, base + 8 * k) >> 32);
        if (got > value) {
            value = got;
        }
    }
    if (max_out) {
        *max_out = value;
    }
    return DN_OK;
}

static int all_arrived(struct dn_barrier *b, void *arg)
{
    (void)arg;
    for (unsigned r = 0; r < b->cfg.nmembers; r++) {
        if (r != b->rank &&
            !bar_epoch_reached(b, bar_word(b, BAR_ARRIVE + 8 * r), b->cen_epoch)) {
            return 0;
        }
    }
    return 1;
}

static int released(struct dn_barrier *b, void *arg)
{
    (void)arg;
    return bar_epoch_reached(b, bar_word(b, BAR_RELEASE), b->cen_epoch);
}

int bar_central_wait(struct dn_barrier *b)
{
    int rc;

    b->cen_epoch++;
    b->in_cen = 1;
    if (b->rank == b->root_rank) {
        rc = bar_wait(b, all_arrived, NULL);
        if (rc == DN_OK) {
            b->cen_released = b->cen_epoch;
            rc = bar_store_word(b, DN1_MCAST_BASE + (unsigned)b->cfg.mcast_group,
                                BAR_RELEASE, b->cen_epoch, 0);
        }
    } else {
        rc = bar_store_word(b, b->cfg.members[b->root_rank], BAR_ARRIVE + 8 * b->rank,
                            b->cen_epoch, 0);
        if (rc == DN_OK) {
            rc = bar_wait(b, released, NULL);
        }
    }
    b->in_cen = 0;
    return rc;
}

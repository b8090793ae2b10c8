/* Seeded, per-link fault injection for the switch model (see switch.h). */
#include <stdlib.h>
#include <string.h>
#include "switch.h"
#include "dimmnet1/packet_codec.h"

/* xorshift64*: small, fast, and the same sequence for the same seed. */
uint32_t sw_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return (uint32_t)((x * 0x2545f4914f6cdd1dull) >> 32);
}

/* One random bit of the frame's packet flipped (the receiving NIC's CRC
 * check catches it). */
void sw_flip_bit(uint64_t *rng, uint8_t *f, uint32_t size)
{
    uint32_t bit = sw_rand(rng) % ((size - DN1_LINK_FRAME_HDR) * 8);

    f[DN1_LINK_FRAME_HDR + bit / 8] ^= (uint8_t)(1u << (bit % 8));
}

/* Probabilities are fractions 0..1 ("0.01"), kept as parts per million. */
static int parse_prob(const char *v, uint32_t *out)
{
    char *end;
    double p = strtod(v, &end);
    if (end == v || (*end && *end != ',') || p < 0 || p > 1) {
        return -1;
    }
    *out = (uint32_t)(p * 1000000.0 + 0.5);
    return 0;
}

/* port=P,drop=X,dup=X,corrupt=X,reorder=X,delay=NS,hold=X,hold-ns=NS (any
 * subset after port). */
int sw_parse_fault(struct sw *sw, const char *spec)
{
    struct sw_fault f = { 0 };
    long port = -1, lsw = -1, lport = -1;

    while (*spec) {
        const char *eq = strchr(spec, '=');
        if (!eq) {
            return -1;
        }
        size_t klen = (size_t)(eq - spec);
        const char *v = eq + 1;
        char *end;
        int rc = 0;

        if (klen == 4 && !strncmp(spec, "port", 4)) {
            port = strtol(v, &end, 10);
            rc = (end == v || (*end && *end != ',')) ? -1 : 0;
        } else if (klen == 4 && !strncmp(spec, "link", 4)) {
            lsw = strtol(v, &end, 10);
            rc = end == v || *end != ':' ? -1 : 0;
            if (!rc) {
                const char *q = end + 1;
                lport = strtol(q, &end, 10);
                rc = (end == q || (*end && *end != ',')) ? -1 : 0;
            }
        } else if (klen == 4 && !strncmp(spec, "drop", 4)) {
            rc = parse_prob(v, &f.drop);
        } else if (klen == 3 && !strncmp(spec, "dup", 3)) {
            rc = parse_prob(v, &f.dup);
        } else if (klen == 7 && !strncmp(spec, "corrupt", 7)) {
            rc = parse_prob(v, &f.corrupt);
        } else if (klen == 7 && !strncmp(spec, "reorder", 7)) {
            rc = parse_prob(v, &f.reorder);
        } else if (klen == 5 && !strncmp(spec, "delay", 5)) {
            f.delay_ns = strtoull(v, &end, 10);
            rc = (end == v || (*end && *end != ',')) ? -1 : 0;
        } else if (klen == 4 && !strncmp(spec, "hold", 4)) {
            rc = parse_prob(v, &f.hold);
        } else if (klen == 7 && !strncmp(spec, "hold-ns", 7)) {
            f.hold_ns = strtoull(v, &end, 10);
            rc = (end == v || (*end && *end != ',') || f.hold_ns > INT64_MAX / 4) ? -1 : 0;
        } else {
            return -1;
        }
        if (rc) {
            return -1;
        }
        spec = strchr(v, ',');
        spec = spec ? spec + 1 : v + strlen(v);
    }
    if (lsw >= 0) {
        /* A cable between switches: no hold or reorder there (those are
         * the last hop's, where the board's order is made). */
        if (port >= 0 || f.hold || f.reorder || (unsigned long)lsw >= sw->topo.nswitches ||
            lport < 0 || (unsigned long)lport >= sw->topo.sw[lsw].radix ||
            sw->topo.sw[lsw].port[lport].peer < 0) {
            return -1;
        }
        sw->topo.sw[lsw].port[lport].fault = f;
        return 0;
    }
    if (port < 0 || (unsigned long)port >= sw->nports || (f.hold && !f.hold_ns)) {
        return -1;   /* a hold needs its time */
    }
    sw->port[port].fault = f;
    return 0;
}

/* Faults of a cable between switches, on a frame about to cross it: how
 * many copies go (0: dropped, 2: duplicated); may flip a bit or add delay. */
int sw_link_fault(struct topo_port *l, uint8_t *f, uint32_t size)
{
    const struct sw_fault *fl = &l->fault;

    if (fl->drop && sw_rand(&l->rng) % 1000000u < fl->drop) {
        l->dropped++;
        return 0;
    }
    if (fl->corrupt && sw_rand(&l->rng) % 1000000u < fl->corrupt) {
        sw_flip_bit(&l->rng, f, size);
        l->corrupted++;
    }
    if (fl->delay_ns) {
        dn1_put_be64(f + 8, dn1_get_be64(f + 8) + fl->delay_ns);
    }
    if (fl->dup && sw_rand(&l->rng) % 1000000u < fl->dup) {
        l->duplicated++;
        return 2;
    }
    return 1;
}

/*
 * The shim's completion queue accounting (host-shim/src/completion.c) on a
 * node whose LLCM is a plain buffer: no board. A second answer to the same
 * packet (a duplicated ACK, or a receiving firmware answering a duplicated
 * packet again) must not count, or a transfer would look complete while a
 * packet of it is still unanswered; and such records must find room.
 */
#include <stdlib.h>
#include <string.h>
#include "../common/check.h"
#include "../../host-shim/src/internal.h"
#include "dimmnet1/memmap.h"

static uint8_t llcm[DN1_LLCM_SIZE];

static void post(uint32_t tag, uint8_t kind)
{
    uint32_t produced;
    memcpy(&produced, llcm + DN1_LLCM_CQ_PRODUCED, 4);
    struct dn1_cq_rec rec = { .tag = tag, .kind = kind, .src = 1, .index = produced };
    memcpy(llcm + DN1_LLCM_CQ_RING + (produced % DN1_LLCM_CQ_ENTRIES) * sizeof(rec),
           &rec, sizeof(rec));
    produced++;
    memcpy(llcm + DN1_LLCM_CQ_PRODUCED, &produced, 4);
}

int main(void)
{
    dn_node *n = calloc(1, sizeof(*n));
    dn_xfer x;

    n->llcm = llcm;
    dn_port_setup(n, 0, 1);             /* a board of one host port */
    for (unsigned i = 0; i < DN_ANSWERED; i++) {
        n->answered[i] = DN_ANSWERED_NONE;
    }
    n->first_tag = n->next_tag = 1000;
    struct dn_xfer_rec *r = dn_xfer_begin(n, &x);
    dn_xfer_sent(n, r, &x);          /* tag 1000 */
    dn_xfer_sent(n, r, &x);          /* tag 1001 */
    post(1000, DN1_CQ_KIND_ACK);
    post(1000, DN1_CQ_KIND_ACK);     /* the same packet answered again */
    dn_cq_drain(n);
    CHECK_EQ(r->acked, 1);
    CHECK_EQ(n->completed, 1);
    CHECK_EQ(dn_wait(n, &x, 0), DN_ETIMEDOUT);   /* 1001 is still out */
    post(1001, DN1_CQ_KIND_ACK);
    CHECK_EQ(dn_wait(n, &x, 0), DN_OK);
    CHECK_EQ(x.acked, 2);
    post(1001, DN1_CQ_KIND_ACK);     /* late, for a transfer waited for */
    dn_cq_drain(n);
    CHECK_EQ(n->completed, 2);

    /* Room is kept for records nobody counts (duplicates, second answers
     * to resent packets): a full window of packets, each answered twice
     * up to DN_CQ_SPARE times, still fits the queue: no record is lost. */
    r = dn_xfer_begin(n, &x);
    uint32_t out = 0;
    while (dn_cq_wait_room(n, DN1_LLCM_CQ_ENTRIES, 0) == DN_OK) {
        dn_xfer_sent(n, r, &x);
        out++;
    }
    CHECK(out + DN_CQ_SPARE <= DN1_LLCM_CQ_ENTRIES);
    CHECK(out >= DN1_LLCM_CQ_ENTRIES / 2);
    for (uint32_t k = 0; k < out; k++) {
        post(r->first_tag + k, DN1_CQ_KIND_ACK);
        if (k < DN_CQ_SPARE) {
            post(r->first_tag + k, DN1_CQ_KIND_ACK);
        }
    }
    uint32_t produced, consumed;
    memcpy(&produced, llcm + DN1_LLCM_CQ_PRODUCED, 4);
    memcpy(&consumed, llcm + DN1_LLCM_CQ_CONSUMED, 4);
    CHECK(produced - consumed <= DN1_LLCM_CQ_ENTRIES);
    CHECK_EQ(dn_wait(n, &x, 0), DN_OK);
    CHECK_EQ(x.acked, out);
    free(n);
    return check_failures ? 1 : 0;
}

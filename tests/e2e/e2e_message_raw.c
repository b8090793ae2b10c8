/*
 * Message packets built by hand (the shim's internal dn_botf_packet: any
 * flags, f_seq, offset and envelope), aimed at the checks a packet in the
 * middle of a message passes through: on the board these run on the
 * firmware's assembly fast path, whose every refusal must fall back to the
 * C handler's answer. Two nodes; node 0 sends one 2000-byte message
 * (tag 7) to node 1 in 464-byte packets, with wrong packets between:
 *
 *   f_seq 0  offset 0      first packet (C places it)           ACK
 *   f_seq 1  tag 8                                              BAD_MESSAGE
 *   f_seq 1  length 2001                                        BAD_MESSAGE
 *   f_seq 1  offset 500                                         BAD_MESSAGE
 *   f_seq 1  empty                                              BAD_MESSAGE
 *   f_seq 1  flag VA                                            BAD_PATH
 *   f_seq 1, 2, 3  middle packets (the fast path)               ACK
 *   f_seq 2  again, garbage payload: a duplicate, not written   ACK
 *   f_seq 5  ahead                                              SEQUENCE
 *   f_seq 4  offset 1856, 464 bytes: past the message's end     BAD_MESSAGE
 *   f_seq 4  offset 1856, 144 bytes: the last (C, notice)       ACK
 *
 * Node 1 then receives exactly the message, byte for byte, and the
 * firmware's statistics count each refusal once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../common/check.h"
#include "../common/fw_stat_wait.h"
#include "../../host-shim/src/internal.h"
#include "dimmnet1/dn.h"
#include "dimmnet1/message.h"
#include "dimmnet1/packet.h"
#include "dimmnet1/fw_types.h"

#define T 60000
#define MLEN 2000u
#define PKT 464u

static dn_node *n;
static uint8_t msg[MLEN];

/* One MESSAGE packet to node 1, waited for: DN_OK or DN_ENACK (+ reason). */
static int raw(uint8_t flags, uint32_t utag, uint32_t mlen, uint32_t xoff,
               uint16_t len, uint16_t seq, const uint8_t *payload, uint8_t *reason)
{
    dn_xfer x;
    struct dn_xfer_rec *r = dn_xfer_begin(n, &x);

    CHECK_EQ(dn_botf_packet(n, DN1_TYPE_MESSAGE, flags, 1, DN1_MSG_RADDR(utag, mlen),
                            xoff, payload, len, n->next_tag, seq), DN_OK);
    dn_xfer_sent(n, r, &x);
    int rc = dn_wait(n, &x, T);
    *reason = x.nack_reason;
    return rc;
}

static void ok(uint32_t xoff, uint16_t len, uint16_t seq)
{
    uint8_t reason;
    CHECK_EQ(raw(0, 7, MLEN, xoff, len, seq, msg + xoff, &reason), DN_OK);
}

static void refused(uint8_t flags, uint32_t utag, uint32_t mlen, uint32_t xoff,
                    uint16_t len, uint16_t seq, uint8_t want)
{
    uint8_t reason = 0;
    CHECK_EQ(raw(flags, utag, mlen, xoff, len, seq, msg + (xoff < MLEN ? xoff : 0),
                 &reason), DN_ENACK);
    CHECK_EQ(reason, want);
}

static uint32_t fw_stat(unsigned i)
{
    uint32_t v = 0;
    CHECK_EQ(dn_fw_stat_read(n, i, &v), DN_OK);
    return v;
}

int main(void)
{
    uint8_t garbage[PKT];

    CHECK_EQ(dn_open_env(&n, T), DN_OK);
    for (unsigned i = 0; i < MLEN; i++) {
        msg[i] = (uint8_t)(i * 7 + i / 251);
    }
    memset(garbage, 0xee, sizeof(garbage));
    if (dn_node_id(n) == 1) {
        CHECK_EQ(dn_msg_init(n, NULL), DN_OK);
    }
    CHECK_EQ(dn_rendezvous("ready", T), DN_OK);
    if (dn_node_id(n) == 0) {
        uint8_t reason;
        ok(0, PKT, 0);
        refused(0, 8, MLEN, PKT, PKT, 1, DN1_NACK_BAD_MESSAGE);
        refused(0, 7, MLEN + 1, PKT, PKT, 1, DN1_NACK_BAD_MESSAGE);
        refused(0, 7, MLEN, 500, PKT, 1, DN1_NACK_BAD_MESSAGE);
        refused(0, 7, MLEN, PKT, 0, 1, DN1_NACK_BAD_MESSAGE);
        refused(DN1_FLAG_VA, 7, MLEN, PKT, PKT, 1, DN1_NACK_BAD_PATH);
        ok(PKT, PKT, 1);
        ok(2 * PKT, PKT, 2);
        ok(3 * PKT, PKT, 3);
        CHECK_EQ(raw(0, 7, MLEN, 2 * PKT, PKT, 2, garbage, &reason), DN_OK);
        refused(0, 7, MLEN, 4 * PKT, MLEN - 4 * PKT, 5, DN1_NACK_SEQUENCE);
        refused(0, 7, MLEN, 4 * PKT, PKT, 4, DN1_NACK_BAD_MESSAGE);
        ok(4 * PKT, MLEN - 4 * PKT, 4);
    }
    CHECK_EQ(dn_rendezvous("sent", T), DN_OK);
    if (dn_node_id(n) == 1) {
        uint8_t got[MLEN + 16];
        struct dn_msg_status st;
        CHECK_EQ(dn_msg_recv(n, 0, 7, got, sizeof(got), &st, T), DN_OK);
        CHECK_EQ(st.len, MLEN);
        CHECK(memcmp(got, msg, MLEN) == 0);
        CHECK_EQ(fw_stat(DN1_FWST_NACK_BAD_MESSAGE), 5);
        CHECK_EQ(fw_stat(DN1_FWST_NACK_BAD_PATH), 1);
        CHECK_EQ(fw_stat(DN1_FWST_NACK_SEQUENCE), 1);
        CHECK_EQ(fw_stat(DN1_FWST_MSG_DUPLICATES), 1);
        CHECK_EQ(fw_stat(DN1_FWST_MSG_PACKETS), 5);
        CHECK_EQ(fw_stat_wait(n, DN1_FWST_MSG_DELIVERED, 1, T), 1);   /* trails the notice */
    }
    CHECK_EQ(dn_rendezvous("end", T), DN_OK);
    printf("e2e_message_raw: node %u %s\n", dn_node_id(n), check_failures ? "FAILED" : "ok");
    dn_close(n);
    return check_failures ? 1 : 0;
}

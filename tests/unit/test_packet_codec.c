/* Packet encode/decode/integrity (include/dimmnet1/packet_codec.h). */
#include "../common/check.h"
#include "dimmnet1/packet_codec.h"

static uint8_t pkt[DN1_PKT_MAX_SIZE];

static struct dn1_hdr sample(uint16_t len)
{
    return (struct dn1_hdr){ .version = DN1_PKT_VERSION, .type = 0x40,
                             .flags = 1, .reason = 0, .src = 0x0102,
                             .dst = 0x0304, .len = len, .seq = 0x0506,
                             .tag = 0x0708090a, .raddr = 0x1112131415161718ull,
                             .xoff = 0x191a1b1c };
}

static void t_roundtrip(void)
{
    struct dn1_hdr h = sample(5), g;
    memcpy(pkt + DN1_PKT_HDR_SIZE, "hello", 5);
    dn1_packet_seal(pkt, &h);
    CHECK_EQ(dn1_packet_check(pkt, DN1_PKT_HDR_SIZE + 5), DN1_PKT_OK);
    dn1_packet_parse(pkt, &g);
    CHECK_EQ(g.type, 0x40);
    CHECK_EQ(g.src, 0x0102);
    CHECK_EQ(g.dst, 0x0304);
    CHECK_EQ(g.len, 5);
    CHECK_EQ(g.seq, 0x0506);
    CHECK_EQ(g.tag, 0x0708090a);
    CHECK_EQ(g.raddr, 0x1112131415161718ull);
    CHECK_EQ(g.xoff, 0x191a1b1c);
    /* Wire order is big-endian, at the documented offsets. */
    CHECK_EQ(pkt[DN1_OFF_RADDR], 0x11);
    CHECK_EQ(pkt[DN1_OFF_RADDR + 7], 0x18);
    CHECK_EQ(pkt[DN1_OFF_SRC], 0x01);
}

static void t_crc_catches_any_bit(void)
{
    struct dn1_hdr h = sample(40);
    for (int i = 0; i < 40; i++) {
        pkt[DN1_PKT_HDR_SIZE + i] = (uint8_t)i;
    }
    dn1_packet_seal(pkt, &h);
    size_t size = DN1_PKT_HDR_SIZE + 40;
    int missed = 0;
    for (size_t byte = 0; byte < size; byte++) {
        for (int bit = 0; bit < 8; bit++) {
            pkt[byte] ^= (uint8_t)(1u << bit);
            enum dn1_pkt_check c = dn1_packet_check(pkt, size);
            if (c == DN1_PKT_OK) {
                missed++;
            }
            pkt[byte] ^= (uint8_t)(1u << bit);
        }
    }
    CHECK_EQ(missed, 0);
    CHECK_EQ(dn1_packet_check(pkt, size), DN1_PKT_OK);
}

static void t_crc_known_value(void)
{
    /* The standard CRC-32 check value. */
    CHECK_EQ(dn1_crc32_update(0, (const uint8_t *)"123456789", 9), 0xcbf43926u);
}

static void t_rejections(void)
{
    struct dn1_hdr h = sample(8);
    dn1_packet_seal(pkt, &h);
    CHECK_EQ(dn1_packet_check(pkt, 10), DN1_PKT_SHORT);
    CHECK_EQ(dn1_packet_check(pkt, DN1_PKT_HDR_SIZE + 7), DN1_PKT_BAD_LENGTH);
    h = sample(DN1_PKT_MAX_PAYLOAD + 1);
    dn1_put_be16(pkt + DN1_OFF_LEN, h.len);
    CHECK_EQ(dn1_packet_check(pkt, DN1_PKT_HDR_SIZE + h.len), DN1_PKT_BAD_LENGTH);
    h = sample(0);
    h.version = 2;
    dn1_packet_seal(pkt, &h);
    CHECK_EQ(dn1_packet_check(pkt, DN1_PKT_HDR_SIZE), DN1_PKT_BAD_VERSION);
}

static const struct test_case cases[] = {
    { "roundtrip", t_roundtrip },
    { "crc_catches_any_bit", t_crc_catches_any_bit },
    { "crc_known_value", t_crc_known_value },
    { "rejections", t_rejections },
    { NULL, NULL },
};

int main(int argc, char **argv)
{
    return run_cases(cases, argc, argv, 1, NULL, NULL);
}

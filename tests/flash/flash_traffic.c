/*
 * Flash one node while the other sends it messages (issue 12, items 4 and
 * 6). Two nodes under the launcher:
 *
 *   flash_traffic GOOD_IMAGE NEW_IMAGE
 *
 * Node 0 sends messages to node 1 all along (sizes 0..3000, every byte a
 * function of the message's number), until node 1 says it is done, then a
 * last message with the count.
 * Node 1 first offers the board a bad variant of GOOD_IMAGE of every kind
 * (dn_flash_write must refuse each with DN_EBADIMG and its reason, before
 * touching the flash: the slots and the running firmware stay as they
 * were); then it writes NEW_IMAGE, restarts the NIC processor into it and
 * checks that the board now runs NEW_IMAGE's version from the other slot.
 * Then it receives every message node 0 sent, in order, each byte checked:
 * none lost across the flash and the restart.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dimmnet1/dn.h"
#include "dimmnet1/fw_image.h"
#include "../common/check.h"

#define TAG_DATA  1u
#define TAG_END   2u
#define MAX_MSG   3000u

static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;

    if (f && !fseek(f, 0, SEEK_END)) {
        long n = ftell(f);
        rewind(f);
        buf = n > 0 ? malloc((size_t)n + 4096) : NULL;
        *len = buf ? fread(buf, 1, (size_t)n, f) : 0;
        if (buf && *len != (size_t)n) {
            free(buf);
            buf = NULL;
        }
    }
    if (f) {
        fclose(f);
    }
    if (!buf) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    return buf;
}

static size_t msg_len(uint32_t i)
{
    return (i * 7919u) % (MAX_MSG + 1);
}

static uint8_t msg_byte(uint32_t i, size_t k)
{
    return (uint8_t)(i * 31u + k * 7u + (k >> 8));
}

/* Rewrite the header of @img (code unchanged) with one field changed. */
static void reheader(uint8_t *img, uint16_t cpu, uint32_t load, uint32_t entry)
{
    struct dn1_img_info info;

    dn1_img_check_header(img, DN1_IMG_HDR_SIZE, dn1_get_be16(img + DN1_IMG_OFF_CPU),
                         &info);
    dn1_img_header_put(img, cpu, load, entry, info.size, info.version, info.build);
}

struct bad {
    const char *what;
    uint8_t *img;
    size_t len;
};

static void bad_variants(const uint8_t *good, size_t len, struct bad *b, unsigned *nb)
{
    struct dn1_img_info info;
    unsigned n = 0;

    CHECK(dn1_img_check(good, len, DN1_IMG_CPU_BOARD, &info) == DN1_IMG_OK);
#define VARIANT(name, extra)                                  \
    b[n].what = name;                                         \
    b[n].img = malloc(len + 4096);                            \
    memcpy(b[n].img, good, len);                              \
    b[n].len = len + (extra);                                 \
    memset(b[n].img + len, 0, 4096);
    VARIANT("wrong magic", 0)
    b[n].img[0] ^= 0x20;
    n++;
    VARIANT("header CRC", 0)
    b[n].img[DN1_IMG_OFF_VERSION + 3] ^= 1;
    n++;
    VARIANT("code CRC", 0)
    b[n].img[DN1_IMG_HDR_SIZE + len / 3] ^= 0x10;
    n++;
    VARIANT("CPU port", 0)
    reheader(b[n].img, DN1_IMG_CPU_R3000, info.load, info.entry);
    n++;
    VARIANT("contract major", 0)
    b[n].img[DN1_IMG_OFF_CONTRACT + 1] ^= 3;
    dn1_put_be32(b[n].img + DN1_IMG_OFF_HDR_CRC,
                 dn1_crc32_update(0, b[n].img, DN1_IMG_OFF_HDR_CRC));
    n++;
    VARIANT("load address", 0)
    reheader(b[n].img, DN1_IMG_CPU_BOARD, 0x80100000u - 0x100u, 0x80100000u - 0x100u);
    n++;
    VARIANT("truncated", -(long)(len / 2))
    n++;
    VARIANT("trailing bytes", 4096)
    n++;
#undef VARIANT
    *nb = n;
}

static int sender(dn_node *n)
{
    char v[16];
    uint32_t i = 0, count;
    static uint8_t buf[MAX_MSG];

    /* Messages until node 1 is through with the flash (and a few more). */
    for (int after = -1; after < 40; i++) {
        size_t len = msg_len(i);

        for (size_t k = 0; k < len; k++) {
            buf[k] = msg_byte(i, k);
        }
        int rc = dn_msg_send(n, 1, TAG_DATA, buf, len, 120000);
        CHECK_MSG(rc == DN_OK, "message %u: %s", i, dn_strerror(rc));
        if (rc != DN_OK) {
            return 1;
        }
        if (after < 0 && dn_lookup("flash-done", v, sizeof(v), 0) == DN_OK) {
            after = 0;
        } else if (after >= 0) {
            after++;
        }
    }
    count = i;
    CHECK(dn_msg_send(n, 1, TAG_END, &count, sizeof(count), 120000) == DN_OK);
    printf("node 0: %u messages sent to node 1 while it was flashed and restarted\n",
           count);
    return check_failures ? 1 : 0;
}

static int flasher(dn_node *n, const char *good_path, const char *new_path)
{
    struct dn_boot_info before, after;
    struct dn_flash_slot s0[2], s1[2];
    struct dn1_img_info info;
    struct bad bad[16];
    unsigned nb, slot = 9;
    char why[128];
    size_t good_len, new_len;
    uint8_t *good = read_all(good_path, &good_len);
    uint8_t *img = read_all(new_path, &new_len);
    static uint8_t buf[MAX_MSG];
    uint32_t count = 0, got = 0;

    CHECK(dn_boot_info(n, &before) == DN_OK);
    CHECK_MSG(before.slot < 2, "booted from slot %u, not from flash", before.slot);
    for (unsigned s = 0; s < 2; s++) {
        CHECK(dn_flash_slot_read(n, s, &s0[s]) == DN_OK);
    }
    /* Every kind of bad image: refused, nothing touched. */
    bad_variants(good, good_len, bad, &nb);
    for (unsigned k = 0; k < nb; k++) {
        int rc = dn_flash_write(n, bad[k].img, bad[k].len, &slot, why, sizeof(why));

        CHECK_MSG(rc == DN_EBADIMG && why[0], "%s: %s (%s)", bad[k].what,
                  dn_strerror(rc), why);
        printf("node 1: bad image (%s) refused: %s\n", bad[k].what, why);
        free(bad[k].img);
    }
    for (unsigned s = 0; s < 2; s++) {
        CHECK(dn_flash_slot_read(n, s, &s1[s]) == DN_OK);
        CHECK_MSG(s1[s].committed == s0[s].committed &&
                  s1[s].generation == s0[s].generation &&
                  s1[s].image_ok == s0[s].image_ok, "slot %u changed by a refused image", s);
    }
    CHECK(dn_boot_info(n, &after) == DN_OK);
    CHECK(after.version == before.version && after.slot == before.slot);

    /* The new image, then the restart into it. */
    CHECK(dn1_img_check(img, new_len, DN1_IMG_CPU_BOARD, &info) == DN1_IMG_OK);
    CHECK_MSG(info.version != before.version, "the new image has the running version");
    int rc = dn_flash_write(n, img, new_len, &slot, why, sizeof(why));
    CHECK_MSG(rc == DN_OK, "flash write: %s %s", dn_strerror(rc), why);
    CHECK_MSG(slot == 1u - before.slot, "wrote slot %u, running from %u", slot, before.slot);
    CHECK(dn_flash_slot_read(n, slot, &s1[0]) == DN_OK);
    CHECK(s1[0].committed && s1[0].image_ok && s1[0].version == info.version &&
          s1[0].generation > before.generation);
    rc = dn_nic_restart(n, 60000);
    CHECK_MSG(rc == DN_OK, "restart: %s", dn_strerror(rc));
    CHECK(dn_boot_info(n, &after) == DN_OK);
    CHECK_MSG(after.version == info.version && after.slot == slot &&
              after.generation == s1[0].generation,
              "running %06x from slot %u gen %u after the restart", after.version,
              after.slot, after.generation);
    printf("node 1: flashed slot %u and restarted: firmware %u.%u.%u, generation %u\n",
           after.slot, after.version >> 16, (after.version >> 8) & 0xff,
           after.version & 0xff, after.generation);
    CHECK(dn_publish("flash-done", "1") == DN_OK);

    /* Everything node 0 sent, in order, intact. */
    for (;;) {
        struct dn_msg_status st;

        rc = dn_msg_recv(n, 0, DN_ANY_TAG, buf, sizeof(buf), &st, 120000);
        if (rc != DN_OK) {
            CHECK_MSG(0, "receive %u: %s", got, dn_strerror(rc));
            break;
        }
        if (st.tag == TAG_END) {
            memcpy(&count, buf, sizeof(count));
            break;
        }
        if (st.len != msg_len(got)) {
            CHECK_MSG(0, "message %u: %zu bytes, not %zu", got, st.len, msg_len(got));
            break;
        }
        for (size_t k = 0; k < st.len; k++) {
            if (buf[k] != msg_byte(got, k)) {
                CHECK_MSG(0, "message %u byte %zu differs", got, k);
                break;
            }
        }
        got++;
    }
    CHECK_MSG(got == count, "received %u of %u messages", got, count);
    if (got == count) {
        printf("node 1: all %u messages received intact and in order\n", got);
    }
    free(good);
    free(img);
    return check_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    struct dn_msg_config cfg;
    dn_node *n;
    int rc;

    if (argc != 3) {
        fprintf(stderr, "usage: %s GOOD_IMAGE NEW_IMAGE\n", argv[0]);
        return 2;
    }
    if ((rc = dn_open_env(&n, 30000)) != DN_OK) {
        fprintf(stderr, "open: %s\n", dn_strerror(rc));
        return 1;
    }
    dn_msg_config_default(n, &cfg);
    cfg.retry = 7;        /* a restarting receiver is no reason to give up */
    cfg.rnr_retry = 7;
    CHECK(dn_msg_init(n, &cfg) == DN_OK);
    CHECK(dn_rendezvous("msg-init", 60000) == DN_OK);
    rc = dn_node_id(n) == 0 ? sender(n) : flasher(n, argv[1], argv[2]);
    dn_close(n);
    return rc;
}

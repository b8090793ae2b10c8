/*
 * Firmware in the board's boot flash (dn.h; docs/firmware.md, "Images and
 * flash"): the flash's own CFI command set (Intel/Sharp, 32-bit bank)
 * driven word by word through the host bus (FLASH_READ, FLASH_WRITE), then
 * NIC_RESTART. Order of a write, so that a cut at any point leaves a board
 * that boots: erase the inactive slot (its record goes first, with block 0
 * of the slot), program the image, read it back, and only then program the
 * slot record that commits it as the newer one.
 */
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "dimmnet1/fw_image.h"
#include "dimmnet1/regs.h"

#define CFI_PROGRAM       0x40u
#define CFI_BLOCK_ERASE   0x20u
#define CFI_CONFIRM       0xd0u
#define CFI_CLEAR_STATUS  0x50u
#define CFI_READ_ARRAY    0xffu
#define CFI_ST_READY      0x80u
#define CFI_ST_ERRORS     0x3au   /* erase, program, voltage, lock */
#define CFI_POLLS         1000

static int flash_read(dn_node *n, uint32_t off, uint32_t *v)
{
    uint64_t value = 0;
    int rc = dn_hb_call(n, DN1_HB_FLASH_READ, off, 0, 0, &value);

    *v = (uint32_t)value;
    return rc;
}

static int flash_write(dn_node *n, uint32_t off, uint32_t v)
{
    return dn_hb_call(n, DN1_HB_FLASH_WRITE, off, v, 0, NULL);
}

/* After an erase or a program: wait for READY, fail on an error bit. */
static int flash_status(dn_node *n, uint32_t off)
{
    for (int i = 0; i < CFI_POLLS; i++) {
        uint32_t st;
        int rc = flash_read(n, off, &st);

        if (rc != DN_OK) {
            return rc;
        }
        if (st & CFI_ST_READY) {
            if (st & CFI_ST_ERRORS) {
                flash_write(n, off, CFI_CLEAR_STATUS);
                return DN_EIO;
            }
            return DN_OK;
        }
    }
    return DN_ETIMEDOUT;
}

static int flash_erase_block(dn_node *n, uint32_t off)
{
    int rc = flash_write(n, off, CFI_BLOCK_ERASE);

    if (rc == DN_OK) {
        rc = flash_write(n, off, CFI_CONFIRM);
    }
    return rc == DN_OK ? flash_status(n, off) : rc;
}

/* Program @len bytes (a multiple of 4 after padding with 0xff). */
static int flash_program(dn_node *n, uint32_t off, const uint8_t *p, size_t len)
{
    for (size_t i = 0; i < len; i += 4) {
        uint8_t w[4] = { 0xff, 0xff, 0xff, 0xff };
        int rc;

        memcpy(w, p + i, len - i < 4 ? len - i : 4);
        if (dn1_get_be32(w) == 0xffffffffu) {
            continue;   /* erased already */
        }
        rc = flash_write(n, off + (uint32_t)i, CFI_PROGRAM);
        if (rc == DN_OK) {
            rc = flash_write(n, off + (uint32_t)i, dn1_get_be32(w));
        }
        if (rc == DN_OK) {
            rc = flash_status(n, off + (uint32_t)i);
        }
        if (rc != DN_OK) {
            return rc;
        }
    }
    return flash_write(n, off, CFI_READ_ARRAY);
}

/* Read @len bytes back in array mode. */
static int flash_read_bytes(dn_node *n, uint32_t off, uint8_t *p, size_t len)
{
    for (size_t i = 0; i < len; i += 4) {
        uint8_t w[4];
        uint32_t v;
        int rc = flash_read(n, off + (uint32_t)i, &v);

        if (rc != DN_OK) {
            return rc;
        }
        dn1_put_be32(w, v);
        memcpy(p + i, w, len - i < 4 ? len - i : 4);
    }
    return DN_OK;
}

static int flash_verify(dn_node *n, uint32_t off, const uint8_t *p, size_t len)
{
    uint8_t buf[1024];

    for (size_t done = 0; done < len; done += sizeof(buf)) {
        size_t k = len - done < sizeof(buf) ? len - done : sizeof(buf);
        int rc = flash_read_bytes(n, off + (uint32_t)done, buf, k);

        if (rc != DN_OK) {
            return rc;
        }
        if (memcmp(buf, p + done, k)) {
            return DN_EVERIFY;
        }
    }
    return DN_OK;
}

int dn_boot_info(dn_node *n, struct dn_boot_info *bi)
{
    uint32_t slot, version;
    int rc;

    if (!n || !bi) {
        return DN_EINVAL;
    }
    if ((rc = dn_reg_read(n, DN1_REG_BOOT_SLOT, &slot)) != DN_OK ||
        (rc = dn_reg_read(n, DN1_REG_BOOT_VERSION, &version)) != DN_OK) {
        return rc;
    }
    bi->slot = slot & DN1_BOOT_SLOT_MASK;
    bi->generation = slot >> DN1_BOOT_GEN_SHIFT;
    bi->version = version;
    return DN_OK;
}

/* A slot's record only: its generation (0: none committed, *@why says
 * why) and the image bytes it accounts for. */
static int slot_record_read(dn_node *n, unsigned slot, uint32_t *gen,
                            uint32_t *bytes, const char **why)
{
    uint32_t base = dn1_flash_slot_offset(slot);
    uint8_t rec[DN1_SLOT_RECORD_SIZE];
    int rc;

    if ((rc = flash_write(n, base, CFI_READ_ARRAY)) != DN_OK ||
        (rc = flash_read_bytes(n, base, rec, sizeof(rec))) != DN_OK) {
        return rc;
    }
    *gen = dn1_slot_record_get(rec, bytes, why);
    return DN_OK;
}

int dn_flash_slot_read(dn_node *n, unsigned slot, struct dn_flash_slot *out)
{
    uint32_t base = dn1_flash_slot_offset(slot);
    uint8_t hdr[DN1_IMG_HDR_SIZE];
    struct dn1_img_info info = { 0 };   /* a refused header leaves it unset */
    enum dn1_img_check c;
    uint32_t bytes = 0, crc;
    const char *why = "";
    int rc;

    if (!n || !out || slot >= DN1_FLASH_SLOTS) {
        return DN_EINVAL;
    }
    memset(out, 0, sizeof(*out));
    if ((rc = slot_record_read(n, slot, &out->generation, &bytes, &why)) != DN_OK) {
        return rc;
    }
    if (!out->generation) {
        snprintf(out->why, sizeof(out->why), "%s", why);
        return DN_OK;
    }
    out->committed = 1;
    if ((rc = flash_read_bytes(n, base + DN1_SLOT_IMAGE, hdr, sizeof(hdr))) != DN_OK) {
        return rc;
    }
    c = dn1_img_check_header(hdr, sizeof(hdr), DN1_IMG_CPU_BOARD, &info);
    if (c == DN1_IMG_OK && bytes != DN1_IMG_HDR_SIZE + info.size) {
        c = DN1_IMG_TRUNCATED;
    }
    if (c == DN1_IMG_OK) {
        /* The code's CRC, read back a block at a time. */
        uint8_t buf[1024];

        crc = 0;
        for (uint32_t done = 0; done < info.size && rc == DN_OK; done += sizeof(buf)) {
            uint32_t k = info.size - done < sizeof(buf) ? info.size - done : sizeof(buf);

            rc = flash_read_bytes(n, base + DN1_SLOT_IMAGE + DN1_IMG_HDR_SIZE + done,
                                  buf, k);
            crc = dn1_crc32_update(crc, buf, k);
        }
        if (rc != DN_OK) {
            return rc;
        }
        if (crc != info.crc) {
            c = DN1_IMG_BAD_CRC;
        }
    }
    out->image_ok = c == DN1_IMG_OK;
    out->version = info.version;
    memcpy(out->build, info.build, sizeof(out->build));
    snprintf(out->why, sizeof(out->why), "%s", dn1_img_why(c));
    return DN_OK;
}

int dn_flash_write(dn_node *n, const void *img, size_t len, unsigned *slot_out,
                   char *why, size_t why_len)
{
    struct dn1_img_info info = { 0 };   /* a refused header leaves it unset */
    struct dn_boot_info bi;
    uint32_t cur[DN1_FLASH_SLOTS];      /* generations; 0: none committed */
    enum dn1_img_check c;
    uint8_t rec[DN1_SLOT_RECORD_SIZE];
    uint32_t gen = 0, base;
    unsigned slot;
    int rc;

    if (why && why_len) {
        why[0] = 0;
    }
    if (!n || !img) {
        return DN_EINVAL;
    }
    /* The image first: nothing touches the board for a bad one. */
    c = len > DN1_SLOT_MAX_IMAGE ? DN1_IMG_TOO_LARGE
                                 : dn1_img_check(img, len, DN1_IMG_CPU_BOARD, &info);
    if (c != DN1_IMG_OK) {
        if (why && why_len) {
            snprintf(why, why_len, "%s", len > DN1_SLOT_MAX_IMAGE
                     ? "larger than a flash slot" : dn1_img_why(c));
        }
        return DN_EBADIMG;
    }
    if ((rc = dn_boot_info(n, &bi)) != DN_OK) {
        return rc;
    }
    /* The records alone: which slot is newer (the images need not be read). */
    for (unsigned s = 0; s < DN1_FLASH_SLOTS; s++) {
        uint32_t bytes;
        const char *no;

        if ((rc = slot_record_read(n, s, &cur[s], &bytes, &no)) != DN_OK) {
            return rc;
        }
        if (cur[s] > gen) {
            gen = cur[s];
        }
    }
    /* Never the slot the running firmware came from; else the older one. */
    if (bi.slot < DN1_FLASH_SLOTS) {
        slot = 1u - bi.slot;
    } else {
        slot = cur[0] <= cur[1] ? 0u : 1u;
    }
    base = dn1_flash_slot_offset(slot);
    for (uint32_t off = 0; off < DN1_SLOT_IMAGE + len; off += DN1_FLASH_BLOCK) {
        if ((rc = flash_erase_block(n, base + off)) != DN_OK) {
            return rc;
        }
    }
    if ((rc = flash_program(n, base + DN1_SLOT_IMAGE, img, len)) != DN_OK ||
        (rc = flash_verify(n, base + DN1_SLOT_IMAGE, img, len)) != DN_OK) {
        return rc;
    }
    /* The commit. */
    dn1_slot_record_put(rec, gen + 1, (uint32_t)len);
    if ((rc = flash_program(n, base, rec, sizeof(rec))) != DN_OK ||
        (rc = flash_verify(n, base, rec, sizeof(rec))) != DN_OK) {
        return rc;
    }
    if (slot_out) {
        *slot_out = slot;
    }
    return DN_OK;
}

static int nic_restart(dn_node *n, int timeout_ms, uint64_t how)
{
    int rc;

    if (!n || timeout_ms < 0) {
        return DN_EINVAL;
    }
    if ((rc = dn_hb_call(n, DN1_HB_NIC_RESTART, how, 0, 0, NULL)) != DN_OK) {
        return rc;
    }
    /* IRQ_STATUS.RESTART: the old firmware has not left yet (it may still
     * say READY); then READY again comes from the new one. */
    for (int64_t deadline = dn_now_ms() + timeout_ms;;) {
        uint32_t irq;

        if ((rc = dn_reg_read(n, DN1_REG_IRQ_STATUS, &irq)) != DN_OK) {
            return rc;
        }
        if (!(irq & DN1_IRQ_RESTART)) {
            break;
        }
        if (dn_now_ms() >= deadline) {
            return DN_ETIMEDOUT;
        }
        if ((rc = dn_idle(n)) != DN_OK) {
            return rc;
        }
    }
    return dn_wait_ready(n, timeout_ms, 0);
}

int dn_nic_restart(dn_node *n, int timeout_ms)
{
    return nic_restart(n, timeout_ms, DN1_NIC_RESTART_ASK);
}

int dn_nic_reset(dn_node *n, int timeout_ms)
{
    return nic_restart(n, timeout_ms, DN1_NIC_RESTART_HARD);
}

/*
 * DIMMnet-1 firmware image and boot flash layout (docs/firmware.md, "Images
 * and flash"). One definition of the header and of its check, shared by the
 * image packer, the board (-bios), the boot loader and dimmnet-flash; plain
 * C11, no dependencies beyond packet_codec.h's byte-order and CRC helpers.
 *
 * An image is a 64-byte header, big-endian (the processor's order), then
 * the code: one contiguous blob copied to its load address in processor
 * local memory and entered at its entry point.
 */
#ifndef DIMMNET1_FW_IMAGE_H
#define DIMMNET1_FW_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include "dimmnet1/memmap.h"
#include "dimmnet1/packet_codec.h"
#include "dimmnet1/regs.h"

#define DN1_IMG_MAGIC        0x444e4631u   /* "DNF1" */
#define DN1_IMG_FORMAT       1u
#define DN1_IMG_HDR_SIZE     64u

/* Header fields (byte offsets). */
#define DN1_IMG_OFF_MAGIC     0   /* u32 */
#define DN1_IMG_OFF_FORMAT    4   /* u16 format version */
#define DN1_IMG_OFF_HDR_SIZE  6   /* u16 header size */
#define DN1_IMG_OFF_CPU       8   /* u16 CPU port */
#define DN1_IMG_OFF_CONTRACT 10   /* u16 contract major it needs */
#define DN1_IMG_OFF_LOAD     12   /* u32 load address (kseg0) */
#define DN1_IMG_OFF_ENTRY    16   /* u32 entry point */
#define DN1_IMG_OFF_SIZE     20   /* u32 code bytes after the header */
#define DN1_IMG_OFF_CRC      24   /* u32 CRC-32 of the code */
#define DN1_IMG_OFF_VERSION  28   /* u32 firmware version major<<16|minor<<8|patch */
#define DN1_IMG_OFF_BUILD    32   /* char[16] build id, NUL-padded */
#define DN1_IMG_OFF_HDR_CRC  48   /* u32 CRC-32 of bytes 0..47 */
#define DN1_IMG_BUILD_LEN    16

/* CPU ports. */
#define DN1_IMG_CPU_4KC      1u    /* MIPS32 4Kc: the QEMU board */
#define DN1_IMG_CPU_R3000    2u    /* R3000: the chip's own core */
#define DN1_IMG_CPU_BOARD    DN1_IMG_CPU_4KC   /* what the QEMU board runs */

/* Where an image may load: local memory below the top 64 KiB (the boot
 * loader's stack and the firmware's own). */
#define DN1_IMG_LOAD_MIN     0x80000000u
#define DN1_IMG_LOAD_LIMIT   (0x80000000u + DN1_LOCAL_SIZE - 0x10000u)

/*
 * Boot flash (4 MiB at DN1_FLASH_BASE, CFI, 64 KiB blocks): the boot loader
 * in the first block, two slots of 1 MiB. A slot is a 256-byte record
 * area, then the image. The record is written last (the commit): an erased
 * or half-written slot has none and is skipped.
 */
#define DN1_FLASH_BLOCK       0x00010000u
#define DN1_FLASH_LOADER_SIZE 0x00010000u
#define DN1_FLASH_SLOT0       0x00100000u
#define DN1_FLASH_SLOT_SIZE   0x00100000u
#define DN1_FLASH_SLOTS       2u
#define DN1_SLOT_IMAGE        0x100u       /* image offset inside a slot */
#define DN1_SLOT_MAGIC        0x444e5331u  /* "DNS1" */
#define DN1_SLOT_MAX_IMAGE    (DN1_FLASH_SLOT_SIZE - DN1_SLOT_IMAGE)
/* Slot record: u32 magic, u32 generation (higher = newer), u32 image bytes
 * (header included), u32 CRC-32 of the three words before it. */
#define DN1_SLOT_RECORD_SIZE  16u

static inline uint32_t dn1_flash_slot_offset(unsigned slot)
{
    return DN1_FLASH_SLOT0 + slot * DN1_FLASH_SLOT_SIZE;
}

/* Fill a slot record (@r: DN1_SLOT_RECORD_SIZE bytes). */
static inline void dn1_slot_record_put(uint8_t *r, uint32_t generation,
                                       uint32_t img_bytes)
{
    dn1_put_be32(r, DN1_SLOT_MAGIC);
    dn1_put_be32(r + 4, generation);
    dn1_put_be32(r + 8, img_bytes);
    dn1_put_be32(r + 12, dn1_crc32_update(0, r, 12));
}

/* A slot record's generation (0: no committed image; *@why says why). */
static inline uint32_t dn1_slot_record_get(const uint8_t *r, uint32_t *img_bytes,
                                           const char **why)
{
    if (dn1_get_be32(r) != DN1_SLOT_MAGIC) {
        *why = dn1_get_be32(r) == 0xffffffffu ? "empty (no committed image)"
                                              : "no slot record";
        return 0;
    }
    if (dn1_crc32_update(0, r, 12) != dn1_get_be32(r + 12) ||
        dn1_get_be32(r + 4) == 0) {
        *why = "slot record CRC mismatch";
        return 0;
    }
    *img_bytes = dn1_get_be32(r + 8);
    return dn1_get_be32(r + 4);
}

/* Why an image is refused (dn1_img_why() says it in words). */
enum dn1_img_check {
    DN1_IMG_OK = 0,
    DN1_IMG_TRUNCATED,      /* shorter than its header says */
    DN1_IMG_BAD_MAGIC,
    DN1_IMG_BAD_HDR_CRC,
    DN1_IMG_BAD_FORMAT,     /* format version or header size unknown */
    DN1_IMG_WRONG_CPU,
    DN1_IMG_WRONG_CONTRACT,
    DN1_IMG_BAD_PLACE,      /* load address, entry or size out of range */
    DN1_IMG_BAD_CRC,        /* code CRC */
    DN1_IMG_TOO_LARGE,      /* more bytes than the header accounts for */
};

struct dn1_img_info {
    uint16_t cpu, contract;
    uint32_t load, entry, size, crc, version;
    char build[DN1_IMG_BUILD_LEN + 1];
};

static inline const char *dn1_img_why(enum dn1_img_check c)
{
    switch (c) {
    case DN1_IMG_OK:             return "valid";
    case DN1_IMG_TRUNCATED:      return "truncated (shorter than its header says)";
    case DN1_IMG_BAD_MAGIC:      return "not a DIMMnet-1 firmware image (bad magic)";
    case DN1_IMG_BAD_HDR_CRC:    return "header CRC mismatch";
    case DN1_IMG_BAD_FORMAT:     return "unknown image format version";
    case DN1_IMG_WRONG_CPU:      return "built for another CPU port";
    case DN1_IMG_WRONG_CONTRACT: return "needs another hardware contract major";
    case DN1_IMG_BAD_PLACE:      return "load address, entry or size outside local memory";
    case DN1_IMG_BAD_CRC:        return "code CRC mismatch";
    case DN1_IMG_TOO_LARGE:      return "trailing bytes after the code";
    }
    return "?";
}

static inline const char *dn1_img_cpu_name(uint16_t cpu)
{
    return cpu == DN1_IMG_CPU_4KC ? "4kc" : cpu == DN1_IMG_CPU_R3000 ? "r3000" : "?";
}

/* The header alone (@len >= DN1_IMG_HDR_SIZE): magic, header CRC, format,
 * CPU port @cpu, contract major, place. */
static inline enum dn1_img_check dn1_img_check_header(const uint8_t *p, size_t len,
                                                      uint16_t cpu,
                                                      struct dn1_img_info *info)
{
    uint32_t end;

    if (len < DN1_IMG_HDR_SIZE) {
        return len >= 4 && dn1_get_be32(p) != DN1_IMG_MAGIC ? DN1_IMG_BAD_MAGIC
                                                            : DN1_IMG_TRUNCATED;
    }
    if (dn1_get_be32(p + DN1_IMG_OFF_MAGIC) != DN1_IMG_MAGIC) {
        return DN1_IMG_BAD_MAGIC;
    }
    if (dn1_crc32_update(0, p, DN1_IMG_OFF_HDR_CRC) !=
        dn1_get_be32(p + DN1_IMG_OFF_HDR_CRC)) {
        return DN1_IMG_BAD_HDR_CRC;
    }
    if (dn1_get_be16(p + DN1_IMG_OFF_FORMAT) != DN1_IMG_FORMAT ||
        dn1_get_be16(p + DN1_IMG_OFF_HDR_SIZE) != DN1_IMG_HDR_SIZE) {
        return DN1_IMG_BAD_FORMAT;
    }
    info->cpu = dn1_get_be16(p + DN1_IMG_OFF_CPU);
    info->contract = dn1_get_be16(p + DN1_IMG_OFF_CONTRACT);
    info->load = dn1_get_be32(p + DN1_IMG_OFF_LOAD);
    info->entry = dn1_get_be32(p + DN1_IMG_OFF_ENTRY);
    info->size = dn1_get_be32(p + DN1_IMG_OFF_SIZE);
    info->crc = dn1_get_be32(p + DN1_IMG_OFF_CRC);
    info->version = dn1_get_be32(p + DN1_IMG_OFF_VERSION);
    for (unsigned i = 0; i < DN1_IMG_BUILD_LEN; i++) {
        char c = (char)p[DN1_IMG_OFF_BUILD + i];
        info->build[i] = c >= 0x20 && c < 0x7f ? c : (c ? '?' : 0);
    }
    info->build[DN1_IMG_BUILD_LEN] = 0;
    if (info->cpu != cpu) {
        return DN1_IMG_WRONG_CPU;
    }
    if (info->contract != (DN1_CONTRACT_VERSION >> 16)) {
        return DN1_IMG_WRONG_CONTRACT;
    }
    end = info->load + info->size;
    if (info->load < DN1_IMG_LOAD_MIN || info->load % 4 || info->size == 0 ||
        info->size > DN1_IMG_LOAD_LIMIT - DN1_IMG_LOAD_MIN ||
        end > DN1_IMG_LOAD_LIMIT || end < info->load ||
        info->entry < info->load || info->entry >= end || info->entry % 4) {
        return DN1_IMG_BAD_PLACE;
    }
    return DN1_IMG_OK;
}

/* Write the header of an image whose @size code bytes follow it at @p + 64
 * (code CRC and header CRC computed here); @build may be NULL. */
static inline void dn1_img_header_put(uint8_t *p, uint16_t cpu, uint32_t load,
                                      uint32_t entry, uint32_t size,
                                      uint32_t version, const char *build)
{
    for (unsigned i = 0; i < DN1_IMG_HDR_SIZE; i++) {
        p[i] = 0;
    }
    dn1_put_be32(p + DN1_IMG_OFF_MAGIC, DN1_IMG_MAGIC);
    dn1_put_be16(p + DN1_IMG_OFF_FORMAT, DN1_IMG_FORMAT);
    dn1_put_be16(p + DN1_IMG_OFF_HDR_SIZE, DN1_IMG_HDR_SIZE);
    dn1_put_be16(p + DN1_IMG_OFF_CPU, cpu);
    dn1_put_be16(p + DN1_IMG_OFF_CONTRACT, DN1_CONTRACT_VERSION >> 16);
    dn1_put_be32(p + DN1_IMG_OFF_LOAD, load);
    dn1_put_be32(p + DN1_IMG_OFF_ENTRY, entry);
    dn1_put_be32(p + DN1_IMG_OFF_SIZE, size);
    dn1_put_be32(p + DN1_IMG_OFF_CRC,
                 dn1_crc32_update(0, p + DN1_IMG_HDR_SIZE, size));
    dn1_put_be32(p + DN1_IMG_OFF_VERSION, version);
    for (unsigned i = 0; build && build[i] && i < DN1_IMG_BUILD_LEN; i++) {
        p[DN1_IMG_OFF_BUILD + i] = (uint8_t)build[i];
    }
    dn1_put_be32(p + DN1_IMG_OFF_HDR_CRC, dn1_crc32_update(0, p, DN1_IMG_OFF_HDR_CRC));
}

/* A whole image of @len bytes: the header, then exactly its code. */
static inline enum dn1_img_check dn1_img_check(const uint8_t *p, size_t len,
                                               uint16_t cpu,
                                               struct dn1_img_info *info)
{
    enum dn1_img_check c = dn1_img_check_header(p, len, cpu, info);

    if (c != DN1_IMG_OK) {
        return c;
    }
    if (len - DN1_IMG_HDR_SIZE < info->size) {
        return DN1_IMG_TRUNCATED;
    }
    if (len - DN1_IMG_HDR_SIZE > info->size) {
        return DN1_IMG_TOO_LARGE;
    }
    if (dn1_crc32_update(0, p + DN1_IMG_HDR_SIZE, info->size) != info->crc) {
        return DN1_IMG_BAD_CRC;
    }
    return DN1_IMG_OK;
}

#endif /* DIMMNET1_FW_IMAGE_H */

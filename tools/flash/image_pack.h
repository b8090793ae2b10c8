/* ELF to flash image (image_pack.c). */
#ifndef DN1_IMAGE_PACK_H
#define DN1_IMAGE_PACK_H

#include <stddef.h>
#include <stdint.h>
#include "dimmnet1/fw_image.h"

struct dn1_pack_opts {
    uint16_t cpu;             /* DN1_IMG_CPU_* */
    uint32_t version;         /* major<<16 | minor<<8 | patch */
    const char *build;        /* build id, up to 16 characters */
};

struct dn1_packed {
    uint8_t *image;           /* malloc'ed: header and code */
    size_t bytes;
    uint32_t text, rodata, data, bss;   /* allocated sections by kind */
};

/* 0, or -1 with the reason in @why. */
int dn1_pack_elf(const uint8_t *elf, size_t len, const struct dn1_pack_opts *o,
                 struct dn1_packed *out, char *why, size_t why_len);

#endif

/*
 * Pack a firmware ELF (MIPS, 32-bit, big-endian, linked by ld/dimmnet1.ld)
 * into a flash image (dimmnet1/fw_image.h): the bytes of its loadable
 * segments from the lowest load address to the end of the last one's file
 * contents (gaps filled with 0), behind a 64-byte header. Also sums the
 * allocated sections by kind for the size report.
 */
#include <elf.h>
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "image_pack.h"

static uint16_t be16(const void *p)
{
    uint16_t v;

    memcpy(&v, p, 2);
    return be16toh(v);
}

static uint32_t be32(const void *p)
{
    uint32_t v;

    memcpy(&v, p, 4);
    return be32toh(v);
}

#define FIELD16(base, type, f) be16((const uint8_t *)(base) + offsetof(type, f))
#define FIELD32(base, type, f) be32((const uint8_t *)(base) + offsetof(type, f))

static int fail(char *why, size_t why_len, const char *msg)
{
    snprintf(why, why_len, "%s", msg);
    return -1;
}

int dn1_pack_elf(const uint8_t *elf, size_t len, const struct dn1_pack_opts *o,
                 struct dn1_packed *out, char *why, size_t why_len)
{
    uint32_t lo = UINT32_MAX, hi = 0, entry, phoff, shoff;
    uint16_t phnum, phentsize, shnum, shentsize;
    uint8_t *img;

    memset(out, 0, sizeof(*out));
    if (len < sizeof(Elf32_Ehdr) || memcmp(elf, ELFMAG, SELFMAG)) {
        return fail(why, why_len, "not an ELF file");
    }
    if (elf[EI_CLASS] != ELFCLASS32 || elf[EI_DATA] != ELFDATA2MSB ||
        FIELD16(elf, Elf32_Ehdr, e_machine) != EM_MIPS ||
        FIELD16(elf, Elf32_Ehdr, e_type) != ET_EXEC) {
        return fail(why, why_len, "not a 32-bit big-endian MIPS executable");
    }
    entry = FIELD32(elf, Elf32_Ehdr, e_entry);
    phoff = FIELD32(elf, Elf32_Ehdr, e_phoff);
    phnum = FIELD16(elf, Elf32_Ehdr, e_phnum);
    phentsize = FIELD16(elf, Elf32_Ehdr, e_phentsize);
    shoff = FIELD32(elf, Elf32_Ehdr, e_shoff);
    shnum = FIELD16(elf, Elf32_Ehdr, e_shnum);
    shentsize = FIELD16(elf, Elf32_Ehdr, e_shentsize);
    if (phentsize != sizeof(Elf32_Phdr) || phoff > len ||
        (size_t)phnum * phentsize > len - phoff ||
        (shnum && (shentsize != sizeof(Elf32_Shdr) || shoff > len ||
                   (size_t)shnum * shentsize > len - shoff))) {
        return fail(why, why_len, "ELF headers out of the file");
    }
    /* The span of the loadable contents. */
    for (unsigned i = 0; i < phnum; i++) {
        const uint8_t *ph = elf + phoff + i * phentsize;
        uint32_t pa = FIELD32(ph, Elf32_Phdr, p_paddr);
        uint32_t fsz = FIELD32(ph, Elf32_Phdr, p_filesz);
        uint32_t off = FIELD32(ph, Elf32_Phdr, p_offset);

        if (FIELD32(ph, Elf32_Phdr, p_type) != PT_LOAD || !fsz) {
            continue;
        }
        if (off > len || fsz > len - off || pa + fsz < pa) {
            return fail(why, why_len, "a segment lies outside the file");
        }
        lo = pa < lo ? pa : lo;
        hi = pa + fsz > hi ? pa + fsz : hi;
    }
    if (lo >= hi) {
        return fail(why, why_len, "no loadable contents");
    }
    if (hi - lo > DN1_IMG_LOAD_LIMIT - DN1_IMG_LOAD_MIN) {
        return fail(why, why_len, "loadable contents larger than local memory");
    }
    img = calloc(1, DN1_IMG_HDR_SIZE + (hi - lo));
    if (!img) {
        return fail(why, why_len, "out of memory");
    }
    for (unsigned i = 0; i < phnum; i++) {
        const uint8_t *ph = elf + phoff + i * phentsize;
        uint32_t fsz = FIELD32(ph, Elf32_Phdr, p_filesz);

        if (FIELD32(ph, Elf32_Phdr, p_type) == PT_LOAD && fsz) {
            memcpy(img + DN1_IMG_HDR_SIZE + (FIELD32(ph, Elf32_Phdr, p_paddr) - lo),
                   elf + FIELD32(ph, Elf32_Phdr, p_offset), fsz);
        }
    }
    /* The size report: allocated sections by kind. */
    for (unsigned i = 0; i < shnum; i++) {
        const uint8_t *sh = elf + shoff + i * shentsize;
        uint32_t flags = FIELD32(sh, Elf32_Shdr, sh_flags);
        uint32_t type = FIELD32(sh, Elf32_Shdr, sh_type);
        uint32_t size = FIELD32(sh, Elf32_Shdr, sh_size);

        if (!(flags & SHF_ALLOC)) {
            continue;
        }
        if (type == SHT_NOBITS) {
            out->bss += size;
        } else if (flags & SHF_EXECINSTR) {
            out->text += size;
        } else if (flags & SHF_WRITE) {
            out->data += size;
        } else {
            out->rodata += size;
        }
    }
    out->bytes = DN1_IMG_HDR_SIZE + (hi - lo);
    out->image = img;
    dn1_img_header_put(img, o->cpu, lo, entry, hi - lo, o->version, o->build);
    return 0;
}

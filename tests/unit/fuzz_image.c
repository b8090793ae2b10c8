/*
 * libFuzzer harness over everything that reads a firmware image or a flash
 * slot from outside: dn1_img_check (the board's -bios, the boot loader, the
 * shim, dimmnet-flash), dn1_slot_record_get (loader, shim) and the ELF
 * packer (dimmnet-flash pack). No input may crash them or read outside it
 * (ASan), and what they accept must be exactly what the writers make:
 *   - an accepted image is its header and exactly its code, placed inside
 *     local memory below the load limit, its CRCs right, and writing its
 *     header again from the fields gives the same bytes;
 *   - an accepted slot record is the record dn1_slot_record_put writes;
 *   - an ELF the packer takes gives an image of its code bytes.
 */
#include <stdlib.h>
#include <string.h>
#include "dimmnet1/fw_image.h"
#include "image_pack.h"

static void check_image(const uint8_t *data, size_t size, uint16_t cpu)
{
    struct dn1_img_info info;
    uint8_t *again;

    if (dn1_img_check(data, size, cpu, &info) != DN1_IMG_OK) {
        return;
    }
    if (size != DN1_IMG_HDR_SIZE + info.size || info.cpu != cpu ||
        info.load < DN1_IMG_LOAD_MIN || info.load + info.size > DN1_IMG_LOAD_LIMIT ||
        info.entry < info.load || info.entry >= info.load + info.size ||
        dn1_crc32_update(0, data + DN1_IMG_HDR_SIZE, info.size) != info.crc) {
        abort();
    }
    again = malloc(size);
    memcpy(again, data, size);
    dn1_img_header_put(again, info.cpu, info.load, info.entry, info.size,
                       info.version, NULL);
    /* The build id is printable or '?': copy the raw bytes back. */
    memcpy(again + DN1_IMG_OFF_BUILD, data + DN1_IMG_OFF_BUILD, DN1_IMG_BUILD_LEN);
    dn1_put_be32(again + DN1_IMG_OFF_HDR_CRC,
                 dn1_crc32_update(0, again, DN1_IMG_OFF_HDR_CRC));
    if (memcmp(again, data, DN1_IMG_OFF_HDR_CRC + 4)) {
        abort();
    }
    free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_image(data, size, DN1_IMG_CPU_4KC);
    check_image(data, size, DN1_IMG_CPU_R3000);
    if (size >= DN1_SLOT_RECORD_SIZE) {
        uint32_t bytes = 0, gen;
        const char *why = NULL;
        uint8_t rec[DN1_SLOT_RECORD_SIZE];

        gen = dn1_slot_record_get(data, &bytes, &why);
        if (gen) {
            dn1_slot_record_put(rec, gen, bytes);
            if (memcmp(rec, data, sizeof(rec))) {
                abort();
            }
        } else if (!why) {
            abort();
        }
    }
    {
        struct dn1_pack_opts o = { DN1_IMG_CPU_4KC, 0x010203, "fuzz" };
        struct dn1_packed out;
        char why[128];

        if (dn1_pack_elf(data, size, &o, &out, why, sizeof(why)) == 0) {
            if (out.bytes < DN1_IMG_HDR_SIZE + 1 ||
                dn1_get_be32(out.image + DN1_IMG_OFF_SIZE) != out.bytes - DN1_IMG_HDR_SIZE) {
                abort();
            }
            free(out.image);
        }
    }
    return 0;
}

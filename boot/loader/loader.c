/*
 * Boot loader: the first block of the boot flash (docs/firmware.md, "Images
 * and flash"). Picks the newer committed slot, verifies its image (magic,
 * header CRC, CPU port, contract major, place, code CRC), copies it to its
 * load address in local memory and enters it; a slot that fails is skipped,
 * with the reason on the console, and the other one is tried. The board's
 * BOOT_* registers tell the firmware and the host what was booted.
 */
#include <stdint.h>
#include "dimmnet1/fw_image.h"
#include "dimmnet1/regs.h"
#include "hal/mmio.h"
#include "hal/uart.h"

#define FLASH(off)  (0xa0000000u | (DN1_FLASH_BASE + (off)))

void loader_main(void) __attribute__((noreturn));
void loader_fatal(void) __attribute__((noreturn));

static void puts_(const char *s)
{
    const char *e = s;

    while (*e) {
        e++;
    }
    uart_write(s, (size_t)(e - s));
}

static void putu(uint32_t v)
{
    char buf[11], *p = buf + sizeof(buf);

    *--p = 0;
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    puts_(p);
}

static void put_version(uint32_t v)
{
    putu(v >> 16);
    puts_(".");
    putu((v >> 8) & 0xff);
    puts_(".");
    putu(v & 0xff);
}

static const uint8_t *flash(uint32_t off)
{
    return (const uint8_t *)FLASH(off);
}

static void say_skipped(unsigned slot, const char *why)
{
    puts_("boot: slot ");
    putu(slot);
    puts_(" skipped: ");
    puts_(why);
    puts_("\n");
}

static void boot_slot(unsigned slot, uint32_t generation,
                      const struct dn1_img_info *info)
{
    const uint8_t *code = flash(dn1_flash_slot_offset(slot) + DN1_SLOT_IMAGE +
                                DN1_IMG_HDR_SIZE);
    volatile uint8_t *dst = (volatile uint8_t *)info->load;

    for (uint32_t i = 0; i < info->size; i++) {
        dst[i] = code[i];
    }
    mmio_write32(DN1_REGS_BASE + DN1_REG_BOOT_VERSION, info->version);
    mmio_write32(DN1_REGS_BASE + DN1_REG_BOOT_SLOT,
                 generation << DN1_BOOT_GEN_SHIFT | slot);
    puts_("boot: slot ");
    putu(slot);
    puts_(" generation ");
    putu(generation);
    puts_(": firmware ");
    put_version(info->version);
    puts_(" build ");
    puts_(info->build);
    puts_("\n");
    ((void (*)(void))info->entry)();
    loader_fatal();
}

void loader_main(void)
{
    uint32_t gen[DN1_FLASH_SLOTS], bytes[DN1_FLASH_SLOTS];
    const char *why[DN1_FLASH_SLOTS];

    uart_init();
    puts_("DIMMnet-1 boot loader (" LOADER_PORT ")\n");
    for (unsigned s = 0; s < DN1_FLASH_SLOTS; s++) {
        gen[s] = dn1_slot_record_get(flash(dn1_flash_slot_offset(s)), &bytes[s],
                                     &why[s]);
    }
    /* Newer first; a slot that fails verification falls back to the other. */
    for (unsigned n = 0; n < DN1_FLASH_SLOTS; n++) {
        unsigned s = gen[1] > gen[0] ? 1u - n : n;
        struct dn1_img_info info;
        enum dn1_img_check c;

        if (!gen[s]) {
            say_skipped(s, why[s]);
            continue;
        }
        c = bytes[s] > DN1_SLOT_MAX_IMAGE
                ? DN1_IMG_TOO_LARGE
                : dn1_img_check(flash(dn1_flash_slot_offset(s) + DN1_SLOT_IMAGE),
                                bytes[s], LOADER_CPU, &info);
        if (c == DN1_IMG_OK) {
            boot_slot(s, gen[s], &info);
        }
        say_skipped(s, dn1_img_why(c));
    }
    puts_("boot: FATAL: no bootable firmware in either slot\n");
    mmio_write32(DN1_REGS_BASE + DN1_REG_FW_STATUS, DN1_FW_FAILED);
    for (;;) {
    }
}

/* Any exception while loading (the vectors in loader_start.S). */
void loader_fatal(void)
{
    puts_("boot: FATAL: exception in the boot loader\n");
    mmio_write32(DN1_REGS_BASE + DN1_REG_FW_STATUS, DN1_FW_FAILED);
    for (;;) {
    }
}

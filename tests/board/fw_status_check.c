/*
 * Firmware-on-board check, run under the launcher on one board: the firmware
 * reports READY with its version in FW_STATUS, nothing is held, no errors,
 * and BOOT_VERSION / BOOT_SLOT say the boot loader started that version
 * from flash slot 0, generation 1 (the launcher's fresh flash file).
 *
 *   fw_status_check MAJOR.MINOR.PATCH
 */
#include <stdio.h>
#include <stdlib.h>
#include "../common/check.h"
#include "dimmnet1/dn.h"
#include "dimmnet1/regs.h"

int main(int argc, char **argv)
{
    unsigned major, minor, patch;
    dn_node *n;
    uint32_t fw, irq, reg_errors;

    if (argc != 2 || sscanf(argv[1], "%u.%u.%u", &major, &minor, &patch) != 3) {
        fprintf(stderr, "usage: %s MAJOR.MINOR.PATCH\n", argv[0]);
        return 2;
    }
    int rc = dn_open_env(&n, 30000);
    if (rc != DN_OK) {
        fprintf(stderr, "dn_open_env: %s\n", dn_strerror(rc));
        return 1;
    }
    CHECK_EQ(dn_reg_read(n, DN1_REG_FW_STATUS, &fw), DN_OK);
    CHECK_EQ(fw, (major << 8 | minor) << DN1_FW_VERSION_SHIFT | DN1_FW_READY);
    CHECK_EQ(dn_reg_read(n, DN1_REG_IRQ_STATUS, &irq), DN_OK);
    CHECK_EQ(irq, 0);
    CHECK_EQ(dn_reg_read(n, DN1_REG_CNT(DN1_CNT_ERR_REG), &reg_errors), DN_OK);
    CHECK_EQ(reg_errors, 0);   /* the firmware made no access the contract forbids */
    struct dn_boot_info bi;
    CHECK_EQ(dn_boot_info(n, &bi), DN_OK);
    CHECK_EQ(bi.version, major << 16 | minor << 8 | patch);
    CHECK_EQ(bi.slot, 0);
    CHECK_EQ(bi.generation, 1);
    dn_close(n);
    printf("FW_STATUS 0x%08x\n", fw);
    return check_failures ? 1 : 0;
}

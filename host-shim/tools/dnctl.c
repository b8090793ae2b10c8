/*
 * dnctl: show a node's NIC state: identity, firmware status, the firmware
 * image booted (version, flash slot and generation), link, every
 * counter by name, the firmware's statistics (fw.*), and the report of
 * every barrier a program on this node runs (its algorithm, AUTO's
 * candidates with the slowest member's time). Run under the launcher (it opens the node from the
 * environment), e.g.  tools/dimmnet-cluster ... -- build/dnctl
 *
 *   dnctl [--nonzero]
 */
#include <stdio.h>
#include <string.h>
#include "dimmnet1/dn.h"
#include "dimmnet1/regs.h"

int main(int argc, char **argv)
{
    int nonzero = argc == 2 && !strcmp(argv[1], "--nonzero");
    uint32_t fw, link, irq, version;
    dn_node *n;

    if (argc > 2 || (argc == 2 && !nonzero)) {
        fprintf(stderr, "usage: %s [--nonzero]\n", argv[0]);
        return 2;
    }
    int rc = dn_open_env(&n, 30000);
    if (rc != DN_OK) {
        fprintf(stderr, "dnctl: cannot open this node: %s\n", dn_strerror(rc));
        return 1;
    }
    if ((rc = dn_reg_read(n, DN1_REG_VERSION, &version)) ||
        (rc = dn_reg_read(n, DN1_REG_FW_STATUS, &fw)) ||
        (rc = dn_reg_read(n, DN1_REG_LINK_STATUS, &link)) ||
        (rc = dn_reg_read(n, DN1_REG_IRQ_STATUS, &irq))) {
        fprintf(stderr, "dnctl: %s\n", dn_strerror(rc));
        dn_close(n);
        return 1;
    }
    printf("node %u: contract %u.%u, firmware %u.%u %s%s, link %s, %s\n",
           dn_node_id(n), version >> 16, version & 0xffff,
           fw >> 24, (fw >> 16) & 0xff, fw & DN1_FW_READY ? "ready" : "not ready",
           fw & 2 ? " FAILED" : "", link & DN1_LINK_UP ? "up" : "down",
           irq & DN1_IRQ_RX_HELD ? "a packet is held" : "nothing held");
    /* What the boot loader (or the board, for -bios) started. */
    struct dn_boot_info bi;
    if (dn_boot_info(n, &bi) == DN_OK) {
        char slot[32];
        if (bi.slot == DN_BOOT_SLOT_BIOS) {
            snprintf(slot, sizeof(slot), "-bios (no flash)");
        } else {
            snprintf(slot, sizeof(slot), "slot %u generation %u", bi.slot, bi.generation);
        }
        printf("node %u: booted firmware %u.%u.%u from %s\n", dn_node_id(n),
               bi.version >> 16, (bi.version >> 8) & 0xff, bi.version & 0xff, slot);
    }
    for (unsigned i = 0; i < dn_counter_count(); i++) {
        uint32_t v;
        if ((rc = dn_counter_read(n, i, &v)) != DN_OK) {
            fprintf(stderr, "dnctl: %s\n", dn_strerror(rc));
            dn_close(n);
            return 1;
        }
        if (v || !nonzero) {
            printf("node %u: %-14s %u\n", dn_node_id(n), dn_counter_name(i), v);
        }
    }
    /* The firmware's own statistics (LLCM; docs/hardware.md section 10). */
    for (unsigned i = 0; i < dn_fw_stat_count(); i++) {
        uint32_t v;
        if (dn_fw_stat_read(n, i, &v) != DN_OK) {
            printf("node %u: firmware keeps no statistics\n", dn_node_id(n));
            break;
        }
        if (v || !nonzero) {
            printf("node %u: fw.%-16s %u\n", dn_node_id(n), dn_fw_stat_name(i), v);
        }
    }
    /* Barriers (docs/barriers.md): what their owners published in LLCM. */
    for (unsigned id = 0; id < DN_BARRIER_MAX; id++) {
        struct dn_barrier_report r;
        if (dn_barrier_report_read(n, id, &r) != DN_OK) {
            continue;
        }
        const char *clock = r.modeled ? "modeled" : "wall clock";
        printf("node %u: barrier %u: %s, %llu calls, last %.2f us (%s), %llu resends, "
               "%llu NACKs\n", dn_node_id(n), id, dn_barrier_algorithm_name(r.algorithm),
               (unsigned long long)r.calls, r.last_ns / 1e3, clock,
               (unsigned long long)r.resends, (unsigned long long)r.nacks);
        for (unsigned a = 1; a < DN_BARRIER_ALGORITHMS; a++) {
            if (r.candidate[a].trials) {
                printf("node %u: barrier %u: auto tried %-14s %u calls: slowest member "
                       "%.2f us, this node %.2f us%s\n", dn_node_id(n), id,
                       dn_barrier_algorithm_name(a), r.candidate[a].trials,
                       r.candidate[a].slowest_ns / 1e3, r.candidate[a].own_ns / 1e3,
                       r.algorithm == (enum dn_barrier_algorithm)a ? " (chosen)" : "");
            }
        }
    }
    dn_close(n);
    return 0;
}

/*
 * libFuzzer targets for the dimmnet1 board from the outside: link bytes
 * (data frames well-formed, corrupted and raw; control frames) and host-bus
 * requests with the window memory the host fills, interleaved with virtual
 * time passing and the firmware's decisions on held packets. Three boards:
 * without timing, with timing (sync=on), with host sync (host-sync=on).
 *
 *   qemu-fuzz-mips --fuzz-target=dimmnet1-link[-sync|-hostsync] CORPUS...
 *
 * An input is a sequence of ops, each an op byte and its arguments
 * (dimmnet1_fuzz.c reads them; a short input reads as zeros).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "dimmnet1_fuzz.h"

enum {
    OP_PACKET, OP_BAD_PACKET, OP_RAW, OP_CONTROL, OP_HOSTBUS, OP_WINDOW,
    OP_CLOCK, OP_RX_CMD, OP_HOST_MISC, OP_COUNT
};

/* Hanging up ends most of what an input can do: only on op byte 0xff. */
#define OP_HANG_UP 0xff

static void link_op(Dn1fBoard *b, Dn1fInput *in)
{
    uint8_t op = dn1f_u8(in);

    if (op == OP_HANG_UP) {
        dn1f_hang_up(b, in);
        return;
    }
    switch (op % OP_COUNT) {
    case OP_PACKET:
        dn1f_send_packet(b, in, false);
        break;
    case OP_BAD_PACKET:
        dn1f_send_packet(b, in, true);
        break;
    case OP_RAW:
        dn1f_send_raw(b, in);
        break;
    case OP_CONTROL:
        dn1f_send_control(b, in);
        break;
    case OP_HOSTBUS:
        dn1f_hostbus(b, in);
        break;
    case OP_WINDOW:
        dn1f_window_write(b, in);
        break;
    case OP_CLOCK:
        dn1f_clock_step(b, in);
        break;
    case OP_RX_CMD:
        dn1f_rx_cmd(b, in);
        break;
    case OP_HOST_MISC:
        if (op & 0x10) {
            dn1f_fw_status(b, in);       /* READY starts host sync */
        } else {
            dn1f_cq_consume(b, in);
        }
        break;
    }
}

static void link_fuzz(QTestState *s, const unsigned char *data, size_t size)
{
    dn1f_fork_run(s, data, size, false, false, link_op);
}

static void link_sync_fuzz(QTestState *s, const unsigned char *data,
                           size_t size)
{
    dn1f_fork_run(s, data, size, true, false, link_op);
}

static void link_hostsync_fuzz(QTestState *s, const unsigned char *data,
                               size_t size)
{
    dn1f_fork_run(s, data, size, true, true, link_op);
}

static GString *link_cmdline(FuzzTarget *t)
{
    return dn1f_cmdline("");
}

static GString *link_sync_cmdline(FuzzTarget *t)
{
    return dn1f_cmdline(",sync=on");
}

static GString *link_hostsync_cmdline(FuzzTarget *t)
{
    return dn1f_cmdline(",sync=on,host-sync=on");
}

static void register_dimmnet1_link_fuzz_targets(void)
{
    fuzz_add_target(&(FuzzTarget){
        .name = "dimmnet1-link",
        .description = "dimmnet1 board: link frames and host-bus requests",
        .get_init_cmdline = link_cmdline,
        .pre_fuzz = dn1f_pre_fuzz,
        .fuzz = link_fuzz,
    });
    fuzz_add_target(&(FuzzTarget){
        .name = "dimmnet1-link-sync",
        .description = "dimmnet1 board with timing (sync=on): link frames, "
                       "grants and host-bus requests",
        .get_init_cmdline = link_sync_cmdline,
        .pre_fuzz = dn1f_pre_fuzz,
        .fuzz = link_sync_fuzz,
    });
    fuzz_add_target(&(FuzzTarget){
        .name = "dimmnet1-link-hostsync",
        .description = "dimmnet1 board with host sync (host-sync=on): host "
                       "requests in virtual time, link frames, grants",
        .get_init_cmdline = link_hostsync_cmdline,
        .pre_fuzz = dn1f_pre_fuzz,
        .fuzz = link_hostsync_fuzz,
    });
}

fuzz_target_init(register_dimmnet1_link_fuzz_targets);

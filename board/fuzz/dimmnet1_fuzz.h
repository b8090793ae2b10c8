/*
 * libFuzzer targets for the dimmnet1 board: what the link and host-bus
 * targets (dimmnet1_link_fuzz.c) and the processor-side target
 * (dimmnet1_regs_fuzz.c) share: the board's command line with its link and
 * host bus on socket pairs, one forked child per input, an input reader, a
 * packet builder, and the invariants every input is checked against.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef DIMMNET1_FUZZ_H
#define DIMMNET1_FUZZ_H

#include "qemu/module.h"
#include "tests/qtest/libqtest.h"
#include "fuzz.h"
#include "dimmnet1/packet.h"
#include "dimmnet1/regs.h"

/* The board under test is node 1; the fuzzer plays node 0 and the host. */
#define DN1F_NODE 1

/* What an input is made of: bytes read in order, 0 once exhausted. */
typedef struct Dn1fInput {
    const uint8_t *p;
    size_t left;
} Dn1fInput;

uint8_t dn1f_u8(Dn1fInput *in);
uint16_t dn1f_u16(Dn1fInput *in);
uint32_t dn1f_u32(Dn1fInput *in);
uint64_t dn1f_u64(Dn1fInput *in);
/* Up to @n bytes into @buf (the rest zero); returns how many came. */
size_t dn1f_bytes(Dn1fInput *in, void *buf, size_t n);

/* The board in the running child. */
typedef struct Dn1fBoard {
    QTestState *qts;
    bool sync;
    bool host_sync;
    int link;                 /* our end of the link, -1 once closed */
    int hostbus;              /* our end of the host bus, -1 once closed */
    uint32_t hb_sent;         /* host-bus requests sent, responses seen */
    uint32_t hb_answered;
    uint32_t hb_posted;       /* posted requests sent, error notices seen */
    uint32_t hb_notices;
    int64_t grant;            /* last grant we sent */
    bool link_closed_ever;
    uint32_t cq_consumed;     /* what the host wrote into CQ_CONSUMED */
    uint32_t cnt[DN1_CNT_COUNT];
    uint8_t window[4096];     /* what the host wrote into window memory */
    uint8_t sram[65536];      /* what the processor wrote into chip SRAM */
    uint8_t rvatlb[1024];     /* and into the TLB memories */
    uint8_t patlb[512];
} Dn1fBoard;

/*
 * The processor's loads and stores (big-endian). Not qtest_readl() and
 * friends: QEMU 7.2's fuzz wrappers (qtest_wrappers.c) skip the target byte
 * swap that the qtest server does, so they give byte-swapped values on a
 * big-endian target like this one.
 */
uint32_t dn1f_readl(uint32_t pa);
uint16_t dn1f_readw(uint32_t pa);
uint8_t dn1f_readb(uint32_t pa);
void dn1f_writel(uint32_t pa, uint32_t v);
void dn1f_writew(uint32_t pa, uint16_t v);
void dn1f_writeb(uint32_t pa, uint8_t v);
void dn1f_memwrite(uint32_t pa, const void *buf, size_t len);

/* -M dimmnet1 with the link and host bus on socket pairs; @opts: more
 * machine options (",sync=on"). */
GString *dn1f_cmdline(const char *opts);
/* pre_fuzz: coverage counters shared with the children. */
void dn1f_pre_fuzz(QTestState *s);
/* Run @one on the input in a forked child with fresh sockets; a child that
 * fails or hangs fails the parent too, so libFuzzer stops with the input.
 * DN1_FUZZ_PERSISTENT=1: in this process, after a reset (no timing only). */
void dn1f_fork_run(QTestState *s, const uint8_t *data, size_t size,
                   bool sync, bool host_sync,
                   void (*one)(Dn1fBoard *b, Dn1fInput *in));

/* Let the board take what was sent, then drain and check its output. */
void dn1f_settle(Dn1fBoard *b);
/* Check every invariant (counters, memories, output); abort on a failure. */
void dn1f_check(Dn1fBoard *b);
/* Failure: print why and abort (libFuzzer records the input). */
void G_NORETURN dn1f_fail(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

/* A packet from the fuzzer on the link: header fields from the input, aimed
 * mostly at this board and at interesting remote addresses; @corrupt flips a
 * byte after sealing. */
void dn1f_send_packet(Dn1fBoard *b, Dn1fInput *in, bool corrupt);
void dn1f_send_raw(Dn1fBoard *b, Dn1fInput *in);
void dn1f_send_control(Dn1fBoard *b, Dn1fInput *in);
void dn1f_hostbus(Dn1fBoard *b, Dn1fInput *in);
void dn1f_window_write(Dn1fBoard *b, Dn1fInput *in);
void dn1f_clock_step(Dn1fBoard *b, Dn1fInput *in);
/* The firmware's side of a held packet: maybe a new RX_RADDR and a NACK
 * reason, then an RX_CMD (any value, mostly the five defined). */
void dn1f_rx_cmd(Dn1fBoard *b, Dn1fInput *in);
/* A processor write to FW_STATUS (READY starts host sync). */
void dn1f_fw_status(Dn1fBoard *b, Dn1fInput *in);
/* The host consumes completion records (writes CQ_CONSUMED). */
void dn1f_cq_consume(Dn1fBoard *b, Dn1fInput *in);
/* Hang up the link (the switch goes away) or the host bus. */
void dn1f_hang_up(Dn1fBoard *b, Dn1fInput *in);

#endif

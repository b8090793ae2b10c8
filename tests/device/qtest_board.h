/*
 * A dimmnet1 board under QEMU's qtest accelerator, for device tests without
 * firmware: the test drives the Martini registers through the qtest protocol
 * (as the processor would), plays the host on the host-bus socket and the
 * peer board on the link socket, and sees the shared memories as files.
 */
#ifndef QTEST_BOARD_H
#define QTEST_BOARD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "dimmnet1/hostbus.h"
#include "dimmnet1/packet.h"

struct qtest_board {
    pid_t pid;
    int qtest_fd;
    int hostbus_fd;
    int hostbus1_fd;          /* host port 1 (",host-ports=2"), else -1 */
    int link_fd;
    int irq_level;            /* last "IRQ raise/lower 0" seen */
    uint64_t link_vtime;      /* last data frame's departure (timing) */
    uint8_t *hostmem, *llcm, *window;
    char dir[48];
    char rx[4096];
    size_t rx_fill;
};

/* Start a board with node id @node; returns 0 or -1 (message on stderr). */
int qb_start(struct qtest_board *b, const char *qemu, unsigned node);
/* The same with more machine options, e.g. ",sync=on" (leading comma). */
int qb_start_opts(struct qtest_board *b, const char *qemu, unsigned node,
                  const char *machine_opts);
/* Start a board whose processor runs the firmware @image (-bios): no
 * qtest, the test is the board's host and link peer; the console is
 * b->dir/console. Registers through the host bus (qb_hb_reg). */
int qb_start_firmware(struct qtest_board *b, const char *qemu, unsigned node,
                      const char *image);
void qb_stop(struct qtest_board *b);
/* Is the QEMU process still there (it did not crash)? */
int qb_alive(struct qtest_board *b);
/* Let @ns of virtual time pass (qtest clock_step). */
int qb_clock_step(struct qtest_board *b, uint64_t ns);

uint32_t qb_readl(struct qtest_board *b, uint32_t pa);
uint16_t qb_readw(struct qtest_board *b, uint32_t pa);
uint8_t qb_readb(struct qtest_board *b, uint32_t pa);
void qb_writel(struct qtest_board *b, uint32_t pa, uint32_t v);
/* Write @len bytes at @pa, in address order (as the processor's stores). */
void qb_write(struct qtest_board *b, uint32_t pa, const void *buf, size_t len);
uint32_t qb_reg(struct qtest_board *b, uint32_t off);           /* Martini register */
void qb_set_reg(struct qtest_board *b, uint32_t off, uint32_t v);
uint32_t qb_counter(struct qtest_board *b, unsigned idx);
/* A Martini register read as the host reads it (host-bus REG_READ). */
uint32_t qb_hb_reg(struct qtest_board *b, uint32_t off);

/* Send a sealed packet (hdr + payload) to the board over its link. */
void qb_link_send(struct qtest_board *b, const struct dn1_hdr *h,
                  const void *payload);
/* Send raw bytes on the link (for malformed frames). */
void qb_link_send_raw(struct qtest_board *b, const void *buf, size_t len);
/* Receive one packet from the board's link within @timeout_ms: 0 or -1. */
int qb_link_recv(struct qtest_board *b, struct dn1_hdr *h, uint8_t *payload,
                 int timeout_ms);

/* Receive one header-only control frame (timing): 0, or -1 on timeout. */
int qb_link_recv_control(struct qtest_board *b, uint32_t *magic,
                         uint64_t *vtime, int timeout_ms);

/* A host-bus request; returns the response status, value in *value. */
int32_t qb_hostbus(struct qtest_board *b, uint32_t op, uint64_t arg0,
                   uint64_t *value);
int32_t qb_hostbus3(struct qtest_board *b, uint32_t op, uint64_t arg0,
                    uint64_t arg1, uint64_t arg2, uint64_t *value);
/* Same with a raw request (for malformed ones). */
int32_t qb_hostbus_raw(struct qtest_board *b, const void *req, size_t len);
/* A request without waiting (a posted one), and the next response or
 * notice as it comes (0, or -1 if none within @timeout_ms). */
void qb_hostbus_send(struct qtest_board *b, uint32_t op, uint64_t arg0,
                     uint64_t arg1, uint64_t arg2);
int qb_hostbus_read(struct qtest_board *b, struct dn1_hb_rsp *rsp,
                    int timeout_ms);

/* Poll until counter @idx reaches @want (the board works asynchronously). */
int qb_wait_counter(struct qtest_board *b, unsigned idx, uint32_t want,
                    int timeout_ms);

#endif

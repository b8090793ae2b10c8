/*
 * libFuzzer targets for the dimmnet1 board: the shared part (see
 * dimmnet1_fuzz.h). Each input runs in a forked child, as QEMU 7.2's
 * fork-based targets do, so that every input starts from the same board;
 * the child also gets fresh socket pairs in place of the board's link and
 * host bus (dup2 onto the chardevs' descriptors), so that nothing it left in
 * a socket reaches the next input and it may hang up on the board. Long
 * runs of the boards without timing may skip the fork (persistent mode,
 * below).
 *
 * Failures (abort, so libFuzzer keeps the input): a crash or sanitizer
 * report, a hang, a byte the board wrote outside the writable NIC address
 * space (window memory, chip SRAM, the TLBs, LLCM outside the completion
 * queue), a counter that went backwards, counters that disagree
 * with each other, and board output that breaks the contract (a malformed
 * frame, an ACK or NACK to a group, a host-bus response out of place).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include <sys/socket.h>
#include <sys/wait.h>
#include "qemu/cutils.h"
#include "qemu/main-loop.h"
#include "hw/boards.h"
#include "sysemu/runstate.h"
#include "hw/core/cpu.h"
#include "exec/address-spaces.h"
#include "hw/net/martini.h"
#include "dimmnet1/packet_codec.h"
#include "dimmnet1/shared_mem.h"
#include "fork_fuzz.h"
#include "dimmnet1_fuzz.h"

static bool persistent;             /* no fork per input (long runs) */

/* The board's ends of the link and host bus, as created at start-up. */
static int board_link_fd = -1, board_hostbus_fd = -1;

/* Output of the board, reassembled across settles. */
static uint8_t link_out[DN1_LINK_FRAME_HDR + DN1_PKT_MAX_SIZE];
static size_t link_out_fill;
static uint8_t hb_out[sizeof(struct dn1_hb_rsp)];
static size_t hb_out_fill;
static uint32_t link_data_frames;   /* data frames the board sent */

uint8_t dn1f_u8(Dn1fInput *in)
{
    if (!in->left) {
        return 0;
    }
    in->left--;
    return *in->p++;
}

uint16_t dn1f_u16(Dn1fInput *in)
{
    return dn1f_u8(in) | (uint16_t)dn1f_u8(in) << 8;
}

uint32_t dn1f_u32(Dn1fInput *in)
{
    return dn1f_u16(in) | (uint32_t)dn1f_u16(in) << 16;
}

uint64_t dn1f_u64(Dn1fInput *in)
{
    return dn1f_u32(in) | (uint64_t)dn1f_u32(in) << 32;
}

size_t dn1f_bytes(Dn1fInput *in, void *buf, size_t n)
{
    size_t k = MIN(n, in->left);

    memcpy(buf, in->p, k);
    memset((uint8_t *)buf + k, 0, n - k);
    in->p += k;
    in->left -= k;
    return k;
}

void dn1f_fail(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fprintf(stderr, "dimmnet1-fuzz: FAIL: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort();
}

/* The board is big-endian (MIPS): the processor's view. */
uint32_t dn1f_readl(uint32_t pa)
{
    return address_space_ldl_be(&address_space_memory, pa,
                                MEMTXATTRS_UNSPECIFIED, NULL);
}

uint16_t dn1f_readw(uint32_t pa)
{
    return address_space_lduw_be(&address_space_memory, pa,
                                 MEMTXATTRS_UNSPECIFIED, NULL);
}

uint8_t dn1f_readb(uint32_t pa)
{
    return address_space_ldub(&address_space_memory, pa,
                              MEMTXATTRS_UNSPECIFIED, NULL);
}

void dn1f_writel(uint32_t pa, uint32_t v)
{
    address_space_stl_be(&address_space_memory, pa, v, MEMTXATTRS_UNSPECIFIED,
                         NULL);
}

void dn1f_writew(uint32_t pa, uint16_t v)
{
    address_space_stw_be(&address_space_memory, pa, v, MEMTXATTRS_UNSPECIFIED,
                         NULL);
}

void dn1f_writeb(uint32_t pa, uint8_t v)
{
    address_space_stb(&address_space_memory, pa, v, MEMTXATTRS_UNSPECIFIED,
                      NULL);
}

void dn1f_memwrite(uint32_t pa, const void *buf, size_t len)
{
    address_space_write(&address_space_memory, pa, MEMTXATTRS_UNSPECIFIED,
                        buf, len);
}

GString *dn1f_cmdline(const char *opts)
{
    int link[2], hb[2];
    GString *cmd = g_string_new(TARGET_NAME);

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, link) ||
        socketpair(AF_UNIX, SOCK_STREAM, 0, hb)) {
        perror("dimmnet1-fuzz: socketpair");
        exit(1);
    }
    /* Our ends are replaced per input; these only keep the board's open. */
    board_link_fd = link[1];
    board_hostbus_fd = hb[1];
    g_string_append_printf(cmd,
        " -machine dimmnet1,node-id=%d,hostbus=hb,link=link%s"
        " -chardev socket,id=hb,fd=%d -chardev socket,id=link,fd=%d"
        " -nodefaults -display none -accel qtest",
        DN1F_NODE, opts, board_hostbus_fd, board_link_fd);
    return cmd;
}

void dn1f_pre_fuzz(QTestState *s)
{
    counter_shm_init();
    /* The chardevs report their connections from the main loop. */
    for (int i = 0; i < 16; i++) {
        main_loop_wait(true);   /* nonblocking */
    }
}

static MartiniState *nic;

static MartiniState *martini(void)
{
    if (!nic) {
        nic = MARTINI(object_resolve_path_type("", TYPE_MARTINI, NULL));
    }
    return nic;
}

static uint8_t *ram(MemoryRegion *mr)
{
    return memory_region_get_ram_ptr(mr);
}

/* Write all of @buf to our end @fd, letting the board take what it can; a
 * board that takes nothing more (back-pressure) leaves the rest unsent. */
static bool dn1f_write(Dn1fBoard *b, int fd, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    int stuck = 0;

    while (len && fd >= 0) {
        ssize_t k = send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);

        if (k > 0) {
            p += k;
            len -= k;
            stuck = 0;
            continue;
        }
        if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            return false;
        }
        if (++stuck > 8) {
            return false;
        }
        dn1f_settle(b);
    }
    return len == 0;
}

static void check_link_frame(Dn1fBoard *b, const uint8_t *f, uint32_t size)
{
    uint32_t magic = dn1_get_be32(f);
    struct dn1_hdr h;
    enum dn1_pkt_check c;

    if (magic == DN1_LINK_MAGIC_REACHED || magic == DN1_LINK_MAGIC_BOOTING) {
        /* DNB1: a DNR1 from a board whose firmware was never READY. */
        if (!b->sync || size != DN1_LINK_FRAME_HDR) {
            dn1f_fail("DNR1 from a board without timing, or of size %u", size);
        }
        /* A board reports only a time it has reached. */
        if ((int64_t)dn1_get_be64(f + 8) <= 0 ||
            (int64_t)dn1_get_be64(f + 8) > qtest_clock_step(b->qts, 0)) {
            dn1f_fail("DNR1 for %" PRId64 " ns, not reached yet",
                      (int64_t)dn1_get_be64(f + 8));
        }
        return;
    }
    if (magic != DN1_LINK_MAGIC) {
        dn1f_fail("board sent link magic 0x%08x", magic);
    }
    c = dn1_packet_check(f + DN1_LINK_FRAME_HDR, size - DN1_LINK_FRAME_HDR);
    if (c != DN1_PKT_OK) {
        dn1f_fail("board sent a malformed packet (check %d)", c);
    }
    dn1_packet_parse(f + DN1_LINK_FRAME_HDR, &h);
    if (h.src != DN1F_NODE) {
        dn1f_fail("board sent a packet with src %u", h.src);
    }
    /* Section 6a: no hardware answer to a group, ever. */
    if ((h.type == DN1_TYPE_ACK || h.type == DN1_TYPE_NACK ||
         h.type == DN1_TYPE_READ_RSP) && h.dst >= DN1_MCAST_BASE) {
        dn1f_fail("board sent type %u to group 0x%x", h.type, h.dst);
    }
    link_data_frames++;
}

/* Take what the board sent on the link and the host bus, and check it. */
static void dn1f_drain(Dn1fBoard *b)
{
    uint8_t buf[8192];
    ssize_t k;

    while (b->link >= 0 &&
           (k = recv(b->link, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
        for (ssize_t i = 0; i < k;) {
            size_t want = DN1_LINK_FRAME_HDR;
            size_t n;

            if (link_out_fill >= DN1_LINK_FRAME_HDR) {
                want = dn1_get_be32(link_out + 4);
                if (want < DN1_LINK_FRAME_HDR || want > sizeof(link_out)) {
                    dn1f_fail("board sent a link frame of size %zu", want);
                }
            }
            n = MIN(want - link_out_fill, (size_t)(k - i));
            memcpy(link_out + link_out_fill, buf + i, n);
            link_out_fill += n;
            i += n;
            if (link_out_fill >= DN1_LINK_FRAME_HDR &&
                link_out_fill == dn1_get_be32(link_out + 4)) {
                check_link_frame(b, link_out, link_out_fill);
                link_out_fill = 0;
            }
        }
    }
    while (b->hostbus >= 0 &&
           (k = recv(b->hostbus, hb_out + hb_out_fill,
                     sizeof(hb_out) - hb_out_fill, MSG_DONTWAIT)) > 0) {
        struct dn1_hb_rsp rsp;
        int32_t st;

        hb_out_fill += k;
        if (hb_out_fill < sizeof(hb_out)) {
            continue;
        }
        hb_out_fill = 0;
        memcpy(&rsp, hb_out, sizeof(rsp));
        st = le32_to_cpu(rsp.status);
        if (le32_to_cpu(rsp.magic) == DN1_HB_MAGIC_NOTICE) {
            /* A posted request failed: an error, naming one we posted. */
            if (st >= 0 || st < DN1_HB_ENOFLASH ||
                le64_to_cpu(rsp.value) >= b->hb_posted) {
                dn1f_fail("host-bus notice status %d for posted request "
                          "%" PRIu64, st, le64_to_cpu(rsp.value));
            }
            if (++b->hb_notices > b->hb_posted) {
                dn1f_fail("host-bus notice without a posted request");
            }
            continue;
        }
        if (le32_to_cpu(rsp.magic) != DN1_HB_MAGIC ||
            st > 0 || st < DN1_HB_ENOFLASH) {
            dn1f_fail("host-bus response magic 0x%x status %d",
                      le32_to_cpu(rsp.magic), st);
        }
        if (++b->hb_answered > b->hb_sent) {
            dn1f_fail("host-bus response without a request");
        }
    }
}

void dn1f_settle(Dn1fBoard *b)
{
    for (int i = 0; i < 64; i++) {
        main_loop_wait(true);   /* nonblocking */
        dn1f_drain(b);
        if (!g_main_context_pending(NULL)) {
            break;
        }
    }
}

static uint32_t cnt(Dn1fBoard *b, unsigned i)
{
    return b->cnt[i];
}

/* Counters only go up (they wrap at 2^32: no input gets near), and those
 * the contract ties together stay consistent. */
static void check_counters(Dn1fBoard *b, uint8_t *llcm)
{
    uint32_t produced = ldl_le_p(llcm + DN1_LLCM_CQ_PRODUCED);

    for (unsigned i = 0; i < DN1_CNT_COUNT; i++) {
        uint32_t v = dn1f_readl(DN1_REGS_BASE + DN1_REG_CNT(i));

        if (v < b->cnt[i]) {
            dn1f_fail("counter %u went back from %u to %u", i, b->cnt[i], v);
        }
        b->cnt[i] = v;
    }
    /* Every frame taken is dropped for at most one reason. */
    if (cnt(b, DN1_CNT_ERR_SHORT) + cnt(b, DN1_CNT_ERR_VERSION) +
        cnt(b, DN1_CNT_ERR_LENGTH) + cnt(b, DN1_CNT_ERR_CRC) +
        cnt(b, DN1_CNT_ERR_DST) + cnt(b, DN1_CNT_ERR_STRAY_ACK) +
        cnt(b, DN1_CNT_ERR_GROUP) > cnt(b, DN1_CNT_RX_FRAMES)) {
        dn1f_fail("more packets dropped than frames taken");
    }
    /* A held packet is decided once. */
    if (cnt(b, DN1_CNT_RX_CONTINUED) + cnt(b, DN1_CNT_RX_DISCARDED) +
        cnt(b, DN1_CNT_RX_NACKED) + cnt(b, DN1_CNT_RX_DONE) >
        cnt(b, DN1_CNT_RX_HELD)) {
        dn1f_fail("more held packets decided than held");
    }
    /* Every packet sent is counted in TX_PACKETS. */
    if (cnt(b, DN1_CNT_TX_ACK) + cnt(b, DN1_CNT_TX_NACK) +
        cnt(b, DN1_CNT_TX_FW) + cnt(b, DN1_CNT_TX_AOTF) +
        cnt(b, DN1_CNT_TX_RDMA) > cnt(b, DN1_CNT_TX_PACKETS)) {
        dn1f_fail("sends counted by kind exceed TX_PACKETS");
    }
    if (link_data_frames > cnt(b, DN1_CNT_TX_PACKETS)) {
        dn1f_fail("%u data frames on the link, TX_PACKETS %u",
                  link_data_frames, cnt(b, DN1_CNT_TX_PACKETS));
    }
    /* Every ACK, NACK and read response written is posted or counted lost;
     * nothing else is posted. */
    if ((uint64_t)produced + cnt(b, DN1_CNT_ERR_CQ_FULL) <
        (uint64_t)cnt(b, DN1_CNT_RX_ACK) + cnt(b, DN1_CNT_RX_NACK) +
        cnt(b, DN1_CNT_RX_READ_RSP) ||
        produced > (uint64_t)cnt(b, DN1_CNT_RX_ACK) + cnt(b, DN1_CNT_RX_NACK) +
        cnt(b, DN1_CNT_RX_READ_RSP) + cnt(b, DN1_CNT_ERR_RANGE) +
        cnt(b, DN1_CNT_ERR_PROT)) {
        dn1f_fail("completion queue: %u posted, counters disagree", produced);
    }
}

/* LLCM below the user area belongs to the completion queue: the NIC writes
 * only CQ_PRODUCED and well-formed records, the host only CQ_CONSUMED. */
static void check_llcm(Dn1fBoard *b, uint8_t *llcm)
{
    uint32_t produced = ldl_le_p(llcm + DN1_LLCM_CQ_PRODUCED);

    uint32_t taken = ldl_le_p(llcm + DN1_LLCM_HB_POSTED);
    uint32_t failed = ldl_le_p(llcm + DN1_LLCM_HB_FAILED);

    /* Posted host-bus requests: no more taken than sent, nor failed than
     * taken (the board starts with LLCM zero). */
    if (taken > b->hb_posted || failed > taken) {
        dn1f_fail("LLCM HB_POSTED %u, HB_FAILED %u after %u posted requests",
                  taken, failed, b->hb_posted);
    }
    if (ldl_le_p(llcm + DN1_LLCM_CQ_CONSUMED) != b->cq_consumed ||
        !buffer_is_zero(llcm + 16, DN1_LLCM_CQ_RING - 16) ||
        !buffer_is_zero(llcm + DN1_LLCM_CQ_RING +
                        DN1_LLCM_CQ_ENTRIES * sizeof(struct dn1_cq_rec),
                        DN1_LLCM_USER_BASE - DN1_LLCM_CQ_RING -
                        DN1_LLCM_CQ_ENTRIES * sizeof(struct dn1_cq_rec))) {
        dn1f_fail("LLCM outside the completion records changed");
    }
    for (uint32_t k = 0; k < DN1_LLCM_CQ_ENTRIES; k++) {
        const uint8_t *rec = llcm + DN1_LLCM_CQ_RING +
                             k * sizeof(struct dn1_cq_rec);
        uint32_t index = ldl_le_p(rec + offsetof(struct dn1_cq_rec, index));
        uint8_t kind = rec[offsetof(struct dn1_cq_rec, kind)];

        if (k >= produced) {
            if (!buffer_is_zero(rec, sizeof(struct dn1_cq_rec))) {
                dn1f_fail("completion record %u written, %u produced",
                          k, produced);
            }
            continue;
        }
        if (index % DN1_LLCM_CQ_ENTRIES != k || index >= produced ||
            (produced > DN1_LLCM_CQ_ENTRIES &&
             index < produced - DN1_LLCM_CQ_ENTRIES) ||
            (kind != DN1_CQ_KIND_ACK && kind != DN1_CQ_KIND_NACK) ||
            ldl_le_p(rec + offsetof(struct dn1_cq_rec, reserved))) {
            dn1f_fail("completion record %u malformed (index %u kind %u)",
                      k, index, kind);
        }
    }
}

void dn1f_check(Dn1fBoard *b)
{
    MartiniState *m = martini();
    uint8_t *llcm = ram(m->llcm);

    check_counters(b, llcm);
    check_llcm(b, llcm);
    /* Nothing but the host writes window memory; nothing but the
     * processor writes chip SRAM and the TLBs. */
    if (memcmp(ram(m->window), b->window, sizeof(b->window))) {
        dn1f_fail("window memory changed by the board");
    }
    if (memcmp(ram(m->sram), b->sram, sizeof(b->sram))) {
        dn1f_fail("chip SRAM changed by the board");
    }
    if (memcmp(ram(&m->rvatlb), b->rvatlb, sizeof(b->rvatlb)) ||
        memcmp(ram(&m->patlb), b->patlb, sizeof(b->patlb))) {
        dn1f_fail("TLB memory changed by the board");
    }
}

/* At the end of an input the board still answers: a NOP on the host bus
 * (unless host sync holds it for virtual time), and every packet it counted
 * as sent reached the link (unless the link went down). */
static void check_alive(Dn1fBoard *b)
{
    struct dn1_hb_req nop = { .magic = cpu_to_le32(DN1_HB_MAGIC) };

    for (int i = 0; i < 16; i++) {
        dn1f_settle(b);
    }
    if (b->hostbus >= 0 && !b->host_sync) {
        uint32_t want = b->hb_sent + 1;

        if (!dn1f_write(b, b->hostbus, &nop, sizeof(nop))) {
            dn1f_fail("host bus takes no request");
        }
        b->hb_sent++;
        for (int i = 0; i < 64 && b->hb_answered < want; i++) {
            dn1f_settle(b);
        }
        if (b->hb_answered != want) {
            dn1f_fail("host bus: %u requests, %u responses",
                      want, b->hb_answered);
        }
        /* Answered in order: every posted request before the NOP has
         * acted, and each failure's notice came before the response. */
        uint8_t *llcm = ram(martini()->llcm);
        if (ldl_le_p(llcm + DN1_LLCM_HB_POSTED) != b->hb_posted ||
            ldl_le_p(llcm + DN1_LLCM_HB_FAILED) != b->hb_notices) {
            dn1f_fail("host bus: %u posted requests, %u taken; %u notices, "
                      "%u failed", b->hb_posted,
                      ldl_le_p(llcm + DN1_LLCM_HB_POSTED), b->hb_notices,
                      ldl_le_p(llcm + DN1_LLCM_HB_FAILED));
        }
    }
    dn1f_check(b);
    if (getenv("DN1_FUZZ_VERBOSE")) {
        /* What the input did: its nonzero counters (to read a seed). */
        fprintf(stderr, "dimmnet1-fuzz: counters:");
        for (unsigned i = 0; i < DN1_CNT_COUNT; i++) {
            if (b->cnt[i]) {
                fprintf(stderr, " %u=%u", i, b->cnt[i]);
            }
        }
        fprintf(stderr, "\n");
    }
    if (b->link >= 0 && !b->link_closed_ever &&
        link_data_frames != cnt(b, DN1_CNT_TX_PACKETS)) {
        dn1f_fail("%u data frames on the link, TX_PACKETS %u",
                  link_data_frames, cnt(b, DN1_CNT_TX_PACKETS));
    }
}

static void on_hang(int sig)
{
    static const char msg[] = "dimmnet1-fuzz: FAIL: input hangs\n";

    if (write(2, msg, sizeof(msg) - 1) < 0) {
        /* nothing more to do */
    }
    abort();
}

/* A fresh socket pair in place of the board's end @board_fd. */
static int replace_socket(int board_fd)
{
    int sv[2];

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || dup2(sv[1], board_fd) < 0) {
        dn1f_fail("socketpair: %s", strerror(errno));
    }
    close(sv[1]);
    fcntl(board_fd, F_SETFL, fcntl(board_fd, F_GETFL) | O_NONBLOCK);
    return sv[0];
}

static void dn1f_child(Dn1fBoard *b, QTestState *s, const uint8_t *data,
                       size_t size, bool sync, bool host_sync,
                       void (*one)(Dn1fBoard *b, Dn1fInput *in))
{
    Dn1fInput in = { .p = data, .left = size };
    const char *hang = getenv("DN1_FUZZ_HANG_S");
    sigset_t alrm;

    /* QEMU blocks SIGALRM (its signalfd takes it); the child wants it. */
    signal(SIGALRM, on_hang);
    sigemptyset(&alrm);
    sigaddset(&alrm, SIGALRM);
    pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
    alarm(hang ? atoi(hang) : 60);   /* generous: a loaded CI machine */
    /*
     * The (qtest) vCPU thread stayed in the parent. With timing the board
     * queues its horizon wait as work for the vCPU; the kick that would
     * wake the missing thread must not be attempted (no CPU runs here, as
     * under qtest: the wait would only hold the vCPU).
     */
    first_cpu->thread_kicked = !persistent;
    b->qts = s;
    b->sync = sync;
    b->host_sync = host_sync;
    b->link = replace_socket(board_link_fd);
    b->hostbus = replace_socket(board_hostbus_fd);
    if (dn1f_readl(DN1_REGS_BASE + DN1_REG_ID) != DN1_ID_VALUE ||
        !(dn1f_readl(DN1_REGS_BASE + DN1_REG_LINK_STATUS) & DN1_LINK_UP)) {
        dn1f_fail("no board, or its link down, at the start (ID 0x%x, "
                  "LINK_STATUS 0x%x)",
                  dn1f_readl(DN1_REGS_BASE + DN1_REG_ID),
                  dn1f_readl(DN1_REGS_BASE + DN1_REG_LINK_STATUS));
    }
    dn1f_check(b);
    while (in.left) {
        one(b, &in);
        dn1f_settle(b);
        dn1f_check(b);
    }
    check_alive(b);
}

/*
 * Persistent mode (DN1_FUZZ_PERSISTENT=1, boards without timing only): no
 * fork, for long runs; a fork costs about 20 ms here, a reset far less.
 * Each input starts from a machine reset plus what that leaves alone: the
 * link's queued output and partial input, a partial host-bus request, and
 * the contents of the memories the board shares. Still left over between
 * inputs: host receive memory (all of it writable) and the virtual clock.
 * Hanging up is a no-op (the chardev would not come back). A failure found
 * so is checked in the default fork mode before it counts.
 */
static void dn1f_power_on(Dn1fBoard *b)
{
    MartiniState *m = martini();

    martini_link_reset(m);
    for (unsigned p = 0; p < DN1_HOST_PORTS_MAX; p++) {
        m->hport[p].fill = 0;
        m->hport[p].out_len = 0;
    }
    qemu_system_reset(SHUTDOWN_CAUSE_GUEST_RESET);
    memset(ram(m->llcm), 0, memory_region_size(m->llcm));
    memset(ram(m->window), 0, memory_region_size(m->window));
    memset(ram(m->sram), 0, memory_region_size(m->sram));
    link_out_fill = hb_out_fill = 0;
    link_data_frames = 0;
    if (b->link >= 0) {
        close(b->link);
    }
    if (b->hostbus >= 0) {
        close(b->hostbus);
    }
    memset(b, 0, sizeof(*b));
}

void dn1f_fork_run(QTestState *s, const uint8_t *data, size_t size,
                   bool sync, bool host_sync,
                   void (*one)(Dn1fBoard *b, Dn1fInput *in))
{
    static Dn1fBoard *board;
    pid_t pid;
    int status;

    if (!board) {
        board = g_new0(Dn1fBoard, 1);
        board->link = board->hostbus = -1;
        persistent = getenv("DN1_FUZZ_PERSISTENT") && !sync;
    }
    if (persistent) {
        dn1f_power_on(board);
        dn1f_child(board, s, data, size, sync, host_sync, one);
        alarm(0);
        return;
    }
    pid = fork();
    if (pid == 0) {
        dn1f_child(board, s, data, size, sync, host_sync, one);
        _Exit(0);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        perror("dimmnet1-fuzz: fork");
        abort();
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        /* The child reported why (and libFuzzer kept its input). */
        fprintf(stderr, "dimmnet1-fuzz: input failed (child status 0x%x)\n",
                status);
        abort();
    }
}

/* ---- Ops shared by the targets ------------------------------------------ */

/* Remote addresses worth aiming at: the edges of each range. */
static const uint64_t edges[] = {
    0, DN1_HOSTMEM_SIZE, DN1_RADDR_LLCM, DN1_RADDR_LLCM + DN1_LLCM_USER_BASE,
    DN1_RADDR_LLCM + DN1_LLCM_SIZE, 1ull << 32, 1ull << 48, UINT64_MAX,
};

static uint64_t pick_raddr(uint8_t sel, uint64_t r, uint8_t *flags)
{
    switch (sel & 7) {
    case 1:
        return r % DN1_HOSTMEM_SIZE;
    case 2:
        return DN1_RADDR_LLCM + r % DN1_LLCM_SIZE;
    case 3:
        return edges[r % ARRAY_SIZE(edges)] + (int8_t)(r >> 8);
    case 4:
        /* A small RVA space, so that TLB entries the fuzzer writes hit. */
        *flags |= DN1_FLAG_VA;
        return DN1_RVA((r >> 32) & 3, r & 0xfffff);
    case 5:
        return DN1_RADDR_LLCM + DN1_LLCM_USER_BASE +
               r % (DN1_LLCM_SIZE - DN1_LLCM_USER_BASE);
    default:
        return r;
    }
}

void dn1f_send_packet(Dn1fBoard *b, Dn1fInput *in, bool corrupt)
{
    uint8_t frame[DN1_LINK_FRAME_HDR + DN1_PKT_MAX_SIZE];
    uint8_t sel = dn1f_u8(in), rsel = dn1f_u8(in);
    struct dn1_hdr h = { .version = DN1_PKT_VERSION, .src = 0 };
    uint16_t dst = dn1f_u16(in);
    uint32_t size;
    int64_t dep;

    h.type = dn1f_u8(in);
    h.flags = dn1f_u8(in);
    h.len = dn1f_u16(in) % (DN1_PKT_MAX_PAYLOAD + 1);
    h.seq = dn1f_u16(in);
    h.tag = dn1f_u32(in);
    h.xoff = dn1f_u32(in);
    h.raddr = pick_raddr(rsel, dn1f_u64(in), &h.flags);
    switch (sel & 3) {
    case 2:
        h.dst = DN1_MCAST_BASE | (dst & 0xff);
        break;
    case 3:
        h.dst = dst;
        break;
    default:
        h.dst = DN1F_NODE;
    }
    switch ((sel >> 2) & 7) {
    case 4:
        h.type = DN1_TYPE_PUSH;
        break;
    case 5:
        h.type = 0x40 + (h.type & 3);   /* firmware types (fw_types.h): the board knows none by name */
        break;
    case 6:
        h.type = DN1_TYPE_READ_REQ;        /* reply address as payload */
        h.len = 8;
        h.xoff %= DN1_PKT_MAX_PAYLOAD + 2;
        break;
    case 7:
        h.type = h.type & 1 ? DN1_TYPE_ACK : DN1_TYPE_NACK;
        h.len = 0;
        break;
    }
    if (sel & 0x20 && h.len > DN1_AOTF_MAX_PAYLOAD) {
        h.len = 1 + h.len % DN1_AOTF_MAX_PAYLOAD;   /* AOTF-sized */
    }
    size = DN1_PKT_HDR_SIZE + h.len;
    dn1f_bytes(in, frame + DN1_LINK_FRAME_HDR + DN1_PKT_HDR_SIZE, h.len);
    dn1_packet_seal(frame + DN1_LINK_FRAME_HDR, &h);
    dn1_put_be32(frame, DN1_LINK_MAGIC);
    dn1_put_be32(frame + 4, DN1_LINK_FRAME_HDR + size);
    /* Departure: around now in virtual time (late frames are legal input). */
    dep = qtest_clock_step(b->qts, 0) + (int64_t)dn1f_u16(in) - 2000;
    dn1_put_be64(frame + 8, dep);
    if (corrupt) {
        uint16_t at = dn1f_u16(in) % (DN1_LINK_FRAME_HDR + size);

        frame[at] ^= dn1f_u8(in) | 1;
    }
    dn1f_write(b, b->link, frame, DN1_LINK_FRAME_HDR + size);
}

void dn1f_send_raw(Dn1fBoard *b, Dn1fInput *in)
{
    uint8_t buf[256];
    size_t n = dn1f_bytes(in, buf, dn1f_u8(in));

    dn1f_write(b, b->link, buf, n);
}

void dn1f_send_control(Dn1fBoard *b, Dn1fInput *in)
{
    uint8_t sel = dn1f_u8(in), f[DN1_LINK_FRAME_HDR];
    uint32_t magic = dn1f_u32(in);
    int64_t t = dn1f_u64(in);

    switch (sel & 3) {
    case 0:
    case 1:
        magic = DN1_LINK_MAGIC_GRANT;
        break;
    case 2:
        magic = DN1_LINK_MAGIC_REACHED;
        break;
    }
    switch ((sel >> 2) & 3) {
    case 0:
        t = MAX(b->grant, 0) + DN1_SYNC_QUANTUM_NS * (1 + (t & 15));
        break;
    case 1:
        t = b->grant;                     /* the same again */
        break;
    case 2:
        t = -(t & 0xffff);                /* a switch restarted: 0 or less */
        break;
    }
    if (magic == DN1_LINK_MAGIC_GRANT && b->sync) {
        b->grant = MAX(b->grant, t);
    }
    dn1_put_be32(f, magic);
    dn1_put_be32(f + 4, DN1_LINK_FRAME_HDR);
    dn1_put_be64(f + 8, t);
    dn1f_write(b, b->link, f, sizeof(f));
}

/* Host-bus request: mostly the defined ops with arguments in range. */
void dn1f_hostbus(Dn1fBoard *b, Dn1fInput *in)
{
    uint8_t sel = dn1f_u8(in);
    struct dn1_hb_req req = { .magic = DN1_HB_MAGIC };
    uint64_t a0 = dn1f_u64(in);

    /* 0..7, and NIC_RESTART now and then (its own op: 8); posted when
     * the argument's top bit says so (contract 1.17). */
    req.op = (sel & 0x47) == 0x40 ? DN1_HB_NIC_RESTART : sel & 7;
    if (a0 >> 63) {
        req.op |= DN1_HB_POSTED;
    }
    req.arg1 = dn1f_u64(in);
    req.arg2 = dn1f_u32(in);
    switch (req.op & ~DN1_HB_POSTED) {
    case DN1_HB_REG_READ:
        a0 %= DN1_REGS_SIZE + 8;
        break;
    case DN1_HB_BOTF_KICK:
        a0 %= DN1_BOTF_WINDOWS + 1;
        break;
    case DN1_HB_AOTF_STORE:
        a0 = DN1_AOTF_ARG0((a0 >> 40) % (DN1_AOTF_CHANNELS + 1),
                           (a0 >> 32) % 10, (uint32_t)a0 % 4096);
        break;
    case DN1_HB_RDMA_POST:
        a0 %= DN1_RDMA_DESCS + 1;
        break;
    case DN1_HB_CLOCK:
        a0 = sel & 0x80 ? a0 : a0 % 5000;
        break;
    case DN1_HB_FLASH_READ:
    case DN1_HB_FLASH_WRITE:
        a0 = sel & 0x80 ? a0 : a0 % (DN1_FLASH_SIZE + 8);
        break;
    }
    if ((sel & 0x38) == 0x38) {
        req.op = dn1f_u32(in);            /* any op, any magic */
        req.magic = dn1f_u32(in);
    }
    req.arg0 = a0;
    if (b->hostbus >= 0 && dn1f_write(b, b->hostbus, &req, sizeof(req))) {
        /* A posted request is answered only if it fails (a notice). */
        if (req.magic == DN1_HB_MAGIC && (req.op & DN1_HB_POSTED)) {
            b->hb_posted++;
        } else {
            b->hb_sent++;
        }
    }
}

/* The host fills window memory: raw bytes, or a BOTF header, an AOTF
 * channel or an RDMA descriptor with its fields mostly in range. */
void dn1f_window_write(Dn1fBoard *b, Dn1fInput *in)
{
    uint8_t sel = dn1f_u8(in), buf[64] = { 0 };
    uint32_t off;
    size_t n;

    switch (sel & 3) {
    case 0:
        off = dn1f_u16(in) % sizeof(b->window);
        n = MIN(dn1f_u8(in) % 65, sizeof(b->window) - off);
        dn1f_bytes(in, buf, n);
        break;
    case 1: {
        struct dn1_botf_hdr *h = (void *)buf;

        off = (sel >> 2 & 1) * DN1_BOTF_WINDOW_STRIDE;
        n = sizeof(*h);
        dn1f_bytes(in, buf, 24);          /* reserved stays 0 */
        h->flags &= DN1_FLAGS_SENDABLE;
        h->len = cpu_to_le16(le16_to_cpu(h->len) % (DN1_BOTF_MAX_PAYLOAD + 2));
        if (sel & 0x80) {
            h->type = DN1_TYPE_PUSH;
            h->dst = cpu_to_le16(0);
        }
        break;
    }
    case 2: {
        struct dn1_aotf_channel *c = (void *)buf;

        off = DN1_AOTF_TABLE_OFF + (sel >> 2) % DN1_AOTF_CHANNELS * sizeof(*c);
        n = sizeof(*c);
        dn1f_bytes(in, buf, 16);
        c->flags &= DN1_FLAGS_SENDABLE;
        if (sel & 0x80) {
            c->type = DN1_TYPE_PUSH;
        }
        break;
    }
    default: {
        struct dn1_rdma_desc *d = (void *)buf;

        off = DN1_RDMA_DESC_OFF + (sel >> 2) % DN1_RDMA_DESCS * sizeof(*d);
        n = sizeof(*d);
        dn1f_bytes(in, buf, 34);
        d->flags &= DN1_FLAGS_SENDABLE;
        d->len = cpu_to_le32(le32_to_cpu(d->len) % 8192);
        d->local = cpu_to_le64(le64_to_cpu(d->local) % (DN1_HOSTMEM_SIZE + 64));
        if (sel & 0x80) {
            d->type = DN1_TYPE_PUSH;
        }
        break;
    }
    }
    memcpy(ram(martini()->window) + off, buf, n);
    memcpy(b->window + off, buf, n);
}

void dn1f_clock_step(Dn1fBoard *b, Dn1fInput *in)
{
    uint16_t v = dn1f_u16(in);

    /* Mostly around a quantum; sometimes a long stretch. */
    qtest_clock_step(b->qts, v & 0x8000 ? (uint64_t)(v & 0x7fff) * 1000
                                        : 1 + v % 1024);
}

void dn1f_cq_consume(Dn1fBoard *b, Dn1fInput *in)
{
    uint8_t *llcm = ram(martini()->llcm);
    uint8_t sel = dn1f_u8(in);
    uint32_t v = dn1f_u32(in);

    if (sel & 1) {
        v = ldl_le_p(llcm + DN1_LLCM_CQ_PRODUCED);   /* all of them */
    }
    stl_le_p(llcm + DN1_LLCM_CQ_CONSUMED, v);
    b->cq_consumed = v;
}

void dn1f_rx_cmd(Dn1fBoard *b, Dn1fInput *in)
{
    uint8_t sel = dn1f_u8(in);
    uint32_t cmd = dn1f_u8(in);
    uint64_t raddr = dn1f_u64(in);
    uint8_t flags = 0;

    if (sel & 1) {
        raddr = pick_raddr(sel >> 4, raddr, &flags);
        dn1f_writel(DN1_REGS_BASE + DN1_REG_RX_RADDR_HI, raddr >> 32);
        dn1f_writel(DN1_REGS_BASE + DN1_REG_RX_RADDR_LO, raddr);
    }
    if (sel & 2) {
        dn1f_writel(DN1_REGS_BASE + DN1_REG_RX_NACK_REASON,
                     dn1f_u8(in));
    }
    if (!(sel & 4)) {
        cmd = 1 + cmd % 5;               /* CONTINUE .. RETRY */
    }
    dn1f_writel(DN1_REGS_BASE + DN1_REG_RX_CMD, cmd);
    if (dn1f_readl(DN1_REGS_BASE + DN1_REG_RX_CMD_RESULT) > 5) {
        dn1f_fail("RX_CMD_RESULT out of range");
    }
}

void dn1f_fw_status(Dn1fBoard *b, Dn1fInput *in)
{
    uint8_t sel = dn1f_u8(in);

    dn1f_writel(DN1_REGS_BASE + DN1_REG_FW_STATUS,
                 sel & 0x80 ? dn1f_u32(in) : 0x01000000 | DN1_FW_READY);
}

void dn1f_hang_up(Dn1fBoard *b, Dn1fInput *in)
{
    int *fd = dn1f_u8(in) & 1 ? &b->hostbus : &b->link;

    if (*fd >= 0 && !persistent) {
        if (fd == &b->link) {
            b->link_closed_ever = true;
        }
        close(*fd);
        *fd = -1;
    }
}

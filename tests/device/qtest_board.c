/* qtest client for one dimmnet1 board (see qtest_board.h). */
#include "qtest_board.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "dimmnet1/hostbus.h"
#include "dimmnet1/link.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/packet_codec.h"
#include "dimmnet1/regs.h"

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "qtest_board: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
    struct timespec ts = { 0, ms * 1000000L };
    nanosleep(&ts, NULL);
}

static uint8_t *make_shared(const char *path, size_t size)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
        die("cannot create %s: %s", path, strerror(errno));
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        die("mmap %s: %s", path, strerror(errno));
    }
    return p;
}

static int connect_unix(const char *path, int timeout_ms)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int64_t deadline = now_ms() + timeout_ms;

    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
    for (;;) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
            return fd;
        }
        close(fd);
        if (now_ms() > deadline) {
            return -1;
        }
        sleep_ms(10);
    }
}

static void write_all(int fd, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    while (len) {
        ssize_t k = write(fd, p, len);
        if (k < 0 && errno == EINTR) {
            continue;
        }
        if (k <= 0) {
            die("write: %s", strerror(errno));
        }
        p += k;
        len -= (size_t)k;
    }
}

/* Read exactly @len bytes within @timeout_ms: 0, or -1 on timeout/EOF. */
static int read_all(int fd, void *buf, size_t len, int timeout_ms)
{
    uint8_t *p = buf;
    int64_t deadline = now_ms() + timeout_ms;

    while (len) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        int left = (int)(deadline - now_ms());
        if (left <= 0 || poll(&pfd, 1, left) <= 0) {
            return -1;
        }
        ssize_t k = read(fd, p, len);
        if (k <= 0) {
            return -1;
        }
        p += k;
        len -= (size_t)k;
    }
    return 0;
}

static void command(struct qtest_board *b, char *reply, size_t size,
                    const char *fmt, ...);

int qb_start(struct qtest_board *b, const char *qemu, unsigned node)
{
    return qb_start_opts(b, qemu, node, "");
}

/* Start the board: under qtest (@image NULL: the test is the processor)
 * or running @image on its processor (the test is host and link peer). */
static int start(struct qtest_board *b, const char *qemu, unsigned node,
                 const char *machine_opts, const char *image)
{
    char qsock[96], hb[96], link[96], hm[96], ll[96], win[96];
    char machine[300], o_hm[400], o_ll[400], o_win[400], c_hb[400], c_link[400];
    char hb1[96], c_hb1[400];
    /* A board of two host ports (",host-ports=2"): port 1 on hostbus1. */
    int two_ports = strstr(machine_opts, "host-ports=2") != NULL;
    char qtest_arg[320], serial[160];
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int lfd = -1;

    memset(b, 0, sizeof(*b));
    b->qtest_fd = -1;
    snprintf(b->dir, sizeof(b->dir), "/tmp/dimmnet1-qtest.XXXXXX");
    if (!mkdtemp(b->dir)) {
        die("mkdtemp: %s", strerror(errno));
    }
    snprintf(qsock, sizeof(qsock), "%s/qtest.sock", b->dir);
    snprintf(hb, sizeof(hb), "%s/hostbus.sock", b->dir);
    snprintf(link, sizeof(link), "%s/link.sock", b->dir);
    snprintf(hm, sizeof(hm), "%s/hostmem", b->dir);
    snprintf(ll, sizeof(ll), "%s/llcm", b->dir);
    snprintf(win, sizeof(win), "%s/window", b->dir);
    snprintf(serial, sizeof(serial), "file:%s/console", b->dir);
    b->hostmem = make_shared(hm, DN1_HOSTMEM_SIZE);
    b->llcm = make_shared(ll, DN1_LLCM_SIZE);
    b->window = make_shared(win, DN1_WINDOW_SIZE);

    if (!image) {
        lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", qsock);
        if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1)) {
            die("qtest socket: %s", strerror(errno));
        }
    }
    snprintf(hb1, sizeof(hb1), "%s/hostbus1.sock", b->dir);
    snprintf(machine, sizeof(machine),
             "dimmnet1,node-id=%u,hostmem=hm,llcm=ll,window=win,hostbus=hb,link=link%s%s",
             node, two_ports ? ",hostbus1=hb1" : "", machine_opts);
    snprintf(c_hb1, sizeof(c_hb1), "socket,id=hb1,path=%s,server=on,wait=off", hb1);
    snprintf(o_hm, sizeof(o_hm), "memory-backend-file,id=hm,mem-path=%s,size=%u,share=on",
             hm, DN1_HOSTMEM_SIZE);
    snprintf(o_ll, sizeof(o_ll), "memory-backend-file,id=ll,mem-path=%s,size=%u,share=on",
             ll, DN1_LLCM_SIZE);
    snprintf(o_win, sizeof(o_win), "memory-backend-file,id=win,mem-path=%s,size=%u,share=on",
             win, DN1_WINDOW_SIZE);
    snprintf(c_hb, sizeof(c_hb), "socket,id=hb,path=%s,server=on,wait=off", hb);
    snprintf(c_link, sizeof(c_link), "socket,id=link,path=%s,server=on,wait=off", link);
    snprintf(qtest_arg, sizeof(qtest_arg), "unix:%s", qsock);

    b->pid = fork();
    if (b->pid == 0) {
        char log[96];
        snprintf(log, sizeof(log), "%s/qemu.log", b->dir);
        if (image) {
            execl(qemu, qemu, "-bios", image, "-serial", serial, "-nodefaults",
                  "-display", "none", "-monitor", "none", "-M", machine,
                  "-object", o_hm, "-object", o_ll, "-object", o_win,
                  "-chardev", c_hb, "-chardev", c_link,
                  "-d", "guest_errors", "-D", log, (char *)NULL);
        } else {
            execl(qemu, qemu, "-qtest", qtest_arg, "-accel", "qtest", "-nodefaults",
                  "-display", "none", "-monitor", "none", "-M", machine,
                  "-object", o_hm, "-object", o_ll, "-object", o_win,
                  "-chardev", c_hb, "-chardev", c_link,
                  "-d", "guest_errors", "-D", log,
                  two_ports ? "-chardev" : (char *)NULL, c_hb1, (char *)NULL);
        }
        _exit(127);
    }
    if (!image) {
        struct pollfd pfd = { .fd = lfd, .events = POLLIN };
        if (poll(&pfd, 1, 20000) <= 0) {
            die("QEMU did not connect to the qtest socket (%s)", qemu);
        }
        b->qtest_fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        close(lfd);
    }
    b->hostbus_fd = connect_unix(hb, 10000);
    b->hostbus1_fd = two_ports ? connect_unix(hb1, 10000) : -1;
    b->link_fd = connect_unix(link, 10000);
    if ((!image && b->qtest_fd < 0) || b->hostbus_fd < 0 || b->link_fd < 0) {
        die("cannot connect to the board's sockets");
    }
    char reply[64];
    if (!image) {
        /* Intercepting the IRQ also proves the device has an output line. */
        command(b, reply, sizeof(reply), "irq_intercept_out /machine/martini\n");
    }
    /* Wait for the link to be seen as up before tests send on it. */
    int64_t deadline = now_ms() + 10000;
    while (!((image ? qb_hb_reg(b, DN1_REG_LINK_STATUS)
                    : qb_reg(b, DN1_REG_LINK_STATUS)) & DN1_LINK_UP)) {
        if (now_ms() > deadline) {
            die("link never came up");
        }
        sleep_ms(5);
    }
    return 0;
}

int qb_start_opts(struct qtest_board *b, const char *qemu, unsigned node,
                  const char *machine_opts)
{
    return start(b, qemu, node, machine_opts, NULL);
}

int qb_start_firmware(struct qtest_board *b, const char *qemu, unsigned node,
                      const char *image)
{
    return start(b, qemu, node, "", image);
}

uint32_t qb_hb_reg(struct qtest_board *b, uint32_t off)
{
    uint64_t v = 0;

    if (qb_hostbus(b, DN1_HB_REG_READ, off, &v) != 0) {
        die("host bus: register 0x%x unreadable", (unsigned)off);
    }
    return (uint32_t)v;
}

void qb_stop(struct qtest_board *b)
{
    char cmd[96];

    if (b->qtest_fd >= 0) {
        close(b->qtest_fd);
    }
    close(b->hostbus_fd);
    if (b->hostbus1_fd >= 0) {
        close(b->hostbus1_fd);
    }
    if (b->link_fd >= 0) {
        close(b->link_fd);
    }
    kill(b->pid, SIGTERM);
    waitpid(b->pid, NULL, 0);
    munmap(b->hostmem, DN1_HOSTMEM_SIZE);
    munmap(b->llcm, DN1_LLCM_SIZE);
    munmap(b->window, DN1_WINDOW_SIZE);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", b->dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "qtest_board: could not remove %s\n", b->dir);
    }
}

/* Next line from QEMU; async IRQ lines update irq_level and are skipped. */
static void read_line(struct qtest_board *b, char *out, size_t size)
{
    for (;;) {
        char *nl = memchr(b->rx, '\n', b->rx_fill);
        if (nl) {
            size_t n = (size_t)(nl - b->rx);
            if (n >= size) {
                die("qtest line too long");
            }
            memcpy(out, b->rx, n);
            out[n] = '\0';
            memmove(b->rx, nl + 1, b->rx_fill - n - 1);
            b->rx_fill -= n + 1;
            if (!strncmp(out, "IRQ raise", 9)) {
                b->irq_level = 1;
                continue;
            }
            if (!strncmp(out, "IRQ lower", 9)) {
                b->irq_level = 0;
                continue;
            }
            return;
        }
        struct pollfd pfd = { .fd = b->qtest_fd, .events = POLLIN };
        if (poll(&pfd, 1, 20000) <= 0) {
            die("no answer on the qtest socket");
        }
        ssize_t k = read(b->qtest_fd, b->rx + b->rx_fill, sizeof(b->rx) - b->rx_fill);
        if (k <= 0) {
            die("qtest socket closed: QEMU exited?");
        }
        b->rx_fill += (size_t)k;
    }
}

static void command(struct qtest_board *b, char *reply, size_t size,
                    const char *fmt, ...)
{
    char cmd[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    write_all(b->qtest_fd, cmd, strlen(cmd));
    do {
        read_line(b, reply, size);
    } while (strncmp(reply, "OK", 2) && strncmp(reply, "FAIL", 4));
    if (!strncmp(reply, "FAIL", 4)) {
        die("qtest '%.*s' failed: %s", (int)strlen(cmd) - 1, cmd, reply);
    }
}

uint32_t qb_readl(struct qtest_board *b, uint32_t pa)
{
    char r[128];
    command(b, r, sizeof(r), "readl 0x%x\n", pa);
    return (uint32_t)strtoull(r + 3, NULL, 16);
}

uint16_t qb_readw(struct qtest_board *b, uint32_t pa)
{
    char r[128];
    command(b, r, sizeof(r), "readw 0x%x\n", pa);
    return (uint16_t)strtoull(r + 3, NULL, 16);
}

uint8_t qb_readb(struct qtest_board *b, uint32_t pa)
{
    char r[128];
    command(b, r, sizeof(r), "readb 0x%x\n", pa);
    return (uint8_t)strtoull(r + 3, NULL, 16);
}

void qb_writel(struct qtest_board *b, uint32_t pa, uint32_t v)
{
    char r[128];
    command(b, r, sizeof(r), "writel 0x%x 0x%x\n", pa, v);
}

void qb_write(struct qtest_board *b, uint32_t pa, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    char r[128];

    /* Chunks small enough for one qtest line. */
    while (len) {
        char hex[2 * 64 + 1];
        size_t n = len < 64 ? len : 64;
        for (size_t i = 0; i < n; i++) {
            snprintf(hex + 2 * i, 3, "%02x", p[i]);
        }
        command(b, r, sizeof(r), "write 0x%x 0x%zx 0x%s\n", pa, n, hex);
        pa += (uint32_t)n;
        p += n;
        len -= n;
    }
}

uint32_t qb_reg(struct qtest_board *b, uint32_t off)
{
    return qb_readl(b, DN1_REGS_BASE + off);
}

void qb_set_reg(struct qtest_board *b, uint32_t off, uint32_t v)
{
    qb_writel(b, DN1_REGS_BASE + off, v);
}

uint32_t qb_counter(struct qtest_board *b, unsigned idx)
{
    return qb_reg(b, DN1_REG_CNT(idx));
}

void qb_link_send_raw(struct qtest_board *b, const void *buf, size_t len)
{
    write_all(b->link_fd, buf, len);
}

void qb_link_send(struct qtest_board *b, const struct dn1_hdr *h,
                  const void *payload)
{
    uint8_t frame[DN1_LINK_FRAME_HDR + DN1_PKT_MAX_SIZE];
    uint32_t size = DN1_PKT_HDR_SIZE + h->len;

    memcpy(frame + DN1_LINK_FRAME_HDR + DN1_PKT_HDR_SIZE, payload, h->len);
    dn1_packet_seal(frame + DN1_LINK_FRAME_HDR, h);
    dn1_put_be32(frame, DN1_LINK_MAGIC);
    dn1_put_be32(frame + 4, DN1_LINK_FRAME_HDR + size);
    dn1_put_be64(frame + 8, 0);
    qb_link_send_raw(b, frame, DN1_LINK_FRAME_HDR + size);
}

int qb_link_recv(struct qtest_board *b, struct dn1_hdr *h, uint8_t *payload,
                 int timeout_ms)
{
    uint8_t fh[DN1_LINK_FRAME_HDR], pkt[DN1_PKT_MAX_SIZE];

    if (read_all(b->link_fd, fh, sizeof(fh), timeout_ms)) {
        return -1;
    }
    uint32_t size = dn1_get_be32(fh + 4);
    if (dn1_get_be32(fh) != DN1_LINK_MAGIC || size < DN1_LINK_FRAME_HDR + DN1_PKT_HDR_SIZE ||
        size > DN1_LINK_FRAME_HDR + DN1_PKT_MAX_SIZE) {
        die("board sent a bad link frame");
    }
    b->link_vtime = dn1_get_be64(fh + 8);
    size -= DN1_LINK_FRAME_HDR;
    if (read_all(b->link_fd, pkt, size, timeout_ms)) {
        return -1;
    }
    if (dn1_packet_check(pkt, size) != DN1_PKT_OK) {
        die("board sent a malformed packet");
    }
    dn1_packet_parse(pkt, h);
    if (payload) {
        memcpy(payload, pkt + DN1_PKT_HDR_SIZE, h->len);
    }
    return 0;
}

int qb_link_recv_control(struct qtest_board *b, uint32_t *magic,
                         uint64_t *vtime, int timeout_ms)
{
    uint8_t fh[DN1_LINK_FRAME_HDR];

    if (read_all(b->link_fd, fh, sizeof(fh), timeout_ms)) {
        return -1;
    }
    if (dn1_get_be32(fh + 4) != DN1_LINK_FRAME_HDR ||
        dn1_get_be32(fh) == DN1_LINK_MAGIC) {
        die("board sent a data frame where a control frame was expected");
    }
    *magic = dn1_get_be32(fh);
    *vtime = dn1_get_be64(fh + 8);
    return 0;
}

int qb_clock_step(struct qtest_board *b, uint64_t ns)
{
    char r[128];
    command(b, r, sizeof(r), "clock_step %llu\n", (unsigned long long)ns);
    return 0;
}

int qb_alive(struct qtest_board *b)
{
    int status;
    return waitpid(b->pid, &status, WNOHANG) == 0;
}

int32_t qb_hostbus_raw(struct qtest_board *b, const void *req, size_t len)
{
    struct dn1_hb_rsp rsp;

    write_all(b->hostbus_fd, req, len);
    if (read_all(b->hostbus_fd, &rsp, sizeof(rsp), 10000)) {
        die("no host-bus response");
    }
    if (rsp.magic != DN1_HB_MAGIC) {
        die("host-bus response with bad magic");
    }
    return rsp.status;
}

void qb_hostbus_send(struct qtest_board *b, uint32_t op, uint64_t arg0,
                     uint64_t arg1, uint64_t arg2)
{
    struct dn1_hb_req req = { .magic = DN1_HB_MAGIC, .op = op, .arg0 = arg0,
                              .arg1 = arg1, .arg2 = arg2 };

    write_all(b->hostbus_fd, &req, sizeof(req));
}

int qb_hostbus_read(struct qtest_board *b, struct dn1_hb_rsp *rsp,
                    int timeout_ms)
{
    return read_all(b->hostbus_fd, rsp, sizeof(*rsp), timeout_ms) ? -1 : 0;
}

int32_t qb_hostbus(struct qtest_board *b, uint32_t op, uint64_t arg0,
                   uint64_t *value)
{
    return qb_hostbus3(b, op, arg0, 0, 0, value);
}

int32_t qb_hostbus3(struct qtest_board *b, uint32_t op, uint64_t arg0,
                    uint64_t arg1, uint64_t arg2, uint64_t *value)
{
    /* The test host is little-endian like the protocol. */
    struct dn1_hb_req req = { .magic = DN1_HB_MAGIC, .op = op, .arg0 = arg0,
                              .arg1 = arg1, .arg2 = arg2 };
    struct dn1_hb_rsp rsp;

    write_all(b->hostbus_fd, &req, sizeof(req));
    if (read_all(b->hostbus_fd, &rsp, sizeof(rsp), 10000)) {
        die("no host-bus response");
    }
    if (value) {
        *value = rsp.value;
    }
    return rsp.status;
}

int qb_wait_counter(struct qtest_board *b, unsigned idx, uint32_t want,
                    int timeout_ms)
{
    int64_t deadline = now_ms() + timeout_ms;

    while (qb_counter(b, idx) < want) {
        if (now_ms() > deadline) {
            return -1;
        }
        sleep_ms(2);
    }
    return 0;
}

/*
 * A topology of switches folded over several dimmnet1-switch processes
 * (issue 26 item 2; docs/scale.md, "Folds"): process I of M owns the
 * switches s with s * M / nswitches == I and the board ports hanging on
 * them. A frame leaving an owned switch over a cable to another process's
 * switch goes there as an event on a peer stream; with virtual time the
 * processes keep in step at every quantum in two sub-windows (the least a
 * frame takes from one switch to the next, a cable and a switch, 190 ns,
 * is more than half the 240 ns quantum), so each switch takes the same
 * events in the same order as one process would (events are ordered by
 * what they carry: timing.c), and a run's traces do not depend on the fold.
 *
 * Peer streams (unix sockets DIR/fold<I>.sock; process J connects to every
 * I < J), big-endian, u32 magic, u32 length of the whole message:
 *   HELLO 'DNFH': u32 index, u32 count
 *   EVENT 'DNFE': i64 stamp, u32 src, u32 seq, u64 copy, i32 at, u8 down,
 *                 u8 hops, u8 has_members, u8 0, [members], u32 size, frame
 *   SUB   'DNFS': i64 horizon, u32 phase (1, 2), u32 flags (phase 2: bit 0
 *                 its boards all boot (or it has none), bit 1 it keeps no
 *                 frame and sent none since phase 1, bit 2 it has a board)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "switch.h"
#include "dimmnet1/packet_codec.h"

#define FOLD_HELLO 0x444e4648u   /* "DNFH" */
#define FOLD_EVENT 0x444e4645u   /* "DNFE" */
#define FOLD_SUB   0x444e4653u   /* "DNFS" */
#define FOLD_EVENT_FIXED (8 + 8 + 4 + 4 + 8 + 4 + 4 + 4)
#define FOLD_MSG_MAX (FOLD_EVENT_FIXED + SW_MASK_WORDS * 8 + SW_FRAME_MAX)

unsigned sw_fold_owner(const struct sw *sw, unsigned s)
{
    return (unsigned)((uint64_t)s * sw->fold.count / sw->topo.nswitches);
}

int sw_fold_owns_port(const struct sw *sw, unsigned i)
{
    return sw->fold.count <= 1 || sw_fold_owner(sw, sw->topo.node_sw[i]) == sw->fold.index;
}

static void die(const char *what)
{
    fprintf(stderr, "dimmnet1-switch: fold: %s\n", what);
    exit(2);
}

/* A peer went away: the fold is broken. The run is ending (or a part
 * failed): this part stops too, its counters written (switch.c). */
static void gone(struct sw *sw, unsigned j)
{
    struct sw_fold_peer *q = &sw->fold.peer[j];

    fprintf(stderr, "dimmnet1-switch: fold: part %u went away\n", j);
    close(q->fd);
    q->fd = -1;
    q->out_len = q->in_fill = 0;
    sw->fold.broken = 1;
}

static void peer_append(struct sw_fold_peer *q, const uint8_t *buf, size_t len)
{
    if (q->out_len + len > q->out_cap) {
        size_t cap = q->out_cap ? q->out_cap : 65536;
        while (cap < q->out_len + len) {
            cap *= 2;
        }
        q->out = realloc(q->out, cap);
        if (!q->out) {
            abort();
        }
        q->out_cap = cap;
    }
    memcpy(q->out + q->out_len, buf, len);
    q->out_len += len;
}

/* Write what is queued for the peer, as far as the socket takes it. */
void sw_fold_flush(struct sw *sw, unsigned j)
{
    struct sw_fold_peer *q = &sw->fold.peer[j];

    while (q->fd >= 0 && q->out_len) {
        ssize_t k = write(q->fd, q->out, q->out_len);
        if (k < 0 && (errno == EAGAIN || errno == EINTR)) {
            return;
        }
        if (k <= 0) {
            gone(sw, j);
            return;
        }
        memmove(q->out, q->out + k, q->out_len - (size_t)k);
        q->out_len -= (size_t)k;
    }
}

/* An event for a switch another process owns: to that process. */
void sw_fold_send(struct sw *sw, const struct sw_pend *e)
{
    uint8_t m[FOLD_MSG_MAX], *p = m + 8;
    unsigned j = sw_fold_owner(sw, (unsigned)e->at);

    dn1_put_be64(p, (uint64_t)e->stamp);
    dn1_put_be32(p + 8, e->id.src);
    dn1_put_be32(p + 12, e->id.seq);
    dn1_put_be64(p + 16, e->id.copy);
    dn1_put_be32(p + 24, (uint32_t)e->at);
    p[28] = e->down;
    p[29] = e->hops;
    p[30] = e->members != NULL;
    p[31] = 0;
    p += 32;
    if (e->members) {
        for (unsigned w = 0; w < SW_MASK_WORDS; w++, p += 8) {
            dn1_put_be64(p, e->members[w]);
        }
    }
    dn1_put_be32(p, e->size);
    memcpy(p + 4, e->f, e->size);
    p += 4 + e->size;
    dn1_put_be32(m, FOLD_EVENT);
    dn1_put_be32(m + 4, (uint32_t)(p - m));
    peer_append(&sw->fold.peer[j], m, (size_t)(p - m));
    sw->fold.sent++;
}

void sw_fold_send_sub(struct sw *sw, int64_t horizon, unsigned phase, uint32_t flags)
{
    uint8_t m[24];

    dn1_put_be32(m, FOLD_SUB);
    dn1_put_be32(m + 4, sizeof(m));
    dn1_put_be64(m + 8, (uint64_t)horizon);
    dn1_put_be32(m + 16, phase);
    dn1_put_be32(m + 20, flags);
    for (unsigned j = 0; j < sw->fold.count; j++) {
        if (j != sw->fold.index) {
            peer_append(&sw->fold.peer[j], m, sizeof(m));
            sw_fold_flush(sw, j);
        }
    }
}

/* Has every peer said it has done @phase of the quantum ending at
 * @horizon (a peer may be a quantum ahead)? *flags: the phase-2 flags of
 * every peer, ANDed in the low 16 bits and ORed in the high 16. */
int sw_fold_all_sub(const struct sw *sw, int64_t horizon, unsigned phase, uint32_t *flags)
{
    uint32_t all = 0xffffu, any = 0;

    for (unsigned j = 0; j < sw->fold.count; j++) {
        const struct sw_fold_peer *q = &sw->fold.peer[j];
        if (j == sw->fold.index) {
            continue;
        }
        if (q->sub_h < horizon || (q->sub_h == horizon && q->sub_phase < phase)) {
            return 0;
        }
        if (phase == 2) {
            if (q->flags_h != horizon) {
                return 0;
            }
            all &= q->flags;
            any |= q->flags;
        }
    }
    if (flags) {
        *flags = (all & 0xffffu) | any << 16;
    }
    return 1;
}

int sw_fold_connected(const struct sw *sw)
{
    for (unsigned j = 0; j < sw->fold.count; j++) {
        if (j != sw->fold.index && sw->fold.peer[j].fd < 0) {
            return 0;
        }
    }
    return 1;
}

static void take(struct sw *sw, unsigned j, const uint8_t *m, uint32_t len,
                 sw_route_fn route)
{
    struct sw_fold_peer *q = &sw->fold.peer[j];
    uint32_t magic = dn1_get_be32(m);

    if (magic == FOLD_SUB && len == 24) {
        int64_t h = (int64_t)dn1_get_be64(m + 8);
        unsigned phase = dn1_get_be32(m + 16);
        q->sub_h = h;
        q->sub_phase = phase;
        if (phase == 2) {
            q->flags_h = h;
            q->flags = dn1_get_be32(m + 20);
        }
        return;
    }
    if (magic == FOLD_HELLO) {
        return;
    }
    if (magic != FOLD_EVENT || len < FOLD_EVENT_FIXED) {
        die("a peer sent something that is no fold message");
    }
    const uint8_t *p = m + 8;
    uint64_t members[SW_MASK_WORDS];
    struct sw_pend e = {
        .stamp = (int64_t)dn1_get_be64(p),
        .id = { .src = dn1_get_be32(p + 8), .seq = dn1_get_be32(p + 12),
                .copy = dn1_get_be64(p + 16) },
        .at = (int32_t)dn1_get_be32(p + 24), .out = -1,
        .down = p[28], .hops = p[29],
    };
    int has_members = p[30];
    p += 32;
    if (has_members) {
        for (unsigned w = 0; w < SW_MASK_WORDS; w++, p += 8) {
            members[w] = dn1_get_be64(p);
        }
        e.members = members;
    }
    e.size = dn1_get_be32(p);
    e.f = (uint8_t *)p + 4;
    if (e.at < 0 || (unsigned)e.at >= sw->topo.nswitches ||
        sw_fold_owner(sw, (unsigned)e.at) != sw->fold.index || e.size > SW_FRAME_MAX ||
        (size_t)(p + 4 + e.size - m) != len) {
        die("a peer sent an event that is not for this process");
    }
    if (sw->quantum) {
        sw_batch_push(sw, &e);      /* in its place among this quantum's */
    } else {
        route(sw, &e);              /* at once, as one process would */
    }
}

/* Bytes from peer @j: whole messages are taken. */
void sw_fold_input(struct sw *sw, unsigned j, sw_route_fn route)
{
    struct sw_fold_peer *q = &sw->fold.peer[j];

    for (;;) {
        if (!q->in) {
            q->in = malloc(FOLD_MSG_MAX);
            if (!q->in) {
                abort();
            }
        }
        ssize_t k = read(q->fd, q->in + q->in_fill, FOLD_MSG_MAX - q->in_fill);
        if (k < 0 && (errno == EAGAIN || errno == EINTR)) {
            return;
        }
        if (k <= 0) {
            gone(sw, j);
            return;
        }
        q->in_fill += (size_t)k;
        while (q->in_fill >= 8) {
            uint32_t len = dn1_get_be32(q->in + 4);
            if (len < 8 || len > FOLD_MSG_MAX) {
                die("a peer's stream is garbled");
            }
            if (q->in_fill < len) {
                break;
            }
            take(sw, j, q->in, len, route);
            memmove(q->in, q->in + len, q->in_fill - len);
            q->in_fill -= len;
        }
    }
}

static void nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static int fold_socket(const char *dir, unsigned i, struct sockaddr_un *sa)
{
    *sa = (struct sockaddr_un){ .sun_family = AF_UNIX };
    if ((size_t)snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/fold%u.sock", dir, i) >=
        sizeof(sa->sun_path)) {
        die("the fold directory's path is too long");
    }
    return socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

/* Listen for the processes above this one, connect to those below (they
 * may still be starting: tried for 30 s). */
void sw_fold_setup(struct sw *sw, const char *dir)
{
    struct sockaddr_un sa;

    for (unsigned j = 0; j < sw->fold.count; j++) {
        sw->fold.peer[j].fd = -1;
        sw->fold.peer[j].sub_h = -1;
        sw->fold.peer[j].flags_h = -1;
    }
    sw->fold.listen_fd = -1;
    if (sw->fold.index + 1 < sw->fold.count) {
        sw->fold.listen_fd = fold_socket(dir, sw->fold.index, &sa);
        unlink(sa.sun_path);
        if (sw->fold.listen_fd < 0 || bind(sw->fold.listen_fd, (struct sockaddr *)&sa,
                                           sizeof(sa)) ||
            listen(sw->fold.listen_fd, SW_MAX_FOLDS)) {
            die("cannot listen for the other processes");
        }
    }
    for (unsigned j = 0; j < sw->fold.index; j++) {
        int fd = -1;
        for (int tries = 0; tries < 1500; tries++) {
            fd = fold_socket(dir, j, &sa);
            if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
                break;
            }
            close(fd);
            fd = -1;
            struct timespec ts = { 0, 20 * 1000000L };
            nanosleep(&ts, NULL);
        }
        if (fd < 0) {
            die("a process below this one never listened");
        }
        uint8_t hello[16];
        dn1_put_be32(hello, FOLD_HELLO);
        dn1_put_be32(hello + 4, sizeof(hello));
        dn1_put_be32(hello + 8, sw->fold.index);
        dn1_put_be32(hello + 12, sw->fold.count);
        if (write(fd, hello, sizeof(hello)) != (ssize_t)sizeof(hello)) {
            die("a process below this one went away");
        }
        nonblock(fd);
        sw->fold.peer[j].fd = fd;
    }
}

/* A process above this one connects: its hello says which. */
void sw_fold_accept(struct sw *sw)
{
    uint8_t hello[16];
    int fd = accept4(sw->fold.listen_fd, NULL, NULL, SOCK_CLOEXEC);
    size_t got = 0;

    while (fd >= 0 && got < sizeof(hello)) {
        ssize_t k = read(fd, hello + got, sizeof(hello) - got);
        if (k <= 0) {
            die("a process above this one went away");
        }
        got += (size_t)k;
    }
    unsigned j = fd >= 0 ? dn1_get_be32(hello + 8) : 0;
    if (fd < 0 || dn1_get_be32(hello) != FOLD_HELLO || j <= sw->fold.index ||
        j >= sw->fold.count || dn1_get_be32(hello + 12) != sw->fold.count ||
        sw->fold.peer[j].fd >= 0) {
        die("a connection that is no other process of this fold");
    }
    nonblock(fd);
    sw->fold.peer[j].fd = fd;
}

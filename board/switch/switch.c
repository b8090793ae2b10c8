/*
 * dimmnet1-switch: the cluster's switch model (see switch.h).
 *
 *   dimmnet1-switch --ports N --socket-dir DIR [--group G=all|N,N,...]...
 *                   [--topology single|fat-tree|mesh:WxH|torus:WxH|FILE]
 *                   [--switch-radix K] [--routes summary|all]
 *                   [--fault port=P,drop=X,dup=X,corrupt=X,reorder=X,delay=NS,
 *                            hold=X,hold-ns=NS]...
 *                   [--fault link=S:P,drop=X,dup=X,corrupt=X,delay=NS]...
 *                   [--seed S] [--pcap FILE] [--stats FILE] [--sync QUANTUM_NS]
 *                   [--tcp ADDR:PORT] [--fold I/M [--fold-dir DIR]]
 *
 * N boards (1..512). Port i listens on DIR/port<i>.sock (with --tcp on
 * TCP port PORT + i of ADDR instead: boards on other hosts); the board with
 * node id i connects its link there. One process models the whole topology of
 * switches (topology.h; default one switch, port i = board i; --switch-radix
 * K alone: a fat-tree of K-port switches). --routes checks every route and
 * prints a summary (all: one line a pair) instead of running. Prints "ready" on stdout once listening. On SIGTERM or SIGINT
 * it writes its counters (to --stats FILE, else stderr) and exits 0.
 * With --sync, it keeps the boards' virtual clocks in step: once every port
 * has a board, it grants them QUANTUM_NS of virtual time at a time, the next
 * quantum when all have reported the last (docs/hardware.md, "Timing").
 * QUANTUM_NS may not exceed DN1_SYNC_QUANTUM_NS (240 ns): a longer quantum
 * would let frames reach a board after their modeled arrival.
 * --fold I/M: this process is part I (0-based) of the topology folded over
 * M processes started alike (fold.c): it listens for the boards of its
 * switches only, and meets the others at DIR/fold<I>.sock (DIR: --fold-dir,
 * else --socket-dir); its counters are its own part's.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <time.h>
#include <unistd.h>
#include "switch.h"
#include "dimmnet1/packet_codec.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static void die(const char *msg)
{
    fprintf(stderr, "dimmnet1-switch: %s\n", msg);
    exit(2);
}

#define OUT_CONTROL 0x80000000u   /* out_sizes[] flag: a control frame */
#define OUT_SIZE(v) ((v) & ~OUT_CONTROL)

static void *grow(void *buf, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) {
        return buf;
    }
    size_t c = *cap ? *cap : 1024;
    while (c < need) {
        c *= 2;
    }
    buf = realloc(buf, c * elem);
    if (!buf) {
        die("out of memory");
    }
    *cap = c;
    return buf;
}

static void out_append(struct sw_port *p, const uint8_t *buf, size_t len)
{
    p->out_sizes = grow(p->out_sizes, &p->out_sizes_cap, p->out_frames + 1,
                        sizeof(*p->out_sizes));
    /* Timing control frames are marked: they are not traffic to count. */
    p->out_sizes[p->out_frames++] = (uint32_t)len |
        (dn1_get_be32(buf) == DN1_LINK_MAGIC ? 0 : OUT_CONTROL);
    p->out = grow(p->out, &p->out_cap, p->out_len + len, 1);
    memcpy(p->out + p->out_len, buf, len);
    p->out_len += len;
}

/* Queue one frame for the board on @p and trace it. */
static void deliver(struct sw *sw, struct sw_port *p, const uint8_t *f, uint32_t size)
{
    out_append(p, f, size);
    p->tx_frames++;
    sw_pcap_record(sw, f, size);
}

static int64_t wall_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A frame held back (fault hold) leaves through port @port now: as it would
 * have left, but no other fault applies to it again. */
static void release(struct sw *sw, unsigned port, uint8_t *f, uint32_t size)
{
    struct sw_port *p = &sw->port[port];

    if (p->fd < 0) {
        p->dropped++;
        return;
    }
    if (sw->quantum) {
        sw_contend(p, f, size);
    }
    if (p->fault.delay_ns) {
        dn1_put_be64(f + 8, dn1_get_be64(f + 8) + p->fault.delay_ns);
    }
    deliver(sw, p, f, size);
}

/* A frame still held back when the switch stops: lost, counted. */
static void lose(struct sw *sw, unsigned port, uint8_t *f, uint32_t size)
{
    (void)f;
    (void)size;
    sw->port[port].dropped++;
}

/* A frame leaves through the port to board @node, having crossed @hops
 * switches: faults first (seeded, per port). */
void sw_emit(struct sw *sw, unsigned node, const uint8_t *frame, uint32_t size,
             unsigned hops, const struct sw_id *id)
{
    uint8_t f[SW_FRAME_MAX];
    struct sw_port *p = &sw->port[node];
    const struct sw_fault *fl = &p->fault;

    if (p->fd < 0) {
        p->dropped++;                 /* nobody there: the frame is lost */
        return;
    }
    memcpy(f, frame, size);
    sw->hops[hops < SW_MAX_HOPS ? hops : SW_MAX_HOPS]++;
    if (fl->drop && sw_rand(&p->rng) % 1000000u < fl->drop) {
        p->dropped++;
        return;
    }
    if (fl->corrupt && sw_rand(&p->rng) % 1000000u < fl->corrupt) {
        sw_flip_bit(&p->rng, f, size);
        p->corrupted++;
    }
    if (fl->hold && sw_rand(&p->rng) % 1000000u < fl->hold) {
        /* Released hold_ns later: with timing at its new stamp's quantum,
         * else after that much wall-clock time. */
        int64_t stamp = (int64_t)dn1_get_be64(f + 8) + (int64_t)fl->hold_ns;

        dn1_put_be64(f + 8, (uint64_t)stamp);
        sw_hold_add(sw, (unsigned)(p - sw->port), f, size,
                    sw->quantum ? stamp : wall_ns() + (int64_t)fl->hold_ns, id);
        p->held_back++;
        return;
    }
    if (sw->quantum) {
        sw_contend(p, f, size);       /* waits for the output link */
    }
    if (fl->delay_ns) {
        dn1_put_be64(f + 8, dn1_get_be64(f + 8) + fl->delay_ns);
    }
    if (p->held_len == 0 && fl->reorder && sw_rand(&p->rng) % 1000000u < fl->reorder) {
        memcpy(p->held, f, size);     /* goes out after the next frame */
        p->held_len = size;
        p->reordered++;
        return;
    }
    deliver(sw, p, f, size);
    if (fl->dup && sw_rand(&p->rng) % 1000000u < fl->dup) {
        deliver(sw, p, f, size);
        p->duplicated++;
    }
    if (p->held_len) {
        deliver(sw, p, p->held, p->held_len);
        p->held_len = 0;
    }
}

/* Frames kept back to reorder go out now: nothing came after them. */
static void release_held(struct sw *sw)
{
    for (unsigned i = 0; i < sw->nports; i++) {
        struct sw_port *p = &sw->port[i];
        if (p->held_len && p->fd >= 0) {
            deliver(sw, p, p->held, p->held_len);
            p->held_len = 0;
        }
    }
}

/*
 * Timing: grant the next quantum to every board once all reached this one.
 * While every board still boots (DNB1) and no frame is kept here, a boot
 * quantum: a booting board sends nothing that leaves inside it, so nothing
 * can arrive inside it either (docs/hardware.md, "Timing").
 */
/* Have this process's boards all reached the horizon? *booting: and say
 * they still boot (none: *connected 0). */
static int boards_reached(struct sw *sw, int *booting, unsigned *connected_out)
{
    unsigned connected = 0;

    *booting = sw->horizon != 0;
    for (unsigned i = 0; i < sw->nports; i++) {
        const struct sw_port *p = &sw->port[i];
        if (!sw_fold_owns_port(sw, i)) {
            continue;               /* another process's board */
        }
        /* Not started: wait for every board. Later a board that left no
         * longer holds the others back. */
        if (sw->horizon == 0 ? p->fd < 0 : p->fd >= 0 && p->reached < sw->horizon) {
            return 0;
        }
        if (p->fd >= 0) {
            *booting = *booting && p->booting;
            connected++;
        }
    }
    *connected_out = connected;
    return 1;
}

/* Frames stamped before @before, in a fixed order. */
static void route_before(struct sw *sw, int64_t before)
{
    sw_hold_to_batch(sw, before);
    sw_batch_flush(sw, before, sw_step, release);
}

static void grant(struct sw *sw, int booting)
{
    uint8_t g[DN1_LINK_FRAME_HDR];

    sw->horizon += booting ? DN1_SYNC_BOOT_QUANTUM_NS : sw->quantum;
    sw->grants++;
    sw->boot_grants += booting;
    dn1_put_be32(g, DN1_LINK_MAGIC_GRANT);
    dn1_put_be32(g + 4, DN1_LINK_FRAME_HDR);
    dn1_put_be64(g + 8, (uint64_t)sw->horizon);
    for (unsigned i = 0; i < sw->nports; i++) {
        if (sw->port[i].fd >= 0) {
            out_append(&sw->port[i], g, sizeof(g));   /* after its frames */
        }
    }
}

/*
 * Timing over a fold (fold.c): once this process's boards reached the
 * horizon H, the quantum's frames go in two sub-windows, before H - Q/2
 * and before H, each closed by telling every peer (after the events it
 * made for them) and waiting for every peer to say the same: an event
 * crosses to another process a cable and a switch (190 ns) later than the
 * one that made it, so it always falls in a later sub-window than its
 * maker's, and each switch takes its events in the one order they have.
 * Then every process grants the same next quantum (a boot quantum only if
 * every process's boards boot and none keeps or sent a frame).
 */
static void fold_advance(struct sw *sw)
{
    uint32_t flags;
    unsigned connected;

    for (;;) {
        switch (sw->fold.phase) {
        case 0:
            if (!sw_fold_connected(sw) || !boards_reached(sw, &sw->fold.booting, &connected)) {
                return;
            }
            sw->fold.boards = connected != 0;
            route_before(sw, sw->horizon - sw->quantum / 2);
            sw->fold.sent_phase1 = sw->fold.sent;
            sw_fold_send_sub(sw, sw->horizon, 1, 0);
            sw->fold.phase = 1;
            break;
        case 1:
            if (!sw_fold_all_sub(sw, sw->horizon, 1, NULL)) {
                return;
            }
            route_before(sw, sw->horizon);
            sw_hold_release(sw, sw->horizon, release);   /* held less than a quantum */
            release_held(sw);
            sw_fold_send_sub(sw, sw->horizon, 2,
                             (sw->fold.booting ? 1u : 0u) |
                             (!sw->npend && !sw->nhold &&
                              sw->fold.sent == sw->fold.sent_phase1 ? 2u : 0u) |
                             (sw->fold.boards ? 4u : 0u));
            sw->fold.phase = 2;
            break;
        default:
            if (!sw_fold_all_sub(sw, sw->horizon, 2, &flags)) {
                return;
            }
            /* As one process: every board boots (some board there is),
             * and no part keeps or sent a frame. Our own flags were sent
             * with the same rule; the peers' events for the next quantum
             * may have come since (not idle then). */
            grant(sw, (flags & 3u) == 3u && sw->fold.booting &&
                      ((flags >> 16 & 4u) || sw->fold.boards) &&
                      !sw->npend && !sw->nhold && sw->fold.sent == sw->fold.sent_phase1);
            sw->fold.phase = 0;
            break;              /* a part without boards goes on at once */
        }
    }
}

static void sync_advance(struct sw *sw)
{
    int booting;

    if (!sw->quantum) {
        return;
    }
    if (sw->fold.count > 1) {
        fold_advance(sw);
        return;
    }
    unsigned connected;
    if (!boards_reached(sw, &booting, &connected)) {
        return;
    }
    booting = booting && connected;
    /* Frames stamped before the horizon, in a fixed order, ahead of the
     * grants; in the two steps a fold takes (fold_advance), so that a
     * frame held back for less than a quantum goes where it would there. */
    route_before(sw, sw->horizon - sw->quantum / 2);
    route_before(sw, sw->horizon);
    sw_hold_release(sw, sw->horizon, release);   /* held less than a quantum */
    release_held(sw);
    grant(sw, booting && !sw->npend && !sw->nhold);
}

/* Bytes from a board: reassembled by the boards' own rules. */
static void port_input(struct sw *sw, unsigned i, const uint8_t *buf, size_t len)
{
    struct sw_port *p = &sw->port[i];

    while (len > 0) {
        switch (dn1_link_reasm_feed(&p->in, &buf, &len)) {
        case DN1_REASM_BAD:
            p->bad_frames++;
            break;
        case DN1_REASM_FRAME:
            if (dn1_get_be32(p->in.buf) == DN1_LINK_MAGIC) {
                if (sw->quantum) {
                    sw_batch_add(sw, i, p->in.buf, p->in.fill);
                } else {
                    sw_enter(sw, i, p->rx_seq++, p->in.buf, p->in.fill);
                }
            } else if (dn1_get_be32(p->in.buf) == DN1_LINK_MAGIC_REACHED ||
                       dn1_get_be32(p->in.buf) == DN1_LINK_MAGIC_BOOTING) {
                p->reached = (int64_t)dn1_get_be64(p->in.buf + 8);
                p->booting = dn1_get_be32(p->in.buf) == DN1_LINK_MAGIC_BOOTING;
                sync_advance(sw);
            } else {
                p->bad_frames++;      /* a board may not grant */
            }
            p->in.fill = 0;
            break;
        case DN1_REASM_MORE:
            break;
        }
    }
}

/* @k bytes of port @p's output were written: retire the frames they finish. */
static void out_written(struct sw_port *p, size_t k)
{
    memmove(p->out, p->out + k, p->out_len - k);
    p->out_len -= k;
    p->out_sent += k;
    size_t done = 0;
    while (done < p->out_frames && p->out_sent >= OUT_SIZE(p->out_sizes[done])) {
        p->out_sent -= OUT_SIZE(p->out_sizes[done++]);
    }
    memmove(p->out_sizes, p->out_sizes + done, (p->out_frames - done) * sizeof(uint32_t));
    p->out_frames -= done;
}

static void port_close(struct sw_port *p)
{
    close(p->fd);
    p->fd = -1;
    p->in.fill = 0;
    /* Frames not (wholly) written to the board are lost: count each. */
    for (size_t k = 0; k < p->out_frames; k++) {
        p->dropped += !(p->out_sizes[k] & OUT_CONTROL);
    }
    p->dropped += p->held_len ? 1 : 0;
    p->out_len = p->out_frames = p->out_sent = 0;
    p->held_len = 0;
}

/* Several switches: each cable between them (both ways), and the frames
 * delivered by switches crossed. */
static void write_topology_stats(const struct sw *sw, FILE *f)
{
    const struct sw_topo *t = &sw->topo;
    int maxh = 0;

    fprintf(f, "topology %s switches=%u\n", t->desc, t->nswitches);
    for (unsigned s = 0; s < t->nswitches; s++) {
        for (unsigned q = 0; q < t->sw[s].radix; q++) {
            const struct topo_port *l = &t->sw[s].port[q];
            if (l->peer < 0 || (sw->fold.count > 1 &&
                                sw_fold_owner(sw, s) != sw->fold.index)) {
                continue;           /* no cable, or another process's */
            }
            fprintf(f, "link %u:%u->%d:%u tx_frames=%llu dropped=%llu duplicated=%llu "
                    "corrupted=%llu contended=%llu\n", s, q, l->peer, l->peer_port,
                    (unsigned long long)l->tx_frames, (unsigned long long)l->dropped,
                    (unsigned long long)l->duplicated, (unsigned long long)l->corrupted,
                    (unsigned long long)l->contended);
        }
    }
    for (int h = 1; h <= SW_MAX_HOPS; h++) {
        maxh = sw->hops[h] ? h : maxh;
    }
    fprintf(f, "hops");
    for (int h = 1; h <= maxh; h++) {
        fprintf(f, " %d=%llu", h, (unsigned long long)sw->hops[h]);
    }
    fprintf(f, "\n");
}

static void write_stats(struct sw *sw, const char *path)
{
    FILE *f = path ? fopen(path, "w") : stderr;

    if (!f) {
        perror("dimmnet1-switch: stats");
        return;
    }
    if (sw->fold.count > 1) {
        fprintf(f, "fold %u/%u\n", sw->fold.index, sw->fold.count);
    }
    for (unsigned i = 0; i < sw->nports; i++) {
        const struct sw_port *p = &sw->port[i];
        if (!sw_fold_owns_port(sw, i)) {
            continue;               /* another process's board */
        }
        fprintf(f, "port %u rx_frames=%llu tx_frames=%llu bad_frames=%llu "
                "no_route=%llu dropped=%llu duplicated=%llu corrupted=%llu "
                "reordered=%llu contended=%llu held=%llu\n", i,
                (unsigned long long)p->rx_frames, (unsigned long long)p->tx_frames,
                (unsigned long long)p->bad_frames, (unsigned long long)p->no_route,
                (unsigned long long)p->dropped, (unsigned long long)p->duplicated,
                (unsigned long long)p->corrupted, (unsigned long long)p->reordered,
                (unsigned long long)p->contended, (unsigned long long)p->held_back);
    }
    if (sw->topo.nswitches > 1) {
        write_topology_stats(sw, f);
    }
    if (sw->quantum) {
        fprintf(f, "sync horizon_ns=%lld grants=%llu boot_grants=%llu\n",
                (long long)sw->horizon, (unsigned long long)sw->grants,
                (unsigned long long)sw->boot_grants);
    }
    if (f != stderr) {
        fclose(f);
    }
}

static int parse_group(struct sw *sw, const char *spec)
{
    char *end;
    unsigned long g = strtoul(spec, &end, 10);

    if (end == spec || *end != '=' || g >= DN1_MCAST_GROUPS) {
        return -1;
    }
    spec = end + 1;
    if (!strcmp(spec, "all")) {
        for (unsigned n = 0; n < sw->nports; n++) {
            sw->group[g][n / 64] |= 1ull << (n % 64);
        }
        return 0;
    }
    while (*spec) {
        unsigned long n = strtoul(spec, &end, 10);
        if (end == spec || n >= sw->nports || (*end && *end != ',')) {
            return -1;
        }
        sw->group[g][n / 64] |= 1ull << (n % 64);
        spec = *end ? end + 1 : end;
    }
    return 0;
}

/* Board port @i on TCP: ADDR:(BASE + i) of @spec "ADDR:BASE" (boards on
 * other hosts, docs/hardware.md section 6b). */
static int listen_tcp(const char *spec, unsigned i)
{
    char host[64];
    const char *colon = strrchr(spec, ':');
    unsigned long base = colon ? strtoul(colon + 1, NULL, 10) : 0;
    struct sockaddr_in sa = { .sin_family = AF_INET };
    int one = 1;

    if (!colon || (size_t)(colon - spec) >= sizeof(host) || base == 0 ||
        base + SW_MAX_PORTS > 65535) {
        die("--tcp takes ADDR:PORT (board i on PORT + i)");
    }
    memcpy(host, spec, (size_t)(colon - spec));
    host[colon - spec] = 0;
    if (inet_pton(AF_INET, host[0] ? host : "0.0.0.0", &sa.sin_addr) != 1) {
        die("--tcp: ADDR is an IPv4 address");
    }
    sa.sin_port = htons((uint16_t)(base + i));
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
        bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 1)) {
        fprintf(stderr, "dimmnet1-switch: cannot listen on %s:%lu: %s\n", host,
                base + i, strerror(errno));
        exit(2);
    }
    return fd;
}

static int listen_on(const char *dir, unsigned i)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int k = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/port%u.sock", dir, i);

    if (fd < 0 || k <= 0 || (size_t)k >= sizeof(sa.sun_path)) {
        die("socket path too long");
    }
    unlink(sa.sun_path);
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 1)) {
        die("cannot listen on a port socket");
    }
    return fd;
}

int main(int argc, char **argv)
{
    static struct sw sw;
    const char *dir = NULL, *stats = NULL, *pcap = NULL, *topology = NULL, *routes = NULL;
    const char *tcp = NULL, *fold_dir = NULL;
    char *faults[SW_MAX_PORTS * 2], *groups[DN1_MCAST_GROUPS];
    unsigned radix = SW_DEFAULT_RADIX, radix_set = 0;
    char err[256];
    unsigned nfaults = 0, ngroups = 0;
    unsigned long long seed = 1;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            die("every option takes a value (see the usage in switch.c)");
        }
        if (!strcmp(a, "--ports")) {
            sw.nports = (unsigned)strtoul(v, NULL, 10);
        } else if (!strcmp(a, "--socket-dir")) {
            dir = v;
        } else if (!strcmp(a, "--tcp")) {
            tcp = v;
        } else if (!strcmp(a, "--fold")) {
            char *end;
            sw.fold.index = (unsigned)strtoul(v, &end, 10);
            sw.fold.count = *end == '/' ? (unsigned)strtoul(end + 1, &end, 10) : 0;
            if (*end || sw.fold.count < 1 || sw.fold.count > SW_MAX_FOLDS ||
                sw.fold.index >= sw.fold.count) {
                die("--fold I/M: 0 <= I < M <= 8");
            }
        } else if (!strcmp(a, "--fold-dir")) {
            fold_dir = v;
        } else if (!strcmp(a, "--topology")) {
            topology = v;
        } else if (!strcmp(a, "--switch-radix")) {
            radix = (unsigned)strtoul(v, NULL, 10);
            radix_set = 1;
        } else if (!strcmp(a, "--routes") && (!strcmp(v, "summary") || !strcmp(v, "all"))) {
            routes = v;
        } else if (!strcmp(a, "--group") && ngroups < DN1_MCAST_GROUPS) {
            groups[ngroups++] = argv[i + 1];
        } else if (!strcmp(a, "--fault") && nfaults < SW_MAX_PORTS * 2) {
            faults[nfaults++] = argv[i + 1];
        } else if (!strcmp(a, "--seed")) {
            seed = strtoull(v, NULL, 0);
        } else if (!strcmp(a, "--pcap")) {
            pcap = v;
        } else if (!strcmp(a, "--stats")) {
            stats = v;
        } else if (!strcmp(a, "--sync")) {
            sw.quantum = strtoll(v, NULL, 10);
            if (sw.quantum <= 0 || sw.quantum > DN1_SYNC_QUANTUM_NS) {
                fprintf(stderr, "dimmnet1-switch: --sync takes a quantum in "
                        "virtual ns, 1 to %u (shortest link delay less the "
                        "boards' stop slack)\n", (unsigned)DN1_SYNC_QUANTUM_NS);
                exit(2);
            }
        } else {
            die("unknown option");
        }
        i++;
    }
    if (sw.nports < 1 || sw.nports > SW_MAX_PORTS || (!dir && !tcp && !routes)) {
        die("--ports 1..512 and --socket-dir (or --tcp) are required");
    }
    /* --switch-radix alone: a fat-tree of such switches sized for the
     * boards. */
    if (!topology && radix_set) {
        topology = "fat-tree";
    }
    if (topo_build(&sw.topo, topology, sw.nports, radix, err, sizeof(err)) ||
        topo_route(&sw.topo, err, sizeof(err))) {
        fprintf(stderr, "dimmnet1-switch: topology: %s\n", err);
        exit(2);
    }
    if (routes) {
        exit(topo_check(&sw.topo, stdout, !strcmp(routes, "all")) ? 1 : 0);
    }
    if (sw.fold.count > sw.topo.nswitches) {
        die("--fold: more processes than switches");
    }
    for (unsigned s = 0; s < sw.topo.nswitches; s++) {
        for (unsigned q = 0; q < sw.topo.sw[s].radix; q++) {
            sw.topo.sw[s].port[q].rng = seed * 0xbf58476d1ce4e5b9ull + s * SW_MAX_RADIX + q + 1;
        }
    }
    for (unsigned i = 0; i < sw.nports; i++) {
        sw.port[i].fd = -1;
        sw.port[i].rng = seed * 0x9e3779b97f4a7c15ull + i + 1;   /* per link */
        sw.port[i].listen_fd = !sw_fold_owns_port(&sw, i) ? -1   /* another process's */
                               : tcp ? listen_tcp(tcp, i) : listen_on(dir, i);
    }
    for (unsigned g = 0; g < ngroups; g++) {
        if (parse_group(&sw, groups[g])) {
            die("bad --group (G=all or G=N,N,... with nodes below --ports)");
        }
    }
    for (unsigned k = 0; k < nfaults; k++) {
        if (sw_parse_fault(&sw, faults[k])) {
            die("bad --fault (port=P,drop=X,dup=X,corrupt=X,reorder=X,delay=NS,"
                "hold=X,hold-ns=NS; or link=S:P,drop=X,dup=X,corrupt=X,delay=NS)");
        }
    }
    if (pcap && sw_pcap_open(&sw, pcap)) {
        die("cannot write the pcap file");
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGPIPE, SIG_IGN);
    if (sw.fold.count > 1) {
        if (!fold_dir && !dir) {
            die("--fold needs --fold-dir (or --socket-dir)");
        }
        sw_fold_setup(&sw, fold_dir ? fold_dir : dir);
    }
    printf("ready\n");
    fflush(stdout);

    while (!stop && !sw.fold.broken) {
        struct pollfd pfd[SW_MAX_PORTS + SW_MAX_FOLDS + 1];
        unsigned n = 0;

        for (unsigned i = 0; i < sw.nports; i++) {
            struct sw_port *p = &sw.port[i];
            pfd[n++] = (struct pollfd){ .fd = p->fd < 0 ? p->listen_fd : p->fd,
                                        .events = POLLIN | (p->out_len ? POLLOUT : 0) };
        }
        /* The fold's peers (fd -1: ignored by poll), then its listener. */
        for (unsigned j = 0; j < SW_MAX_FOLDS; j++) {
            const struct sw_fold_peer *q = &sw.fold.peer[j];
            pfd[n++] = (struct pollfd){ .fd = j < sw.fold.count && j != sw.fold.index
                                              ? q->fd : -1,
                                        .events = POLLIN | (q->out_len ? POLLOUT : 0) };
        }
        pfd[n++] = (struct pollfd){ .fd = sw.fold.count > 1 ? sw.fold.listen_fd : -1,
                                    .events = POLLIN };
        /* With nothing to do for a while, a frame kept back to reorder goes;
         * without timing, a held frame when its time has come. */
        int timeout = 20;
        int64_t due = sw.quantum ? INT64_MAX : sw_hold_next(&sw);
        if (due != INT64_MAX) {
            int64_t ms = (due - wall_ns() + 999999) / 1000000;
            timeout = ms < 0 ? 0 : ms < timeout ? (int)ms : timeout;
        }
        int r = poll(pfd, n, timeout);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (!sw.quantum && sw.nhold) {
            sw_hold_release(&sw, wall_ns() + 1, release);
        }
        if (r == 0 && !sw.quantum) {
            release_held(&sw);
            continue;
        }
        if (pfd[sw.nports + SW_MAX_FOLDS].revents & POLLIN) {
            sw_fold_accept(&sw);
            sync_advance(&sw);    /* the last peer may start the clock */
        }
        for (unsigned j = 0; j < sw.fold.count; j++) {
            short ev = pfd[sw.nports + j].revents;
            if (j == sw.fold.index || sw.fold.peer[j].fd < 0) {
                continue;
            }
            if (ev & POLLOUT) {
                sw_fold_flush(&sw, j);
            }
            if (ev & (POLLIN | POLLHUP | POLLERR)) {
                sw_fold_input(&sw, j, sw_step);
                sync_advance(&sw);
            }
        }
        for (unsigned i = 0; i < sw.nports; i++) {
            struct sw_port *p = &sw.port[i];
            short ev = pfd[i].revents;

            if (p->fd < 0) {
                if (ev & POLLIN) {
                    p->fd = accept4(p->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
                    if (p->fd >= 0 && tcp) {
                        int one = 1;    /* a frame goes now, not with the next */
                        setsockopt(p->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
                    }
                    sync_advance(&sw);    /* the last board starts the clock */
                }
                continue;
            }
            if (ev & POLLOUT && p->out_len) {
                ssize_t k = write(p->fd, p->out, p->out_len);
                if (k > 0) {
                    out_written(p, (size_t)k);
                }
            }
            if (ev & (POLLIN | POLLHUP | POLLERR)) {
                uint8_t buf[65536];
                ssize_t k = read(p->fd, buf, sizeof(buf));
                if (k > 0) {
                    port_input(&sw, i, buf, (size_t)k);
                } else if (k == 0 || (errno != EAGAIN && errno != EINTR)) {
                    port_close(p);    /* the board went away; it may come back */
                    if (sw.horizon) {
                        sync_advance(&sw);
                    }
                }
            }
        }
        /* What the input made goes out now, one write per port (the
         * sockets do not block), not after one more trip through poll. */
        for (unsigned j = 0; j < sw.fold.count; j++) {
            if (j != sw.fold.index) {
                sw_fold_flush(&sw, j);
            }
        }
        for (unsigned i = 0; i < sw.nports; i++) {
            struct sw_port *p = &sw.port[i];

            if (p->fd >= 0 && p->out_len) {
                ssize_t k = write(p->fd, p->out, p->out_len);
                if (k > 0) {
                    out_written(p, (size_t)k);
                }
            }
        }
    }
    sw_hold_to_batch(&sw, INT64_MAX);
    sw_batch_flush(&sw, INT64_MAX, sw_step, release);   /* the last frames: counted */
    sw_hold_release(&sw, INT64_MAX, lose);         /* held back still: lost */
    write_stats(&sw, stats);
    return sw.fold.broken && !stop;    /* a part of the fold failed under us */
}

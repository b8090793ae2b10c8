/*
 * Topologies for the switch model: generators, the topology file, and the
 * checks every topology passes before a frame moves (see topology.h and
 * docs/hardware.md, "Topologies").
 *
 * File format, one statement a line, '#' starts a comment:
 *   switch S [radix K]              a switch (K ports; default --switch-radix)
 *   node N[-M] switch S [port P]    board N (or N..M) on switch S, from port P
 *   link S[:P] T[:Q]                a cable between two switches' ports
 * Switches named in node or link lines need no switch line; a port left
 * out is the switch's lowest free one.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "topology.h"

static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

static void topo_init(struct sw_topo *t, unsigned nodes)
{
    memset(t, 0, sizeof(*t));
    t->nnodes = nodes;
    for (unsigned n = 0; n < SW_MAX_NODES; n++) {
        t->node_sw[n] = UINT16_MAX;
    }
}

/* Switch @s exists from now on, with @radix ports (0: keep what it has). */
static int need_switch(struct sw_topo *t, unsigned s, unsigned radix,
                       char *err, size_t len)
{
    if (s >= SW_MAX_SWITCHES) {
        return fail(err, len, "switch %u: at most %u switches", s, SW_MAX_SWITCHES);
    }
    if (radix > SW_MAX_RADIX || radix == 1) {
        return fail(err, len, "switch %u: radix %u (2..%u)", s, radix, SW_MAX_RADIX);
    }
    if (s >= t->nswitches) {
        struct topo_switch *n = realloc(t->sw, (s + 1) * sizeof(*n));
        if (!n) {
            return fail(err, len, "out of memory");
        }
        memset(n + t->nswitches, 0, (s + 1 - t->nswitches) * sizeof(*n));
        t->sw = n;
        t->nswitches = s + 1;
    }
    struct topo_switch *w = &t->sw[s];
    if (radix && w->used && radix < w->radix) {
        return fail(err, len, "switch %u: radix %u after its ports were cabled", s, radix);
    }
    if (radix && radix != w->radix) {
        struct topo_port *p = realloc(w->port, radix * sizeof(*p));
        if (!p) {
            return fail(err, len, "out of memory");
        }
        for (unsigned i = w->radix; i < radix; i++) {
            p[i] = (struct topo_port){ .node = -1, .peer = -1 };
        }
        w->port = p;
        w->radix = radix;
    }
    return 0;
}

static int port_free(const struct topo_switch *w, unsigned p)
{
    return p < w->radix && w->port[p].node < 0 && w->port[p].peer < 0;
}

/* Port @p of switch @s, or its lowest free one if @p < 0. */
static int take_port(struct sw_topo *t, unsigned s, long p, unsigned radix,
                     char *err, size_t len)
{
    if (need_switch(t, s, t->sw && s < t->nswitches && t->sw[s].radix ? 0 : radix,
                    err, len)) {
        return -1;
    }
    struct topo_switch *w = &t->sw[s];
    if (p < 0) {
        for (p = 0; (unsigned)p < w->radix && !port_free(w, (unsigned)p); p++) {
        }
    }
    if ((unsigned long)p >= w->radix) {
        return fail(err, len, "switch %u has %u ports: none free for port %ld", s,
                    w->radix, p);
    }
    if (!port_free(w, (unsigned)p)) {
        return fail(err, len, "switch %u port %ld is cabled twice", s, p);
    }
    w->used++;
    return (int)p;
}

static int add_node(struct sw_topo *t, unsigned n, unsigned s, long p,
                    unsigned radix, char *err, size_t len)
{
    if (n >= t->nnodes) {
        return fail(err, len, "board %u placed, but the cluster has %u (0..%u)", n,
                    t->nnodes, t->nnodes - 1);
    }
    if (t->node_sw[n] != UINT16_MAX) {
        return fail(err, len, "board %u placed twice", n);
    }
    int q = take_port(t, s, p, radix, err, len);
    if (q < 0) {
        return -1;
    }
    t->sw[s].port[q].node = (int32_t)n;
    t->node_sw[n] = (uint16_t)s;
    t->node_port[n] = (uint8_t)q;
    return 0;
}

static int add_link(struct sw_topo *t, unsigned a, long pa, unsigned b, long pb,
                    unsigned radix, char *err, size_t len)
{
    if (a == b) {
        return fail(err, len, "link from switch %u to itself", a);
    }
    int qa = take_port(t, a, pa, radix, err, len);
    int qb = qa < 0 ? -1 : take_port(t, b, pb, radix, err, len);
    if (qb < 0) {
        return -1;
    }
    t->sw[a].port[qa].peer = (int32_t)b;
    t->sw[a].port[qa].peer_port = (uint32_t)qb;
    t->sw[b].port[qb].peer = (int32_t)a;
    t->sw[b].port[qb].peer_port = (uint32_t)qa;
    return 0;
}

/* k-ary n-tree (Petrini and Vanneschi) of 2k-port switches: levels 0
 * (leaves, boards on their down ports 0..k-1) to n-1; switch <l, w> (w: n-1
 * digits base k) has up port k + j to <l+1, w with digit l = j>, which
 * sees it on its down port w_l. Full bisection; the top level's up ports
 * stay free. Boards fill the leaves in order. */
static int gen_fat_tree(struct sw_topo *t, unsigned radix, char *err, size_t len)
{
    unsigned k = radix / 2, n = 1, per_level = 1;

    if (t->nnodes <= radix) {      /* one switch holds them all */
        for (unsigned i = 0; i < t->nnodes; i++) {
            if (add_node(t, i, 0, i, radix, err, len)) {
                return -1;
            }
        }
        return 0;
    }
    if (k < 2) {
        return fail(err, len, "a fat-tree needs switches of 4 ports or more");
    }
    for (unsigned cap = k; cap < t->nnodes; cap *= k) {
        n++;
    }
    for (unsigned i = 1; i < n; i++) {
        per_level *= k;
    }
    if (n * per_level > SW_MAX_SWITCHES) {
        return fail(err, len, "fat-tree of %u levels: too many switches", n);
    }
    for (unsigned s = 0; s < n * per_level; s++) {
        if (need_switch(t, s, radix, err, len)) {
            return -1;
        }
    }
    for (unsigned b = 0; b < t->nnodes; b++) {
        if (add_node(t, b, b / k, b % k, radix, err, len)) {
            return -1;
        }
    }
    for (unsigned l = 0; l + 1 < n; l++) {
        unsigned place = 1;
        for (unsigned i = 0; i < l; i++) {
            place *= k;
        }
        for (unsigned w = 0; w < per_level; w++) {
            unsigned digit = w / place % k;
            for (unsigned j = 0; j < k; j++) {
                unsigned up = w - digit * place + j * place;
                if (add_link(t, l * per_level + w, k + j, (l + 1) * per_level + up,
                             digit, radix, err, len)) {
                    return -1;
                }
            }
        }
    }
    return 0;
}

/* W x H grid of switches, boards spread evenly (switch y*W + x), links to
 * the four neighbours; a torus wraps (only where that makes a new
 * neighbour: a ring of 2 has one cable). */
static int gen_grid(struct sw_topo *t, const char *dims, int torus, unsigned radix,
                    char *err, size_t len)
{
    char *end;
    unsigned long w = strtoul(dims, &end, 10), h = 0;

    if (*end == 'x') {
        h = strtoul(end + 1, &end, 10);
    }
    if (*end || w < 1 || h < 1 || w * h > SW_MAX_SWITCHES) {
        return fail(err, len, "mesh and torus take WxH, e.g. mesh:4x2");
    }
    unsigned per = (t->nnodes + (unsigned)(w * h) - 1) / (unsigned)(w * h);
    for (unsigned s = 0; s < w * h; s++) {
        if (need_switch(t, s, radix, err, len)) {
            return -1;
        }
    }
    for (unsigned b = 0; b < t->nnodes; b++) {
        if (add_node(t, b, b / per, -1, radix, err, len)) {
            return -1;
        }
    }
    for (unsigned y = 0; y < h; y++) {
        for (unsigned x = 0; x < w; x++) {
            unsigned s = y * (unsigned)w + x;
            int right = x + 1 < w || (torus && w > 2);
            int below = y + 1 < h || (torus && h > 2);
            if (right && add_link(t, s, -1, y * (unsigned)w + (x + 1) % (unsigned)w, -1,
                                  radix, err, len)) {
                return -1;
            }
            if (below && add_link(t, s, -1, (y + 1) % (unsigned)h * (unsigned)w + x, -1,
                                  radix, err, len)) {
                return -1;
            }
        }
    }
    return 0;
}

/* "S" or "S:P" */
static int parse_sp(const char *tok, unsigned *s, long *p)
{
    char *end;

    *s = (unsigned)strtoul(tok, &end, 10);
    *p = -1;
    if (end == tok || !isdigit((unsigned char)tok[0])) {
        return -1;
    }
    if (*end == ':') {
        const char *q = end + 1;
        *p = strtol(q, &end, 10);
        if (end == q || *p < 0) {
            return -1;
        }
    }
    return *end ? -1 : 0;
}

static int parse_line(struct sw_topo *t, char *line, unsigned radix, char *err,
                      size_t len)
{
    char *tok[8];
    unsigned n = 0;
    unsigned s;
    long p;

    for (char *save, *w = strtok_r(line, " \t\r\n", &save); w && n < 8;
         w = strtok_r(NULL, " \t\r\n", &save)) {
        tok[n++] = w;
    }
    if (n == 0) {
        return 0;
    }
    if (!strcmp(tok[0], "switch") && (n == 2 || (n == 4 && !strcmp(tok[2], "radix")))) {
        char *end;
        s = (unsigned)strtoul(tok[1], &end, 10);
        unsigned r = n == 4 ? (unsigned)strtoul(tok[3], NULL, 10) : radix;
        if (*end || (s < t->nswitches && t->sw[s].radix && n == 2)) {
            return fail(err, len, "bad switch line");
        }
        return need_switch(t, s, r ? r : 1, err, len);
    }
    if (!strcmp(tok[0], "node") && (n == 4 || n == 6) && !strcmp(tok[2], "switch") &&
        (n == 4 || !strcmp(tok[4], "port"))) {
        char *end, *end2 = "";
        long q;
        unsigned lo = (unsigned)strtoul(tok[1], &end, 10), hi = lo;
        if (*end == '-') {
            hi = (unsigned)strtoul(end + 1, &end, 10);
        }
        p = n == 6 ? strtol(tok[5], &end2, 10) : -1;
        if (*end || *end2 || hi < lo || !isdigit((unsigned char)tok[1][0]) ||
            parse_sp(tok[3], &s, &q) || q >= 0 || (n == 6 && p < 0)) {
            return fail(err, len, "bad node line (node N[-M] switch S [port P])");
        }
        for (unsigned b = lo; b <= hi; b++) {
            if (add_node(t, b, s, p < 0 ? -1 : p + (long)(b - lo), radix, err, len)) {
                return -1;
            }
        }
        return 0;
    }
    if (!strcmp(tok[0], "link") && n == 3) {
        unsigned s2;
        long p2;
        if (parse_sp(tok[1], &s, &p) || parse_sp(tok[2], &s2, &p2)) {
            return fail(err, len, "bad link line (link S[:P] T[:Q])");
        }
        return add_link(t, s, p, s2, p2, radix, err, len);
    }
    return fail(err, len, "unknown statement '%s' (switch, node, link)", tok[0]);
}

static int load_file(struct sw_topo *t, const char *path, unsigned radix, char *err,
                     size_t len)
{
    FILE *f = fopen(path, "r");
    char line[512];
    unsigned no = 0;

    if (!f) {
        return fail(err, len, "cannot read topology file %s", path);
    }
    while (fgets(line, sizeof(line), f)) {
        char *hash = strchr(line, '#');
        char msg[200];
        no++;
        if (hash) {
            *hash = 0;
        }
        if (parse_line(t, line, radix, msg, sizeof(msg))) {
            fclose(f);
            return fail(err, len, "%s:%u: %s", path, no, msg);
        }
    }
    fclose(f);
    return 0;
}

int topo_build(struct sw_topo *t, const char *spec, unsigned nodes, unsigned radix,
               char *err, size_t errlen)
{
    int rc;

    if (nodes < 1 || nodes > SW_MAX_NODES) {
        return fail(err, errlen, "1 to %u boards", SW_MAX_NODES);
    }
    if (radix < 2 || radix > SW_MAX_RADIX) {
        return fail(err, errlen, "--switch-radix takes 2..%u", SW_MAX_RADIX);
    }
    topo_init(t, nodes);
    if (!spec || !strcmp(spec, "single")) {
        /* Today's switch: one, port i = board i, as many ports as boards. */
        if (nodes > SW_MAX_RADIX) {
            return fail(err, errlen, "a single switch has at most %u ports", SW_MAX_RADIX);
        }
        rc = need_switch(t, 0, nodes < 2 ? 2 : nodes, err, errlen);
        for (unsigned i = 0; i < nodes && !rc; i++) {
            rc = add_node(t, i, 0, i, radix, err, errlen);
        }
        snprintf(t->desc, sizeof(t->desc), "single");
    } else if (!strcmp(spec, "fat-tree")) {
        rc = gen_fat_tree(t, radix, err, errlen);
        snprintf(t->desc, sizeof(t->desc), "fat-tree radix=%u", radix);
    } else if (!strncmp(spec, "mesh:", 5) || !strncmp(spec, "torus:", 6)) {
        int torus = spec[0] == 't';
        rc = gen_grid(t, spec + (torus ? 6 : 5), torus, radix, err, errlen);
        snprintf(t->desc, sizeof(t->desc), "%s radix=%u", spec, radix);
    } else {
        rc = load_file(t, spec, radix, err, errlen);
        const char *base = strrchr(spec, '/');
        snprintf(t->desc, sizeof(t->desc), "file=%.80s", base ? base + 1 : spec);
    }
    if (rc) {
        return -1;
    }
    for (unsigned n = 0; n < nodes; n++) {
        if (t->node_sw[n] == UINT16_MAX) {
            return fail(err, errlen, "board %u is on no switch", n);
        }
    }
    return 0;
}

/*
 * Up*-down* (Autonet): the switches farthest from any board are the roots
 * (in a fat-tree, its top level; where every switch has boards, switch 0);
 * a switch's depth is its distance from the roots, and a link goes "up"
 * toward the smaller (depth, id). A route is some up links, then some down
 * links, never up after down: every cycle of links must go up somewhere
 * after going down, so no cycle of channel dependencies can form, whatever
 * the topology (deadlock-free on wormhole switches; this model's outputs
 * never block, but its routes are the ones real RHiNET-2/SW tables would
 * hold). Among routes of the shortest legal length, the port is picked by
 * the destination board's digit for the switch's height (board / n^height
 * mod n of n choices), spreading a fat-tree's load over all its top
 * switches as D-mod-k routing does.
 */
static long key_of(const struct sw_topo *t, unsigned s)
{
    return (long)t->sw[s].depth * SW_MAX_SWITCHES + (long)s;
}

int topo_is_down(const struct sw_topo *t, unsigned a, unsigned b)
{
    return key_of(t, b) > key_of(t, a);
}

static void bfs(const struct sw_topo *t, const int *from, int *dist, unsigned *queue)
{
    unsigned head = 0, tail = 0;

    for (unsigned s = 0; s < t->nswitches; s++) {
        dist[s] = from[s] ? 0 : -1;
        if (from[s]) {
            queue[tail++] = s;
        }
    }
    while (head < tail) {
        unsigned s = queue[head++];
        for (unsigned p = 0; p < t->sw[s].radix; p++) {
            int v = t->sw[s].port[p].peer;
            if (v >= 0 && dist[v] < 0) {
                dist[v] = dist[s] + 1;
                queue[tail++] = (unsigned)v;
            }
        }
    }
}

static const struct sw_topo *cmp_topo;   /* qsort has no context */

static int by_key(const void *a, const void *b)
{
    long x = key_of(cmp_topo, *(const unsigned *)a), y = key_of(cmp_topo, *(const unsigned *)b);
    return x < y ? -1 : x > y;
}

static int cmp64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

int topo_route(struct sw_topo *t, char *err, size_t errlen)
{
    unsigned ns = t->nswitches;
    int *mark = calloc(ns, sizeof(int)), *dist = calloc(ns, sizeof(int));
    int *dd = calloc(ns, sizeof(int)), *da = calloc(ns, sizeof(int));
    unsigned *queue = calloc(ns, sizeof(unsigned)), *order = calloc(ns, sizeof(unsigned));
    int rc = -1, far = 0;

    if (!mark || !dist || !dd || !da || !queue || !order) {
        fail(err, errlen, "out of memory");
        goto out;
    }
    /* Leaves: the switches with boards, in switch order. */
    t->leaf_sw = calloc(ns, sizeof(uint16_t));
    t->nleaves = 0;
    for (unsigned s = 0; s < ns; s++) {
        t->sw[s].leaf = -1;
        for (unsigned p = 0; p < t->sw[s].radix; p++) {
            if (t->sw[s].port[p].node >= 0 && t->sw[s].leaf < 0) {
                t->sw[s].leaf = (int)t->nleaves;
                t->leaf_sw[t->nleaves++] = (uint16_t)s;
            }
        }
        mark[s] = t->sw[s].leaf >= 0;
    }
    /* Roots: farthest from the boards (only among switches that reach one). */
    bfs(t, mark, dist, queue);
    for (unsigned s = 0; s < ns; s++) {
        far = dist[s] > far ? dist[s] : far;
        t->sw[s].height = dist[s];
    }
    for (unsigned s = 0; s < ns; s++) {
        mark[s] = far > 0 ? dist[s] == far : s == t->leaf_sw[0];
    }
    bfs(t, mark, dist, queue);
    for (unsigned s = 0; s < ns; s++) {
        t->sw[s].depth = dist[s];
        order[s] = s;
    }
    for (unsigned l = 0; l < t->nleaves; l++) {
        if (t->sw[t->leaf_sw[l]].depth < 0) {
            fail(err, errlen, "switch %u (with boards) is cut off from switch %u",
                 t->leaf_sw[l], t->leaf_sw[0]);
            goto out;
        }
    }
    cmp_topo = t;
    qsort(order, ns, sizeof(*order), by_key);
    t->route = calloc((size_t)ns * t->nleaves * 2, sizeof(uint64_t));
    if (!t->route) {
        fail(err, errlen, "out of memory");
        goto out;
    }
    for (unsigned l = 0; l < t->nleaves; l++) {
        unsigned d = t->leaf_sw[l];
        /* dd: shortest down-only path to d; walk down links backwards (from
         * d up to the switch above), nearest first. */
        unsigned head = 0, tail = 0;
        for (unsigned s = 0; s < ns; s++) {
            dd[s] = -1;
        }
        dd[d] = 0;
        queue[tail++] = d;
        while (head < tail) {
            unsigned s = queue[head++];
            for (unsigned p = 0; p < t->sw[s].radix; p++) {
                int v = t->sw[s].port[p].peer;
                if (v >= 0 && dd[v] < 0 && t->sw[v].depth >= 0 &&
                    topo_is_down(t, (unsigned)v, s)) {
                    dd[v] = dd[s] + 1;
                    queue[tail++] = (unsigned)v;
                }
            }
        }
        /* da: shortest up*down* path; up neighbours come first in order. */
        for (unsigned i = 0; i < ns; i++) {
            unsigned s = order[i];
            int best = dd[s];
            da[s] = -1;
            if (t->sw[s].depth < 0) {
                continue;
            }
            for (unsigned p = 0; p < t->sw[s].radix; p++) {
                int v = t->sw[s].port[p].peer;
                if (v >= 0 && !topo_is_down(t, s, (unsigned)v) && da[v] >= 0 &&
                    (best < 0 || da[v] + 1 < best)) {
                    best = da[v] + 1;
                }
            }
            da[s] = best;
        }
        for (unsigned s = 0; s < ns; s++) {
            uint64_t down = 0, any = 0;
            if (s == d || t->sw[s].depth < 0) {
                continue;
            }
            for (unsigned p = 0; p < t->sw[s].radix; p++) {
                int v = t->sw[s].port[p].peer;
                if (v < 0 || t->sw[v].depth < 0) {
                    continue;
                }
                if (topo_is_down(t, s, (unsigned)v) && dd[s] > 0 && dd[v] == dd[s] - 1) {
                    down |= 1ull << p;
                }
                if (!topo_is_down(t, s, (unsigned)v) && da[v] >= 0 && da[v] + 1 == da[s] &&
                    (dd[s] < 0 || dd[s] > da[s])) {
                    any |= 1ull << p;
                }
            }
            /* Going down where that is as short: it commits the route. */
            if (dd[s] >= 0 && dd[s] == da[s]) {
                any = down;
            }
            if (da[s] < 0) {
                fail(err, errlen, "switch %u cannot reach switch %u by an up*-down* route",
                     s, d);
                goto out;
            }
            t->route[((size_t)s * t->nleaves + l) * 2 + 0] = any;
            t->route[((size_t)s * t->nleaves + l) * 2 + 1] = down;
        }
    }
    rc = 0;
out:
    free(mark);
    free(dist);
    free(dd);
    free(da);
    free(queue);
    free(order);
    return rc;
}

int topo_next(const struct sw_topo *t, unsigned s, unsigned node, int down)
{
    unsigned d = t->node_sw[node];

    if (s == d) {
        return t->node_port[node];
    }
    uint64_t m = t->route[((size_t)s * t->nleaves + (unsigned)t->sw[d].leaf) * 2 + !!down];
    unsigned n = (unsigned)__builtin_popcountll(m), digit = node;
    if (!n) {
        return -1;
    }
    /* D-mod-k: the destination's digit for this switch's height, so that
     * each level of a fat-tree spreads over all of its up links. */
    for (int h = t->sw[s].height; h > 0; h--) {
        digit /= n;
    }
    for (unsigned pick = digit % n; pick > 0; pick--) {
        m &= m - 1;
    }
    return __builtin_ctzll(m);
}

/* Follow a route from board @a to board @b; the switches' link ports it
 * takes go to @links (switch * SW_MAX_RADIX + port). Returns switches
 * crossed, or -1 if it breaks a rule. */
static int walk(const struct sw_topo *t, unsigned a, unsigned b, uint32_t *links)
{
    unsigned s = t->node_sw[a];
    int down = 0, hops = 1, n = 0;

    for (;;) {
        int p = topo_next(t, s, b, down);
        if (p < 0) {
            return -1;
        }
        if (t->sw[s].port[p].node >= 0) {
            return t->sw[s].port[p].node == (int)b ? hops : -1;
        }
        unsigned v = (unsigned)t->sw[s].port[p].peer;
        int goes_down = topo_is_down(t, s, v);
        if (down && !goes_down) {
            return -1;              /* up after down */
        }
        links[n++] = s * SW_MAX_RADIX + (unsigned)p;
        down = goes_down;
        s = v;
        if (++hops > SW_MAX_HOPS) {
            return -1;              /* a loop */
        }
    }
}

int topo_check(const struct sw_topo *t, FILE *out, int all)
{
    size_t nch = (size_t)t->nswitches * SW_MAX_RADIX;
    /* Channel dependency graph as adjacency bit rows would be large; keep
     * the edges (channel -> next channel) as a sorted, deduplicated list. */
    size_t cap = 1024, nedge = 0;
    uint64_t *edge = malloc(cap * sizeof(*edge));
    uint64_t hist[SW_MAX_HOPS + 1] = { 0 }, pairs = 0, sum = 0;
    int bad = 0, maxh = 0;
    uint32_t links[SW_MAX_HOPS];

    for (unsigned a = 0; a < t->nnodes && edge; a++) {
        for (unsigned b = 0; b < t->nnodes; b++) {
            if (a == b) {
                continue;
            }
            int h = walk(t, a, b, links);
            if (h < 0) {
                fprintf(out, "route %u -> %u: broken (loop, up after down, or lost)\n", a, b);
                bad = 1;
                continue;
            }
            if (all) {
                fprintf(out, "route %u -> %u hops=%d\n", a, b, h);
            }
            hist[h]++;
            pairs++;
            sum += (uint64_t)h;
            maxh = h > maxh ? h : maxh;
            for (int i = 0; i + 2 < h; i++) {   /* h switches: h - 1 links */
                if (nedge == cap) {
                    uint64_t *n2 = realloc(edge, 2 * cap * sizeof(*edge));
                    if (!n2) {
                        free(edge);
                        return -1;
                    }
                    edge = n2;
                    cap *= 2;
                }
                edge[nedge++] = (uint64_t)links[i] << 32 | links[i + 1];
            }
        }
    }
    if (!edge) {
        return -1;
    }
    /* Acyclic? Kahn's algorithm over the channels. */
    int *indeg = calloc(nch, sizeof(int));
    size_t *first = calloc(nch + 1, sizeof(size_t));
    uint32_t *stack = malloc((nch ? nch : 1) * sizeof(uint32_t));
    size_t done = 0, live = 0, sp = 0;
    int cyclic = 0;
    if (!indeg || !first || !stack) {
        free(edge);
        free(indeg);
        free(first);
        free(stack);
        return -1;
    }
    qsort(edge, nedge, sizeof(*edge), cmp64);
    size_t k = 0;
    for (size_t i = 0; i < nedge; i++) {
        if (i == 0 || edge[i] != edge[i - 1]) {
            edge[k++] = edge[i];
        }
    }
    nedge = k;
    for (size_t i = 0; i < nedge; i++) {
        indeg[(uint32_t)edge[i]]++;
        first[(edge[i] >> 32) + 1]++;
    }
    for (size_t c = 0; c < nch; c++) {
        first[c + 1] += first[c];
    }
    for (size_t c = 0; c < nch; c++) {
        unsigned s = (unsigned)(c / SW_MAX_RADIX), p = (unsigned)(c % SW_MAX_RADIX);
        if (p < t->sw[s].radix && t->sw[s].port[p].peer >= 0) {
            live++;
            if (!indeg[c]) {
                stack[sp++] = (uint32_t)c;
            }
        }
    }
    while (sp) {
        uint32_t c = stack[--sp];
        done++;
        for (size_t i = first[c]; i < first[c + 1]; i++) {
            if (--indeg[(uint32_t)edge[i]] == 0) {
                stack[sp++] = (uint32_t)edge[i];
            }
        }
    }
    cyclic = done != live;
    fprintf(out, "routes topology=%s switches=%u links=%zu boards=%u pairs=%llu "
            "max_hops=%d avg_hops=%.3f cdg=%s%s\n", t->desc, t->nswitches, live / 2,
            t->nnodes, (unsigned long long)pairs, maxh,
            pairs ? (double)sum / (double)pairs : 0.0, cyclic ? "cyclic" : "acyclic",
            bad ? " broken" : "");
    fprintf(out, "hops");
    for (int h = 1; h <= maxh; h++) {
        fprintf(out, " %d=%llu", h, (unsigned long long)hist[h]);
    }
    fprintf(out, "\n");
    free(edge);
    free(indeg);
    free(first);
    free(stack);
    return bad || cyclic ? -1 : 0;
}

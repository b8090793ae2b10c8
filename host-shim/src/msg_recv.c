/*
 * Message receiver: notices from the firmware's queue become arrivals,
 * matched against posted receives in posting order (MPI's rule), else kept
 * in the stash in arrival order. System-buffer space goes back to the
 * firmware (the slot's freed count) only in ring order, once every entry
 * before it was consumed too; early arrivals are copied out of the ring to
 * the heap (up to stash_bytes) so that a receive waiting for a later tag
 * cannot starve the ring.
 */
#include <stdlib.h>
#include <string.h>
#include "msg.h"
#include "dimmnet1/memmap.h"

#define NO_ALLOC UINT64_MAX

static int matches(const struct dn_msg_req *r, unsigned src, uint32_t tag)
{
    return (r->src == DN_ANY_SOURCE || (unsigned)r->src == src) &&
           (r->tag == DN_ANY_TAG || (uint32_t)r->tag == tag);
}

/* Entry @id of @src's ring is consumed; hand back what can be handed back. */
static void release(dn_node *n, unsigned src, uint64_t id)
{
    struct msg_sender *s = &n->msg->senders[src];
    size_t i;

    if (id == NO_ALLOC || id < s->allocs_head || id >= s->allocs_head + s->nallocs) {
        return;
    }
    i = (size_t)(id - s->allocs_head);
    s->allocs[i].released = 1;
    if (i != 0) {
        return;                 /* an older entry is still in use */
    }
    size_t k = 0;
    while (k < s->nallocs && s->allocs[k].released) {
        s->freed += s->allocs[k].span;
        k++;
    }
    memmove(s->allocs, s->allocs + k, (s->nallocs - k) * sizeof(*s->allocs));
    s->nallocs -= k;
    s->allocs_head += k;
    dn_st32(n, MSG_SLOT(n, src) + offsetof(struct dn1_msg_slot, freed), s->freed);
}

static uint64_t track(dn_node *n, unsigned src, uint32_t span)
{
    struct msg_sender *s = &n->msg->senders[src];

    if (s->nallocs == s->allocs_cap) {
        size_t cap = s->allocs_cap ? 2 * s->allocs_cap : 64;
        struct msg_alloc *a = realloc(s->allocs, cap * sizeof(*a));
        if (!a) {
            return NO_ALLOC;    /* never freed: the ring shrinks, nothing is lost */
        }
        s->allocs = a;
        s->allocs_cap = cap;
    }
    s->allocs[s->nallocs++] = (struct msg_alloc){ .span = span };
    return s->allocs_head + s->nallocs - 1;
}

static void complete(dn_node *n, struct dn_msg_req *r, unsigned src, uint32_t tag,
                     const uint8_t *data, uint32_t len)
{
    size_t k = len < r->cap ? len : r->cap;

    if (k && r->rbuf != data) {
        dn_copy(n, r->rbuf, data, k);   /* equal: it landed in place */
    }
    r->st.src = msg_addr(n, src);       /* its address, as the caller names it */
    r->st.tag = tag;
    r->st.len = len;
    r->st.error = len > r->cap ? DN_ETRUNC : DN_OK;
    r->done = 1;
    n->msg->stats.received++;
}

/* Copy arrival @a out of its ring entry into the heap (the entry is then
 * the caller's to release); -1 without memory. */
static int to_heap(dn_node *n, struct msg_arrival *a)
{
    if (!(a->heap = malloc(a->len ? a->len : 1))) {
        return -1;
    }
    dn_copy(n, a->heap, a->data, a->len);
    a->data = a->heap;
    n->msg->stash_heap_bytes += a->len;
    a->alloc_id = NO_ALLOC;
    return 0;
}

static void arrive(dn_node *n, unsigned src, uint32_t tag, const uint8_t *data,
                   uint32_t len, uint64_t alloc)
{
    struct dn_msg_state *m = n->msg;
    struct dn_msg_req **pp = &m->posted, *prev = NULL;

    for (struct dn_msg_req *r = m->posted; r; prev = r, r = r->next) {
        if (matches(r, src, tag)) {
            *pp = r->next;
            if (m->posted_tail == r) {
                m->posted_tail = prev;
            }
            complete(n, r, src, tag, data, len);
            release(n, src, alloc);
            return;
        }
        pp = &r->next;
    }
    struct msg_arrival *a = calloc(1, sizeof(*a));
    if (!a) {
        abort();                /* a notice must not be dropped */
    }
    *a = (struct msg_arrival){ .src = src, .tag = tag, .len = len, .data = data,
                               .alloc_id = alloc };
    if (alloc != NO_ALLOC && m->stash_heap_bytes + len <= m->cfg.stash_bytes &&
        to_heap(n, a) == 0) {
        release(n, src, alloc);
    }
    if (m->stash_tail) {
        m->stash_tail->next = a;
    } else {
        m->stash = a;
    }
    m->stash_tail = a;
    m->stats.stashed++;
}

int dn_msg_recv_post(dn_node *n, struct dn_msg_req *r)
{
    struct dn_msg_state *m = n->msg;
    struct msg_arrival *prev = NULL;

    for (struct msg_arrival *a = m->stash; a; prev = a, a = a->next) {
        if (!matches(r, a->src, a->tag)) {
            continue;
        }
        if (prev) {
            prev->next = a->next;
        } else {
            m->stash = a->next;
        }
        if (m->stash_tail == a) {
            m->stash_tail = prev;
        }
        complete(n, r, a->src, a->tag, a->data, a->len);
        release(n, a->src, a->alloc_id);
        if (a->heap) {
            m->stash_heap_bytes -= a->len;
            free(a->heap);
        }
        free(a);
        return DN_OK;
    }
    r->next = NULL;
    if (m->posted_tail) {
        m->posted_tail->next = r;
    } else {
        m->posted = r;
    }
    m->posted_tail = r;
    return DN_OK;
}

int dn_msg_recv_withdraw(dn_node *n, struct dn_msg_req *r)
{
    struct dn_msg_state *m = n->msg;
    struct dn_msg_req *prev = NULL;

    for (struct dn_msg_req *q = m->posted; q; prev = q, q = q->next) {
        if (q != r) {
            continue;
        }
        if (prev) {
            prev->next = q->next;
        } else {
            m->posted = q->next;
        }
        if (m->posted_tail == q) {
            m->posted_tail = prev;
        }
        free(q);
        return 1;
    }
    return 0;
}

/*
 * The firmware started cold under us (a RESTART notice; docs/hardware.md
 * section 10, "Restarts"): it forgot where each sender's ring stands, and
 * refuses them until we set up again. What waits in the rings (arrivals
 * no receive took, beyond the stash's heap budget) moves to the heap
 * first, so that nothing a notice announced is lost or overwritten; then
 * every ring starts empty under a new setup. A half-received message was
 * dropped with the firmware's state: its sender sends it again whole (it
 * is answered INCARNATION). A posted user buffer the firmware had not
 * taken is forgotten too (dn_msg_post_buffer may post again).
 */
static void cold_start(dn_node *n)
{
    struct dn_msg_state *m = n->msg;

    for (struct msg_arrival *a = m->stash; a; a = a->next) {
        if (a->alloc_id != NO_ALLOC && to_heap(n, a) != 0) {
            abort();            /* a notice must not be dropped */
        }
    }
    for (unsigned src = 0; src < m->cfg.senders; src++) {
        struct msg_sender *s = &m->senders[src];

        s->allocs_head += s->nallocs;      /* ids handed out before: gone */
        s->nallocs = 0;
        s->freed = 0;
        s->expect_no = 0;
    }
    dn_msg_setup_senders(n);
    m->stats.cold_starts++;
}

/* Take the notices the firmware posted since last time. */
void dn_msg_recv_progress(dn_node *n)
{
    struct dn_msg_state *m = n->msg;
    uint32_t ctrl = MSG_CTRL(n);
    uint32_t produced = dn_ld32(n, ctrl + offsetof(struct dn1_msg_ctrl, nq_produced));

    if (produced == m->nq_consumed) {
        return;
    }
    while (m->nq_consumed != produced) {
        const uint8_t *e = n->llcm + m->cfg.nq_off +
            (m->nq_consumed & (m->cfg.nq_entries - 1)) * sizeof(struct dn1_msg_notice);
        struct dn1_msg_notice no;

        dn_nic_read(n, &no, e, sizeof(no));   /* little-endian host, as the NIC wrote */
        m->nq_consumed++;
        if (no.src == DN1_NOTICE_NO_SENDER && (no.flags & DN1_NOTICE_RESTART)) {
            cold_start(n);
            continue;
        }
        /* The notice names the sender's address; its slot is its number. */
        unsigned from = (unsigned)msg_sender_no(n, no.src);
        if (from >= m->cfg.senders || no.addr > DN1_HOSTMEM_SIZE ||
            no.len > DN1_HOSTMEM_SIZE - no.addr ||
            no.setup_gen != m->senders[from].setup_gen) {
            m->stats.notice_errors++;   /* never expected: not ours to free */
            continue;
        }
        struct msg_sender *s = &m->senders[from];
        if (no.msg_no != s->expect_no) {
            m->stats.notice_errors++;   /* a gap or a repeat: the firmware broke */
        }
        s->expect_no = no.msg_no + 1;
        uint64_t alloc = no.flags & DN1_NOTICE_USER ? NO_ALLOC
                                                    : track(n, from, no.span);
        arrive(n, from, no.utag, n->hostmem + no.addr, no.len, alloc);
    }
    dn_st32(n, ctrl + offsetof(struct dn1_msg_ctrl, nq_consumed), m->nq_consumed);
}

int dn_msg_post_buffer(dn_node *n, unsigned src_addr, uint32_t off, uint32_t len)
{
    struct dn_msg_state *m;
    unsigned src = n ? (unsigned)msg_sender_no(n, src_addr) : 0;

    if (!n || !(m = n->msg) || src >= m->cfg.senders) {
        return DN_EINVAL;
    }
    if (off > DN1_HOSTMEM_SIZE || len > DN1_HOSTMEM_SIZE - off) {
        return DN_ERANGE;
    }
    struct msg_sender *s = &m->senders[src];
    uint32_t slot = MSG_SLOT(n, src);
    uint16_t taken = (uint16_t)dn_ld32(n, slot + offsetof(struct dn1_msg_slot, post_taken));

    if (taken != s->post_gen) {
        return DN_EBUSY;        /* the last post waits for its message */
    }
    dn_st32(n, slot + offsetof(struct dn1_msg_slot, post_off), off);
    dn_st32(n, slot + offsetof(struct dn1_msg_slot, post_len), len);
    s->post_gen++;
    dn_st32(n, slot + offsetof(struct dn1_msg_slot, setup_gen),
            (uint32_t)s->post_gen << 16 | s->setup_gen);
    return DN_OK;
}

void dn_msg_recv_free(dn_node *n)
{
    struct dn_msg_state *m = n->msg;

    for (struct msg_arrival *a = m->stash, *next; a; a = next) {
        next = a->next;
        free(a->heap);
        free(a);
    }
    for (struct dn_msg_req *r = m->posted, *next; r; r = next) {
        next = r->next;
        free(r);
    }
    for (unsigned s = 0; s < DN1_MSG_SENDERS; s++) {
        free(m->senders[s].allocs);
    }
}

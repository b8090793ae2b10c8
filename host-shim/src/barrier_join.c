/*
 * A barrier object's incarnation (docs/barriers.md, "Across jobs"): the
 * epochs every member of one dn_barrier object uses, agreed on with its
 * root when the object is made, newer than anything an earlier object with
 * this id used on these boards (an earlier object of this process, or of a
 * process long dead: a killed job, a program before this one).
 *
 * The root keeps, in its own LLCM (its barrier block's BAR_JOIN_STATE,
 * which outlives processes), the last incarnation it gave out; a new object
 * takes the next one (12 bits, 1..4095, serial) and its epochs start at
 * incarnation << BAR_EPOCH_SHIFT. Every other member asks for it at its
 * first dn_barrier_wait: a join word (a nonce it keeps in its own LLCM,
 * and which of its objects with this id this is, both taken at
 * dn_barrier_create) goes in a 4-byte AOTF store into the value half of
 * its arrival word at the root; the root answers from its polling loop
 * with {the join word, the incarnation} into the member's BAR_JOIN_ANSWER
 * word, which the member waits for before the call's own barrier. An answer that does not echo the member's own join word
 * (a dead process's, or one to a dead root's question) is not taken. A
 * word counts only with an epoch of the new incarnation's window
 * (bar_epoch_reached), so nothing an old job left in LLCM or in the
 * network ever reaches a new epoch, and no word the NIC writes is written
 * by the host. The root answers until its first barrier of
 * the object completes: no member can enter it before its answer came.
 */
#include "barrier.h"

#define INC_MASK     0xfffu          /* 12 bits of incarnation */
#define JOIN_MARK    0x80000000u     /* a join word (an arrival's value half is 0) */
#define JOIN_OBJECT  0xffffu         /* which object of its process, low 16 bits */

static uint64_t join_state(struct dn_barrier *b)
{
    return bar_word(b, BAR_JOIN_STATE);
}

static void set_join_state(struct dn_barrier *b, uint32_t joins, uint32_t inc)
{
    __atomic_store_n((uint64_t *)(b->n->llcm + b->llcm + BAR_JOIN_STATE),
                     (uint64_t)inc << 32 | joins, __ATOMIC_RELEASE);
    dn_host_charge(b->n, DN_HOST_STORE, 1);
}

/* Take incarnation @inc: every family's epochs start at its base; a word
 * left from an older one lies outside its window (bar_epoch_reached), so
 * nothing is reset: the host writes no word the NIC writes. */
static void take(struct dn_barrier *b, uint32_t inc)
{
    uint32_t base = inc << BAR_EPOCH_SHIFT;

    b->inc = inc;
    b->fw_epoch = b->dis_epoch = b->cen_epoch = b->red_epoch = b->paper_epoch = base;
}

/* The member's join word into its arrival word's value half at the root. */
static void ask(struct dn_barrier *b)
{
    bar_store_join(b, BAR_ARRIVE + 8 * b->rank + 4, b->join);
}

int bar_join_start(struct dn_barrier *b)
{
    uint64_t st = join_state(b);
    uint32_t joins = (uint32_t)st, last = (uint32_t)(st >> 32);

    if (b->rank == b->root_rank) {
        uint32_t inc = (last + 1) & INC_MASK;
        inc = inc ? inc : 1;
        set_join_state(b, joins, inc);
        take(b, inc);
        /* The paper's root answers once its set-up is armed (first wait). */
        b->answering = !bar_is_paper(b->cfg.algorithm);
        return DN_OK;
    }
    joins++;
    set_join_state(b, joins, last);
    b->join = JOIN_MARK | (joins & 0x7fffu) << 16 |
              (b->n->barrier_created[b->cfg.id] & JOIN_OBJECT);
    return DN_OK;   /* asked at the first wait */
}

static int answered(struct dn_barrier *b, void *arg)
{
    (void)arg;
    return (uint32_t)bar_word(b, BAR_JOIN_ANSWER) == b->join;
}

int bar_join_wait(struct dn_barrier *b)
{
    if (b->join == 0) {
        return DN_OK;
    }
    /* Asked here, not at create, which makes no host-bus request: under
     * --deterministic a store at create, before the programs' rendezvous,
     * left that host's later CLOCK answers reading 0 (negative barrier
     * times and a resend a barrier, dimmnet-soak --barriers, host). */
    ask(b);
    int rc = bar_wait(b, answered, NULL);
    if (rc != DN_OK) {
        return rc;
    }
    uint32_t inc = (uint32_t)(bar_word(b, BAR_JOIN_ANSWER) >> 32);
    set_join_state(b, (uint32_t)join_state(b), inc);
    take(b, inc);
    b->join = 0;
    return DN_OK;
}

static void answer(struct dn_barrier *b, unsigned r)
{
    bar_store_word(b, b->cfg.members[r], BAR_JOIN_ANSWER, b->answered[r], b->inc);
}

void bar_join_poll(struct dn_barrier *b)
{
    for (unsigned r = 0; r < b->cfg.nmembers; r++) {
        if (r == b->rank) {
            continue;
        }
        uint32_t v = (uint32_t)(bar_word(b, BAR_ARRIVE + 8 * r) >> 32);
        /* A join for this object (of a process of this job, or a dead
         * one's: answered too, and not taken), not answered yet. */
        if ((v & JOIN_MARK) && (v & JOIN_OBJECT) ==
            (b->n->barrier_created[b->cfg.id] & JOIN_OBJECT) && v != b->answered[r]) {
            b->answered[r] = v;
            answer(b, r);
        }
    }
}

void bar_join_resend(struct dn_barrier *b)
{
    if (b->join) {
        /* Still no answer: ask again; with the firmware barriers probe too
         * (an arrival of epoch 0, which no incarnation counts): the root's
         * firmware refuses it BARRIER_MEMBER if this node is no member of
         * its group, which fails the call (dn_barrier_on_record: the tag's
         * epoch is fw_epoch, 0 until the answer), as an arrival would; a
         * member's is refused BARRIER_EPOCH (or SETUP), noted and nothing
         * more. Not at create: a root still on its way has an older
         * set-up in force, perhaps of other members. */
        ask(b);
        if (b->cfg.algorithm == DN_BARRIER_AUTO || b->cfg.algorithm == DN_BARRIER_FIRMWARE ||
            b->cfg.algorithm == DN_BARRIER_FIRMWARE_MCAST) {
            bar_store_counter(b, 0);
        }
    }
    for (unsigned r = 0; b->answering && r < b->cfg.nmembers; r++) {
        if (b->answered[r]) {
            answer(b, r);
        }
    }
}

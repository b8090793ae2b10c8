/*
 * coll/dimmnet: the run-time choice between the backend and the module
 * below it (Open MPI's own algorithms), per (operation, datatype, op,
 * size class) of a communicator: no coarser than the engine's own keys
 * (operation, type, op, size class), so a key's settling calls are all
 * its engine key's. NBC-SIA (seed 001) counts "the MPI library's own
 * non-blocking collective" among its candidates; so does this component
 * for its blocking calls, with the seed's lesson applied: the candidates
 * are compared at the slowest rank, which every rank learns by one
 * max-reduction, so all keep the same.
 *
 * A key's first CHOICE_SETTLE calls go to the backend untimed (its own
 * selection among its implementations: the engine's 6 trials of at most
 * 5 candidates, and its agreement); the next CHOICE_TRIALS to the
 * backend, then CHOICE_TRIALS to the module below, each rank timing its
 * span over a candidate's trials but the first CHOICE_WARMUP (the clock
 * the backend gives: the board's modeled clock under host sync, else the
 * wall clock); then one MPI_MAX allreduce of both spans by the module
 * below, and the smaller wins (the backend on a tie). Declined calls do
 * not count: a backend declines the same calls on every rank.
 *
 * DIMMNET_COLL_CHOICE (read at MPI_Init): "auto" (default: this choice),
 * "engine" (the backend always), "ompi" (the module below always, for the
 * blocking calls: a comparison); DIMMNET_COLL_REPORT=1 prints every key's
 * figures and choice when the communicator goes.
 */
#include "ompi_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/datatype/ompi_datatype.h"
#include "coll_dimmnet.h"

#define CHOICE_SETTLE 31u
#define CHOICE_TRIALS 6u
#define CHOICE_WARMUP 2u

static const char *const class_names[COLL_DIMMNET_CLASSES] = {
    "<=8B", "<=64B", "<=1KiB", "<=16KiB", "<=256KiB", ">256KiB"
};

int coll_dimmnet_choice_mode(void)
{
    const char *s = getenv("DIMMNET_COLL_CHOICE");

    if (NULL == s || '\0' == *s || 0 == strcmp(s, "auto")) {
        return COLL_DIMMNET_CHOICE_AUTO;
    }
    if (0 == strcmp(s, "engine")) {
        return COLL_DIMMNET_CHOICE_BACKEND;
    }
    if (0 == strcmp(s, "ompi")) {
        return COLL_DIMMNET_CHOICE_BELOW;
    }
    return COLL_DIMMNET_CHOICE_AUTO - 1;    /* none of them: the caller says so */
}

size_t coll_dimmnet_bytes(int count, struct ompi_datatype_t *dtype)
{
    size_t size = 0;

    if (count <= 0 || NULL == dtype) {
        return 0;
    }
    ompi_datatype_type_size(dtype, &size);
    return (size_t) count * size;
}

static uint64_t now_ns(void)
{
    uint64_t ns = 0;

    if (NULL != coll_dimmnet_backend.clock) {
        coll_dimmnet_backend.clock(&ns);
    }
    return ns;
}

/* Both candidates' spans, maximized over the ranks by the module below;
 * then the choice. On a failed reduction the backend stays (every rank
 * sees the same failure). */
static void decide(mca_coll_dimmnet_module_t *m, struct coll_dimmnet_choice *k,
                   struct ompi_communicator_t *comm)
{
    uint64_t mine[2], all[2];

    for (int i = 0; i < 2; i++) {
        mine[i] = k->span_end[i] - k->span_start[i];
    }
    if (OMPI_SUCCESS != m->prev_allreduce(mine, all, 2, MPI_UINT64_T, MPI_MAX, comm,
                                          m->prev_allreduce_module)) {
        k->chosen = COLL_DIMMNET_CHOICE_BACKEND;
        return;
    }
    k->slowest[0] = all[0];
    k->slowest[1] = all[1];
    k->chosen = all[1] < all[0] ? COLL_DIMMNET_CHOICE_BELOW : COLL_DIMMNET_CHOICE_BACKEND;
    __atomic_fetch_add(&mca_coll_dimmnet_component.chose[k->chosen], 1, __ATOMIC_RELAXED);
}

int coll_dimmnet_choose(mca_coll_dimmnet_module_t *m, enum coll_dimmnet_op op,
                        const struct coll_dimmnet_call *call, struct ompi_communicator_t *comm,
                        struct coll_dimmnet_choice **key)
{
    int mode = mca_coll_dimmnet_component.choice;
    struct coll_dimmnet_choice *k = NULL;

    *key = NULL;
    if (COLL_DIMMNET_CHOICE_AUTO != mode) {
        return mode;
    }
    if (-1 == m->engine_state || op >= COLL_DIMMNET_CHOICE_OPS) {
        return COLL_DIMMNET_CHOICE_BACKEND;    /* nothing to choose from */
    }
    /* The engine's size classes, so that its settling and this key's
     * trials count the same calls. */
    int sclass = (int) DN_COLL_SIZE_CLASS(call->bytes);
    for (int i = 0; i < COLL_DIMMNET_CHOICE_KEYS; i++) {
        struct coll_dimmnet_choice *c = &m->choice[i];
        if (!c->used) {
            *c = (struct coll_dimmnet_choice) { .used = 1, .op = op, .sclass = sclass,
                                                .dtype = call->dtype, .mop = call->op,
                                                .chosen = -1 };
        }
        if (c->op == (int) op && c->sclass == sclass && c->dtype == call->dtype &&
            c->mop == call->op) {
            k = c;
            break;
        }
    }
    if (NULL == k) {
        return COLL_DIMMNET_CHOICE_BACKEND;    /* the table is full: the engine, untimed */
    }
    if (k->chosen >= 0) {
        return k->chosen;
    }
    if (k->calls == CHOICE_SETTLE + 2 * CHOICE_TRIALS) {
        decide(m, k, comm);
        return k->chosen;
    }
    *key = k;
    k->t0 = now_ns();
    return k->calls < CHOICE_SETTLE + CHOICE_TRIALS ? COLL_DIMMNET_CHOICE_BACKEND
                                                    : COLL_DIMMNET_CHOICE_BELOW;
}

void coll_dimmnet_chosen(struct coll_dimmnet_choice *k, int declined)
{
    if (NULL == k || declined) {
        return;
    }
    unsigned t = k->calls++;
    if (t < CHOICE_SETTLE) {
        return;
    }
    t -= CHOICE_SETTLE;
    unsigned c = t / CHOICE_TRIALS;
    if (t % CHOICE_TRIALS < CHOICE_WARMUP) {
        return;
    }
    uint64_t end = now_ns();
    if (0 == k->span_start[c]) {
        k->span_start[c] = k->t0;
    }
    k->span_end[c] = end;
}

/* A key's op for the report (MPI has no name query for an op). */
static const char *op_name(const struct ompi_op_t *op)
{
    static const struct { MPI_Op op; const char *name; } ops[] = {
        { MPI_SUM, "MPI_SUM" }, { MPI_PROD, "MPI_PROD" }, { MPI_MIN, "MPI_MIN" },
        { MPI_MAX, "MPI_MAX" }, { MPI_BAND, "MPI_BAND" }, { MPI_BOR, "MPI_BOR" },
        { MPI_BXOR, "MPI_BXOR" }, { MPI_LAND, "MPI_LAND" }, { MPI_LOR, "MPI_LOR" },
        { MPI_LXOR, "MPI_LXOR" }, { MPI_MINLOC, "MPI_MINLOC" }, { MPI_MAXLOC, "MPI_MAXLOC" },
    };

    if (NULL == op) {
        return "-";
    }
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        if ((MPI_Op) op == ops[i].op) {
            return ops[i].name;
        }
    }
    return "user";
}

void coll_dimmnet_choice_report(mca_coll_dimmnet_module_t *m)
{
    static const char *const names[] = {
#define COLL_DIMMNET_NAME(name) #name,
        COLL_DIMMNET_OPS(COLL_DIMMNET_NAME)
#undef COLL_DIMMNET_NAME
    };
    const char *rep = getenv("DIMMNET_COLL_REPORT");
    int modeled = NULL != coll_dimmnet_backend.clock && coll_dimmnet_backend.clock(NULL);

    if (NULL == rep || 0 != strcmp(rep, "1")) {
        return;
    }
    for (int i = 0; i < COLL_DIMMNET_CHOICE_KEYS; i++) {
        const struct coll_dimmnet_choice *k = &m->choice[i];
        if (!k->used || k->chosen < 0) {
            continue;
        }
        char type[MPI_MAX_OBJECT_NAME] = "-";
        int len = 0;
        if (NULL != k->dtype) {
            MPI_Type_get_name((MPI_Datatype) k->dtype, type, &len);
        }
        fprintf(stderr, "coll/dimmnet: rank %lu %s size%s chosen=%s engine=%llu ompi=%llu "
                "(%s ns, the slowest rank's span over %u calls each) type=%s op=%s\n",
                mca_coll_dimmnet_component.rank, names[k->op], class_names[k->sclass],
                COLL_DIMMNET_CHOICE_BELOW == k->chosen ? "ompi" : "engine",
                (unsigned long long) k->slowest[0], (unsigned long long) k->slowest[1],
                modeled ? "modeled" : "wall-clock", CHOICE_TRIALS - CHOICE_WARMUP,
                type, op_name(k->mop));
    }
}

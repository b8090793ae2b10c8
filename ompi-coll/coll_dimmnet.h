/*
 * coll/dimmnet: an Open MPI 4.1 coll component for DIMMnet-1, built out of
 * Open MPI's tree against Debian's libopenmpi-dev (ompi-coll/README.md).
 *
 * It interposes the way Open MPI's own coll/sync does: selected above
 * tuned, libnbc, han, ... on every intra-communicator of two ranks or
 * more, it keeps, at module_enable, the function and module that served
 * each collective it takes (retaining those modules) and calls them. The
 * place to serve an operation some other way is the backend table
 * (coll_dimmnet_backend.h), filled by coll_dimmnet_engine.c.
 */
#ifndef MCA_COLL_DIMMNET_H
#define MCA_COLL_DIMMNET_H

#include "ompi_config.h"

#include <stdbool.h>
#include <stdint.h>

#include "mpi.h"
#include "opal/class/opal_object.h"
#include "opal/mca/mca.h"
#include "ompi/constants.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/mca/coll/base/base.h"
#include "ompi/communicator/communicator.h"

#include "coll_dimmnet_backend.h"
#include "dimmnet1/dn.h"

BEGIN_C_DECLS

/*
 * The collectives coll/dimmnet takes, X(name) each: name is Open MPI's
 * (the c_coll field coll_<name>, the typedef
 * mca_coll_base_module_<name>_fn_t, the backend's pointer).
 */
#define COLL_DIMMNET_OPS(X) \
    X(barrier) X(bcast) X(reduce) X(allreduce) X(allgather) X(alltoall) \
    X(reduce_scatter_block) X(reduce_scatter) \
    X(ibarrier) X(ibcast) X(ireduce) X(iallreduce) X(iallgather) X(ialltoall) \
    X(ireduce_scatter_block)

enum coll_dimmnet_op {
#define COLL_DIMMNET_ENUM(name) COLL_DIMMNET_OP_##name,
    COLL_DIMMNET_OPS(COLL_DIMMNET_ENUM)
#undef COLL_DIMMNET_ENUM
    COLL_DIMMNET_NOPS
};

/* The run-time choice between the backend and the module below
 * (coll_dimmnet_choice.c): for the blocking operations, the first
 * COLL_DIMMNET_CHOICE_OPS of the enum, a key each (operation, datatype,
 * op, size class): no coarser than the engine's own keys, so that a key's
 * first calls let the engine's choice for them settle. */
#define COLL_DIMMNET_CHOICE_OPS COLL_DIMMNET_OP_ibarrier
#define COLL_DIMMNET_CHOICE_KEYS 64
#define COLL_DIMMNET_CLASSES ((int) DN_COLL_SIZE_CLASSES)   /* DN_COLL_SIZE_CLASS() */
enum { COLL_DIMMNET_CHOICE_AUTO = -1, COLL_DIMMNET_CHOICE_BACKEND = 0,
       COLL_DIMMNET_CHOICE_BELOW = 1 };
/* What a blocking call is keyed on: bytes (a member's), its datatype and
 * reduction op (NULL where the operation has none). */
struct coll_dimmnet_call {
    size_t bytes;
    const struct ompi_datatype_t *dtype;
    const struct ompi_op_t *op;
};
struct coll_dimmnet_choice {
    int used;
    int op, sclass;                 /* the key */
    const struct ompi_datatype_t *dtype;
    const struct ompi_op_t *mop;
    unsigned calls;                 /* calls counted (not declined) */
    int chosen;                     /* COLL_DIMMNET_CHOICE_*: -1 trying */
    uint64_t t0;                    /* this call's start */
    uint64_t span_start[2], span_end[2];   /* this rank's, backend and below */
    uint64_t slowest[2];            /* the slowest rank's spans */
};

typedef struct mca_coll_dimmnet_component_t {
    mca_coll_base_component_2_0_0_t super;

    int priority;              /* MCA var coll_dimmnet_priority (90) */
    bool stats;                /* DIMMNET_COLL_STATS=1: one line at close */
    bool initialized;          /* init_query ran: this process uses coll */
    unsigned long rank;        /* MPI_COMM_WORLD rank, for the stats line */

    /* Summed over every communicator this process's component served
     * (relaxed atomics: ranks with MPI_THREAD_MULTIPLE run collectives on
     * several communicators at once). */
    uint64_t comms;                        /* communicators enabled on */
    uint64_t calls[COLL_DIMMNET_NOPS];     /* calls taken, by operation */
    uint64_t served[COLL_DIMMNET_NOPS];    /* of those, the backend's */

    int choice;                /* DIMMNET_COLL_CHOICE: COLL_DIMMNET_CHOICE_* */
    uint64_t chose[2];         /* keys that chose the backend, the module below */
} mca_coll_dimmnet_component_t;

OMPI_MODULE_DECLSPEC extern mca_coll_dimmnet_component_t mca_coll_dimmnet_component;

/* A non-blocking call as Open MPI made it: what the module below is given
 * when the backend took the call before its communicator had joined and
 * the join then failed (coll_dimmnet_engine.c, "the non-blocking join").
 * Each operation uses the fields its signature has. */
struct coll_dimmnet_fwd {
    enum coll_dimmnet_op op;
    const void *sbuf;
    void *rbuf;
    int scount, rcount, root;
    struct ompi_datatype_t *sdtype, *rdtype;
    struct ompi_op_t *mop;
};

typedef struct mca_coll_dimmnet_module_t {
    mca_coll_base_module_t super;

    /* What served each operation before this module: function and module
     * (retained from module_enable until the module is destroyed). */
#define COLL_DIMMNET_PREV(name) \
    mca_coll_base_module_##name##_fn_t prev_##name; \
    mca_coll_base_module_t *prev_##name##_module;
    COLL_DIMMNET_OPS(COLL_DIMMNET_PREV)
#undef COLL_DIMMNET_PREV

    /* Inside one of this module's operations (a forwarded algorithm may
     * call the communicator's collectives again, tuned's allreduce its
     * reduce and bcast): such nested calls go straight to the saved
     * module, not counted and never to the backend. A communicator's
     * collectives are never concurrent (MPI), so a plain counter. */
    int depth;

    /* The backend's communicator (coll_dimmnet_engine.c): joined at the
     * first outermost collective; -1 forward forever, 0 not yet, 1 joined,
     * 2 joining (a non-blocking join: the records' exchange, Open MPI's
     * own non-blocking allgather, join_rq, in flight). */
    int engine_state;
    void *engine_comm;
    ompi_request_t *join_rq;
    struct dn_coll_join join_mine, *join_all;
    int join_n;

    /* The outermost non-blocking call being served (valid while the
     * backend has it): kept by a call the backend defers. */
    struct coll_dimmnet_fwd call;

    struct coll_dimmnet_choice choice[COLL_DIMMNET_CHOICE_KEYS];
} mca_coll_dimmnet_module_t;

/* coll_dimmnet_choice.c: who serves a blocking call of @bytes (the
 * backend or the module below); *key is set when the call is a trial,
 * then coll_dimmnet_chosen() after it. */
/* DIMMNET_COLL_CHOICE's mode: below COLL_DIMMNET_CHOICE_AUTO if the value
 * names none. */
int coll_dimmnet_choice_mode(void);
size_t coll_dimmnet_bytes(int count, struct ompi_datatype_t *dtype);
int coll_dimmnet_choose(mca_coll_dimmnet_module_t *m, enum coll_dimmnet_op op,
                        const struct coll_dimmnet_call *call, struct ompi_communicator_t *comm,
                        struct coll_dimmnet_choice **key);
void coll_dimmnet_chosen(struct coll_dimmnet_choice *key, int declined);
void coll_dimmnet_choice_report(mca_coll_dimmnet_module_t *m);

/* The engine's part of a module's destruction, and of the component's
 * close (coll_dimmnet_engine.c). */
void coll_dimmnet_engine_release(mca_coll_dimmnet_module_t *m);
/* Start @f on the module below (coll_dimmnet_module.c). */
int coll_dimmnet_forward(mca_coll_dimmnet_module_t *m, const struct coll_dimmnet_fwd *f,
                         struct ompi_communicator_t *comm, ompi_request_t **request);
void coll_dimmnet_engine_finalize(void);

OBJ_CLASS_DECLARATION(mca_coll_dimmnet_module_t);

int mca_coll_dimmnet_init_query(bool enable_progress_threads, bool enable_mpi_threads);
mca_coll_base_module_t *mca_coll_dimmnet_comm_query(struct ompi_communicator_t *comm,
                                                    int *priority);
/* The stats line, once, if asked for (component close). */
void mca_coll_dimmnet_print_stats(void);

END_C_DECLS

#endif /* MCA_COLL_DIMMNET_H */

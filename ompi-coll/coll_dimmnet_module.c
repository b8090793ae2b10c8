/*
 * coll/dimmnet: the module of one communicator. It takes the collectives
 * of COLL_DIMMNET_OPS and, for each, decides in one function (below) who
 * serves the call: the backend (coll_dimmnet_backend.h) when it has the
 * operation and does not decline, otherwise the module that served the
 * operation before coll/dimmnet was enabled on the communicator, as
 * Open MPI's coll/sync does.
 */
#include "ompi_config.h"

#include <string.h>

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/communicator/communicator.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/mca/coll/base/base.h"
#include "opal/util/output.h"
#include "coll_dimmnet.h"

static void dimmnet_module_construct(mca_coll_dimmnet_module_t *m)
{
#define COLL_DIMMNET_CLEAR(name) m->prev_##name = NULL; m->prev_##name##_module = NULL;
    COLL_DIMMNET_OPS(COLL_DIMMNET_CLEAR)
#undef COLL_DIMMNET_CLEAR
    m->depth = 0;
    m->engine_state = 0;
    m->engine_comm = NULL;
    m->join_rq = NULL;
    m->join_all = NULL;
    memset(&m->call, 0, sizeof(m->call));
    memset(m->choice, 0, sizeof(m->choice));
}

static void dimmnet_module_destruct(mca_coll_dimmnet_module_t *m)
{
    coll_dimmnet_choice_report(m);
    coll_dimmnet_engine_release(m);
#define COLL_DIMMNET_RELEASE(name) \
    if (NULL != m->prev_##name##_module) { \
        OBJ_RELEASE(m->prev_##name##_module); \
        m->prev_##name##_module = NULL; \
    }
    COLL_DIMMNET_OPS(COLL_DIMMNET_RELEASE)
#undef COLL_DIMMNET_RELEASE
}

OBJ_CLASS_INSTANCE(mca_coll_dimmnet_module_t, mca_coll_base_module_t,
                   dimmnet_module_construct, dimmnet_module_destruct);

/*
 * The first call into this module's operations (not one nested in another
 * of them): counted, and offered to the backend. Called with depth already
 * raised for this call.
 */
static inline bool dimmnet_outermost(mca_coll_dimmnet_module_t *m, enum coll_dimmnet_op op)
{
    if (1 != m->depth) {
        return false;
    }
    __atomic_fetch_add(&mca_coll_dimmnet_component.calls[op], 1, __ATOMIC_RELAXED);
    return true;
}

#define M(module) ((mca_coll_dimmnet_module_t *) (module))

/* A call's key for the run-time choice; NO_CHOICE: a call it does not
 * look at (a non-blocking form). */
#define CALL(bytes, dtype, op) ((struct coll_dimmnet_call) { (bytes), (dtype), (op) })
#define NO_CHOICE CALL((size_t) -1, NULL, NULL)
#define BYTES(count, dtype) coll_dimmnet_bytes((count), (dtype))

/*
 * One function an operation, each the whole decision for it: for an
 * outermost call, the module below if the run-time choice says so
 * (coll_dimmnet_choice.c), else the backend's function if there is one;
 * the saved module when there is none or it declines (not a trial then).
 */
#define DIMMNET_SERVE(name, call, ...) \
    do { \
        mca_coll_dimmnet_module_t *m = M(module); \
        int rc = COLL_DIMMNET_DECLINED; \
        m->depth++; \
        if (dimmnet_outermost(m, COLL_DIMMNET_OP_##name)) { \
            struct coll_dimmnet_choice *key = NULL; \
            struct coll_dimmnet_call c_ = (call); \
            if ((size_t) -1 != c_.bytes && COLL_DIMMNET_CHOICE_BELOW == \
                    coll_dimmnet_choose(m, COLL_DIMMNET_OP_##name, &c_, comm, &key)) { \
                rc = m->prev_##name(__VA_ARGS__, m->prev_##name##_module); \
                coll_dimmnet_chosen(key, 0); \
                m->depth--; \
                return rc; \
            } \
            if (NULL != coll_dimmnet_backend.name) { \
                rc = coll_dimmnet_backend.name(__VA_ARGS__, module); \
            } \
            if (COLL_DIMMNET_DECLINED != rc) { \
                __atomic_fetch_add(&mca_coll_dimmnet_component.served[COLL_DIMMNET_OP_##name], \
                                   1, __ATOMIC_RELAXED); \
            } \
            coll_dimmnet_chosen(key, COLL_DIMMNET_DECLINED == rc); \
        } \
        if (COLL_DIMMNET_DECLINED == rc) { \
            rc = m->prev_##name(__VA_ARGS__, m->prev_##name##_module); \
        } \
        m->depth--; \
        return rc; \
    } while (0)

static int dimmnet_barrier(struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    DIMMNET_SERVE(barrier, CALL(0, NULL, NULL), comm);
}

static int dimmnet_bcast(void *buff, int count, struct ompi_datatype_t *dtype, int root,
                         struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    DIMMNET_SERVE(bcast, CALL(BYTES(count, dtype), dtype, NULL), buff, count, dtype, root, comm);
}

static int dimmnet_reduce(const void *sbuf, void *rbuf, int count,
                          struct ompi_datatype_t *dtype, struct ompi_op_t *op, int root,
                          struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    DIMMNET_SERVE(reduce, CALL(BYTES(count, dtype), dtype, op), sbuf, rbuf, count, dtype, op,
                  root, comm);
}

static int dimmnet_allreduce(const void *sbuf, void *rbuf, int count,
                             struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                             struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    DIMMNET_SERVE(allreduce, CALL(BYTES(count, dtype), dtype, op), sbuf, rbuf, count, dtype, op,
                  comm);
}

static int dimmnet_allgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                             void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                             struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    DIMMNET_SERVE(allgather, CALL(BYTES(rcount, rdtype), rdtype, NULL), sbuf, scount, sdtype,
                  rbuf, rcount, rdtype, comm);
}

static int dimmnet_alltoall(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                            void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                            struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    DIMMNET_SERVE(alltoall, CALL(BYTES(rcount, rdtype), rdtype, NULL), sbuf, scount, sdtype,
                  rbuf, rcount, rdtype, comm);
}

static int dimmnet_reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                        struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                        struct ompi_communicator_t *comm,
                                        mca_coll_base_module_t *module)
{
    DIMMNET_SERVE(reduce_scatter_block, CALL(BYTES(rcount, dtype), dtype, op), sbuf, rbuf,
                  rcount, dtype, op, comm);
}

static int dimmnet_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts,
                                  struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                  struct ompi_communicator_t *comm,
                                  mca_coll_base_module_t *module)
{
    DIMMNET_SERVE(reduce_scatter, NO_CHOICE, sbuf, rbuf, rcounts, dtype, op, comm);
}

static int dimmnet_ibarrier(struct ompi_communicator_t *comm, ompi_request_t **request,
                            mca_coll_base_module_t *module)
{
    M(module)->call = (struct coll_dimmnet_fwd) { .op = COLL_DIMMNET_OP_ibarrier };
    DIMMNET_SERVE(ibarrier, NO_CHOICE, comm, request);
}

static int dimmnet_ibcast(void *buff, int count, struct ompi_datatype_t *dtype, int root,
                          struct ompi_communicator_t *comm, ompi_request_t **request,
                          mca_coll_base_module_t *module)
{
    M(module)->call = (struct coll_dimmnet_fwd) { .op = COLL_DIMMNET_OP_ibcast, .rbuf = buff,
        .rcount = count, .rdtype = dtype, .root = root };
    DIMMNET_SERVE(ibcast, NO_CHOICE, buff, count, dtype, root, comm, request);
}

static int dimmnet_ireduce(const void *sbuf, void *rbuf, int count,
                           struct ompi_datatype_t *dtype, struct ompi_op_t *op, int root,
                           struct ompi_communicator_t *comm, ompi_request_t **request,
                           mca_coll_base_module_t *module)
{
    M(module)->call = (struct coll_dimmnet_fwd) { .op = COLL_DIMMNET_OP_ireduce, .sbuf = sbuf,
        .rbuf = rbuf, .rcount = count, .rdtype = dtype, .mop = op, .root = root };
    DIMMNET_SERVE(ireduce, NO_CHOICE, sbuf, rbuf, count, dtype, op, root, comm, request);
}

static int dimmnet_iallreduce(const void *sbuf, void *rbuf, int count,
                              struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                              struct ompi_communicator_t *comm, ompi_request_t **request,
                              mca_coll_base_module_t *module)
{
    M(module)->call = (struct coll_dimmnet_fwd) { .op = COLL_DIMMNET_OP_iallreduce, .sbuf = sbuf,
        .rbuf = rbuf, .rcount = count, .rdtype = dtype, .mop = op };
    DIMMNET_SERVE(iallreduce, NO_CHOICE, sbuf, rbuf, count, dtype, op, comm, request);
}

static int dimmnet_iallgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                              void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                              struct ompi_communicator_t *comm, ompi_request_t **request,
                              mca_coll_base_module_t *module)
{
    M(module)->call = (struct coll_dimmnet_fwd) { .op = COLL_DIMMNET_OP_iallgather, .sbuf = sbuf,
        .scount = scount, .sdtype = sdtype, .rbuf = rbuf, .rcount = rcount, .rdtype = rdtype };
    DIMMNET_SERVE(iallgather, NO_CHOICE, sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
                  request);
}

static int dimmnet_ialltoall(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                             void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                             struct ompi_communicator_t *comm, ompi_request_t **request,
                             mca_coll_base_module_t *module)
{
    M(module)->call = (struct coll_dimmnet_fwd) { .op = COLL_DIMMNET_OP_ialltoall, .sbuf = sbuf,
        .scount = scount, .sdtype = sdtype, .rbuf = rbuf, .rcount = rcount, .rdtype = rdtype };
    DIMMNET_SERVE(ialltoall, NO_CHOICE, sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
                  request);
}

static int dimmnet_ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                         struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                         struct ompi_communicator_t *comm,
                                         ompi_request_t **request,
                                         mca_coll_base_module_t *module)
{
    M(module)->call = (struct coll_dimmnet_fwd) { .op = COLL_DIMMNET_OP_ireduce_scatter_block,
        .sbuf = sbuf, .rbuf = rbuf, .rcount = rcount, .rdtype = dtype, .mop = op };
    DIMMNET_SERVE(ireduce_scatter_block, NO_CHOICE, sbuf, rbuf, rcount, dtype, op, comm, request);
}

int coll_dimmnet_forward(mca_coll_dimmnet_module_t *m, const struct coll_dimmnet_fwd *f,
                         struct ompi_communicator_t *comm, ompi_request_t **request)
{
    int rc;

    m->depth++;
    switch (f->op) {
    case COLL_DIMMNET_OP_ibarrier:
        rc = m->prev_ibarrier(comm, request, m->prev_ibarrier_module);
        break;
    case COLL_DIMMNET_OP_ibcast:
        rc = m->prev_ibcast(f->rbuf, f->rcount, f->rdtype, f->root, comm, request,
                            m->prev_ibcast_module);
        break;
    case COLL_DIMMNET_OP_ireduce:
        rc = m->prev_ireduce(f->sbuf, f->rbuf, f->rcount, f->rdtype, f->mop, f->root, comm,
                             request, m->prev_ireduce_module);
        break;
    case COLL_DIMMNET_OP_iallreduce:
        rc = m->prev_iallreduce(f->sbuf, f->rbuf, f->rcount, f->rdtype, f->mop, comm, request,
                                m->prev_iallreduce_module);
        break;
    case COLL_DIMMNET_OP_iallgather:
        rc = m->prev_iallgather(f->sbuf, f->scount, f->sdtype, f->rbuf, f->rcount, f->rdtype,
                                comm, request, m->prev_iallgather_module);
        break;
    case COLL_DIMMNET_OP_ialltoall:
        rc = m->prev_ialltoall(f->sbuf, f->scount, f->sdtype, f->rbuf, f->rcount, f->rdtype,
                               comm, request, m->prev_ialltoall_module);
        break;
    case COLL_DIMMNET_OP_ireduce_scatter_block:
        rc = m->prev_ireduce_scatter_block(f->sbuf, f->rbuf, f->rcount, f->rdtype, f->mop, comm,
                                           request, m->prev_ireduce_scatter_block_module);
        break;
    default:
        rc = OMPI_ERR_NOT_SUPPORTED;
        break;
    }
    m->depth--;
    return rc;
}

/*
 * Enabled on the communicator after every module of lower priority: what
 * comm->c_coll holds now is what would serve each operation without us.
 * Keep those function/module pairs (retained: the base releases its own
 * references when it puts ours in their place). A missing one (no module
 * below has the operation) disables us on this communicator, nothing kept.
 */
static int dimmnet_module_enable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm)
{
    mca_coll_dimmnet_module_t *m = M(module);
    const char *missing = NULL;

#define COLL_DIMMNET_CHECK(name) \
    if (NULL == missing && (NULL == comm->c_coll->coll_##name || \
                            NULL == comm->c_coll->coll_##name##_module)) { \
        missing = #name; \
    }
    COLL_DIMMNET_OPS(COLL_DIMMNET_CHECK)
#undef COLL_DIMMNET_CHECK
    if (NULL != missing) {
        opal_output_verbose(1, ompi_coll_base_framework.framework_output,
                            "coll:dimmnet: not enabled on %s (cid %d): no module below "
                            "serves %s", comm->c_name, comm->c_contextid, missing);
        return OMPI_ERR_NOT_FOUND;
    }
#define COLL_DIMMNET_SAVE(name) \
    m->prev_##name = comm->c_coll->coll_##name; \
    m->prev_##name##_module = comm->c_coll->coll_##name##_module; \
    OBJ_RETAIN(m->prev_##name##_module);
    COLL_DIMMNET_OPS(COLL_DIMMNET_SAVE)
#undef COLL_DIMMNET_SAVE
    __atomic_fetch_add(&mca_coll_dimmnet_component.comms, 1, __ATOMIC_RELAXED);
    opal_output_verbose(10, ompi_coll_base_framework.framework_output,
                        "coll:dimmnet: enabled on %s (cid %d, %d ranks), backend %s",
                        comm->c_name, comm->c_contextid, ompi_comm_size(comm),
                        coll_dimmnet_backend.name);
    return OMPI_SUCCESS;
}

/* Every intra-communicator of two ranks or more; none else. */
mca_coll_base_module_t *mca_coll_dimmnet_comm_query(struct ompi_communicator_t *comm,
                                                    int *priority)
{
    mca_coll_dimmnet_module_t *m;

    if (OMPI_COMM_IS_INTER(comm) || ompi_comm_size(comm) < 2 ||
        mca_coll_dimmnet_component.priority < 0) {
        return NULL;
    }
    m = OBJ_NEW(mca_coll_dimmnet_module_t);
    if (NULL == m) {
        return NULL;
    }
    *priority = mca_coll_dimmnet_component.priority;
    m->super.coll_module_enable = dimmnet_module_enable;
    m->super.coll_barrier = dimmnet_barrier;
    m->super.coll_bcast = dimmnet_bcast;
    m->super.coll_reduce = dimmnet_reduce;
    m->super.coll_allreduce = dimmnet_allreduce;
    m->super.coll_allgather = dimmnet_allgather;
    m->super.coll_alltoall = dimmnet_alltoall;
    m->super.coll_reduce_scatter_block = dimmnet_reduce_scatter_block;
    m->super.coll_reduce_scatter = dimmnet_reduce_scatter;
    m->super.coll_ibarrier = dimmnet_ibarrier;
    m->super.coll_ibcast = dimmnet_ibcast;
    m->super.coll_ireduce = dimmnet_ireduce;
    m->super.coll_iallreduce = dimmnet_iallreduce;
    m->super.coll_iallgather = dimmnet_iallgather;
    m->super.coll_ialltoall = dimmnet_ialltoall;
    m->super.coll_ireduce_scatter_block = dimmnet_ireduce_scatter_block;
    return &m->super;
}

/*
 * coll/dimmnet's backend: the NIC's collective engine (the shim's dn_coll_*,
 * reached through the provider's fi_dimmnet_coll_ops). Per communicator,
 * at its first outermost collective (the same call on every rank, so the
 * same decision everywhere), the ranks exchange join records with the
 * allgather of the module below and create the engine's communicator; any
 * failure there marks the communicator "forward forever".
 *
 * Served: predefined types and ops the engine has (reductions); any type
 * (data movement, as bytes, packed when not contiguous). The decision only
 * looks at what MPI makes identical on every rank (datatype and op of a
 * reduction, the byte count of a type signature).
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/runtime/mpiruntime.h"
#include "opal/runtime/opal_progress.h"
#include "opal/util/output.h"
#include "coll_dimmnet.h"
#include "dimmnet1/dn.h"
#include "fi_dimmnet.h"

#define M(module) ((mca_coll_dimmnet_module_t *) (module))

static const struct fi_dimmnet_coll_ops *ops;

/* The engine's communicator of @comm, joined now if this is its first
 * collective; NULL: forward. */
static void *engine_comm(struct ompi_communicator_t *comm, mca_coll_dimmnet_module_t *m)
{
    int n = ompi_comm_size(comm);
    struct dn_coll_join mine, *all;
    struct dn_coll_config cfg;
    int rc;

    if (0 != m->engine_state) {
        return 1 == m->engine_state ? m->engine_comm : NULL;
    }
    m->engine_state = -1;
    if (n > (int) DN_COLL_MAX_MEMBERS) {     /* the same on every rank */
        return NULL;
    }
    if (NULL == ops) {
        ops = fi_dimmnet_find_coll_ops();
    }
    memset(&mine, 0, sizeof(mine));
    mine.slot = DN_COLL_NO_SLOT;             /* no engine here: all decline */
    if (NULL != ops && ops->join_size == sizeof(mine) && DN_OK != ops->join_prepare(&mine)) {
        mine.slot = DN_COLL_NO_SLOT;
    }
    all = calloc(n, sizeof(*all));
    if (NULL == all) {
        /* Cannot tell the others: abort rather than diverge. */
        ompi_mpi_abort(comm, OMPI_ERR_OUT_OF_RESOURCE);
    }
    rc = m->prev_allgather(&mine, sizeof(mine), MPI_BYTE, all, sizeof(mine), MPI_BYTE,
                           comm, m->prev_allgather_module);
    if (OMPI_SUCCESS != rc) {
        ompi_mpi_abort(comm, rc);
    }
    if (NULL == ops || mine.slot == DN_COLL_NO_SLOT) {
        free(all);                           /* the others see our record's no slot */
        return NULL;
    }
    ops->config_default(&cfg);
    cfg.nmembers = n;
    /* Multicast (switch group 0) only when the members are every node's
     * only port: the records are the same on every rank, so is this. */
    uint64_t nodes_seen = 0;
    int distinct = 1;
    for (int i = 0; i < n; i++) {
        cfg.members[i] = all[i].addr;
        unsigned node = all[i].addr & 0xfffu;
        if (node >= 64 || (nodes_seen >> node & 1)) {
            distinct = 0;
        } else {
            nodes_seen |= 1ull << node;
        }
    }
    cfg.mcast_group = (1 == ops->ports && distinct && (unsigned) n == ops->nodes) ? 0 : -1;
    rc = ops->create_joined(&cfg, all, &m->engine_comm);
    free(all);
    if (DN_OK != rc) {                       /* DN_ENOMEM on every member alike */
        m->engine_comm = NULL;
        return NULL;
    }
    m->engine_state = 1;
    return m->engine_comm;
}

void coll_dimmnet_engine_release(mca_coll_dimmnet_module_t *m)
{
    /* Nothing of ours is in flight (blocking forms only); the provider
     * skips this if its domain is already gone (MPI_Finalize order). */
    if (1 == m->engine_state && NULL != ops) {
        ops->comm_free(m->engine_comm);
    }
    m->engine_state = -1;
    m->engine_comm = NULL;
}

/* The engine's type of a reduction's datatype, or -1. */
static int dn_type(struct ompi_datatype_t *dt)
{
    if (dt == MPI_INT || dt == MPI_INT32_T) {
        return sizeof(int) == 4 ? DN_COLL_INT32 : -1;
    }
    if (dt == MPI_LONG || dt == MPI_LONG_LONG || dt == MPI_INT64_T) {
        size_t sz;
        ompi_datatype_type_size(dt, &sz);
        return 8 == sz ? DN_COLL_INT64 : -1;
    }
    if (dt == MPI_UNSIGNED_LONG || dt == MPI_UINT64_T || dt == MPI_UNSIGNED_LONG_LONG) {
        size_t sz;
        ompi_datatype_type_size(dt, &sz);
        return 8 == sz ? DN_COLL_UINT64 : -1;
    }
    if (dt == MPI_FLOAT) {
        return DN_COLL_FLOAT;
    }
    if (dt == MPI_DOUBLE) {
        return DN_COLL_DOUBLE;
    }
    return -1;
}

static int dn_op(struct ompi_op_t *op)
{
    return op == MPI_SUM ? DN_COLL_SUM : op == MPI_PROD ? DN_COLL_PROD :
           op == MPI_MIN ? DN_COLL_MIN : op == MPI_MAX ? DN_COLL_MAX :
           op == MPI_BAND ? DN_COLL_BAND : op == MPI_BOR ? DN_COLL_BOR :
           op == MPI_BXOR ? DN_COLL_BXOR : -1;
}

/* Wait for a started request, progressing Open MPI between tests (the
 * shim's lock is not held while we wait). */
static int finish(int rc, void *const *req, const char *what)
{
    int done = 0;

    while (DN_OK == rc && !done) {
        rc = ops->test(*req, &done);
        if (DN_OK == rc && !done) {
            opal_progress();
        }
    }
    if (DN_OK != rc) {
        opal_output(0, "coll/dimmnet: the engine failed %s: dn status %d", what, rc);
        return OMPI_ERROR;
    }
    return OMPI_SUCCESS;
}

/* (@req by address: the start, an argument, sets it) */
#define FINISH(rc, req) finish(rc, &(req), __func__)

/* @count elements of @dt as bytes: the buffer itself when its layout is
 * contiguous, else a packed copy (*tmp, to free). */
static char *as_bytes(const void *buf, int count, struct ompi_datatype_t *dt,
                      size_t *bytes, char **tmp, bool fill)
{
    size_t sz;
    ptrdiff_t lb, extent;

    ompi_datatype_type_size(dt, &sz);
    *bytes = sz * (size_t) count;
    *tmp = NULL;
    if (ompi_datatype_is_contiguous_memory_layout(dt, count)) {
        ompi_datatype_get_true_extent(dt, &lb, &extent);
        return (char *) buf + lb;
    }
    *tmp = malloc(*bytes ? *bytes : 1);
    if (NULL != *tmp && fill) {
        ompi_datatype_sndrcv((void *) buf, count, dt, *tmp, (int) *bytes, MPI_PACKED);
    }
    return *tmp;
}

/* Unpack a packed copy back into the user's buffer, and free it. */
static void from_bytes(char *tmp, size_t bytes, void *buf, int count,
                       struct ompi_datatype_t *dt)
{
    if (NULL != tmp) {
        ompi_datatype_sndrcv(tmp, (int) bytes, MPI_PACKED, buf, count, dt);
        free(tmp);
    }
}

static int e_barrier(struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    void *c = engine_comm(comm, M(module)), *req;

    if (NULL == c) {
        return COLL_DIMMNET_DECLINED;
    }
    return FINISH(ops->ibarrier(c, &req), req);
}

static int e_bcast(void *buff, int count, struct ompi_datatype_t *dtype, int root,
                   struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    void *c = engine_comm(comm, M(module)), *req;
    size_t bytes;
    char *tmp;
    int rc;

    if (NULL == c) {
        return COLL_DIMMNET_DECLINED;
    }
    char *b = as_bytes(buff, count, dtype, &bytes, &tmp, ompi_comm_rank(comm) == root);
    if (0 == bytes) {
        free(tmp);
        return OMPI_SUCCESS;
    }
    if (NULL == b) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    rc = FINISH(ops->ibcast(c, b, bytes, DN_COLL_BYTE, root, &req), req);
    if (ompi_comm_rank(comm) != root) {
        from_bytes(tmp, bytes, buff, count, dtype);
    } else {
        free(tmp);
    }
    return rc;
}

/* The input of a reduction: @sbuf, or a copy of @rbuf for MPI_IN_PLACE
 * (the engine is not given aliased buffers). */
static const void *reduce_input(const void *sbuf, const void *rbuf, size_t bytes, char **tmp)
{
    *tmp = NULL;
    if (MPI_IN_PLACE != sbuf) {
        return sbuf;
    }
    *tmp = malloc(bytes ? bytes : 1);
    if (NULL != *tmp) {
        memcpy(*tmp, rbuf, bytes);
    }
    return *tmp;
}

static int e_reduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                    struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                    mca_coll_base_module_t *module)
{
    int t = dn_type(dtype), o = dn_op(op), rc;
    void *c, *req;
    size_t sz;
    char *in_tmp = NULL, *out_tmp = NULL;

    if (t < 0 || o < 0 || NULL == (c = engine_comm(comm, M(module)))) {
        return COLL_DIMMNET_DECLINED;
    }
    if (0 == count) {
        return OMPI_SUCCESS;
    }
    ompi_datatype_type_size(dtype, &sz);
    const void *in = ompi_comm_rank(comm) == root
                   ? reduce_input(sbuf, rbuf, sz * count, &in_tmp) : sbuf;
    void *out = rbuf;
    if (ompi_comm_rank(comm) != root) {       /* rbuf is not significant here */
        out = out_tmp = malloc(sz * count);
    }
    if (NULL == in || NULL == out) {
        free(in_tmp);
        free(out_tmp);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    rc = FINISH(ops->ireduce(c, in, out, count, t, o, root, &req), req);
    free(in_tmp);
    free(out_tmp);
    return rc;
}

static int e_allreduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                       struct ompi_op_t *op, struct ompi_communicator_t *comm,
                       mca_coll_base_module_t *module)
{
    int t = dn_type(dtype), o = dn_op(op), rc;
    void *c, *req;
    size_t sz;
    char *tmp;

    if (t < 0 || o < 0 || NULL == (c = engine_comm(comm, M(module)))) {
        return COLL_DIMMNET_DECLINED;
    }
    if (0 == count) {
        return OMPI_SUCCESS;
    }
    ompi_datatype_type_size(dtype, &sz);
    const void *in = reduce_input(sbuf, rbuf, sz * count, &tmp);
    if (NULL == in) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    rc = FINISH(ops->iallreduce(c, in, rbuf, count, t, o, &req), req);
    free(tmp);
    return rc;
}

static int e_reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                  struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                  struct ompi_communicator_t *comm,
                                  mca_coll_base_module_t *module)
{
    int t = dn_type(dtype), o = dn_op(op), rc;
    void *c, *req;
    size_t sz;
    char *tmp;

    if (t < 0 || o < 0 || NULL == (c = engine_comm(comm, M(module)))) {
        return COLL_DIMMNET_DECLINED;
    }
    if (0 == rcount) {
        return OMPI_SUCCESS;
    }
    ompi_datatype_type_size(dtype, &sz);
    /* MPI_IN_PLACE: the input is all of rbuf (size * rcount elements). */
    const void *in = reduce_input(sbuf, rbuf, sz * rcount * ompi_comm_size(comm), &tmp);
    if (NULL == in) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    rc = FINISH(ops->ireduce_scatter(c, in, rbuf, rcount, t, o, &req), req);
    free(tmp);
    return rc;
}

/* allgather and alltoall: bytes of the send signature (MPI makes
 * scount x sdtype of every rank match rcount x rdtype). */
static int e_gather_like(bool to_all, const void *sbuf, int scount,
                         struct ompi_datatype_t *sdtype, void *rbuf, int rcount,
                         struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
                         mca_coll_base_module_t *module)
{
    void *c = engine_comm(comm, M(module)), *req;
    int n = ompi_comm_size(comm), me = ompi_comm_rank(comm), rc;
    size_t block, total;
    char *stmp = NULL, *rtmp;
    const char *in;

    if (NULL == c) {
        return COLL_DIMMNET_DECLINED;
    }
    char *out = as_bytes(rbuf, rcount * n, rdtype, &total, &rtmp, MPI_IN_PLACE == sbuf);
    block = total / n;
    if (0 == block) {
        free(rtmp);
        return OMPI_SUCCESS;
    }
    if (NULL == out) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (MPI_IN_PLACE == sbuf) {              /* a copy: the engine's input */
        stmp = malloc(to_all ? total : block);
        if (NULL != stmp) {
            memcpy(stmp, to_all ? out : out + me * block, to_all ? total : block);
        }
        in = stmp;
    } else {
        size_t sbytes;
        in = as_bytes(sbuf, to_all ? scount * n : scount, sdtype, &sbytes, &stmp, true);
    }
    if (NULL == in) {
        free(rtmp);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    rc = to_all ? ops->ialltoall(c, in, out, block, DN_COLL_BYTE, &req)
                : ops->iallgather(c, in, out, block, DN_COLL_BYTE, &req);
    rc = FINISH(rc, req);
    free(stmp);
    from_bytes(rtmp, total, rbuf, rcount * n, rdtype);
    return rc;
}

static int e_allgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                       void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                       struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    return e_gather_like(false, sbuf, scount, sdtype, rbuf, rcount, rdtype, comm, module);
}

static int e_alltoall(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                      void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                      struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    return e_gather_like(true, sbuf, scount, sdtype, rbuf, rcount, rdtype, comm, module);
}

/* The non-blocking forms are forwarded for now (NULL). */
const struct coll_dimmnet_backend coll_dimmnet_backend = {
    .name = "engine",
    .barrier = e_barrier,
    .bcast = e_bcast,
    .reduce = e_reduce,
    .allreduce = e_allreduce,
    .allgather = e_allgather,
    .alltoall = e_alltoall,
    .reduce_scatter_block = e_reduce_scatter_block,
};

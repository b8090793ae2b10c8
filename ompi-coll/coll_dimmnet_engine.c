/*
 * coll/dimmnet's backend: the NIC's collective engine (the shim's dn_coll_*,
 * reached through the provider's fi_dimmnet_coll_ops). Per communicator,
 * at its first outermost collective (the same call on every rank, so the
 * same decision everywhere), the ranks exchange join records with the
 * allgather of the module below and create the engine's communicator; any
 * failure there marks the communicator "forward forever". A blocking
 * first collective exchanges them with the blocking allgather; a
 * non-blocking one with the non-blocking allgather, and is deferred until
 * that is done ("the non-blocking join", below).
 *
 * Served: predefined types and ops the engine has (reductions); any type
 * (data movement, as bytes, packed when not contiguous); blocking and
 * non-blocking forms. The decision only
 * looks at what MPI makes identical on every rank (datatype and op of a
 * reduction, the byte count of a type signature).
 */
#include "ompi_config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/request/request.h"
#include "ompi/runtime/mpiruntime.h"
#include "opal/runtime/opal_progress.h"
#include "opal/util/output.h"
#include "coll_dimmnet.h"
#include "dimmnet1/dn.h"
#include "fi_dimmnet.h"

#define M(module) ((mca_coll_dimmnet_module_t *) (module))
#define COLL_DIMMNET_TIMEOUT_MS (10 * 60 * 1000)

static const struct fi_dimmnet_coll_ops *ops;

static void joined_add(void *c, bool locked);
static void joined_remove(void *c);
static void progress_register(void);

static void join_finish(mca_coll_dimmnet_module_t *m, bool locked);

/* This process's join record into m->join_mine and room for everyone's;
 * false: forward forever (the same on every rank). */
static bool join_records(struct ompi_communicator_t *comm, mca_coll_dimmnet_module_t *m)
{
    int n = ompi_comm_size(comm);

    m->engine_state = -1;
    if (n > (int) DN_COLL_MAX_MEMBERS) {     /* the same on every rank */
        return false;
    }
    if (NULL == ops) {
        ops = fi_dimmnet_find_coll_ops();
    }
    memset(&m->join_mine, 0, sizeof(m->join_mine));
    m->join_mine.slot = DN_COLL_NO_SLOT;     /* no engine here: all decline */
    if (NULL != ops && ops->join_size == sizeof(m->join_mine) &&
        DN_OK != ops->join_prepare(&m->join_mine)) {
        m->join_mine.slot = DN_COLL_NO_SLOT;
    }
    m->join_n = n;
    m->join_all = calloc(n, sizeof(*m->join_all));
    if (NULL == m->join_all) {
        /* Cannot tell the others: abort rather than diverge. */
        ompi_mpi_abort(comm, OMPI_ERR_OUT_OF_RESOURCE);
    }
    return true;
}

/* Everyone's records are in: the engine's communicator, or forward
 * forever (state 1 or -1). */
static void join_create(mca_coll_dimmnet_module_t *m, bool locked)
{
    int n = m->join_n;
    struct dn_coll_join *all = m->join_all;
    struct dn_coll_config cfg;
    int rc;

    m->join_all = NULL;
    m->engine_state = -1;
    if (NULL == ops || m->join_mine.slot == DN_COLL_NO_SLOT) {
        free(all);                           /* the others see our record's no slot */
        return;
    }
    ops->config_default(&cfg);
    cfg.nmembers = n;
    /* An MPI collective waits as long as its peers take; the engine's
     * give-up is wall-clock, and ranks of a loaded or descheduled job can
     * be a minute apart (the default). A dead peer ends the job anyway. */
    cfg.timeout_ms = COLL_DIMMNET_TIMEOUT_MS;
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
        return;
    }
    m->engine_state = 1;
    joined_add(m->engine_comm, locked);
    if (!locked) {
        progress_register();    /* (a non-blocking join registered it at its start) */
    }
}

/* The engine's communicator of @comm, joined now if this is its first
 * collective (a blocking one), or once the non-blocking join a
 * non-blocking one began is done; NULL: forward. */
static void *engine_comm(struct ompi_communicator_t *comm, mca_coll_dimmnet_module_t *m)
{
    int rc;

    if (2 == m->engine_state) {
        /* A blocking call after a non-blocking first one: the join
         * first, and the calls deferred on it started before this one
         * (every rank starts the engine's calls in the same order). */
        while (!REQUEST_COMPLETE(m->join_rq)) {
            opal_progress();
        }
        if (2 == m->engine_state) {
            join_finish(m, false);
        }
    }
    if (0 != m->engine_state) {
        return 1 == m->engine_state ? m->engine_comm : NULL;
    }
    if (!join_records(comm, m)) {
        return NULL;
    }
    rc = m->prev_allgather(&m->join_mine, sizeof(m->join_mine), MPI_BYTE, m->join_all,
                           sizeof(m->join_mine), MPI_BYTE, comm, m->prev_allgather_module);
    if (OMPI_SUCCESS != rc) {
        ompi_mpi_abort(comm, rc);
    }
    join_create(m, false);
    return 1 == m->engine_state ? m->engine_comm : NULL;
}

void coll_dimmnet_engine_release(mca_coll_dimmnet_module_t *m)
{
    /* Nothing of ours is in flight: a non-blocking form's request holds
     * the module until it is freed. The provider skips this if its domain
     * is already gone (MPI_Finalize order). */
    if (2 == m->engine_state) {
        /* A join no call waits for (its calls were of nothing: every rank
         * alike): its exchange ends into our records, then our slot back. */
        ompi_request_wait(&m->join_rq, MPI_STATUS_IGNORE);
        if (NULL != ops && m->join_mine.slot != DN_COLL_NO_SLOT) {
            ops->join_cancel(&m->join_mine);
        }
        free(m->join_all);
        m->join_all = NULL;
    }
    if (1 == m->engine_state && NULL != ops) {
        joined_remove(m->engine_comm);
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

/* An engine call's start: kept by a non-blocking call deferred until its
 * communicator has joined. @op names the engine call (its non-blocking
 * form's name, for either form). */
struct engine_start {
    enum coll_dimmnet_op op;
    const void *sbuf;
    void *rbuf;
    size_t count;
    int type, rop;
    unsigned root;
};

/*
 * What is left to do when the engine's request is done: a packed copy to
 * unpack into the user's buffer, copies to free. The request runs either
 * to its end here (a blocking form) or in a coll_dimmnet_request_t that
 * the progress callback completes (a non-blocking form).
 */
struct job {
    void *req;                        /* the engine's request */
    struct engine_start start;        /* deferred: to start once joined */
    bool deferred;
    char *tmp[2];                     /* freed at the end */
    char *packed;                     /* unpacked into buf, then freed */
    size_t bytes;
    void *buf;
    int count;
    struct ompi_datatype_t *dt;       /* retained while packed is set */
};

#define JOB_INIT { .req = NULL }

/* The job's copies freed, nothing unpacked (its call went elsewhere). */
static void job_discard(struct job *j)
{
    if (NULL != j->packed) {
        free(j->packed);
        OBJ_RELEASE(j->dt);
        j->packed = NULL;
    }
    free(j->tmp[0]);
    free(j->tmp[1]);
    j->tmp[0] = j->tmp[1] = NULL;
}

static void job_end(struct job *j)
{
    if (NULL != j->packed) {
        ompi_datatype_sndrcv(j->packed, (int) j->bytes, MPI_PACKED, j->buf, j->count, j->dt);
    }
    job_discard(j);
}

/* Unpack @packed (@bytes of @count x @dt) into @buf at the job's end. */
static void job_unpack(struct job *j, char *packed, size_t bytes, void *buf, int count,
                       struct ompi_datatype_t *dt)
{
    if (NULL != packed) {
        OBJ_RETAIN(dt);
        j->packed = packed;
        j->bytes = bytes;
        j->buf = buf;
        j->count = count;
        j->dt = dt;
    }
}

/*
 * A non-blocking form's MPI request: completed by coll_progress (an
 * opal_progress callback) once the engine's request is done. It holds the
 * module, so the engine's communicator outlives an MPI_Comm_free that
 * comes before the wait.
 */
typedef struct coll_dimmnet_request_t {
    ompi_request_t super;
    struct job job;
    mca_coll_dimmnet_module_t *module;
    struct coll_dimmnet_request_t *next;     /* on the pending list */
    struct coll_dimmnet_fwd fwd;             /* a deferred call as Open MPI made it */
    ompi_request_t *fwd_rq;                  /* it went to the module below after all */
    int fail;                                /* its start failed (dn status) */
} coll_dimmnet_request_t;

static OBJ_CLASS_INSTANCE(coll_dimmnet_request_t, ompi_request_t, NULL, NULL);

/* The requests in flight, oldest first. */
static coll_dimmnet_request_t *pending, **pending_tail = &pending;
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The engine's communicators of this process (any one moves them all).
 * With nothing of ours in flight a peer may still wait on this process:
 * a resend it asked for after a loss, while this rank has gone on to
 * messages. So the callback, registered at the first join, also gives the
 * engine a turn every COLL_IDLE_EVERY progress calls when idle: a turn
 * reads the card's resend requests (charged), too dear for every call of
 * a polling loop.
 */
#define COLL_IDLE_EVERY 64
/* A blocking collective's wait: Open MPI's progress every this many turns. */
#define COLL_WAIT_PROGRESS 16
/* A blocking wait's first turns, which give Open MPI's traffic none:
 * most collectives end within them, and a full provider turn in each
 * cost an MPI_Barrier at 8 boards 1 us of its 5 (modeled, paper host). */
#define COLL_WAIT_GRACE 64
static void *joined[16];
static unsigned idle_calls;
static bool progress_registered;
static int coll_progress(void);

/* @locked: the caller holds pending_lock (coll_progress). */
static void joined_add(void *c, bool locked)
{
    if (!locked) {
        pthread_mutex_lock(&pending_lock);
    }
    for (unsigned i = 0; i < sizeof(joined) / sizeof(joined[0]); i++) {
        if (NULL == joined[i]) {
            joined[i] = c;
            break;
        }
    }
    if (!locked) {
        pthread_mutex_unlock(&pending_lock);
    }
}

/* Registered at the first join, or the first non-blocking join's start
 * (not from inside coll_progress). */
static void progress_register(void)
{
    pthread_mutex_lock(&pending_lock);
    if (!progress_registered) {
        progress_registered = OPAL_SUCCESS == opal_progress_register(coll_progress);
    }
    pthread_mutex_unlock(&pending_lock);
}

static void joined_remove(void *c)
{
    pthread_mutex_lock(&pending_lock);
    for (unsigned i = 0; i < sizeof(joined) / sizeof(joined[0]); i++) {
        if (joined[i] == c) {
            joined[i] = NULL;
        }
    }
    pthread_mutex_unlock(&pending_lock);
}

/* Unregistered at the component's close (MPI_Finalize). */
void coll_dimmnet_engine_finalize(void)
{
    if (progress_registered) {
        opal_progress_unregister(coll_progress);
        progress_registered = false;
    }
}

static int request_free(ompi_request_t **rq)
{
    coll_dimmnet_request_t *r = (coll_dimmnet_request_t *) *rq;

    if (!REQUEST_COMPLETE(*rq)) {
        return MPI_ERR_REQUEST;     /* MPI: erroneous on a collective's request */
    }
    OMPI_REQUEST_FINI(&r->super);
    OBJ_RELEASE(r->module);
    OBJ_RELEASE(r);
    *rq = MPI_REQUEST_NULL;
    return OMPI_SUCCESS;
}

static int request_cancel(ompi_request_t *rq, int complete)
{
    return MPI_SUCCESS;             /* a collective is not cancelled */
}

/*
 * Test the requests in flight; complete each one done. Every test moves
 * every communicator of the process (the shim's progress rule), so a
 * program that only calls MPI_Test, MPI_Wait or any other MPI call that
 * progresses sees its collectives move. One thread at a time: another
 * finds the lock taken and leaves it to the holder.
 */
static int coll_progress(void)
{
    coll_dimmnet_request_t *done = NULL, **at, *r;
    int count = 0;

    if (NULL == pending && 0 != ++idle_calls % COLL_IDLE_EVERY) {
        return 0;
    }
    if (0 != pthread_mutex_trylock(&pending_lock)) {
        return 0;
    }
    if (NULL == pending) {
        for (unsigned i = 0; i < sizeof(joined) / sizeof(joined[0]); i++) {
            if (NULL != joined[i]) {
                (void) ops->progress(joined[i]);
                break;
            }
        }
        pthread_mutex_unlock(&pending_lock);
        return 0;
    }
    for (at = &pending; NULL != (r = *at);) {
        int fin = 0, rc = DN_OK;
        if (r->job.deferred) {
            /* Waiting for its communicator's join (in order: a later
             * call of the same communicator is deferred too). */
            if (!REQUEST_COMPLETE(r->module->join_rq)) {
                at = &r->next;
                continue;
            }
            join_finish(r->module, true);
        }
        if (r->fail) {
            rc = r->fail;
        } else if (NULL != r->fwd_rq) {
            fin = REQUEST_COMPLETE(r->fwd_rq);
        } else {
            rc = ops->test(r->job.req, &fin);
        }
        if (DN_OK != rc || fin) {
            if (DN_OK != rc) {
                opal_output(0, "coll/dimmnet: the engine failed a non-blocking "
                            "collective: dn status %d", rc);
            }
            r->super.req_status.MPI_ERROR = DN_OK == rc ? MPI_SUCCESS : MPI_ERR_INTERN;
            if (NULL != r->fwd_rq) {
                r->super.req_status.MPI_ERROR = r->fwd_rq->req_status.MPI_ERROR;
                ompi_request_free(&r->fwd_rq);
            }
            *at = r->next;
            r->next = done;
            done = r;
        } else {
            at = &r->next;
        }
    }
    pending_tail = at;
    pthread_mutex_unlock(&pending_lock);
    /* Outside the lock: completing may run a waiter's callback. */
    for (; NULL != (r = done); count++) {
        done = r->next;
        job_end(&r->job);
        ompi_request_complete(&r->super, true);
    }
    return count;
}

/*
 * Start @rc's request (@j->req) as a blocking or a non-blocking form:
 * @request NULL waits here, progressing Open MPI between tests (the
 * shim's lock is not held while we wait); else *request is an MPI request
 * that coll_progress completes.
 */
static int run(int rc, struct job *j, ompi_request_t **request, struct ompi_communicator_t *comm,
               mca_coll_base_module_t *module, const char *what)
{
    int done = 0;

    if (DN_OK == rc && NULL != request) {
        coll_dimmnet_request_t *r = OBJ_NEW(coll_dimmnet_request_t);
        if (NULL == r && j->deferred) {
            job_discard(j);         /* not started anywhere: nothing to wait */
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        if (NULL == r) {
            rc = DN_ENOMEM;         /* the engine's request still runs: wait it */
        } else {
            OMPI_REQUEST_INIT(&r->super, false);
            r->super.req_type = OMPI_REQUEST_COLL;
            r->super.req_state = OMPI_REQUEST_ACTIVE;
            r->super.req_status = ompi_status_empty;
            r->super.req_free = request_free;
            r->super.req_cancel = request_cancel;
            r->super.req_mpi_object.comm = comm;
            r->job = *j;
            r->module = M(module);
            OBJ_RETAIN(module);
            r->next = NULL;
            r->fwd = M(module)->call;
            r->fwd_rq = NULL;
            r->fail = DN_OK;
            pthread_mutex_lock(&pending_lock);
            *pending_tail = r;
            pending_tail = &r->next;
            pthread_mutex_unlock(&pending_lock);
            *request = &r->super;
            return OMPI_SUCCESS;
        }
    }
    for (unsigned turns = 1; DN_OK == rc && !done; turns++) {
        rc = ops->test(j->req, &done);
        if (DN_OK == rc && !done) {
            /* MPI's other traffic must progress while this rank waits (a
             * peer's send to a receive it posted before may be what lets
             * that peer reach this collective), but a turn of Open MPI's
             * progress is a full turn of the provider (its queues and
             * every node's mailbox): none in the first COLL_WAIT_GRACE
             * turns, then one in COLL_WAIT_PROGRESS turns; the node's
             * idle between them. */
            if (turns >= COLL_WAIT_GRACE && 0 == turns % COLL_WAIT_PROGRESS) {
                opal_progress();
            } else {
                (void) ops->idle();
            }
        }
    }
    job_end(j);
    if (DN_OK != rc) {
        opal_output(0, "coll/dimmnet: the engine failed %s: dn status %d", what, rc);
        return OMPI_ERROR;
    }
    return OMPI_SUCCESS;
}

/* (the start, an argument, sets job.req) */
#define RUN(rc, job) run(rc, &(job), request, comm, module, __func__)

/*
 * The non-blocking join. A communicator's first collective may be a
 * non-blocking one, and MPI lets a rank reach its MPI_Ibarrier only
 * after a message the others send once theirs has returned: a join that
 * waited for every rank inside it would hang there. So the records are
 * exchanged with the module below's non-blocking allgather (libnbc),
 * and the call, and every later call of the communicator until the
 * exchange is done, is kept as it was made (prepared, not started: its
 * engine call in job.start, Open MPI's in the request's fwd). Once the
 * exchange is done (seen by coll_progress, or by a blocking call, which
 * waits for it), join_finish creates the engine's communicator and starts
 * the kept calls on it in their order, the same on every rank; if the
 * join failed (some rank had no slot), on the module below instead.
 */
static char join_pending_tag;
#define JOIN_PENDING ((void *) &join_pending_tag)

static int engine_call(void *c, const struct engine_start *s, void **req)
{
    switch (s->op) {
    case COLL_DIMMNET_OP_ibarrier:
        return ops->ibarrier(c, req);
    case COLL_DIMMNET_OP_ibcast:
        return ops->ibcast(c, s->rbuf, s->count, s->type, s->root, req);
    case COLL_DIMMNET_OP_ireduce:
        return ops->ireduce(c, s->sbuf, s->rbuf, s->count, s->type, s->rop, s->root, req);
    case COLL_DIMMNET_OP_iallreduce:
        return ops->iallreduce(c, s->sbuf, s->rbuf, s->count, s->type, s->rop, req);
    case COLL_DIMMNET_OP_iallgather:
        return ops->iallgather(c, s->sbuf, s->rbuf, s->count, s->type, req);
    case COLL_DIMMNET_OP_ialltoall:
        return ops->ialltoall(c, s->sbuf, s->rbuf, s->count, s->type, req);
    case COLL_DIMMNET_OP_ireduce_scatter_block:
        return ops->ireduce_scatter(c, s->sbuf, s->rbuf, s->count, s->type, s->rop, req);
    default:
        return DN_EINVAL;
    }
}

/* Start @s on @c now, or keep it in @j while the join is pending. */
static int start(struct job *j, void *c, struct engine_start s)
{
    if (JOIN_PENDING == c) {
        j->start = s;
        j->deferred = true;
        return DN_OK;
    }
    return engine_call(c, &s, &j->req);
}

/* The exchange is done: the engine's communicator (or forward forever),
 * then every kept call of @m started, oldest first. */
static void join_finish(mca_coll_dimmnet_module_t *m, bool locked)
{
    coll_dimmnet_request_t *r;

    ompi_request_free(&m->join_rq);
    join_create(m, locked);
    if (!locked) {
        pthread_mutex_lock(&pending_lock);
    }
    for (r = pending; NULL != r; r = r->next) {
        if (r->module != m || !r->job.deferred) {
            continue;
        }
        r->job.deferred = false;
        if (1 == m->engine_state) {
            r->fail = engine_call(m->engine_comm, &r->job.start, &r->job.req);
        } else {
            /* Counted as the engine's when it was kept: it is not. */
            __atomic_fetch_sub(&mca_coll_dimmnet_component.served[r->fwd.op], 1,
                               __ATOMIC_RELAXED);
            job_discard(&r->job);
            if (OMPI_SUCCESS != coll_dimmnet_forward(m, &r->fwd, r->super.req_mpi_object.comm,
                                                     &r->fwd_rq)) {
                r->fwd_rq = NULL;
                r->fail = DN_EINVAL;
            }
        }
    }
    if (!locked) {
        pthread_mutex_unlock(&pending_lock);
    }
}

/* A non-blocking first collective: the records' exchange begun, the call
 * to be kept (JOIN_PENDING); NULL: forward (forever, or this time only
 * if the module below has no non-blocking allgather). */
static void *join_start(struct ompi_communicator_t *comm, mca_coll_dimmnet_module_t *m)
{
    int rc;

    if (NULL == m->prev_iallgather) {
        return NULL;            /* (enable requires it: never) */
    }
    if (!join_records(comm, m)) {
        return NULL;
    }
    progress_register();
    m->depth++;                 /* its algorithm's calls go below, not here */
    rc = m->prev_iallgather(&m->join_mine, sizeof(m->join_mine), MPI_BYTE, m->join_all,
                            sizeof(m->join_mine), MPI_BYTE, comm, &m->join_rq,
                            m->prev_iallgather_module);
    m->depth--;
    if (OMPI_SUCCESS != rc) {
        ompi_mpi_abort(comm, rc);
    }
    m->engine_state = 2;
    return JOIN_PENDING;
}

/* The engine's communicator for a call (JOIN_PENDING: a non-blocking
 * call to keep until the join is done; NULL: forward). */
static void *engine_for(struct ompi_communicator_t *comm, mca_coll_base_module_t *module,
                        ompi_request_t **request)
{
    mca_coll_dimmnet_module_t *m = M(module);

    if (NULL != request) {
        if (0 == m->engine_state) {
            return join_start(comm, m);
        }
        if (2 == m->engine_state && !REQUEST_COMPLETE(m->join_rq)) {
            return JOIN_PENDING;
        }
    }
    return engine_comm(comm, m);        /* a join done: its kept calls start first */
}

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

/* A collective of nothing, done at once: a blocking form returns, a
 * non-blocking one gets a request already complete. */
static int nothing(ompi_request_t **request)
{
    if (NULL != request) {
        *request = &ompi_request_empty;
    }
    return OMPI_SUCCESS;
}

static int s_barrier(struct ompi_communicator_t *comm, ompi_request_t **request,
                     mca_coll_base_module_t *module)
{
    void *c = engine_for(comm, module, request);
    struct job job = JOB_INIT;

    if (NULL == c) {
        return COLL_DIMMNET_DECLINED;
    }
    return RUN(start(&job, c, (struct engine_start) { .op = COLL_DIMMNET_OP_ibarrier }), job);
}

static int s_bcast(void *buff, int count, struct ompi_datatype_t *dtype, int root,
                   struct ompi_communicator_t *comm, ompi_request_t **request,
                   mca_coll_base_module_t *module)
{
    void *c = engine_for(comm, module, request);
    struct job job = JOB_INIT;
    size_t bytes;
    char *tmp;

    if (NULL == c) {
        return COLL_DIMMNET_DECLINED;
    }
    char *b = as_bytes(buff, count, dtype, &bytes, &tmp, ompi_comm_rank(comm) == root);
    if (0 == bytes) {
        free(tmp);
        return nothing(request);
    }
    if (NULL == b) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (ompi_comm_rank(comm) != root) {
        job_unpack(&job, tmp, bytes, buff, count, dtype);
    } else {
        job.tmp[0] = tmp;
    }
    return RUN(start(&job, c, (struct engine_start) {
                   .op = COLL_DIMMNET_OP_ibcast, .rbuf = b, .count = bytes, .type = DN_COLL_BYTE,
                   .root = (unsigned) root }), job);
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

static int s_reduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                    struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                    ompi_request_t **request, mca_coll_base_module_t *module)
{
    int t = dn_type(dtype), o = dn_op(op);
    struct job job = JOB_INIT;
    void *c;
    size_t sz;

    if (t < 0 || o < 0 || NULL == (c = engine_for(comm, module, request))) {
        return COLL_DIMMNET_DECLINED;
    }
    if (0 == count) {
        return nothing(request);
    }
    ompi_datatype_type_size(dtype, &sz);
    const void *in = ompi_comm_rank(comm) == root
                   ? reduce_input(sbuf, rbuf, sz * count, &job.tmp[0]) : sbuf;
    void *out = rbuf;
    if (ompi_comm_rank(comm) != root) {       /* rbuf is not significant here */
        out = job.tmp[1] = malloc(sz * count);
    }
    if (NULL == in || NULL == out) {
        job_end(&job);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    return RUN(start(&job, c, (struct engine_start) {
                   .op = COLL_DIMMNET_OP_ireduce, .sbuf = in, .rbuf = out, .count = (size_t) count,
                   .type = t, .rop = o, .root = (unsigned) root }), job);
}

static int s_allreduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                       struct ompi_op_t *op, struct ompi_communicator_t *comm,
                       ompi_request_t **request, mca_coll_base_module_t *module)
{
    int t = dn_type(dtype), o = dn_op(op);
    struct job job = JOB_INIT;
    void *c;
    size_t sz;

    if (t < 0 || o < 0 || NULL == (c = engine_for(comm, module, request))) {
        return COLL_DIMMNET_DECLINED;
    }
    if (0 == count) {
        return nothing(request);
    }
    ompi_datatype_type_size(dtype, &sz);
    const void *in = reduce_input(sbuf, rbuf, sz * count, &job.tmp[0]);
    if (NULL == in) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    return RUN(start(&job, c, (struct engine_start) {
                   .op = COLL_DIMMNET_OP_iallreduce, .sbuf = in, .rbuf = rbuf,
                   .count = (size_t) count, .type = t, .rop = o }), job);
}

static int s_reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                  struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                  struct ompi_communicator_t *comm, ompi_request_t **request,
                                  mca_coll_base_module_t *module)
{
    int t = dn_type(dtype), o = dn_op(op);
    struct job job = JOB_INIT;
    void *c;
    size_t sz;

    if (t < 0 || o < 0 || NULL == (c = engine_for(comm, module, request))) {
        return COLL_DIMMNET_DECLINED;
    }
    if (0 == rcount) {
        return nothing(request);
    }
    ompi_datatype_type_size(dtype, &sz);
    /* MPI_IN_PLACE: the input is all of rbuf (size * rcount elements). */
    const void *in = reduce_input(sbuf, rbuf, sz * rcount * ompi_comm_size(comm), &job.tmp[0]);
    if (NULL == in) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    return RUN(start(&job, c, (struct engine_start) {
                   .op = COLL_DIMMNET_OP_ireduce_scatter_block, .sbuf = in, .rbuf = rbuf,
                   .count = (size_t) rcount, .type = t, .rop = o }), job);
}

/* allgather and alltoall: bytes of the send signature (MPI makes
 * scount x sdtype of every rank match rcount x rdtype). */
static int s_gather_like(bool to_all, const void *sbuf, int scount,
                         struct ompi_datatype_t *sdtype, void *rbuf, int rcount,
                         struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
                         ompi_request_t **request, mca_coll_base_module_t *module)
{
    void *c = engine_for(comm, module, request);
    int n = ompi_comm_size(comm), me = ompi_comm_rank(comm);
    struct job job = JOB_INIT;
    size_t block, total;
    char *rtmp;
    const char *in;

    if (NULL == c) {
        return COLL_DIMMNET_DECLINED;
    }
    char *out = as_bytes(rbuf, rcount * n, rdtype, &total, &rtmp, MPI_IN_PLACE == sbuf);
    block = total / n;
    if (0 == block) {
        free(rtmp);
        return nothing(request);
    }
    if (NULL == out) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (MPI_IN_PLACE == sbuf) {              /* a copy: the engine's input */
        char *copy = job.tmp[0] = malloc(to_all ? total : block);
        if (NULL != copy) {
            memcpy(copy, to_all ? out : out + me * block, to_all ? total : block);
        }
        in = copy;
    } else {
        size_t sbytes;
        in = as_bytes(sbuf, to_all ? scount * n : scount, sdtype, &sbytes, &job.tmp[0], true);
    }
    if (NULL == in) {
        free(rtmp);
        job_end(&job);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    job_unpack(&job, rtmp, total, rbuf, rcount * n, rdtype);
    return RUN(start(&job, c, (struct engine_start) {
                   .op = to_all ? COLL_DIMMNET_OP_ialltoall : COLL_DIMMNET_OP_iallgather,
                   .sbuf = in, .rbuf = out, .count = block, .type = DN_COLL_BYTE }), job);
}

/* The table's entries: each blocking form is its non-blocking one with no
 * request (the core waits). */
static int e_barrier(struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    return s_barrier(comm, NULL, module);
}

static int e_ibarrier(struct ompi_communicator_t *comm, ompi_request_t **request,
                      mca_coll_base_module_t *module)
{
    return s_barrier(comm, request, module);
}

static int e_bcast(void *buff, int count, struct ompi_datatype_t *dtype, int root,
                   struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    return s_bcast(buff, count, dtype, root, comm, NULL, module);
}

static int e_ibcast(void *buff, int count, struct ompi_datatype_t *dtype, int root,
                    struct ompi_communicator_t *comm, ompi_request_t **request,
                    mca_coll_base_module_t *module)
{
    return s_bcast(buff, count, dtype, root, comm, request, module);
}

static int e_reduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                    struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                    mca_coll_base_module_t *module)
{
    return s_reduce(sbuf, rbuf, count, dtype, op, root, comm, NULL, module);
}

static int e_ireduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                     struct ompi_op_t *op, int root, struct ompi_communicator_t *comm,
                     ompi_request_t **request, mca_coll_base_module_t *module)
{
    return s_reduce(sbuf, rbuf, count, dtype, op, root, comm, request, module);
}

static int e_allreduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                       struct ompi_op_t *op, struct ompi_communicator_t *comm,
                       mca_coll_base_module_t *module)
{
    return s_allreduce(sbuf, rbuf, count, dtype, op, comm, NULL, module);
}

static int e_iallreduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                        struct ompi_op_t *op, struct ompi_communicator_t *comm,
                        ompi_request_t **request, mca_coll_base_module_t *module)
{
    return s_allreduce(sbuf, rbuf, count, dtype, op, comm, request, module);
}

static int e_reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                  struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                  struct ompi_communicator_t *comm,
                                  mca_coll_base_module_t *module)
{
    return s_reduce_scatter_block(sbuf, rbuf, rcount, dtype, op, comm, NULL, module);
}

static int e_ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                   struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                   struct ompi_communicator_t *comm, ompi_request_t **request,
                                   mca_coll_base_module_t *module)
{
    return s_reduce_scatter_block(sbuf, rbuf, rcount, dtype, op, comm, request, module);
}

static int e_allgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                       void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                       struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    return s_gather_like(false, sbuf, scount, sdtype, rbuf, rcount, rdtype, comm, NULL, module);
}

static int e_iallgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                        void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                        struct ompi_communicator_t *comm, ompi_request_t **request,
                        mca_coll_base_module_t *module)
{
    return s_gather_like(false, sbuf, scount, sdtype, rbuf, rcount, rdtype, comm, request,
                         module);
}

static int e_alltoall(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                      void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                      struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    return s_gather_like(true, sbuf, scount, sdtype, rbuf, rcount, rdtype, comm, NULL, module);
}

static int e_ialltoall(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                       void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                       struct ompi_communicator_t *comm, ompi_request_t **request,
                       mca_coll_base_module_t *module)
{
    return s_gather_like(true, sbuf, scount, sdtype, rbuf, rcount, rdtype, comm, request,
                         module);
}

/* The run-time choice's clock: the board's, modeled, when the cluster
 * keeps host sync (looked up at the first trial, after MPI_Init opened
 * the provider's domain), else the wall clock. */
static int e_clock(uint64_t *ns)
{
    static fi_dimmnet_clock_fn modeled;
    static int looked;
    struct timespec ts;

    if (!looked && NULL != ns) {
        modeled = fi_dimmnet_modeled_clock();
        looked = 1;
    }
    if (NULL != modeled) {
        if (NULL != ns && 0 != modeled(ns, NULL)) {
            *ns = 0;
        }
        return 1;
    }
    if (NULL != ns) {
        clock_gettime(CLOCK_MONOTONIC, &ts);
        *ns = (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
    }
    return 0;
}

/* reduce_scatter (counts a rank) is forwarded: the engine's
 * reduce-scatter gives every rank the same count. */
const struct coll_dimmnet_backend coll_dimmnet_backend = {
    .name = "engine",
    .clock = e_clock,
    .barrier = e_barrier,
    .bcast = e_bcast,
    .reduce = e_reduce,
    .allreduce = e_allreduce,
    .allgather = e_allgather,
    .alltoall = e_alltoall,
    .reduce_scatter_block = e_reduce_scatter_block,
    .ibarrier = e_ibarrier,
    .ibcast = e_ibcast,
    .ireduce = e_ireduce,
    .iallreduce = e_iallreduce,
    .iallgather = e_iallgather,
    .ialltoall = e_ialltoall,
    .ireduce_scatter_block = e_ireduce_scatter_block,
};

/*
 * fi_dimmnet_coll_ops: the shim's collectives (dn_coll_*) on the process's
 * node, for a coll component of an MPI library running over this provider
 * (fi_dimmnet.h). Each entry takes the provider's lock: the engine shares
 * the node with the endpoints, and MPI_THREAD_MULTIPLE callers may enter
 * at once.
 */
#include "dimmnet.h"
#include "fi_dimmnet.h"

#define NODE_OR(err) dn_node *n = dnf_coll_node(); if (!n) return (err)

/*
 * One call into the engine on a communicator or request of the node:
 * -FI_ENODEV once the node is gone (its communicators with it: MPI_Finalize
 * closes the domain around the time it frees communicators), else @call
 * with the shim charging its own instructions. The provider's DNF_SELF_*
 * counts cover its data path, not the collectives' turns, frames and sends.
 */
#define ENGINE(call) \
    ({ \
        dnf_enter(); \
        NODE_OR(-FI_ENODEV); \
        dn_host_self(n, 1); \
        int rc_ = (call); \
        dn_host_self(n, 0); \
        rc_; \
    })

static void c_config_default(struct dn_coll_config *cfg)
{
    dnf_enter();
    dn_node *n = dnf_coll_node();
    if (n) {
        dn_coll_config_default(n, cfg);
    }
}

static int c_join_prepare(struct dn_coll_join *mine)
{
    dnf_enter();
    NODE_OR(-FI_ENODEV);
    return dn_coll_join_prepare(n, mine);
}

static void c_join_cancel(const struct dn_coll_join *mine)
{
    dnf_enter();
    dn_node *n = dnf_coll_node();
    if (n) {
        dn_coll_join_cancel(n, mine);
    }
}

static int c_create_joined(const struct dn_coll_config *cfg,
                           const struct dn_coll_join *all, void **comm)
{
    dnf_enter();
    NODE_OR(-FI_ENODEV);
    return dn_coll_comm_create_joined(n, cfg, all, (dn_coll_comm **)comm);
}

static void c_comm_free(void *comm)
{
    dnf_enter();
    if (dnf_coll_node()) {      /* else the node, and the area with it, is gone */
        dn_coll_comm_free(comm);
    }
}

static int c_ibarrier(void *c, void **req)
{
    return ENGINE(dn_coll_ibarrier(c, (dn_coll_req **)req));
}

static int c_ibcast(void *c, void *buf, size_t count, int type, unsigned root, void **req)
{
    return ENGINE(dn_coll_ibcast(c, buf, count, type, root, (dn_coll_req **)req));
}

static int c_ireduce(void *c, const void *sbuf, void *rbuf, size_t count, int type,
                     int op, unsigned root, void **req)
{
    return ENGINE(dn_coll_ireduce(c, sbuf, rbuf, count, type, op, root,
                                  (dn_coll_req **)req));
}

static int c_iallreduce(void *c, const void *sbuf, void *rbuf, size_t count, int type,
                        int op, void **req)
{
    return ENGINE(dn_coll_iallreduce(c, sbuf, rbuf, count, type, op, (dn_coll_req **)req));
}

static int c_iallgather(void *c, const void *sbuf, void *rbuf, size_t count, int type,
                        void **req)
{
    return ENGINE(dn_coll_iallgather(c, sbuf, rbuf, count, type, (dn_coll_req **)req));
}

static int c_ialltoall(void *c, const void *sbuf, void *rbuf, size_t count, int type,
                       void **req)
{
    return ENGINE(dn_coll_ialltoall(c, sbuf, rbuf, count, type, (dn_coll_req **)req));
}

static int c_ireduce_scatter(void *c, const void *sbuf, void *rbuf, size_t count,
                             int type, int op, void **req)
{
    return ENGINE(dn_coll_ireduce_scatter(c, sbuf, rbuf, count, type, op,
                                          (dn_coll_req **)req));
}

static int c_test(void *req, int *done)
{
    return ENGINE(dn_coll_test(req, done));
}

static int c_progress(void *c)
{
    return ENGINE(dn_coll_progress(c));
}

/* Where the engine waits (its start may wait for the selection's
 * agreement; a blocking call, a join or a free for their end): every
 * COLL_IDLE_EP_TURN-th idle turn, every endpoint of the node gets its
 * turn, so that a peer's message that needs this process (a long send to
 * a receive posted before the collective) finishes meanwhile; then the
 * node's idle. Not every turn: an endpoint's turn loads its queues and
 * every node's mailbox (~1.5 us of the paper's host), several engine
 * turns' worth. */
#define COLL_IDLE_EP_TURN 16u
int dnf_coll_idle(void *arg)
{
    static unsigned turns;

    (void)arg;
    dnf_enter();
    NODE_OR(-FI_ENODEV);
    if (++turns % COLL_IDLE_EP_TURN == 0) {
        /* The endpoints' turns charge as the provider's own path does
         * (its counts include the shim's): the shim's self-charges off
         * for them, on for the idle turn, as in the rest of the wait. */
        dn_host_self(n, 0);
        dnf_node_progress();
        dn_host_self(n, 1);
    }
    return dn_idle(n);
}

/*
 * A collective is done at a member before its peers are: one may still
 * need a frame written again or a credit. Open MPI's mtl ofi waits for a
 * blocking send by polling the CQ itself (not opal_progress, whose
 * callback gives coll/dimmnet's turns), so a rank that left an engine
 * collective for a point-to-point exchange with a peer still inside it
 * never served the peer, and both waited for good (under packet loss,
 * once the run-time choice put Open MPI's own algorithm after the
 * engine's). So empty polls give the collectives a turn; not every one:
 * a turn is COLL_TURN_INSNS, and its scan for requests a load a peer.
 */
#define DNF_POLL_COLL_EVERY 64u
void dnf_poll_idle(dn_node *node)
{
    static unsigned polls;

    dnf_enter();
    if (++polls % DNF_POLL_COLL_EVERY == 0) {
        dn_host_self(node, 1);
        dn_coll_progress_node(node);
        dn_host_self(node, 0);
    }
    dn_idle(node);
}

/* coll/dimmnet's blocking waits: the node's idle alone; the component
 * gives Open MPI's traffic (the endpoints with it) opal_progress turns. */
static int c_idle(void)
{
    return ENGINE(dn_idle(n));
}

static struct fi_dimmnet_coll_ops coll_ops = {
    .version = FI_DIMMNET_COLL_VERSION,
    .join_size = sizeof(struct dn_coll_join),
    .config_default = c_config_default,
    .join_prepare = c_join_prepare,
    .join_cancel = c_join_cancel,
    .create_joined = c_create_joined,
    .comm_free = c_comm_free,
    .ibarrier = c_ibarrier,
    .ibcast = c_ibcast,
    .ireduce = c_ireduce,
    .iallreduce = c_iallreduce,
    .iallgather = c_iallgather,
    .ialltoall = c_ialltoall,
    .ireduce_scatter = c_ireduce_scatter,
    .test = c_test,
    .progress = c_progress,
    .idle = c_idle,
};

__attribute__((visibility("default")))
const struct fi_dimmnet_coll_ops *fi_dimmnet_coll_ops(unsigned version)
{
    dnf_enter();
    dn_node *n = dnf_coll_node();
    unsigned ports = 1;

    if (version != FI_DIMMNET_COLL_VERSION || !n) {
        return NULL;
    }
    /* The address the shim's communicators name this process by. */
    unsigned port = dn_port(n, &ports);
    coll_ops.addr = (uint16_t)(dn_node_id(n) | port << 12);
    coll_ops.ports = ports;
    struct dn_coll_config cfg;
    dn_coll_config_default(n, &cfg);
    coll_ops.nodes = ports ? cfg.nmembers / ports : cfg.nmembers;
    return &coll_ops;
}

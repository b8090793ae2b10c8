/*
 * An endpoint's critical error on its EQ (fi_endpoint(3): "Critical
 * errors are reported through the event queue associated with the EP"):
 * each node kills its own board (its QEMU, through the launcher's
 * DIMMNET_RUN_DIR/nodeN.pid) and sends (the host bus is used by an
 * operation only: the NIC's memory is read without it); the send fails
 * with FI_EIO, and by then the EQ has the error entry, once: fid the
 * endpoint, context the endpoint's, err FI_EIO, a prov_errno
 * fi_eq_strerror names.
 *   node 0: the endpoint bound to an EQ of its own and the domain to
 *           another: the endpoint's gets it, the domain's nothing;
 *   node 1: only the domain bound to an EQ (FI_WAIT_FD): it gets it, and
 *           its fd becomes readable.
 * Before the loss, progress reports nothing; after it the endpoint still
 * closes.
 *
 *   conf_board_loss        (under dimmnet-cluster -n 2)
 */
#include <poll.h>
#include "conf_util.h"
#include "../common/board_kill.h"

int main(void)
{
    const char *id = getenv("DIMMNET_NODE_ID");
    unsigned me = id ? (unsigned)atoi(id) : 0;
    struct fi_info *info = conf_info();
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    struct fid_eq *eq_dom, *eq_ep = NULL, *eq_want;
    struct fi_eq_attr eq_attr = { .wait_obj = FI_WAIT_FD };
    struct fi_av_attr av_attr = { .type = FI_AV_MAP };
    struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_TAGGED };
    struct fi_eq_err_entry err;
    struct fi_eq_entry e;
    struct fi_cq_tagged_entry ce;
    uint32_t event;
    char name[64];
    size_t len = sizeof(name);
    fi_addr_t self;
    int epctx, fd = -1;

    MUST(fi_fabric(info->fabric_attr, &fabric, NULL));
    MUST(fi_eq_open(fabric, &eq_attr, &eq_dom, NULL));
    MUST(fi_domain(fabric, info, &domain, NULL));
    MUST(fi_domain_bind(domain, &eq_dom->fid, 0));
    MUST(fi_av_open(domain, &av_attr, &av, NULL));
    MUST(fi_cq_open(domain, &cq_attr, &cq, NULL));
    MUST(fi_endpoint(domain, info, &ep, &epctx));
    if (me == 0) {
        MUST(fi_eq_open(fabric, &eq_attr, &eq_ep, NULL));
        MUST(fi_ep_bind(ep, &eq_ep->fid, 0));
    }
    eq_want = me == 0 ? eq_ep : eq_dom;
    MUST(fi_ep_bind(ep, &av->fid, 0));
    MUST(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV));
    MUST(fi_enable(ep));
    MUST(fi_getname(&ep->fid, name, &len));
    EXPECT(fi_av_insert(av, name, 1, &self, 0, NULL), 1);
    EXPECT(fi_control(&eq_want->fid, FI_GETWAIT, &fd), 0);

    /* Healthy: nothing to report however long progress runs. */
    for (int i = 0; i < 200; i++) {
        EXPECT(fi_cq_read(cq, &ce, 1), -FI_EAGAIN);
    }
    EXPECT(fi_eq_read(eq_want, &event, &e, sizeof(e), 0), -FI_EAGAIN);

    if (board_kill(me)) {
        return 1;
    }
    /* The NIC's memory is read without the host bus, so the loss shows when
     * an operation next uses it: a send, failing at once or through the CQ
     * (FI_EIO); the EQ has the error by then. */
    uint64_t v = 1;
    struct fi_context sctx;
    int64_t t0 = conf_now_ms(), deadline = t0 + 20000;
    ssize_t n = fi_tsend(ep, &v, sizeof(v), NULL, self, 1, &sctx);

    if (n == 0) {
        struct fi_cq_err_entry cerr = { 0 };

        while ((n = fi_cq_read(cq, &ce, 1)) == -FI_EAGAIN && conf_now_ms() < deadline) {
        }
        EXPECT(n, -FI_EAVAIL);
        EXPECT(fi_cq_readerr(cq, &cerr, 0), 1);
        CHECK(cerr.op_context == &sctx);
        CHECK_EQ(cerr.err, FI_EIO);
    } else {
        EXPECT(n, -FI_EIO);
    }
    printf("node %u: send failed after %lld ms\n", me, (long long)(conf_now_ms() - t0));
    n = fi_eq_read(eq_want, &event, &e, sizeof(e), 0);
    EXPECT(n, -FI_EAVAIL);
    struct pollfd p = { .fd = fd, .events = POLLIN };
    CHECK_MSG(poll(&p, 1, 0) == 1, "node %u: EQ fd not readable with an error waiting", me);
    memset(&err, 0, sizeof(err));
    EXPECT(fi_eq_readerr(eq_want, &err, 0), sizeof(err));
    CHECK(err.fid == &ep->fid);
    CHECK(err.context == &epctx);
    CHECK_EQ(err.err, FI_EIO);
    CHECK(err.prov_errno != 0);
    const char *s = fi_eq_strerror(eq_want, err.prov_errno, err.err_data, NULL, 0);
    CHECK(s && *s);
    printf("node %u: EQ error: %s (%s)\n", me, fi_strerror(err.err), s ? s : "");
    /* Once only, however many operations fail; and not on the domain's EQ
     * when the endpoint has one. */
    (void)fi_tsend(ep, &v, sizeof(v), NULL, self, 2, &sctx);   /* fails too */
    for (int i = 0; i < 100; i++) {
        struct fi_cq_err_entry cerr;

        if (fi_cq_read(cq, &ce, 1) == -FI_EAVAIL) {
            fi_cq_readerr(cq, &cerr, 0);
        }
    }
    EXPECT(fi_eq_read(eq_want, &event, &e, sizeof(e), 0), -FI_EAGAIN);
    if (eq_ep) {
        EXPECT(fi_eq_read(eq_dom, &event, &e, sizeof(e), 0), -FI_EAGAIN);
    }
    EXPECT(fi_close(&ep->fid), 0);
    EXPECT(fi_close(&cq->fid), 0);
    EXPECT(fi_close(&av->fid), 0);
    EXPECT(fi_close(&domain->fid), 0);
    if (eq_ep) {
        EXPECT(fi_close(&eq_ep->fid), 0);
    }
    EXPECT(fi_close(&eq_dom->fid), 0);
    EXPECT(fi_close(&fabric->fid), 0);
    fi_freeinfo(info);
    printf("node %u: conf_board_loss: %s\n", me, check_failures ? "FAILED" : "ok");
    return check_failures ? 1 : 0;
}

/*
 * Objects bound to an event queue, as fi_endpoint(3), fi_av(3) and
 * fi_domain(3) describe (the domain is the process's node):
 *   ep_bind      fi_ep_bind of an EQ: flags refused (-FI_EBADFLAGS), taken
 *                once (a second: -FI_EINVAL); the EQ will not close while
 *                bound (-FI_EBUSY), and closes once the endpoint is gone
 *   av_async     an AV opened with FI_EVENT: an insertion before an EQ is
 *                bound fails -FI_ENOEQ; bound, fi_av_insert returns 0 and
 *                the EQ gets an error entry for the bad address (fid: the
 *                AV, context: the call's, data: its index, err
 *                FI_EINVAL), then one FI_AV_COMPLETE (data: 2 inserted),
 *                which fi_eq_sread finds; an empty insertion still
 *                completes (data 0); FI_SYNC_ERR is for synchronous AVs
 *                only (-FI_EINVAL); the addresses inserted so carry a
 *                message to the endpoint itself
 *   av_sync_err  a synchronous AV with FI_SYNC_ERR: 0 / FI_EINVAL per
 *                address in the context's ints, the count returned;
 *                FI_MORE is accepted, FI_AV_USER_ID is not (-FI_EBADFLAGS)
 *   domain_bind  fi_domain_bind of an EQ: taken once, FI_REG_MR refused
 *                (no memory registration: -FI_ENOSYS); the EQ stays until
 *                the domain closes
 *
 *   conf_eq_bind [CASE]     (under dimmnet-cluster -n 2: each node on its own;
 *                           a message to itself needs the switch)
 */
#include "conf_util.h"

static struct fi_info *info;
static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_eq *eq;

static void setup(void)
{
    struct fi_eq_attr attr = { .wait_obj = FI_WAIT_UNSPEC };

    info = conf_info();
    MUST(fi_fabric(info->fabric_attr, &fabric, NULL));
    MUST(fi_eq_open(fabric, &attr, &eq, NULL));
    MUST(fi_domain(fabric, info, &domain, NULL));
}

static void teardown(void)
{
    EXPECT(fi_close(&domain->fid), 0);
    EXPECT(fi_close(&eq->fid), 0);
    EXPECT(fi_close(&fabric->fid), 0);
    fi_freeinfo(info);
}

static void test_ep_bind(void)
{
    struct fi_av_attr av_attr = { .type = FI_AV_MAP };
    struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_TAGGED };
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;

    MUST(fi_av_open(domain, &av_attr, &av, NULL));
    MUST(fi_cq_open(domain, &cq_attr, &cq, NULL));
    MUST(fi_endpoint(domain, info, &ep, NULL));
    EXPECT(fi_ep_bind(ep, &eq->fid, FI_TRANSMIT), -FI_EBADFLAGS);
    EXPECT(fi_ep_bind(ep, &eq->fid, 0), 0);
    EXPECT(fi_ep_bind(ep, &eq->fid, 0), -FI_EINVAL);
    EXPECT(fi_ep_bind(ep, &av->fid, 0), 0);
    EXPECT(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV), 0);
    EXPECT(fi_enable(ep), 0);
    EXPECT(fi_close(&eq->fid), -FI_EBUSY);
    EXPECT(fi_close(&ep->fid), 0);
    EXPECT(fi_close(&cq->fid), 0);
    EXPECT(fi_close(&av->fid), 0);
    /* Unbound now: the EQ could close (teardown does it). */
}

/* Our own endpoint's name, from an endpoint opened for it. */
static void own_name(struct fid_ep *ep, char *name, size_t *len)
{
    MUST(fi_getname(&ep->fid, name, len));
}

static void test_av_async(void)
{
    struct fi_av_attr av_attr = { .type = FI_AV_TABLE, .flags = FI_EVENT };
    struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_TAGGED };
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    char name[64], addrs[3][64];
    size_t len = sizeof(name);
    fi_addr_t fa[3] = { 7, 7, 7 };
    struct fi_context ictx, ictx2, rctx, sctx;
    struct fi_eq_err_entry err;
    struct fi_eq_entry e;
    uint32_t event = 0;
    int statuses[3];

    MUST(fi_av_open(domain, &av_attr, &av, NULL));
    MUST(fi_cq_open(domain, &cq_attr, &cq, NULL));
    MUST(fi_endpoint(domain, info, &ep, NULL));
    own_name(ep, name, &len);
    memcpy(addrs[0], name, len);
    memset(addrs[1], 0x5a, len);                /* not a dimmnet address */
    memcpy(addrs[2], name, len);
    /* fi_av(3): every address is len bytes apart (addr_format's size). */
    char packed[3 * 64];
    for (unsigned i = 0; i < 3; i++) {
        memcpy(packed + i * len, addrs[i], len);
    }

    EXPECT(fi_av_insert(av, packed, 1, fa, 0, &ictx), -FI_ENOEQ);
    EXPECT(fi_av_bind(av, &eq->fid, FI_TRANSMIT), -FI_EBADFLAGS);
    EXPECT(fi_av_bind(av, &eq->fid, 0), 0);
    EXPECT(fi_av_bind(av, &eq->fid, 0), -FI_EINVAL);
    EXPECT(fi_eq_read(eq, &event, &e, sizeof(e), 0), -FI_EAGAIN);
    EXPECT(fi_av_insert(av, packed, 3, fa, FI_SYNC_ERR, statuses), -FI_EINVAL);

    EXPECT(fi_av_insert(av, packed, 3, fa, 0, &ictx), 0);
    CHECK(fa[0] != FI_ADDR_NOTAVAIL && fa[2] != FI_ADDR_NOTAVAIL && fa[0] != fa[2]);
    CHECK_EQ(fa[1], FI_ADDR_NOTAVAIL);
    /* First the failed address, out of band... */
    EXPECT(fi_eq_read(eq, &event, &e, sizeof(e), 0), -FI_EAVAIL);
    memset(&err, 0, sizeof(err));
    EXPECT(fi_eq_readerr(eq, &err, 0), sizeof(err));
    CHECK(err.fid == &av->fid);
    CHECK(err.context == &ictx);
    CHECK_EQ(err.data, 1);
    CHECK_EQ(err.err, FI_EINVAL);
    CHECK(fi_eq_strerror(eq, err.prov_errno, err.err_data, NULL, 0) != NULL);
    /* ...then the insertion's completion: 2 went in. */
    memset(&e, 0, sizeof(e));
    EXPECT(fi_eq_sread(eq, &event, &e, sizeof(e), 1000, 0), sizeof(e));
    CHECK_EQ(event, FI_AV_COMPLETE);
    CHECK(e.fid == &av->fid);
    CHECK(e.context == &ictx);
    CHECK_EQ(e.data, 2);
    EXPECT(fi_eq_read(eq, &event, &e, sizeof(e), 0), -FI_EAGAIN);
    /* Nothing to insert: still one completion. */
    EXPECT(fi_av_insert(av, packed, 0, NULL, 0, &ictx2), 0);
    EXPECT(fi_eq_read(eq, &event, &e, sizeof(e), 0), sizeof(e));
    CHECK_EQ(event, FI_AV_COMPLETE);
    CHECK(e.context == &ictx2);
    CHECK_EQ(e.data, 0);

    /* The addresses work: a message to ourselves through fa[2]. */
    uint64_t out = 0x1122334455667788ull, in = 0;
    struct fi_cq_tagged_entry c[2];
    int got = 0;
    int64_t deadline = conf_now_ms() + 10000;
    MUST(fi_ep_bind(ep, &av->fid, 0));
    MUST(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV));
    MUST(fi_enable(ep));
    EXPECT(fi_trecv(ep, &in, sizeof(in), NULL, fa[0], 0x77, 0, &rctx), 0);
    EXPECT(fi_tsend(ep, &out, sizeof(out), NULL, fa[2], 0x77, &sctx), 0);
    while (got < 2 && conf_now_ms() < deadline) {
        ssize_t n = fi_cq_read(cq, &c[got], 1);

        if (n == 1) {
            got++;
        } else if (n != -FI_EAGAIN) {
            CHECK_MSG(0, "fi_cq_read: %zd", n);
            break;
        }
    }
    CHECK_EQ(got, 2);
    CHECK_EQ(in, out);

    EXPECT(fi_close(&eq->fid), -FI_EBUSY);      /* the AV holds it */
    EXPECT(fi_close(&av->fid), -FI_EBUSY);      /* the endpoint holds it */
    EXPECT(fi_close(&ep->fid), 0);
    EXPECT(fi_close(&cq->fid), 0);
    EXPECT(fi_close(&av->fid), 0);
}

static void test_av_sync_err(void)
{
    struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
    struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_TAGGED };
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    char name[64], packed[3 * 64];
    size_t len = sizeof(name);
    fi_addr_t fa[3];
    int st[3] = { -1, -1, -1 };

    MUST(fi_av_open(domain, &av_attr, &av, NULL));
    MUST(fi_cq_open(domain, &cq_attr, &cq, NULL));
    MUST(fi_endpoint(domain, info, &ep, NULL));
    own_name(ep, name, &len);
    memcpy(packed, name, len);
    memset(packed + len, 0x5a, len);
    memcpy(packed + 2 * len, name, len);
    EXPECT(fi_av_insert(av, packed, 3, fa, FI_SYNC_ERR | FI_MORE, st), 2);
    CHECK_EQ(st[0], 0);
    CHECK_EQ(st[1], FI_EINVAL);
    CHECK_EQ(st[2], 0);
    CHECK_EQ(fa[1], FI_ADDR_NOTAVAIL);
    EXPECT(fi_av_insert(av, packed, 1, fa, FI_AV_USER_ID, NULL), -FI_EBADFLAGS);
    /* A synchronous AV reports nothing on an EQ. */
    uint32_t event;
    struct fi_eq_entry e;
    EXPECT(fi_av_bind(av, &eq->fid, 0), 0);
    EXPECT(fi_av_insert(av, packed, 1, fa, 0, NULL), 1);
    EXPECT(fi_eq_read(eq, &event, &e, sizeof(e), 0), -FI_EAGAIN);
    EXPECT(fi_close(&ep->fid), 0);
    EXPECT(fi_close(&cq->fid), 0);
    EXPECT(fi_close(&av->fid), 0);
}

static void test_domain_bind(void)
{
    EXPECT(fi_domain_bind(domain, &eq->fid, FI_REG_MR), -FI_ENOSYS);
    EXPECT(fi_domain_bind(domain, &eq->fid, 0), 0);
    EXPECT(fi_domain_bind(domain, &eq->fid, 0), -FI_EINVAL);
    EXPECT(fi_close(&eq->fid), -FI_EBUSY);
    /* teardown closes the domain, then the EQ */
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "ep_bind", test_ep_bind },
        { "av_async", test_av_async },
        { "av_sync_err", test_av_sync_err },
        { "domain_bind", test_domain_bind },
        { NULL, NULL },
    };

    return run_cases(cases, argc, argv, 1, setup, teardown);
}

/*
 * No NULL operation (issue 27 item 1). libfabric's inline calls jump
 * through the provider's ops tables, most of them without a check, so an
 * empty slot is a crash in the application. For every object kind the
 * provider hands out (fabric, EQ, domain and its MR table, AV, CQ,
 * endpoint with its cm, msg, rma, tagged, atomic and collective tables):
 *   - the table is there, its size is the header's, and no slot is NULL;
 *   - every entry is called through its fi_*(3) call (fid-level ones
 *     without a call, tostr, through the table), and answers what its man
 *     page says: a valid result where the provider offers the operation, an
 *     error where it does not (-FI_ENOSYS; -FI_EOPNOTSUPP for
 *     collectives, as fi_collective(3) names);
 *   - the number of entries called is the table's number of slots, so a
 *     slot added to a table (a newer header) is not silently skipped.
 * Objects the provider does not offer (wait sets, poll sets, passive and
 * scalable endpoints, shared contexts, AV sets) are refused at their open,
 * which leaves the output untouched; counters and MRs (issue 24) are
 * walked as the rest.
 *
 *   conf_ops_walk      (under dimmnet-cluster -n 1: the domain is a node)
 */
#include <sys/uio.h>
#include "conf_util.h"

/* A table being walked: its slots, the entries called so far. */
struct walk {
    const char *name;
    size_t slots, called;
};

typedef void (*any_fn)(void);

static struct walk walk_begin(const char *name, const void *ops, size_t header_size)
{
    struct walk w = { name, 0, 0 };
    size_t size = 0;

    if (!ops) {
        CHECK_MSG(0, "%s: no table", name);
        return w;
    }
    memcpy(&size, ops, sizeof(size));
    CHECK_MSG(size == header_size, "%s: size %zu, the header's %zu", name, size,
              header_size);
    w.slots = (header_size - sizeof(size_t)) / sizeof(any_fn);
    for (size_t i = 0; i < w.slots; i++) {
        any_fn fn;

        memcpy(&fn, (const char *)ops + sizeof(size_t) + i * sizeof(fn), sizeof(fn));
        CHECK_MSG(fn != NULL, "%s: entry %zu is NULL", name, i);
    }
    return w;
}

static void walk_end(const struct walk *w)
{
    CHECK_MSG(w->called == w->slots, "%s: %zu entries called of %zu", w->name,
              w->called, w->slots);
    printf("%-20s %zu entries\n", w->name, w->slots);
}

/* One entry of table @w called: @call must answer @want. */
#define CALL(w, call, want)                                                  \
    do {                                                                     \
        (w).called++;                                                        \
        EXPECT(call, want);                                                  \
    } while (0)
/* One entry called, its answer checked by the caller. */
#define CALLED(w) ((w).called++)

static char buf[256];
static struct fi_context ctx;

/* The five fid-level entries after close (the caller calls close last). */
static void walk_fid_ops(struct walk *w, struct fid *fid, struct fid *other,
                         long bind_want, int control_cmd, long control_want)
{
    void *ops = NULL;

    CALL(*w, fi_control(fid, control_cmd, buf), control_want);
    CALL(*w, fid->ops->bind(fid, other, 0), bind_want);
    CALL(*w, fi_open_ops(fid, "dimmnet_no_such_ops", 0, &ops, NULL), -FI_ENOSYS);
    CHECK(ops == NULL);
    CALL(*w, fid->ops->tostr(fid, buf, sizeof(buf)), -FI_ENOSYS);
    CALL(*w, fi_set_ops(fid, "dimmnet_no_such_ops", 0, NULL, NULL), -FI_ENOSYS);
}

int main(void)
{
    struct fi_info *info = conf_info();
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_eq *eq;
    struct fid_av *av, *av2;
    struct fid_cq *cq;
    struct fid_ep *ep;
    struct fi_eq_attr eq_attr = { .wait_obj = FI_WAIT_FD };
    struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
    struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_TAGGED };
    char name[64];
    size_t len = sizeof(name);
    fi_addr_t self, bad = 12345;

    /* ---- fabric ---------------------------------------------------- */
    MUST(fi_fabric(info->fabric_attr, &fabric, NULL));
    struct walk wf = walk_begin("fi_ops(fabric)", fabric->fid.ops, sizeof(struct fi_ops));
    struct walk wfab = walk_begin("fi_ops_fabric", fabric->ops, sizeof(struct fi_ops_fabric));
    CALL(wfab, fi_eq_open(fabric, &eq_attr, &eq, NULL), 0);
    CALL(wfab, fi_domain(fabric, info, &domain, NULL), 0);
    {
        struct fid_pep *pep = NULL;
        struct fid_wait *ws = NULL;
        struct fi_wait_attr wa = { .wait_obj = FI_WAIT_FD };
        struct fid_domain *d2 = NULL;
        struct fid *fids[1] = { &eq->fid };

        CALL(wfab, fi_passive_ep(fabric, info, &pep, NULL), -FI_ENOSYS);
        CALL(wfab, fi_wait_open(fabric, &wa, &ws), -FI_ENOSYS);
        CALL(wfab, fi_trywait(fabric, fids, 1), 0);
        CALL(wfab, fi_domain2(fabric, info, &d2, FI_PEER, NULL), -FI_ENOSYS);
        CHECK(!pep && !ws && !d2);
    }
    walk_end(&wfab);
    walk_fid_ops(&wf, &fabric->fid, &eq->fid, -FI_ENOSYS, FI_GETWAIT, -FI_ENOSYS);

    /* ---- event queue ----------------------------------------------- */
    struct walk weq_fid = walk_begin("fi_ops(eq)", eq->fid.ops, sizeof(struct fi_ops));
    struct walk weq = walk_begin("fi_ops_eq", eq->ops, sizeof(struct fi_ops_eq));
    {
        struct fi_eq_entry e = { .data = 9 };
        struct fi_eq_err_entry err;
        uint32_t event;

        CALL(weq, fi_eq_write(eq, FI_NOTIFY, &e, sizeof(e), 0), sizeof(e));
        CALL(weq, fi_eq_read(eq, &event, &e, sizeof(e), 0), sizeof(e));
        CALL(weq, fi_eq_readerr(eq, &err, 0), -FI_EAGAIN);
        CALL(weq, fi_eq_sread(eq, &event, &e, sizeof(e), 0, 0), -FI_EAGAIN);
        CALLED(weq);
        CHECK(fi_eq_strerror(eq, 0, NULL, NULL, 0) != NULL);
    }
    walk_end(&weq);
    {
        int fd = -1;

        walk_fid_ops(&weq_fid, &eq->fid, &fabric->fid, -FI_ENOSYS, 12345, -FI_ENOSYS);
        EXPECT(fi_control(&eq->fid, FI_GETWAIT, &fd), 0);
        CHECK(fd >= 0);
    }

    /* ---- domain ---------------------------------------------------- */
    struct walk wd_fid = walk_begin("fi_ops(domain)", domain->fid.ops, sizeof(struct fi_ops));
    struct walk wd = walk_begin("fi_ops_domain", domain->ops, sizeof(struct fi_ops_domain));
    struct walk wmr = walk_begin("fi_ops_mr", domain->mr, sizeof(struct fi_ops_mr));
    CALL(wd, fi_av_open(domain, &av_attr, &av, NULL), 0);
    CALL(wd, fi_cq_open(domain, &cq_attr, &cq, NULL), 0);
    CALL(wd, fi_endpoint(domain, info, &ep, NULL), 0);
    {
        struct fid_ep *none = NULL;
        struct fid_cntr *cntr = NULL;
        struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP };
        struct fid_poll *ps = NULL;
        struct fi_poll_attr pa = { 0 };
        struct fid_stx *stx = NULL;
        struct fi_tx_attr ta = { 0 };
        struct fi_rx_attr ra = { 0 };
        struct fi_atomic_attr aa;
        struct fi_collective_attr coll = { 0 };

        EXPECT(fi_endpoint(domain, info, &none, NULL), -FI_EBUSY);   /* one a node */
        CALL(wd, fi_scalable_ep(domain, info, &none, NULL), -FI_ENOSYS);
        CALL(wd, fi_cntr_open(domain, &ca, &cntr, NULL), 0);
        CALL(wd, fi_poll_open(domain, &pa, &ps), -FI_ENOSYS);
        CALL(wd, fi_stx_context(domain, &ta, &stx, NULL), -FI_ENOSYS);
        CALL(wd, fi_srx_context(domain, &ra, &none, NULL), -FI_ENOSYS);
        CALL(wd, fi_query_atomic(domain, FI_INT32, FI_SUM, &aa, 0), 0);
        CHECK(aa.size == 4 && aa.count >= 1);
        CALL(wd, fi_query_collective(domain, FI_BARRIER, &coll, 0), -FI_EOPNOTSUPP);
        CALL(wd, fi_endpoint2(domain, info, &none, FI_PEER, NULL), -FI_ENOSYS);
        CHECK(!none && cntr && !ps && !stx);
        if (cntr) {
            struct walk wc = walk_begin("fi_ops_cntr", cntr->ops, sizeof(struct fi_ops_cntr));
            struct walk wc_fid = walk_begin("fi_ops(cntr)", cntr->fid.ops,
                                            sizeof(struct fi_ops));
            CALL(wc, fi_cntr_add(cntr, 5), 0);
            CALL(wc, fi_cntr_read(cntr), 5);
            CALL(wc, fi_cntr_set(cntr, 2), 0);
            CALL(wc, fi_cntr_adderr(cntr, 3), 0);
            CALL(wc, fi_cntr_readerr(cntr), 3);
            CALL(wc, fi_cntr_seterr(cntr, 1), 0);
            EXPECT(fi_cntr_readerr(cntr), 1);
            EXPECT(fi_cntr_read(cntr), 2);
            /* FI_WAIT_NONE (the default): no waiting (fi_cntr(3)). */
            CALL(wc, fi_cntr_wait(cntr, 1, 0), -FI_EINVAL);
            walk_end(&wc);
            walk_fid_ops(&wc_fid, &cntr->fid, &cq->fid, -FI_ENOSYS, FI_GETWAIT, -FI_ENODATA);
            CALL(wc_fid, fi_close(&cntr->fid), 0);
            walk_end(&wc_fid);
        }
    }
    walk_end(&wd);
    {
        struct fid_mr *mr = NULL;
        struct iovec iov = { buf, sizeof(buf) };
        struct fi_mr_attr ma = { .mr_iov = &iov, .iov_count = 1, .access = FI_SEND };

        /* Local registrations: a key, a descriptor, no table entry. */
        CALL(wmr, fi_mr_reg(domain, buf, sizeof(buf), FI_SEND, 0, 0, 0, &mr, NULL), 0);
        if (mr) {
            struct walk wm_fid = walk_begin("fi_ops(mr)", mr->fid.ops, sizeof(struct fi_ops));
            CHECK(fi_mr_desc(mr) != NULL);
            /* A registration binds counters only (FI_RMA_EVENT), not a CQ;
             * FI_ENABLE has nothing to do. */
            walk_fid_ops(&wm_fid, &mr->fid, &cq->fid, -FI_EINVAL, FI_ENABLE, 0);
            CALL(wm_fid, fi_close(&mr->fid), 0);
            walk_end(&wm_fid);
        }
        mr = NULL;
        CALL(wmr, fi_mr_regv(domain, &iov, 1, FI_SEND, 0, 0, 0, &mr, NULL), 0);
        CHECK(mr && fi_close(&mr->fid) == 0);
        mr = NULL;
        CALL(wmr, fi_mr_regattr(domain, &ma, 0, &mr), 0);
        CHECK(mr && fi_close(&mr->fid) == 0);
        EXPECT(fi_mr_reg(domain, buf, sizeof(buf), FI_SEND | (1ull << 62), 0, 0, 0, &mr,
                         NULL), -FI_EINVAL);                   /* unknown access bit */
    }
    walk_end(&wmr);
    /* bind takes an EQ only */
    walk_fid_ops(&wd_fid, &domain->fid, &cq->fid, -FI_EINVAL, 12345, -FI_ENOSYS);

    /* ---- endpoint set-up, then the AV ------------------------------ */
    MUST(fi_ep_bind(ep, &av->fid, 0));
    MUST(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV));
    MUST(fi_enable(ep));
    MUST(fi_getname(&ep->fid, name, &len));

    struct walk wav_fid = walk_begin("fi_ops(av)", av->fid.ops, sizeof(struct fi_ops));
    struct walk wav = walk_begin("fi_ops_av", av->ops, sizeof(struct fi_ops_av));
    {
        char back[64], str[64];
        size_t blen = sizeof(back), slen = sizeof(str);
        struct fid_av_set *set = NULL;
        struct fi_av_set_attr sa = { 0 };
        fi_addr_t out = 0;

        CALL(wav, fi_av_insert(av, name, 1, &self, 0, NULL), 1);
        EXPECT(fi_av_insert(av, "bogus-address-bogus", 1, &out, 0, NULL), 0);
        CHECK_EQ(out, FI_ADDR_NOTAVAIL);
        CALL(wav, fi_av_insertsvc(av, "node", "service", &out, 0, NULL), -FI_ENOSYS);
        CALL(wav, fi_av_insertsym(av, "node", 1, "service", 1, &out, 0, NULL), -FI_ENOSYS);
        CALL(wav, fi_av_remove(av, &bad, 1, 0), -FI_EINVAL);
        CALL(wav, fi_av_lookup(av, self, back, &blen), 0);
        CHECK(blen == len && memcmp(back, name, len) == 0);
        CALLED(wav);
        CHECK(fi_av_straddr(av, name, str, &slen) == str && slen > 1);
        CALL(wav, fi_av_set(av, &sa, &set, NULL), -FI_ENOSYS);
        CHECK(set == NULL);
    }
    walk_end(&wav);
    walk_fid_ops(&wav_fid, &av->fid, &cq->fid, -FI_EINVAL, 12345, -FI_ENOSYS);

    /* ---- completion queue ------------------------------------------ */
    struct walk wcq_fid = walk_begin("fi_ops(cq)", cq->fid.ops, sizeof(struct fi_ops));
    struct walk wcq = walk_begin("fi_ops_cq", cq->ops, sizeof(struct fi_ops_cq));
    {
        struct fi_cq_tagged_entry e;
        struct fi_cq_err_entry err = { 0 };
        fi_addr_t src;

        CALL(wcq, fi_cq_read(cq, &e, 1), -FI_EAGAIN);
        CALL(wcq, fi_cq_readfrom(cq, &e, 1, &src), -FI_EAGAIN);
        CALL(wcq, fi_cq_readerr(cq, &err, 0), -FI_EAGAIN);
        /* FI_WAIT_NONE (the default): no blocking read, no signal. */
        CALL(wcq, fi_cq_sread(cq, &e, 1, NULL, 0), -FI_EINVAL);
        CALL(wcq, fi_cq_sreadfrom(cq, &e, 1, &src, NULL, 0), -FI_EINVAL);
        CALL(wcq, fi_cq_signal(cq), -FI_EINVAL);
        CALLED(wcq);
        CHECK(fi_cq_strerror(cq, 0, NULL, NULL, 0) != NULL);
    }
    walk_end(&wcq);
    /* no native wait object */
    walk_fid_ops(&wcq_fid, &cq->fid, &ep->fid, -FI_ENOSYS, FI_GETWAIT, -FI_ENODATA);

    /* ---- endpoint -------------------------------------------------- */
    struct walk wep_fid = walk_begin("fi_ops(ep)", ep->fid.ops, sizeof(struct fi_ops));
    struct walk wep = walk_begin("fi_ops_ep", ep->ops, sizeof(struct fi_ops_ep));
    struct walk wcm = walk_begin("fi_ops_cm", ep->cm, sizeof(struct fi_ops_cm));
    struct walk wmsg = walk_begin("fi_ops_msg", ep->msg, sizeof(struct fi_ops_msg));
    struct walk wrma = walk_begin("fi_ops_rma", ep->rma, sizeof(struct fi_ops_rma));
    struct walk wtag = walk_begin("fi_ops_tagged", ep->tagged, sizeof(struct fi_ops_tagged));
    struct walk wat = walk_begin("fi_ops_atomic", ep->atomic, sizeof(struct fi_ops_atomic));
    struct walk wcoll = walk_begin("fi_ops_collective", ep->collective,
                                   sizeof(struct fi_ops_collective));
    {
        size_t optlen = sizeof(size_t), n = sizeof(name);
        struct fid_ep *none = NULL;

        CALL(wep, fi_cancel(&ep->fid, &ctx), -FI_ENOENT);
        /* FI_OPT_MIN_MULTI_RECV is offered: read, then written back. */
        CALL(wep, fi_getopt(&ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, buf, &optlen), 0);
        CALL(wep, fi_setopt(&ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, buf, optlen), 0);
        CALL(wep, fi_tx_context(ep, 0, NULL, &none, NULL), -FI_ENOSYS);
        CALL(wep, fi_rx_context(ep, 0, NULL, &none, NULL), -FI_ENOSYS);
        /* deprecated calls (1.17): through the table */
        CALL(wep, ep->ops->rx_size_left(ep), -FI_ENOSYS);
        CALL(wep, ep->ops->tx_size_left(ep), -FI_ENOSYS);
        CHECK(none == NULL);
        walk_end(&wep);

        struct fid_mc *mc = NULL;
        /* FI_EP_RDM: no connection management, but a name. */
        CALL(wcm, fi_setname(&ep->fid, name, len), -FI_ENOSYS);
        CALL(wcm, fi_getname(&ep->fid, buf, &n), 0);
        CHECK(n == len && memcmp(buf, name, len) == 0);
        n = sizeof(buf);
        CALL(wcm, fi_getpeer(ep, buf, &n), -FI_ENOSYS);
        CALL(wcm, fi_connect(ep, name, NULL, 0), -FI_ENOSYS);
        /* listen and reject take a passive endpoint, which the provider
         * never hands out: its own table is called with this one. */
        CALL(wcm, ep->cm->listen((struct fid_pep *)(void *)ep), -FI_ENOSYS);
        CALL(wcm, fi_accept(ep, NULL, 0), -FI_ENOSYS);
        CALL(wcm, ep->cm->reject((struct fid_pep *)(void *)ep, NULL, NULL, 0), -FI_ENOSYS);
        CALL(wcm, fi_shutdown(ep, 0), -FI_ENOSYS);
        CALL(wcm, fi_join(ep, name, 0, &mc, NULL), -FI_ENOSYS);
        CHECK(mc == NULL);
        walk_end(&wcm);
    }
    {
        /* Messages to and from an address not in the AV: -FI_EINVAL, and
         * nothing posted (the CQ stays empty). */
        struct iovec iov = { buf, 16 };
        void *desc = NULL;
        struct fi_msg m = { .msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = bad,
                            .context = &ctx };
        struct fi_msg_tagged tm = { .msg_iov = &iov, .desc = &desc, .iov_count = 1,
                                    .addr = bad, .tag = 1, .context = &ctx };

        CALL(wmsg, fi_recv(ep, buf, 16, NULL, bad, &ctx), -FI_EINVAL);
        CALL(wmsg, fi_recvv(ep, &iov, &desc, 1, bad, &ctx), -FI_EINVAL);
        CALL(wmsg, fi_recvmsg(ep, &m, 0), -FI_EINVAL);
        CALL(wmsg, fi_send(ep, buf, 16, NULL, bad, &ctx), -FI_EINVAL);
        CALL(wmsg, fi_sendv(ep, &iov, &desc, 1, bad, &ctx), -FI_EINVAL);
        CALL(wmsg, fi_sendmsg(ep, &m, 0), -FI_EINVAL);
        CALL(wmsg, fi_inject(ep, buf, 16, bad), -FI_EINVAL);
        CALL(wmsg, fi_senddata(ep, buf, 16, NULL, 5, bad, &ctx), -FI_EINVAL);
        CALL(wmsg, fi_injectdata(ep, buf, 16, 5, bad), -FI_EINVAL);
        walk_end(&wmsg);

        CALL(wtag, fi_trecv(ep, buf, 16, NULL, bad, 1, 0, &ctx), -FI_EINVAL);
        CALL(wtag, fi_trecvv(ep, &iov, &desc, 1, bad, 1, 0, &ctx), -FI_EINVAL);
        CALL(wtag, fi_trecvmsg(ep, &tm, 0), -FI_EINVAL);
        CALL(wtag, fi_tsend(ep, buf, 16, NULL, bad, 1, &ctx), -FI_EINVAL);
        CALL(wtag, fi_tsendv(ep, &iov, &desc, 1, bad, 1, &ctx), -FI_EINVAL);
        CALL(wtag, fi_tsendmsg(ep, &tm, 0), -FI_EINVAL);
        CALL(wtag, fi_tinject(ep, buf, 16, bad, 1), -FI_EINVAL);
        CALL(wtag, fi_tsenddata(ep, buf, 16, NULL, 5, bad, 1, &ctx), -FI_EINVAL);
        CALL(wtag, fi_tinjectdata(ep, buf, 16, 5, bad, 1), -FI_EINVAL);
        walk_end(&wtag);

        struct fi_cq_tagged_entry e;
        EXPECT(fi_cq_read(cq, &e, 1), -FI_EAGAIN);
    }
    {
        /* RMA to an address not in the AV: -FI_EINVAL, nothing posted. */
        struct iovec iov = { buf, 16 };
        void *desc = NULL;
        struct fi_rma_iov riov = { 0, 16, 0 };
        struct fi_msg_rma m = { .msg_iov = &iov, .desc = &desc, .iov_count = 1,
                                .addr = bad, .rma_iov = &riov, .rma_iov_count = 1,
                                .context = &ctx };

        CALL(wrma, fi_read(ep, buf, 16, NULL, bad, 0, 0, &ctx), -FI_EINVAL);
        CALL(wrma, fi_readv(ep, &iov, &desc, 1, bad, 0, 0, &ctx), -FI_EINVAL);
        CALL(wrma, fi_readmsg(ep, &m, 0), -FI_EINVAL);
        CALL(wrma, fi_write(ep, buf, 16, NULL, bad, 0, 0, &ctx), -FI_EINVAL);
        CALL(wrma, fi_writev(ep, &iov, &desc, 1, bad, 0, 0, &ctx), -FI_EINVAL);
        CALL(wrma, fi_writemsg(ep, &m, 0), -FI_EINVAL);
        CALL(wrma, fi_inject_write(ep, buf, 16, bad, 0, 0), -FI_EINVAL);
        CALL(wrma, fi_writedata(ep, buf, 16, NULL, 5, bad, 0, 0, &ctx), -FI_EINVAL);
        CALL(wrma, fi_inject_writedata(ep, buf, 16, 5, bad, 0, 0), -FI_EINVAL);
        walk_end(&wrma);
    }
    {
        /* Atomics to an address not in the AV: -FI_EINVAL, nothing posted. */
        int32_t v = 1, cmp = 0, res = 0;
        struct fi_ioc ioc = { &v, 1 }, cioc = { &cmp, 1 }, rioc = { &res, 1 };
        void *desc = NULL;
        struct fi_rma_ioc rioc_remote = { 0, 1, 0 };
        struct fi_msg_atomic m = { .msg_iov = &ioc, .desc = &desc, .iov_count = 1,
                                   .addr = bad, .rma_iov = &rioc_remote,
                                   .rma_iov_count = 1, .datatype = FI_INT32,
                                   .op = FI_SUM, .context = &ctx };
        size_t count = 0;

        CALL(wat, fi_atomic(ep, &v, 1, NULL, bad, 0, 0, FI_INT32, FI_SUM, &ctx),
             -FI_EINVAL);
        CALL(wat, fi_atomicv(ep, &ioc, &desc, 1, bad, 0, 0, FI_INT32, FI_SUM, &ctx),
             -FI_EINVAL);
        CALL(wat, fi_atomicmsg(ep, &m, 0), -FI_EINVAL);
        CALL(wat, fi_inject_atomic(ep, &v, 1, bad, 0, 0, FI_INT32, FI_SUM),
             -FI_EINVAL);
        CALL(wat, fi_fetch_atomic(ep, &v, 1, NULL, &res, NULL, bad, 0, 0, FI_INT32,
                                  FI_SUM, &ctx), -FI_EINVAL);
        CALL(wat, fi_fetch_atomicv(ep, &ioc, &desc, 1, &rioc, &desc, 1, bad, 0, 0,
                                   FI_INT32, FI_SUM, &ctx), -FI_EINVAL);
        CALL(wat, fi_fetch_atomicmsg(ep, &m, &rioc, &desc, 1, 0), -FI_EINVAL);
        CALL(wat, fi_compare_atomic(ep, &v, 1, NULL, &cmp, NULL, &res, NULL, bad, 0, 0,
                                    FI_INT32, FI_CSWAP, &ctx), -FI_EINVAL);
        CALL(wat, fi_compare_atomicv(ep, &ioc, &desc, 1, &cioc, &desc, 1, &rioc, &desc, 1,
                                     bad, 0, 0, FI_INT32, FI_CSWAP, &ctx),
             -FI_EINVAL);
        /* m's op is FI_SUM: no compare op, refused before anything else */
        CALL(wat, fi_compare_atomicmsg(ep, &m, &cioc, &desc, 1, &rioc, &desc, 1, 0),
             -FI_EOPNOTSUPP);
        CALL(wat, fi_atomicvalid(ep, FI_INT32, FI_SUM, &count), 0);
        CALL(wat, fi_fetch_atomicvalid(ep, FI_INT32, FI_SUM, &count), 0);
        CALL(wat, fi_compare_atomicvalid(ep, FI_INT32, FI_CSWAP, &count), 0);
        walk_end(&wat);
    }
    {
        /* No FI_COLLECTIVE. */
        int32_t v = 1, res = 0;
        struct fi_ioc ioc = { &v, 1 }, rioc = { &res, 1 };
        void *desc = NULL;
        struct fi_msg_collective m = { .msg_iov = &ioc, .desc = &desc, .iov_count = 1,
                                       .coll_addr = self, .root_addr = self,
                                       .coll = FI_BARRIER, .datatype = FI_INT32,
                                       .op = FI_SUM, .context = &ctx };

        CALL(wcoll, fi_barrier(ep, self, &ctx), -FI_EOPNOTSUPP);
        CALL(wcoll, fi_broadcast(ep, &v, 1, NULL, self, self, FI_INT32, 0, &ctx),
             -FI_EOPNOTSUPP);
        CALL(wcoll, fi_alltoall(ep, &v, 1, NULL, &res, NULL, self, FI_INT32, 0, &ctx),
             -FI_EOPNOTSUPP);
        CALL(wcoll, fi_allreduce(ep, &v, 1, NULL, &res, NULL, self, FI_INT32, FI_SUM, 0,
                                 &ctx), -FI_EOPNOTSUPP);
        CALL(wcoll, fi_allgather(ep, &v, 1, NULL, &res, NULL, self, FI_INT32, 0, &ctx),
             -FI_EOPNOTSUPP);
        CALL(wcoll, fi_reduce_scatter(ep, &v, 1, NULL, &res, NULL, self, FI_INT32, FI_SUM,
                                      0, &ctx), -FI_EOPNOTSUPP);
        CALL(wcoll, fi_reduce(ep, &v, 1, NULL, &res, NULL, self, self, FI_INT32, FI_SUM, 0,
                              &ctx), -FI_EOPNOTSUPP);
        CALL(wcoll, fi_scatter(ep, &v, 1, NULL, &res, NULL, self, self, FI_INT32, 0, &ctx),
             -FI_EOPNOTSUPP);
        CALL(wcoll, fi_gather(ep, &v, 1, NULL, &res, NULL, self, self, FI_INT32, 0, &ctx),
             -FI_EOPNOTSUPP);
        /* no fi_* call for the message form */
        CALL(wcoll, ep->collective->msg(ep, &m, &rioc, &desc, 1, 0), -FI_EOPNOTSUPP);
        CALL(wcoll, fi_barrier2(ep, self, FI_MORE, &ctx), -FI_EOPNOTSUPP);
        walk_end(&wcoll);
    }
    /* control: FI_ENABLE again is fine; bind after enabling is not */
    walk_fid_ops(&wep_fid, &ep->fid, &eq->fid, -FI_EINVAL, FI_ENABLE, 0);

    /* ---- closing: nothing goes while something depends on it ------- */
    EXPECT(fi_domain_bind(domain, &eq->fid, 0), 0);
    CALL(wf, fi_close(&fabric->fid), -FI_EBUSY);
    CALL(wd_fid, fi_close(&domain->fid), -FI_EBUSY);
    CALL(wav_fid, fi_close(&av->fid), -FI_EBUSY);
    CALL(wcq_fid, fi_close(&cq->fid), -FI_EBUSY);
    CALL(weq_fid, fi_close(&eq->fid), -FI_EBUSY);
    /* A second AV opens and closes on its own (FI_AV_MAP). */
    av_attr.type = FI_AV_MAP;
    EXPECT(fi_av_open(domain, &av_attr, &av2, NULL), 0);
    EXPECT(fi_close(&av2->fid), 0);
    CALL(wep_fid, fi_close(&ep->fid), 0);
    EXPECT(fi_close(&cq->fid), 0);
    EXPECT(fi_close(&av->fid), 0);
    EXPECT(fi_close(&eq->fid), -FI_EBUSY);         /* the domain holds it */
    EXPECT(fi_close(&domain->fid), 0);
    EXPECT(fi_close(&eq->fid), 0);
    EXPECT(fi_close(&fabric->fid), 0);
    walk_end(&wf);
    walk_end(&weq_fid);
    walk_end(&wd_fid);
    walk_end(&wav_fid);
    walk_end(&wcq_fid);
    walk_end(&wep_fid);
    fi_freeinfo(info);
    printf("conf_ops_walk: %s\n", check_failures ? "FAILED" : "ok");
    return check_failures ? 1 : 0;
}

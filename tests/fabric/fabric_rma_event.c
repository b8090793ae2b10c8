/*
 * RMA events (FI_RMA_EVENT, issue 24 item 2): counters at the target
 * bumped by remote writes and reads, on two boards. Node 1 registers two
 * buffers; node 0 writes and reads both. The NIC serves them with no
 * software at node 1, so the initiator announces each operation once done
 * (prov/dimmnet/dimmnet.h, "RMA events"). Checks, at node 1:
 *   - counters bound to a registration (fi_mr_bind FI_REMOTE_WRITE and
 *     FI_REMOTE_READ) count exactly its writes and its reads, each once,
 *     with the bytes in place by then;
 *   - the endpoint's FI_REMOTE_WRITE counter counts the announced writes;
 *   - mode "mr" (a domain without FI_RMA_EVENT, one registration with the
 *     flag FI_RMA_EVENT): the other registration is not announced and a
 *     counter cannot be bound to it (-FI_EINVAL);
 *   - mode "domain" (FI_RMA_EVENT asked for the domain): every registration
 *     announces, bound or not;
 *   - a counter bound to a registration cannot be closed before it
 *     (-FI_EBUSY).
 *
 *   fabric_rma_event mr|domain
 */
#include <inttypes.h>
#include <string.h>
#include <rdma/fi_rma.h>
#include "fabric_util.h"

#define LEN    (128u * 1024u)
#define WRITES 12u
#define READS  5u
#define PLAIN  4u

static fi_addr_t peer;
static int domain_mode;

static void post_write(const void *buf, size_t len, uint64_t addr, uint64_t key, void *ctx)
{
    ssize_t rc;

    while ((rc = fi_write(ep, buf, len, NULL, peer, addr, key, ctx)) == -FI_EAGAIN) {
        fi_cq_read(cq, NULL, 0);
    }
    CHECK_MSG(rc == 0, "fi_write: %s", fi_strerror((int)-rc));
    expect(ctx, FI_RMA | FI_WRITE, NULL);
}

static void post_read(void *buf, size_t len, uint64_t addr, uint64_t key, void *ctx)
{
    ssize_t rc;

    while ((rc = fi_read(ep, buf, len, NULL, peer, addr, key, ctx)) == -FI_EAGAIN) {
        fi_cq_read(cq, NULL, 0);
    }
    CHECK_MSG(rc == 0, "fi_read: %s", fi_strerror((int)-rc));
    expect(ctx, FI_RMA | FI_READ, NULL);
}

static size_t size_of(unsigned k)
{
    static const size_t sizes[] = { 8, 1, 464, 4096, 65536 + 7, LEN };
    return sizes[k % (sizeof(sizes) / sizeof(sizes[0]))];
}

static void initiator(void)
{
    uint8_t *buf = malloc(LEN);
    uint64_t ev, kev, plain, kplain;
    char v[128];
    int ctx;

    CHECK(buf != NULL);
    CHECK(dn_lookup("rma-event.1", v, sizeof(v), TIMEOUT_MS) == DN_OK);
    CHECK_EQ(sscanf(v, "%" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64, &ev, &kev, &plain,
                    &kplain), 4);
    for (unsigned k = 0; k < WRITES; k++) {
        fill(buf, size_of(k), 20 + k);
        post_write(buf, size_of(k), ev + LEN - size_of(k), kev, &ctx);
    }
    for (unsigned k = 0; k < PLAIN; k++) {
        fill(buf, 64, 40 + k);
        post_write(buf, 64, plain + 64 * k, kplain, &ctx);
    }
    for (unsigned k = 0; k < READS; k++) {
        post_read(buf, size_of(k), ev + LEN - size_of(k), kev, &ctx);
    }
    post_read(buf, 64, plain, kplain, &ctx);
    CHECK_MSG(same(buf, 64, 40), "node 0: read back from the plain registration differs");
    CHECK(dn_rendezvous("rma-event-done", TIMEOUT_MS) == DN_OK);
    CHECK(dn_rendezvous("rma-event-checked", TIMEOUT_MS) == DN_OK);
    free(buf);
}

static void target(void)
{
    uint8_t *ev = malloc(LEN), *plain = malloc(LEN);
    struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_UNSPEC };
    struct fid_cntr *cw, *cr;
    struct fid_mr *mev, *mplain;
    char v[128];

    CHECK(ev && plain);
    memset(ev, 0, LEN);
    memset(plain, 0, LEN);
    TRY(fi_mr_reg(domain, ev, LEN, FI_REMOTE_WRITE | FI_REMOTE_READ, 0, 0,
                  domain_mode ? 0 : FI_RMA_EVENT, &mev, NULL));
    TRY(fi_mr_reg(domain, plain, LEN, FI_REMOTE_WRITE | FI_REMOTE_READ, 0, 0, 0, &mplain,
                  NULL));
    TRY(fi_cntr_open(domain, &ca, &cw, NULL));
    TRY(fi_cntr_open(domain, &ca, &cr, NULL));
    TRY(fi_mr_bind(mev, &cw->fid, FI_REMOTE_WRITE));
    TRY(fi_mr_bind(mev, &cr->fid, FI_REMOTE_READ));
    TRY(fi_mr_enable(mev));
    CHECK_EQ(fi_mr_bind(mplain, &cw->fid, FI_REMOTE_WRITE), domain_mode ? 0 : -FI_EINVAL);
    CHECK_EQ(fi_mr_bind(mev, &cw->fid, FI_SEND), -FI_EINVAL);
    CHECK_EQ(fi_close(&cw->fid), -FI_EBUSY);           /* bound to a registration */
    snprintf(v, sizeof(v), "%" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx64,
             (uint64_t)(uintptr_t)ev, fi_mr_key(mev), (uint64_t)(uintptr_t)plain,
             fi_mr_key(mplain));
    CHECK(dn_publish("rma-event.1", v) == DN_OK);

    /* Domain mode: the plain registration's writes count on cw too. */
    uint64_t want_w = WRITES + (domain_mode ? PLAIN : 0);
    int rc = fi_cntr_wait(cw, want_w, TIMEOUT_MS);
    CHECK_MSG(rc == 0, "node 1: %" PRIu64 " of %" PRIu64 " writes counted (%s)",
              fi_cntr_read(cw), want_w, fi_strerror(-rc));
    /* The last write to it (the whole buffer) is in place. */
    CHECK_MSG(same(ev, LEN, 20 + WRITES - 1), "node 1: the writes counted are not all "
              "in place");
    rc = fi_cntr_wait(cr, READS, TIMEOUT_MS);
    CHECK_MSG(rc == 0, "node 1: %" PRIu64 " of %u reads counted (%s)", fi_cntr_read(cr),
              READS, fi_strerror(-rc));
    CHECK(dn_rendezvous("rma-event-done", TIMEOUT_MS) == DN_OK);
    /* Everything is in: nothing more, nothing less, each counted once. */
    fi_cntr_wait(cw, want_w + 1, 200);
    CHECK_EQ(fi_cntr_read(cw), want_w);
    CHECK_EQ(fi_cntr_read(cr), READS);                /* not the plain one's read */
    CHECK_EQ(fi_cntr_readerr(cw), 0);
    /* The endpoint's FI_REMOTE_WRITE counter: the announced writes. */
    CHECK_EQ(fi_cntr_read(cntr), WRITES + (domain_mode ? PLAIN : 0));
    for (unsigned k = 0; k < PLAIN; k++) {
        CHECK_MSG(same(plain + 64 * k, 64, 40 + k), "node 1: plain write %u not in place", k);
    }
    CHECK(dn_rendezvous("rma-event-checked", TIMEOUT_MS) == DN_OK);
    TRY(fi_close(&mev->fid));
    TRY(fi_close(&mplain->fid));
    TRY(fi_close(&cw->fid));                           /* free again */
    TRY(fi_close(&cr->fid));
    free(ev);
    free(plain);
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "mr") && strcmp(argv[1], "domain"))) {
        fprintf(stderr, "usage: %s mr|domain\n", argv[0]);
        return 2;
    }
    domain_mode = !strcmp(argv[1], "domain");
    fab_setup_caps(FI_RMA | (domain_mode ? FI_RMA_EVENT : 0),
                   FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY);
    CHECK_EQ(nodes, 2);
    peer = node_addr[1 - me];
    CHECK_EQ(!!(info->caps & FI_RMA_EVENT), domain_mode);
    if (me == 0) {
        initiator();
    } else {
        target();
    }
    CHECK(dn_rendezvous("rma-event-end", TIMEOUT_MS) == DN_OK);
    fab_close();
    check_failures += fab_failures();
    if (check_failures) {
        fprintf(stderr, "node %u: %d check(s) failed\n", me, check_failures);
        return 1;
    }
    printf("node %u: rma events (%s) ok\n", me, argv[1]);
    return 0;
}

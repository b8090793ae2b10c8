/*
 * FI_MULTI_RECV (fi_msg(3), fi_endpoint(3)) and AV removal (fi_av(3)), an
 * endpoint sending to itself:
 *   opt         FI_OPT_MIN_MULTI_RECV: a default, set and read back; a
 *               wrong optlen -FI_EINVAL, other options -FI_ENOPROTOOPT
 *   packed      one buffer (fi_recvmsg with FI_MULTI_RECV) takes messages
 *               packed one after another (each completion's buf is the
 *               byte after the last message, len its length, the buffer's
 *               context); only the completion after which fewer than the
 *               minimum bytes are left carries FI_MULTI_RECV; the next
 *               message goes to the next buffer posted
 *   unexpected  messages that came before the buffer was posted are taken
 *               by it at once, in order, packed
 *   long        messages over 64 KiB (rendezvous) packed into one buffer
 *   refused     FI_MULTI_RECV on a tagged receive: -FI_EBADFLAGS; fi_cancel
 *               of a buffer none of whose messages is coming: FI_ECANCELED
 *               with FI_MULTI_RECV
 *   av_remove   fi_av_remove while traffic flows: the source of a message
 *               from a removed address is FI_ADDR_NOTAVAIL; inserted again
 *               it carries messages (FI_AV_TABLE: a new index); without
 *               FI_DIRECTED_RECV a receive naming the removed address is
 *               taken (the source is ignored), with it -FI_EINVAL
 *
 *   conf_multi_recv [CASE]  (under dimmnet-cluster -n 2, each node on its own)
 */
#include "conf_util.h"

static struct conf_ep c;
static char mbuf[2][1024];
static uint8_t big[300000];

static void setup(void)
{
    struct fi_cq_attr attr = { .format = FI_CQ_FORMAT_DATA };

    conf_ep_open(&c, &attr);
}

static void teardown(void)
{
    conf_ep_close(&c);
}

/* The next completion that is not a send's (sends complete too). */
static int next_recv(struct fi_cq_data_entry *e)
{
    for (int64_t end = conf_now_ms() + 20000; conf_now_ms() < end;) {
        ssize_t n = fi_cq_read(c.cq, e, 1);

        if (n == 1 && (e->flags & FI_RECV)) {
            return 1;
        }
        if (n == -FI_EAVAIL) {
            struct fi_cq_err_entry err = { 0 };

            fi_cq_readerr(c.cq, &err, 0);
            fprintf(stderr, "error entry: %s\n", fi_strerror(err.err));
            return 0;
        }
        if (n != 1 && n != -FI_EAGAIN) {
            return 0;
        }
    }
    return 0;
}

static void send_msg(size_t len, int fill)
{
    memset(big, fill, len);
    EXPECT(fi_send(c.ep, big, len, NULL, c.self, NULL), 0);
}

/* A multi-receive buffer (@buf, @len), context @ctx. */
static void post_multi(void *buf, size_t len, void *ctx)
{
    struct iovec iov = { buf, len };
    struct fi_msg m = { .msg_iov = &iov, .iov_count = 1, .addr = FI_ADDR_UNSPEC,
                        .context = ctx };

    EXPECT(fi_recvmsg(c.ep, &m, FI_MULTI_RECV), 0);
}

static void set_min(size_t min)
{
    EXPECT(fi_setopt(&c.ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &min, sizeof(min)), 0);
}

/* The next receive completion: at @buf, @len bytes of @fill, context
 * @ctx, FI_MULTI_RECV iff @last. */
static void expect_recv(void *buf, size_t len, int fill, void *ctx, int last)
{
    struct fi_cq_data_entry e;

    if (!next_recv(&e)) {
        CHECK_MSG(0, "a receive completion (%zu bytes)", len);
        return;
    }
    CHECK_EQ(e.op_context, ctx);
    CHECK_EQ(e.buf, buf);
    CHECK_EQ(e.len, len);
    CHECK_EQ(e.flags & (FI_RECV | FI_MSG | FI_TAGGED), FI_RECV | FI_MSG);
    CHECK_MSG(!!(e.flags & FI_MULTI_RECV) == last, "FI_MULTI_RECV %s on the %zu-byte message",
              last ? "missing" : "set", len);
    for (size_t i = 0; buf && i < len; i++) {
        if (((uint8_t *)buf)[i] != (uint8_t)fill) {
            CHECK_MSG(0, "byte %zu of the %zu-byte message", i, len);
            break;
        }
    }
}

static void test_opt(void)
{
    size_t v = 0, len = sizeof(v);
    int bad = 0;

    EXPECT(fi_getopt(&c.ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &v, &len), 0);
    CHECK_EQ(len, sizeof(size_t));
    CHECK(v > 0);
    set_min(300);
    len = sizeof(v);
    EXPECT(fi_getopt(&c.ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &v, &len), 0);
    CHECK_EQ(v, 300);
    EXPECT(fi_setopt(&c.ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &bad, sizeof(bad)),
           -FI_EINVAL);
    EXPECT(fi_setopt(&c.ep->fid, FI_OPT_ENDPOINT, FI_OPT_CM_DATA_SIZE, &v, sizeof(v)),
           -FI_ENOPROTOOPT);
}

static void test_packed(void)
{
    static const size_t sizes[] = { 100, 200, 300, 150, 100 };   /* 850 of 1024 */
    char *at = mbuf[0];

    set_min(256);
    post_multi(mbuf[0], sizeof(mbuf[0]), mbuf[0]);
    post_multi(mbuf[1], sizeof(mbuf[1]), mbuf[1]);
    for (size_t i = 0; i < 5; i++) {
        send_msg(sizes[i], 'a' + (int)i);
        /* after the fifth, 174 bytes are left: under 256, released */
        expect_recv(at, sizes[i], 'a' + (int)i, mbuf[0], i == 4);
        at += sizes[i];
    }
    send_msg(40, 'z');
    expect_recv(mbuf[1], 40, 'z', mbuf[1], 0);
    /* min 0: released only when full */
    set_min(0);
    send_msg(sizeof(mbuf[1]) - 40, 'y');
    expect_recv(mbuf[1] + 40, sizeof(mbuf[1]) - 40, 'y', mbuf[1], 1);
}

static void test_unexpected(void)
{
    struct fi_cq_data_entry e;
    int sent = 0;

    set_min(101);
    send_msg(300, 'p');
    send_msg(0, 'q');
    send_msg(400, 'r');
    /* All three sends complete: the messages wait at the receiver. */
    for (int64_t end = conf_now_ms() + 20000; sent < 3 && conf_now_ms() < end;) {
        if (fi_cq_read(c.cq, &e, 1) == 1) {
            sent++;
        }
    }
    CHECK_EQ(sent, 3);
    post_multi(mbuf[0], 800, mbuf[0]);
    expect_recv(mbuf[0], 300, 'p', mbuf[0], 0);
    expect_recv(mbuf[0] + 300, 0, 'q', mbuf[0], 0);
    expect_recv(mbuf[0] + 300, 400, 'r', mbuf[0], 1);   /* 100 left: under 101 */
}

static void test_long(void)
{
    static uint8_t rbuf[200000];

    set_min(16384);
    post_multi(rbuf, sizeof(rbuf), rbuf);
    send_msg(70000, 0x11);
    expect_recv(rbuf, 70000, 0x11, rbuf, 0);
    send_msg(100000, 0x22);
    expect_recv(rbuf + 70000, 100000, 0x22, rbuf, 0);        /* 30000 left */
    send_msg(20000, 0x33);
    expect_recv(rbuf + 170000, 20000, 0x33, rbuf, 1);        /* 10000 left */
}

static void test_refused(void)
{
    struct iovec iov = { mbuf[0], sizeof(mbuf[0]) };
    struct fi_msg_tagged m = { .msg_iov = &iov, .iov_count = 1, .addr = FI_ADDR_UNSPEC,
                               .tag = 1, .context = mbuf };

    struct fi_cq_err_entry err = { 0 };
    struct fi_cq_data_entry e;
    ssize_t n;

    EXPECT(fi_trecvmsg(c.ep, &m, FI_MULTI_RECV), -FI_EBADFLAGS);
    /* Canceled with none of its messages coming: released at once. */
    post_multi(mbuf[0], sizeof(mbuf[0]), mbuf[0]);
    EXPECT(fi_cancel(&c.ep->fid, mbuf[0]), 0);
    while ((n = fi_cq_read(c.cq, &e, 1)) == -FI_EAGAIN) {
    }
    EXPECT(n, -FI_EAVAIL);
    EXPECT(fi_cq_readerr(c.cq, &err, 0), 1);
    CHECK_EQ(err.err, FI_ECANCELED);
    CHECK_EQ(err.op_context, mbuf[0]);
    CHECK(err.flags & FI_MULTI_RECV);
}

/* An endpoint of its own whose info has or lacks FI_DIRECTED_RECV. */
static void test_av_remove(void)
{
    struct fi_cq_data_entry e;
    char name[64];
    size_t len = sizeof(name);
    fi_addr_t old = c.self, again;
    char in[16];

    MUST(fi_getname(&c.ep->fid, name, &len));
    /* conf_ep asks for FI_DIRECTED_RECV: a removed source is refused. */
    EXPECT(fi_av_remove(c.av, &old, 1, 0), 0);
    EXPECT(fi_recv(c.ep, in, sizeof(in), NULL, old, in), -FI_EINVAL);
    EXPECT(fi_av_insert(c.av, name, 1, &again, 0, NULL), 1);
    CHECK(again != old);                  /* FI_AV_TABLE: a new index */
    EXPECT(fi_recv(c.ep, in, sizeof(in), NULL, again, in), 0);
    EXPECT(fi_send(c.ep, "hi", 3, NULL, again, NULL), 0);
    if (next_recv(&e)) {
        CHECK_EQ(e.op_context, in);
        CHECK(!strcmp(in, "hi"));
    }
    conf_ep_close(&c);

    /* Without FI_DIRECTED_RECV: the source of a receive is ignored. */
    struct fi_info *hints = fi_allocinfo(), *info;
    struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
    struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_DATA };
    fi_addr_t src;

    hints->caps = FI_MSG | FI_TAGGED;
    hints->ep_attr->type = FI_EP_RDM;
    hints->fabric_attr->prov_name = strdup("dimmnet");
    MUST(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info));
    fi_freeinfo(hints);
    CHECK(!(info->caps & FI_DIRECTED_RECV));
    memset(&c, 0, sizeof(c));
    c.info = info;
    MUST(fi_fabric(info->fabric_attr, &c.fabric, NULL));
    MUST(fi_domain(c.fabric, info, &c.domain, NULL));
    MUST(fi_av_open(c.domain, &av_attr, &c.av, NULL));
    MUST(fi_cq_open(c.domain, &cq_attr, &c.cq, NULL));
    MUST(fi_endpoint(c.domain, info, &c.ep, NULL));
    MUST(fi_ep_bind(c.ep, &c.av->fid, 0));
    MUST(fi_ep_bind(c.ep, &c.cq->fid, FI_TRANSMIT | FI_RECV));
    MUST(fi_enable(c.ep));
    EXPECT(fi_av_insert(c.av, name, 1, &old, 0, NULL), 1);
    EXPECT(fi_send(c.ep, "one", 4, NULL, old, NULL), 0);
    EXPECT(fi_av_remove(c.av, &old, 1, 0), 0);
    /* Removed while its message is on the way: taken, source unknown. */
    EXPECT(fi_recv(c.ep, in, sizeof(in), NULL, old, in), 0);
    for (int64_t end = conf_now_ms() + 20000; conf_now_ms() < end;) {
        ssize_t n = fi_cq_readfrom(c.cq, &e, 1, &src);

        if (n == 1 && (e.flags & FI_RECV)) {
            CHECK_EQ(e.op_context, in);
            CHECK_EQ(src, FI_ADDR_NOTAVAIL);
            CHECK(!strcmp(in, "one"));
            break;
        }
        CHECK_MSG(n == 1 || n == -FI_EAGAIN, "fi_cq_readfrom: %zd", n);
    }
    EXPECT(fi_av_insert(c.av, name, 1, &again, 0, NULL), 1);
    EXPECT(fi_recv(c.ep, in, sizeof(in), NULL, old, in), 0);   /* the old index */
    EXPECT(fi_send(c.ep, "two", 4, NULL, again, NULL), 0);
    for (int64_t end = conf_now_ms() + 20000; conf_now_ms() < end;) {
        ssize_t n = fi_cq_readfrom(c.cq, &e, 1, &src);

        if (n == 1 && (e.flags & FI_RECV)) {
            CHECK_EQ(src, again);
            CHECK(!strcmp(in, "two"));
            break;
        }
    }
    c.self = again;
    /* teardown closes it */
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {
        { "opt", test_opt },
        { "packed", test_packed },
        { "unexpected", test_unexpected },
        { "long", test_long },
        { "refused", test_refused },
        { "av_remove", test_av_remove },
        { NULL, NULL },
    };

    return run_cases(cases, argc, argv, 1, setup, teardown);
}

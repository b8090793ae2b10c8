/*
 * dn_msg_cancel on a node whose LLCM is a plain buffer (no board): a posted
 * receive is withdrawn wherever it stands in the posted list (head, middle,
 * tail) and the list stays whole; a completed request answers DN_EBUSY; a
 * request that is not a posted receive (a send) answers DN_EINVAL.
 */
#include <stdlib.h>
#include <string.h>
#include "../common/check.h"
#include "../../host-shim/src/msg.h"
#include "dimmnet1/memmap.h"

static uint8_t llcm[DN1_LLCM_SIZE];

int main(void)
{
    dn_node *n = calloc(1, sizeof(*n));
    dn_msg_req *a, *b, *c, *d;
    uint8_t buf[16];

    n->llcm = llcm;
    dn_port_setup(n, 0, 1);             /* a board of one host port */
    n->msg = calloc(1, sizeof(*n->msg));
    n->msg->cfg.senders = 4;
    n->msg->cfg.nq_entries = 16;
    CHECK_EQ(dn_msg_irecv(n, 1, 5, buf, sizeof(buf), &a), DN_OK);
    CHECK_EQ(dn_msg_irecv(n, 1, 6, buf, sizeof(buf), &b), DN_OK);
    CHECK_EQ(dn_msg_irecv(n, DN_ANY_SOURCE, 7, buf, sizeof(buf), &c), DN_OK);
    CHECK(n->msg->posted == a && n->msg->posted_tail == c);
    CHECK_EQ(dn_msg_cancel(n, b), DN_OK);            /* middle */
    CHECK(a->next == c && n->msg->posted_tail == c);
    CHECK_EQ(dn_msg_cancel(n, c), DN_OK);            /* tail */
    CHECK(n->msg->posted == a && n->msg->posted_tail == a && a->next == NULL);
    CHECK_EQ(dn_msg_irecv(n, 2, 8, buf, sizeof(buf), &d), DN_OK);
    CHECK(a->next == d && n->msg->posted_tail == d);
    CHECK_EQ(dn_msg_cancel(n, a), DN_OK);            /* head */
    CHECK(n->msg->posted == d && n->msg->posted_tail == d);
    CHECK_EQ(dn_msg_cancel(n, d), DN_OK);
    CHECK(n->msg->posted == NULL && n->msg->posted_tail == NULL);

    dn_msg_req *done = calloc(1, sizeof(*done)), *send = calloc(1, sizeof(*send));
    done->done = 1;
    CHECK_EQ(dn_msg_cancel(n, done), DN_EBUSY);      /* test it instead */
    CHECK_EQ(dn_msg_cancel(n, send), DN_EINVAL);     /* not a posted receive */
    CHECK_EQ(dn_msg_cancel(n, NULL), DN_EINVAL);
    CHECK_EQ(dn_msg_cancel(NULL, send), DN_EINVAL);
    free(done);
    free(send);
    printf("shim dn_msg_cancel: head, middle, tail, done, not posted: %s\n",
           check_failures ? "FAILED" : "ok");
    return check_failures ? 1 : 0;
}

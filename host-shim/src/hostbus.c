/* Host-bus client: one request, one response (docs/hardware.md, "Host bus"). */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"

/*
 * The NIC answers at once; this bounds a wedged or vanished board. With
 * host sync an answer waits for virtual time, i.e. for the whole cluster to
 * get there: allow for a slow, loaded machine.
 */
#define HB_TIMEOUT_MS      10000
#define HB_SYNC_TIMEOUT_MS 120000

static int io_full(int fd, void *buf, size_t len, int writing, int timeout_ms)
{
    uint8_t *p = buf;
    int64_t deadline = dn_now_ms() + timeout_ms;

    while (len > 0) {
        struct pollfd pfd = { .fd = fd, .events = writing ? POLLOUT : POLLIN };
        int left = (int)(deadline - dn_now_ms());

        if (left <= 0) {
            return DN_ETIMEDOUT;
        }
        int r = poll(&pfd, 1, left);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            return r == 0 ? DN_ETIMEDOUT : DN_EIO;
        }
        ssize_t k = writing ? write(fd, p, len) : read(fd, p, len);
        if (k < 0 && (errno == EINTR || errno == EAGAIN)) {
            continue;
        }
        if (k <= 0) {
            return DN_EIO;   /* board gone */
        }
        p += k;
        len -= (size_t)k;
    }
    return DN_OK;
}

int dn_hb_call(dn_node *n, uint32_t op, uint64_t arg0, uint64_t arg1,
               uint64_t arg2, uint64_t *value)
{
    uint8_t req[sizeof(struct dn1_hb_req)] = { 0 };
    uint8_t rsp[sizeof(struct dn1_hb_rsp)];
    int rc;

    dn_put_le(req + offsetof(struct dn1_hb_req, magic), DN1_HB_MAGIC, 4);
    dn_put_le(req + offsetof(struct dn1_hb_req, op), op, 4);
    dn_put_le(req + offsetof(struct dn1_hb_req, arg0), arg0, 8);
    dn_put_le(req + offsetof(struct dn1_hb_req, arg1), arg1, 8);
    dn_put_le(req + offsetof(struct dn1_hb_req, arg2), arg2, 8);
    int timeout_ms = n->host_sync ? HB_SYNC_TIMEOUT_MS : HB_TIMEOUT_MS;
    rc = io_full(n->hb_fd, req, sizeof(req), 1, timeout_ms);
    if (rc == DN_OK) {
        rc = io_full(n->hb_fd, rsp, sizeof(rsp), 0, timeout_ms);
    }
    if (rc != DN_OK) {
        return rc;
    }
    if (dn_get_le(rsp + offsetof(struct dn1_hb_rsp, magic), 4) != DN1_HB_MAGIC) {
        return DN_EIO;
    }
    int32_t status = (int32_t)dn_get_le(rsp + offsetof(struct dn1_hb_rsp, status), 4);
    if (value) {
        *value = dn_get_le(rsp + offsetof(struct dn1_hb_rsp, value), 8);
    }
    switch (status) {
    case 0:                 return DN_OK;
    case DN1_HB_ELINKDOWN:  return DN_ELINKDOWN;
    case DN1_HB_EINVAL:     return DN_EINVAL;
    case DN1_HB_EBUSY:      return DN_EBUSY;
    case DN1_HB_ENOFLASH:   return DN_ENOFLASH;
    default:                return DN_EIO;
    }
}

int dn_reg_read(dn_node *n, uint32_t reg, uint32_t *value)
{
    uint64_t v = 0;
    int rc;

    if (!n || !value || (reg & 3) != 0) {
        return DN_EINVAL;
    }
    rc = dn_hb_call(n, DN1_HB_REG_READ, reg, 0, 0, &v);
    *value = (uint32_t)v;
    return rc;
}

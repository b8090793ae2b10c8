/* The fabric: one per process; it opens domains and event queues. */
#include <stdlib.h>
#include "dimmnet.h"

static int fabric_close(struct fid *fid)
{
    struct dnf_fabric *f = container_of(fid, struct dnf_fabric, fab.fid);

    if (atomic_load(&f->refs)) {
        return -FI_EBUSY;        /* a domain or an EQ still open on it */
    }
    free(f);
    return 0;
}

static struct fi_ops fabric_fi_ops = {
    .size = sizeof(struct fi_ops),
    .close = fabric_close,
    .bind = dnf_no_bind,
    .control = dnf_no_control,
    .ops_open = dnf_no_ops_open,
    .tostr = dnf_no_tostr,
    .ops_set = dnf_no_ops_set,
};

/* fi_domain2 calls this only with flags (FI_PEER), which we do not take. */
static int fabric_domain2(struct fid_fabric *fabric, struct fi_info *info,
                          struct fid_domain **dom, uint64_t flags, void *context)
{
    if (flags) {
        return -FI_ENOSYS;
    }
    return dnf_domain_open(fabric, info, dom, context);
}

static struct fi_ops_fabric fabric_ops = {
    .size = sizeof(struct fi_ops_fabric),
    .domain = dnf_domain_open,
    .passive_ep = dnf_no_passive_ep,
    .eq_open = dnf_eq_open,
    .wait_open = dnf_no_wait_open,
    .trywait = dnf_trywait,
    .domain2 = fabric_domain2,
};

int dnf_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
    struct dnf_fabric *f;

    (void)attr;
    f = calloc(1, sizeof(*f));
    if (!f) {
        return -FI_ENOMEM;
    }
    f->fab.fid.fclass = FI_CLASS_FABRIC;
    f->fab.fid.context = context;
    f->fab.fid.ops = &fabric_fi_ops;
    f->fab.ops = &fabric_ops;
    *fabric = &f->fab;
    return 0;
}

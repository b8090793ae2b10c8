/* The fabric: one per process; it opens domains. */
#include <stdlib.h>
#include "dimmnet.h"

static int fabric_close(struct fid *fid)
{
    free(container_of(fid, struct dnf_fabric, fab.fid));
    return 0;
}

static struct fi_ops fabric_fi_ops = {
    .size = sizeof(struct fi_ops),
    .close = fabric_close,
};

static struct fi_ops_fabric fabric_ops = {
    .size = sizeof(struct fi_ops_fabric),
    .domain = dnf_domain_open,
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

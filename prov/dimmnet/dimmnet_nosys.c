/*
 * Operations the provider does not offer. libfabric's inline calls jump
 * through the ops tables without a NULL check (fi_read, fi_cntr_open,
 * fi_atomic, ...), so every slot of every table handed out points here
 * instead of being left empty: the application gets an error, not a
 * crash. libfabric's own fi_no_* helpers are not exported to providers
 * loaded from FI_PROVIDER_PATH, hence these.
 *
 * -FI_ENOSYS (not implemented) everywhere, except where the operation's
 * man page names another error for "not supported": atomics
 * (fi_atomic(3)) and collectives (fi_collective(3)) answer -FI_EOPNOTSUPP.
 * The collective table, fi_query_collective and AV sets here are what an
 * endpoint, domain or AV opened without FI_COLLECTIVE gets (with it:
 * dimmnet_fcoll.c).
 */
#include "dimmnet.h"

#define UNUSED(x) (void)(x)

/* ---- struct fi_ops (any fid) ------------------------------------------- */

int dnf_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
    UNUSED(fid); UNUSED(bfid); UNUSED(flags);
    return -FI_ENOSYS;
}

int dnf_no_control(struct fid *fid, int command, void *arg)
{
    UNUSED(fid); UNUSED(command); UNUSED(arg);
    return -FI_ENOSYS;
}

int dnf_no_ops_open(struct fid *fid, const char *name, uint64_t flags, void **ops,
                    void *context)
{
    UNUSED(fid); UNUSED(name); UNUSED(flags); UNUSED(ops); UNUSED(context);
    return -FI_ENOSYS;     /* no provider-specific extensions */
}

int dnf_no_tostr(const struct fid *fid, char *buf, size_t len)
{
    UNUSED(fid); UNUSED(buf); UNUSED(len);
    return -FI_ENOSYS;
}

int dnf_no_ops_set(struct fid *fid, const char *name, uint64_t flags, void *ops,
                   void *context)
{
    UNUSED(fid); UNUSED(name); UNUSED(flags); UNUSED(ops); UNUSED(context);
    return -FI_ENOSYS;
}

/* ---- fabric ------------------------------------------------------------- */

int dnf_no_passive_ep(struct fid_fabric *fabric, struct fi_info *info,
                      struct fid_pep **pep, void *context)
{
    UNUSED(fabric); UNUSED(info); UNUSED(pep); UNUSED(context);
    return -FI_ENOSYS;     /* FI_EP_RDM only: nothing listens */
}

int dnf_no_wait_open(struct fid_fabric *fabric, struct fi_wait_attr *attr,
                     struct fid_wait **waitset)
{
    UNUSED(fabric); UNUSED(attr); UNUSED(waitset);
    return -FI_ENOSYS;     /* no wait sets */
}

/* ---- domain ------------------------------------------------------------- */

int dnf_no_scalable_ep(struct fid_domain *domain, struct fi_info *info,
                       struct fid_ep **sep, void *context)
{
    UNUSED(domain); UNUSED(info); UNUSED(sep); UNUSED(context);
    return -FI_ENOSYS;
}

int dnf_no_cntr_open(struct fid_domain *domain, struct fi_cntr_attr *attr,
                     struct fid_cntr **cntr, void *context)
{
    UNUSED(domain); UNUSED(attr); UNUSED(cntr); UNUSED(context);
    return -FI_ENOSYS;     /* no counters (FI_RMA_EVENT etc. not offered) */
}

int dnf_no_poll_open(struct fid_domain *domain, struct fi_poll_attr *attr,
                     struct fid_poll **pollset)
{
    UNUSED(domain); UNUSED(attr); UNUSED(pollset);
    return -FI_ENOSYS;
}

int dnf_no_stx_ctx(struct fid_domain *domain, struct fi_tx_attr *attr,
                   struct fid_stx **stx, void *context)
{
    UNUSED(domain); UNUSED(attr); UNUSED(stx); UNUSED(context);
    return -FI_ENOSYS;
}

int dnf_no_srx_ctx(struct fid_domain *domain, struct fi_rx_attr *attr,
                   struct fid_ep **rx_ep, void *context)
{
    UNUSED(domain); UNUSED(attr); UNUSED(rx_ep); UNUSED(context);
    return -FI_ENOSYS;
}

int dnf_no_query_atomic(struct fid_domain *domain, enum fi_datatype datatype,
                        enum fi_op op, struct fi_atomic_attr *attr, uint64_t flags)
{
    UNUSED(domain); UNUSED(datatype); UNUSED(op); UNUSED(attr); UNUSED(flags);
    return -FI_EOPNOTSUPP;
}

int dnf_no_query_collective(struct fid_domain *domain, enum fi_collective_op coll,
                            struct fi_collective_attr *attr, uint64_t flags)
{
    UNUSED(domain); UNUSED(coll); UNUSED(attr); UNUSED(flags);
    return -FI_EOPNOTSUPP;
}

/* ---- memory registration (mr_mode 0: nothing to register, no FI_RMA) ---- */

int dnf_no_mr_reg(struct fid *fid, const void *buf, size_t len, uint64_t access,
                  uint64_t offset, uint64_t requested_key, uint64_t flags,
                  struct fid_mr **mr, void *context)
{
    UNUSED(fid); UNUSED(buf); UNUSED(len); UNUSED(access); UNUSED(offset);
    UNUSED(requested_key); UNUSED(flags); UNUSED(mr); UNUSED(context);
    return -FI_ENOSYS;
}

int dnf_no_mr_regv(struct fid *fid, const struct iovec *iov, size_t count,
                   uint64_t access, uint64_t offset, uint64_t requested_key,
                   uint64_t flags, struct fid_mr **mr, void *context)
{
    UNUSED(fid); UNUSED(iov); UNUSED(count); UNUSED(access); UNUSED(offset);
    UNUSED(requested_key); UNUSED(flags); UNUSED(mr); UNUSED(context);
    return -FI_ENOSYS;
}

int dnf_no_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr, uint64_t flags,
                      struct fid_mr **mr)
{
    UNUSED(fid); UNUSED(attr); UNUSED(flags); UNUSED(mr);
    return -FI_ENOSYS;
}

/* ---- address vectors ---------------------------------------------------- */

int dnf_no_av_insertsvc(struct fid_av *av, const char *node, const char *service,
                        fi_addr_t *fi_addr, uint64_t flags, void *context)
{
    UNUSED(av); UNUSED(node); UNUSED(service); UNUSED(fi_addr); UNUSED(flags);
    UNUSED(context);
    return -FI_ENOSYS;     /* names are opaque (FI_FORMAT_UNSPEC), not host/port */
}

int dnf_no_av_insertsym(struct fid_av *av, const char *node, size_t nodecnt,
                        const char *service, size_t svccnt, fi_addr_t *fi_addr,
                        uint64_t flags, void *context)
{
    UNUSED(av); UNUSED(node); UNUSED(nodecnt); UNUSED(service); UNUSED(svccnt);
    UNUSED(fi_addr); UNUSED(flags); UNUSED(context);
    return -FI_ENOSYS;
}

int dnf_no_av_set(struct fid_av *av, struct fi_av_set_attr *attr,
                  struct fid_av_set **av_set, void *context)
{
    UNUSED(av); UNUSED(attr); UNUSED(av_set); UNUSED(context);
    return -FI_ENOSYS;     /* AV sets serve collectives, not asked for */
}

/* ---- RMA (no FI_RMA) ---------------------------------------------------- */

static ssize_t no_rma_read(struct fid_ep *ep, void *buf, size_t len, void *desc,
                           fi_addr_t src_addr, uint64_t addr, uint64_t key, void *context)
{
    UNUSED(ep); UNUSED(buf); UNUSED(len); UNUSED(desc); UNUSED(src_addr);
    UNUSED(addr); UNUSED(key); UNUSED(context);
    return -FI_ENOSYS;
}

static ssize_t no_rma_readv(struct fid_ep *ep, const struct iovec *iov, void **desc,
                            size_t count, fi_addr_t src_addr, uint64_t addr, uint64_t key,
                            void *context)
{
    UNUSED(ep); UNUSED(iov); UNUSED(desc); UNUSED(count); UNUSED(src_addr);
    UNUSED(addr); UNUSED(key); UNUSED(context);
    return -FI_ENOSYS;
}

static ssize_t no_rma_readmsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
                              uint64_t flags)
{
    UNUSED(ep); UNUSED(msg); UNUSED(flags);
    return -FI_ENOSYS;
}

static ssize_t no_rma_write(struct fid_ep *ep, const void *buf, size_t len, void *desc,
                            fi_addr_t dest_addr, uint64_t addr, uint64_t key, void *context)
{
    UNUSED(ep); UNUSED(buf); UNUSED(len); UNUSED(desc); UNUSED(dest_addr);
    UNUSED(addr); UNUSED(key); UNUSED(context);
    return -FI_ENOSYS;
}

static ssize_t no_rma_writev(struct fid_ep *ep, const struct iovec *iov, void **desc,
                             size_t count, fi_addr_t dest_addr, uint64_t addr,
                             uint64_t key, void *context)
{
    UNUSED(ep); UNUSED(iov); UNUSED(desc); UNUSED(count); UNUSED(dest_addr);
    UNUSED(addr); UNUSED(key); UNUSED(context);
    return -FI_ENOSYS;
}

static ssize_t no_rma_writemsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
                               uint64_t flags)
{
    UNUSED(ep); UNUSED(msg); UNUSED(flags);
    return -FI_ENOSYS;
}

static ssize_t no_rma_inject(struct fid_ep *ep, const void *buf, size_t len,
                             fi_addr_t dest_addr, uint64_t addr, uint64_t key)
{
    UNUSED(ep); UNUSED(buf); UNUSED(len); UNUSED(dest_addr); UNUSED(addr); UNUSED(key);
    return -FI_ENOSYS;
}

static ssize_t no_rma_writedata(struct fid_ep *ep, const void *buf, size_t len,
                                void *desc, uint64_t data, fi_addr_t dest_addr,
                                uint64_t addr, uint64_t key, void *context)
{
    UNUSED(ep); UNUSED(buf); UNUSED(len); UNUSED(desc); UNUSED(data);
    UNUSED(dest_addr); UNUSED(addr); UNUSED(key); UNUSED(context);
    return -FI_ENOSYS;
}

static ssize_t no_rma_injectdata(struct fid_ep *ep, const void *buf, size_t len,
                                 uint64_t data, fi_addr_t dest_addr, uint64_t addr,
                                 uint64_t key)
{
    UNUSED(ep); UNUSED(buf); UNUSED(len); UNUSED(data); UNUSED(dest_addr);
    UNUSED(addr); UNUSED(key);
    return -FI_ENOSYS;
}

struct fi_ops_rma dnf_no_rma_ops = {
    .size = sizeof(struct fi_ops_rma),
    .read = no_rma_read,
    .readv = no_rma_readv,
    .readmsg = no_rma_readmsg,
    .write = no_rma_write,
    .writev = no_rma_writev,
    .writemsg = no_rma_writemsg,
    .inject = no_rma_inject,
    .writedata = no_rma_writedata,
    .injectdata = no_rma_injectdata,
};

/* ---- atomics (no FI_ATOMIC): -FI_EOPNOTSUPP, as fi_atomic(3) names ----- */

static ssize_t no_atomic_write(struct fid_ep *ep, const void *buf, size_t count,
                               void *desc, fi_addr_t dest_addr, uint64_t addr,
                               uint64_t key, enum fi_datatype datatype, enum fi_op op,
                               void *context)
{
    UNUSED(ep); UNUSED(buf); UNUSED(count); UNUSED(desc); UNUSED(dest_addr);
    UNUSED(addr); UNUSED(key); UNUSED(datatype); UNUSED(op); UNUSED(context);
    return -FI_EOPNOTSUPP;
}

static ssize_t no_atomic_writev(struct fid_ep *ep, const struct fi_ioc *iov, void **desc,
                                size_t count, fi_addr_t dest_addr, uint64_t addr,
                                uint64_t key, enum fi_datatype datatype, enum fi_op op,
                                void *context)
{
    UNUSED(ep); UNUSED(iov); UNUSED(desc); UNUSED(count); UNUSED(dest_addr);
    UNUSED(addr); UNUSED(key); UNUSED(datatype); UNUSED(op); UNUSED(context);
    return -FI_EOPNOTSUPP;
}

static ssize_t no_atomic_writemsg(struct fid_ep *ep, const struct fi_msg_atomic *msg,
                                  uint64_t flags)
{
    UNUSED(ep); UNUSED(msg); UNUSED(flags);
    return -FI_EOPNOTSUPP;
}

static ssize_t no_atomic_inject(struct fid_ep *ep, const void *buf, size_t count,
                                fi_addr_t dest_addr, uint64_t addr, uint64_t key,
                                enum fi_datatype datatype, enum fi_op op)
{
    UNUSED(ep); UNUSED(buf); UNUSED(count); UNUSED(dest_addr); UNUSED(addr);
    UNUSED(key); UNUSED(datatype); UNUSED(op);
    return -FI_EOPNOTSUPP;
}

static ssize_t no_atomic_readwrite(struct fid_ep *ep, const void *buf, size_t count,
                                   void *desc, void *result, void *result_desc,
                                   fi_addr_t dest_addr, uint64_t addr, uint64_t key,
                                   enum fi_datatype datatype, enum fi_op op,
                                   void *context)
{
    UNUSED(ep); UNUSED(buf); UNUSED(count); UNUSED(desc); UNUSED(result);
    UNUSED(result_desc); UNUSED(dest_addr); UNUSED(addr); UNUSED(key);
    UNUSED(datatype); UNUSED(op); UNUSED(context);
    return -FI_EOPNOTSUPP;
}

static ssize_t no_atomic_readwritev(struct fid_ep *ep, const struct fi_ioc *iov,
                                    void **desc, size_t count, struct fi_ioc *resultv,
                                    void **result_desc, size_t result_count,
                                    fi_addr_t dest_addr, uint64_t addr, uint64_t key,
                                    enum fi_datatype datatype, enum fi_op op,
                                    void *context)
{
    UNUSED(ep); UNUSED(iov); UNUSED(desc); UNUSED(count); UNUSED(resultv);
    UNUSED(result_desc); UNUSED(result_count); UNUSED(dest_addr); UNUSED(addr);
    UNUSED(key); UNUSED(datatype); UNUSED(op); UNUSED(context);
    return -FI_EOPNOTSUPP;
}

static ssize_t no_atomic_readwritemsg(struct fid_ep *ep, const struct fi_msg_atomic *msg,
                                      struct fi_ioc *resultv, void **result_desc,
                                      size_t result_count, uint64_t flags)
{
    UNUSED(ep); UNUSED(msg); UNUSED(resultv); UNUSED(result_desc);
    UNUSED(result_count); UNUSED(flags);
    return -FI_EOPNOTSUPP;
}

static ssize_t no_atomic_compwrite(struct fid_ep *ep, const void *buf, size_t count,
                                   void *desc, const void *compare, void *compare_desc,
                                   void *result, void *result_desc, fi_addr_t dest_addr,
                                   uint64_t addr, uint64_t key, enum fi_datatype datatype,
                                   enum fi_op op, void *context)
{
    UNUSED(ep); UNUSED(buf); UNUSED(count); UNUSED(desc); UNUSED(compare);
    UNUSED(compare_desc); UNUSED(result); UNUSED(result_desc); UNUSED(dest_addr);
    UNUSED(addr); UNUSED(key); UNUSED(datatype); UNUSED(op); UNUSED(context);
    return -FI_EOPNOTSUPP;
}

static ssize_t no_atomic_compwritev(struct fid_ep *ep, const struct fi_ioc *iov,
                                    void **desc, size_t count,
                                    const struct fi_ioc *comparev, void **compare_desc,
                                    size_t compare_count, struct fi_ioc *resultv,
                                    void **result_desc, size_t result_count,
                                    fi_addr_t dest_addr, uint64_t addr, uint64_t key,
                                    enum fi_datatype datatype, enum fi_op op,
                                    void *context)
{
    UNUSED(ep); UNUSED(iov); UNUSED(desc); UNUSED(count); UNUSED(comparev);
    UNUSED(compare_desc); UNUSED(compare_count); UNUSED(resultv); UNUSED(result_desc);
    UNUSED(result_count); UNUSED(dest_addr); UNUSED(addr); UNUSED(key);
    UNUSED(datatype); UNUSED(op); UNUSED(context);
    return -FI_EOPNOTSUPP;
}

static ssize_t no_atomic_compwritemsg(struct fid_ep *ep, const struct fi_msg_atomic *msg,
                                      const struct fi_ioc *comparev, void **compare_desc,
                                      size_t compare_count, struct fi_ioc *resultv,
                                      void **result_desc, size_t result_count,
                                      uint64_t flags)
{
    UNUSED(ep); UNUSED(msg); UNUSED(comparev); UNUSED(compare_desc);
    UNUSED(compare_count); UNUSED(resultv); UNUSED(result_desc); UNUSED(result_count);
    UNUSED(flags);
    return -FI_EOPNOTSUPP;
}

static int no_atomic_valid(struct fid_ep *ep, enum fi_datatype datatype, enum fi_op op,
                           size_t *count)
{
    UNUSED(ep); UNUSED(datatype); UNUSED(op); UNUSED(count);
    return -FI_EOPNOTSUPP;
}

struct fi_ops_atomic dnf_no_atomic_ops = {
    .size = sizeof(struct fi_ops_atomic),
    .write = no_atomic_write,
    .writev = no_atomic_writev,
    .writemsg = no_atomic_writemsg,
    .inject = no_atomic_inject,
    .readwrite = no_atomic_readwrite,
    .readwritev = no_atomic_readwritev,
    .readwritemsg = no_atomic_readwritemsg,
    .compwrite = no_atomic_compwrite,
    .compwritev = no_atomic_compwritev,
    .compwritemsg = no_atomic_compwritemsg,
    .writevalid = no_atomic_valid,
    .readwritevalid = no_atomic_valid,
    .compwritevalid = no_atomic_valid,
};

/* ---- collectives (no FI_COLLECTIVE): -FI_EOPNOTSUPP, fi_collective(3) -- */

static ssize_t no_coll_barrier(struct fid_ep *ep, fi_addr_t coll_addr, void *context)
{
    UNUSED(ep); UNUSED(coll_addr); UNUSED(context);
    return -FI_EOPNOTSUPP;
}

static ssize_t no_coll_broadcast(struct fid_ep *ep, void *buf, size_t count, void *desc,
                                 fi_addr_t coll_addr, fi_addr_t root_addr,
                                 enum fi_datatype datatype, uint64_t flags, void *context)
{
    UNUSED(ep); UNUSED(buf); UNUSED(count); UNUSED(desc); UNUSED(coll_addr);
    UNUSED(root_addr); UNUSED(datatype); UNUSED(flags); UNUSED(context);
    return -FI_EOPNOTSUPP;
}

/* alltoall, allgather: the same shape */
static ssize_t no_coll_gather_all(struct fid_ep *ep, const void *buf, size_t count,
                                  void *desc, void *result, void *result_desc,
                                  fi_addr_t coll_addr, enum fi_datatype datatype,
                                  uint64_t flags, void *context)
{
    UNUSED(ep); UNUSED(buf); UNUSED(count); UNUSED(desc); UNUSED(result);
    UNUSED(result_desc); UNUSED(coll_addr); UNUSED(datatype); UNUSED(flags);
    UNUSED(context);
    return -FI_EOPNOTSUPP;
}

/* allreduce, reduce_scatter: the same shape */
static ssize_t no_coll_reduce_all(struct fid_ep *ep, const void *buf, size_t count,
                                  void *desc, void *result, void *result_desc,
                                  fi_addr_t coll_addr, enum fi_datatype datatype,
                                  enum fi_op op, uint64_t flags, void *context)
{
    UNUSED(ep); UNUSED(buf); UNUSED(count); UNUSED(desc); UNUSED(result);
    UNUSED(result_desc); UNUSED(coll_addr); UNUSED(datatype); UNUSED(op);
    UNUSED(flags); UNUSED(context);
    return -FI_EOPNOTSUPP;
}

static ssize_t no_coll_reduce(struct fid_ep *ep, const void *buf, size_t count, void *desc,
                              void *result, void *result_desc, fi_addr_t coll_addr,
                              fi_addr_t root_addr, enum fi_datatype datatype,
                              enum fi_op op, uint64_t flags, void *context)
{
    UNUSED(ep); UNUSED(buf); UNUSED(count); UNUSED(desc); UNUSED(result);
    UNUSED(result_desc); UNUSED(coll_addr); UNUSED(root_addr); UNUSED(datatype);
    UNUSED(op); UNUSED(flags); UNUSED(context);
    return -FI_EOPNOTSUPP;
}

/* scatter, gather: the same shape */
static ssize_t no_coll_rooted(struct fid_ep *ep, const void *buf, size_t count,
                              void *desc, void *result, void *result_desc,
                              fi_addr_t coll_addr, fi_addr_t root_addr,
                              enum fi_datatype datatype, uint64_t flags, void *context)
{
    UNUSED(ep); UNUSED(buf); UNUSED(count); UNUSED(desc); UNUSED(result);
    UNUSED(result_desc); UNUSED(coll_addr); UNUSED(root_addr); UNUSED(datatype);
    UNUSED(flags); UNUSED(context);
    return -FI_EOPNOTSUPP;
}

static ssize_t no_coll_msg(struct fid_ep *ep, const struct fi_msg_collective *msg,
                           struct fi_ioc *resultv, void **result_desc, size_t result_count,
                           uint64_t flags)
{
    UNUSED(ep); UNUSED(msg); UNUSED(resultv); UNUSED(result_desc);
    UNUSED(result_count); UNUSED(flags);
    return -FI_EOPNOTSUPP;
}

static ssize_t no_coll_barrier2(struct fid_ep *ep, fi_addr_t coll_addr, uint64_t flags,
                                void *context)
{
    UNUSED(ep); UNUSED(coll_addr); UNUSED(flags); UNUSED(context);
    return -FI_EOPNOTSUPP;
}

struct fi_ops_collective dnf_no_collective_ops = {
    .size = sizeof(struct fi_ops_collective),
    .barrier = no_coll_barrier,
    .broadcast = no_coll_broadcast,
    .alltoall = no_coll_gather_all,
    .allreduce = no_coll_reduce_all,
    .allgather = no_coll_gather_all,
    .reduce_scatter = no_coll_reduce_all,
    .reduce = no_coll_reduce,
    .scatter = no_coll_rooted,
    .gather = no_coll_rooted,
    .msg = no_coll_msg,
    .barrier2 = no_coll_barrier2,
};

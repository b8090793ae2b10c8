/*
 * coll/dimmnet: the seam between the Open MPI component and whatever
 * serves a collective on the NIC (its collective engine, later).
 *
 * The component (coll_dimmnet_module.c) takes each collective below on
 * every intra-communicator of two ranks or more. For op X it calls
 * coll_dimmnet_backend.X when that pointer is not NULL; a backend function
 * returns COLL_DIMMNET_DECLINED for a call it does not serve (a datatype,
 * an operation, a size or a communicator it cannot do), and the component
 * then forwards the call to the module that would have served it without
 * coll/dimmnet (tuned, libnbc, ...). Any other return value is the
 * collective's result (OMPI_SUCCESS or an error), as from any coll module.
 * A backend must decide the same way on every rank of the communicator
 * (the ranks must all take the same path).
 *
 * coll_dimmnet_engine.c fills the table (the NIC's collective engine).
 *
 * The arguments are those of Open MPI's coll functions of that operation
 * (ompi/mca/coll/coll.h, 4.1.x), the last one being the coll/dimmnet
 * module of the communicator (per-communicator state for a backend).
 * Only forward declarations here: a backend includes Open MPI's headers
 * itself when it looks into a datatype or an operation.
 */
#ifndef COLL_DIMMNET_BACKEND_H
#define COLL_DIMMNET_BACKEND_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ompi_communicator_t;
struct ompi_datatype_t;
struct ompi_op_t;
struct ompi_request_t;
struct mca_coll_base_module_2_3_0_t;

/* "Not served here: forward it." Far from every OMPI_ERR_* and MPI_ERR_*. */
#define COLL_DIMMNET_DECLINED (-0x4431)

struct coll_dimmnet_backend {
    const char *name;   /* for messages; "forward" for the table of NULLs */
    /* The clock trials are timed by (coll_dimmnet_choice.c): *ns now
     * (@ns may be NULL); 1 if modeled (the board's clock under host
     * sync), 0 if wall-clock. */
    int (*clock)(uint64_t *ns);

    /* blocking */
    int (*barrier)(struct ompi_communicator_t *comm,
                   struct mca_coll_base_module_2_3_0_t *module);
    int (*bcast)(void *buff, int count, struct ompi_datatype_t *dtype, int root,
                 struct ompi_communicator_t *comm,
                 struct mca_coll_base_module_2_3_0_t *module);
    int (*reduce)(const void *sbuf, void *rbuf, int count,
                  struct ompi_datatype_t *dtype, struct ompi_op_t *op, int root,
                  struct ompi_communicator_t *comm,
                  struct mca_coll_base_module_2_3_0_t *module);
    int (*allreduce)(const void *sbuf, void *rbuf, int count,
                     struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                     struct ompi_communicator_t *comm,
                     struct mca_coll_base_module_2_3_0_t *module);
    int (*allgather)(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                     void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                     struct ompi_communicator_t *comm,
                     struct mca_coll_base_module_2_3_0_t *module);
    int (*alltoall)(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                    void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                    struct ompi_communicator_t *comm,
                    struct mca_coll_base_module_2_3_0_t *module);
    int (*reduce_scatter_block)(const void *sbuf, void *rbuf, int rcount,
                                struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                struct ompi_communicator_t *comm,
                                struct mca_coll_base_module_2_3_0_t *module);
    int (*reduce_scatter)(const void *sbuf, void *rbuf, const int *rcounts,
                          struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                          struct ompi_communicator_t *comm,
                          struct mca_coll_base_module_2_3_0_t *module);

    /* non-blocking: *request is the request the caller waits for */
    int (*ibarrier)(struct ompi_communicator_t *comm, struct ompi_request_t **request,
                    struct mca_coll_base_module_2_3_0_t *module);
    int (*ibcast)(void *buff, int count, struct ompi_datatype_t *dtype, int root,
                  struct ompi_communicator_t *comm, struct ompi_request_t **request,
                  struct mca_coll_base_module_2_3_0_t *module);
    int (*ireduce)(const void *sbuf, void *rbuf, int count,
                   struct ompi_datatype_t *dtype, struct ompi_op_t *op, int root,
                   struct ompi_communicator_t *comm, struct ompi_request_t **request,
                   struct mca_coll_base_module_2_3_0_t *module);
    int (*iallreduce)(const void *sbuf, void *rbuf, int count,
                      struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                      struct ompi_communicator_t *comm, struct ompi_request_t **request,
                      struct mca_coll_base_module_2_3_0_t *module);
    int (*iallgather)(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                      void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                      struct ompi_communicator_t *comm, struct ompi_request_t **request,
                      struct mca_coll_base_module_2_3_0_t *module);
    int (*ialltoall)(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                     void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                     struct ompi_communicator_t *comm, struct ompi_request_t **request,
                     struct mca_coll_base_module_2_3_0_t *module);
    int (*ireduce_scatter_block)(const void *sbuf, void *rbuf, int rcount,
                                 struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                 struct ompi_communicator_t *comm,
                                 struct ompi_request_t **request,
                                 struct mca_coll_base_module_2_3_0_t *module);
};

/* The table the component calls (coll_dimmnet_module.c), in coll_dimmnet_engine.c. */
extern const struct coll_dimmnet_backend coll_dimmnet_backend;

#ifdef __cplusplus
}
#endif

#endif /* COLL_DIMMNET_BACKEND_H */

/*
 * coll/dimmnet: the component (its MCA variable, the statistics line).
 */
#include "ompi_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "ompi/constants.h"
#include "ompi/proc/proc.h"
#include "opal/mca/base/mca_base_var.h"
#include "opal/util/output.h"
#include "coll_dimmnet.h"

const char *mca_coll_dimmnet_component_version_string =
    "DIMMnet-1 coll MCA component (built against Open MPI " OMPI_VERSION ")";

static int dimmnet_register(void);
static int dimmnet_open(void);
static int dimmnet_close(void);

/* Version numbers from the headers it is built against: MCA base 2.1.0,
 * coll 2.0.0 (MCA_COLL_BASE_VERSION_2_0_0), the component Open MPI's own. */
mca_coll_dimmnet_component_t mca_coll_dimmnet_component = {
    .super = {
        .collm_version = {
            MCA_COLL_BASE_VERSION_2_0_0,
            .mca_component_name = "dimmnet",
            MCA_BASE_MAKE_VERSION(component, OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION,
                                  OMPI_RELEASE_VERSION),
            .mca_open_component = dimmnet_open,
            .mca_close_component = dimmnet_close,
            .mca_register_component_params = dimmnet_register,
        },
        .collm_data = {
            MCA_BASE_METADATA_PARAM_CHECKPOINT
        },
        .collm_init_query = mca_coll_dimmnet_init_query,
        .collm_comm_query = mca_coll_dimmnet_comm_query,
    },
    .priority = 90,
};

static int dimmnet_register(void)
{
    mca_base_component_t *c = &mca_coll_dimmnet_component.super.collm_version;

    /* Above tuned (30), libnbc (10), han, adapt, basic; below 100 (the
     * base caps priorities there) and monitoring (when switched on). */
    mca_coll_dimmnet_component.priority = 90;
    (void) mca_base_component_var_register(c, "priority",
        "Priority of the dimmnet coll component (it takes barrier, bcast, reduce, "
        "allreduce, allgather, alltoall, reduce_scatter(_block) and their "
        "non-blocking forms on intra-communicators of 2 ranks or more, "
        "forwarding what the NIC does not serve to the module below it)",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_6,
        MCA_BASE_VAR_SCOPE_READONLY, &mca_coll_dimmnet_component.priority);
    return OMPI_SUCCESS;
}

static int dimmnet_open(void)
{
    const char *s = getenv("DIMMNET_COLL_STATS");

    mca_coll_dimmnet_component.stats = NULL != s && 0 == strcmp(s, "1");
    mca_coll_dimmnet_component.choice = coll_dimmnet_choice_mode();
    if (mca_coll_dimmnet_component.choice < COLL_DIMMNET_CHOICE_AUTO) {
        opal_output(0, "coll/dimmnet: DIMMNET_COLL_CHOICE=%s is not auto, engine or ompi: "
                    "auto", getenv("DIMMNET_COLL_CHOICE"));
        mca_coll_dimmnet_component.choice = COLL_DIMMNET_CHOICE_AUTO;
    }
    mca_coll_dimmnet_component.chose[0] = mca_coll_dimmnet_component.chose[1] = 0;
    mca_coll_dimmnet_component.initialized = false;
    mca_coll_dimmnet_component.comms = 0;
    memset(mca_coll_dimmnet_component.calls, 0, sizeof(mca_coll_dimmnet_component.calls));
    return OMPI_SUCCESS;
}

static int dimmnet_close(void)
{
    coll_dimmnet_engine_finalize();
    mca_coll_dimmnet_print_stats();
    return OMPI_SUCCESS;
}

/* MPI_Init: this process runs MPI and may use the component. */
int mca_coll_dimmnet_init_query(bool enable_progress_threads, bool enable_mpi_threads)
{
    (void) enable_progress_threads;
    (void) enable_mpi_threads;
    /* ompi_proc_init ran before the coll framework: the local proc's name
     * is MPI_COMM_WORLD's rank (one job). */
    mca_coll_dimmnet_component.rank = ompi_proc_local()->super.proc_name.vpid;
    mca_coll_dimmnet_component.initialized = true;
    return OMPI_SUCCESS;
}

void mca_coll_dimmnet_print_stats(void)
{
    mca_coll_dimmnet_component_t *c = &mca_coll_dimmnet_component;
    static const char *const names[] = {
#define COLL_DIMMNET_NAME(name) #name,
        COLL_DIMMNET_OPS(COLL_DIMMNET_NAME)
#undef COLL_DIMMNET_NAME
    };
    uint64_t n[COLL_DIMMNET_NOPS], sv[COLL_DIMMNET_NOPS], served = 0, total = 0;
    char extra[1024];
    int len;

    if (!c->stats || !c->initialized) {
        return;
    }
    c->initialized = false;   /* once */
    for (int i = 0; i < COLL_DIMMNET_NOPS; i++) {
        n[i] = __atomic_load_n(&c->calls[i], __ATOMIC_RELAXED);
        sv[i] = __atomic_load_n(&c->served[i], __ATOMIC_RELAXED);
        served += sv[i];
        total += n[i];
    }
    /* Appended fields: what the engine served and what went to the module
     * below (outermost calls), in total and by operation (Open MPI's
     * names: reduce_scatter_block apart from reduce_scatter here). */
    len = snprintf(extra, sizeof(extra), " served=%llu forwarded=%llu",
                   (unsigned long long) served, (unsigned long long) (total - served));
    for (int i = 0; i < COLL_DIMMNET_NOPS && len < (int) sizeof(extra); i++) {
        len += snprintf(extra + len, sizeof(extra) - len, " served_%s=%llu", names[i],
                        (unsigned long long) sv[i]);
    }
    /* The run-time choice: keys (operation, size class) decided for the
     * engine and for Open MPI's own modules. */
    if (len < (int) sizeof(extra)) {
        len += snprintf(extra + len, sizeof(extra) - len, " chose_engine=%llu chose_ompi=%llu",
                        (unsigned long long) __atomic_load_n(&c->chose[0], __ATOMIC_RELAXED),
                        (unsigned long long) __atomic_load_n(&c->chose[1], __ATOMIC_RELAXED));
    }
#define N(op) (unsigned long long) n[COLL_DIMMNET_OP_##op]
    /* reduce_scatter counts MPI_Reduce_scatter and MPI_Reduce_scatter_block;
     * ireduce_scatter MPI_Ireduce_scatter_block (the only one taken). */
    fprintf(stderr, "coll/dimmnet: rank %lu comms %llu barrier=%llu bcast=%llu reduce=%llu "
            "allreduce=%llu allgather=%llu alltoall=%llu reduce_scatter=%llu "
            "ibarrier=%llu ibcast=%llu ireduce=%llu iallreduce=%llu iallgather=%llu "
            "ialltoall=%llu ireduce_scatter=%llu%s\n",
            c->rank, (unsigned long long) __atomic_load_n(&c->comms, __ATOMIC_RELAXED),
            N(barrier), N(bcast), N(reduce), N(allreduce), N(allgather), N(alltoall),
            N(reduce_scatter) + N(reduce_scatter_block),
            N(ibarrier), N(ibcast), N(ireduce), N(iallreduce), N(iallgather),
            N(ialltoall), N(ireduce_scatter_block), extra);
#undef N
    fflush(stderr);
}

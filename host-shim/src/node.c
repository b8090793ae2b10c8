/* Opening a node: shared memories, host-bus socket, NIC and firmware checks. */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "internal.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/regs.h"

int64_t dn_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* Map a shared memory file that must be exactly @size bytes. */
static int map_shared(const char *path, size_t size, uint8_t **out)
{
    struct stat st;
    int fd = open(path, O_RDWR | O_CLOEXEC);

    if (fd < 0) {
        return DN_ENODEV;
    }
    if (fstat(fd, &st) != 0 || (size_t)st.st_size != size) {
        close(fd);
        return DN_ENODEV;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        return DN_EIO;
    }
    *out = p;
    return DN_OK;
}

static int connect_hostbus(const char *path, int timeout_ms)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int64_t deadline = dn_now_ms() + timeout_ms;

    if (strlen(path) >= sizeof(sa.sun_path)) {
        return DN_EINVAL;
    }
    strcpy(sa.sun_path, path);
    for (;;) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            return DN_EIO;
        }
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
            /* io_full waits with poll, bounded: never in read or write. */
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
            return fd;
        }
        close(fd);
        if (dn_now_ms() >= deadline) {
            return DN_ETIMEDOUT;
        }
        sleep_ms(20);   /* the board may still be starting */
    }
}

/* Wait for the firmware's READY (and link-up if asked); a firmware (or boot
 * loader) that reports FAILED ends the wait at once. */
int dn_wait_ready(dn_node *n, int timeout_ms, int wait_link)
{
    int64_t deadline = dn_now_ms() + timeout_ms;

    for (;;) {
        uint32_t fw, link;
        int rc = dn_reg_read(n, DN1_REG_FW_STATUS, &fw);
        if (rc == DN_OK) {
            rc = dn_reg_read(n, DN1_REG_LINK_STATUS, &link);
        }
        if (rc != DN_OK) {
            return rc;
        }
        if ((fw & DN1_FW_READY) && (!wait_link || (link & DN1_LINK_UP))) {
            return DN_OK;
        }
        if (fw & DN1_FW_FAILED) {
            return DN_ENOFW;
        }
        if (dn_now_ms() >= deadline) {
            return (fw & DN1_FW_READY) ? DN_ELINKDOWN : DN_ENOFW;
        }
        if (n->host_sync) {
            rc = dn_delay(n, 1000, NULL);   /* the board waits for us */
            if (rc != DN_OK) {
                return rc;
            }
        } else {
            sleep_ms(20);
        }
    }
}

void dn_port_setup(dn_node *n, unsigned port, unsigned ports)
{
    unsigned end;

    n->port = port;
    n->ports = ports;
    n->llcm_port = dn1_llcm_port_block(port);
    dn1_port_share(DN1_BOTF_WINDOWS, ports, port, &n->win_first, &end);
    n->win_count = end - n->win_first;
    dn1_port_share(DN1_RDMA_DESCS, ports, port, &n->desc_first, &end);
    n->desc_count = end - n->desc_first;
    dn1_port_share(DN_MR_ENTRIES, ports, port, &n->mr_first, &n->mr_end);
}

int dn_open(const struct dn_config *cfg, dn_node **out)
{
    dn_node *n;
    uint32_t id, version, node, timing, ports;
    int rc;

    if (!cfg || !out || !cfg->hostmem_path || !cfg->llcm_path ||
        !cfg->window_path || !cfg->hostbus_path || cfg->timeout_ms < 0 ||
        cfg->node_id > 0xffffu || cfg->port >= DN1_HOST_PORTS_MAX) {
        return DN_EINVAL;
    }
    *out = NULL;
    n = calloc(1, sizeof(*n));
    if (!n) {
        return DN_ENOMEM;
    }
    n->hb_fd = -1;
    dn_port_setup(n, 0, 1);     /* until the board says */
    if ((rc = dn_host_profile_init(n)) != DN_OK) {
        goto fail;          /* DIMMNET_HOST_PROFILE names no profile */
    }
    for (unsigned i = 0; i < DN_ANSWERED; i++) {
        n->answered[i] = DN_ANSWERED_NONE;
    }
    n->hostmem_size = DN1_HOSTMEM_SIZE;
    n->llcm_size = DN1_LLCM_SIZE;
    n->window_size = DN1_WINDOW_SIZE;
    if ((rc = map_shared(cfg->hostmem_path, n->hostmem_size, &n->hostmem)) ||
        (rc = map_shared(cfg->llcm_path, n->llcm_size, &n->llcm)) ||
        (rc = map_shared(cfg->window_path, n->window_size, &n->window))) {
        goto fail;
    }
    if (!(n->hostmem_path = strdup(cfg->hostmem_path))) {
        rc = DN_ENOMEM;
        goto fail;
    }
    rc = connect_hostbus(cfg->hostbus_path, cfg->timeout_ms);
    if (rc < 0) {
        goto fail;
    }
    n->hb_fd = rc;
    if ((rc = dn_reg_read(n, DN1_REG_ID, &id)) ||
        (rc = dn_reg_read(n, DN1_REG_VERSION, &version)) ||
        (rc = dn_reg_read(n, DN1_REG_NODE_ID, &node))) {
        goto fail;
    }
    if (id != DN1_ID_VALUE || version >> 16 != DN1_CONTRACT_VERSION >> 16 ||
        node != cfg->node_id) {
        rc = DN_ENODEV;
        goto fail;
    }
    n->node_id = node;
    /* Host port: the board's count, this stream's number (the caller's
     * word for which socket it connected to), and the port's shares. */
    if ((rc = dn_reg_read(n, DN1_REG_HOST_PORTS, &ports)) != DN_OK) {
        goto fail;
    }
    if (ports < 1 || ports > DN1_HOST_PORTS_MAX || cfg->port >= ports) {
        rc = DN_ENODEV;
        goto fail;
    }
    dn_port_setup(n, cfg->port, ports);
    if (n->port) {
        /* The port's incarnation count, kept in its LLCM block (it outlives
         * processes): one newer than the last process's, never 0. */
        volatile uint32_t *inc = (volatile uint32_t *)(n->llcm + n->llcm_port +
                                                      DN1_LLCM_PORT_INC);
        n->port_inc = (uint8_t)(*inc % 255u + 1u);
        *inc = n->port_inc;
    }
    rc = dn_reg_read(n, DN1_REG_TIMING, &timing);
    if (rc != DN_OK) {
        goto fail;
    }
    n->host_sync = !!(timing & DN1_TIMING_HOST_SYNC);
    /* The measured instructions of each path: needed when they are charged. */
    if ((rc = dn_host_charges_load(n, n->host_sync && n->host->ps_insn)) != DN_OK) {
        goto fail;
    }
    if (n->host_sync) {
        dn_sync_waiter = n;
    }
    n->timed = !!(timing & DN1_TIMING_SYNC);
    /* Tags start somewhere new at each open, so that late answers to an
     * earlier process's packets do not match ours; with host sync, from
     * the virtual clock, so that runs repeat exactly. */
    if (n->host_sync) {
        uint64_t now;
        if ((rc = dn_clock(n, &now)) != DN_OK) {
            goto fail;
        }
        n->first_tag = n->next_tag = (uint32_t)(now / 1000) & DN_XFER_TAG_MASK;
    } else {
        n->first_tag = n->next_tag = (uint32_t)dn_now_ms() & DN_XFER_TAG_MASK;
    }
    rc = dn_wait_ready(n, cfg->timeout_ms, cfg->wait_link);
    if (rc != DN_OK) {
        goto fail;
    }
    /* Posted requests are numbered on from the NIC's count (every request
     * of an earlier connection has acted: ours were answered after). */
    dn_hb_posted_init(n);
    dn_botf_windows_init(n);
    /* Completions before this open are not ours. */
    n->cq_consumed = __atomic_load_n((uint32_t *)(n->llcm + n->llcm_port +
                                                  DN1_LLCM_CQ_PRODUCED), __ATOMIC_ACQUIRE);
    __atomic_store_n((uint32_t *)(n->llcm + n->llcm_port + DN1_LLCM_CQ_CONSUMED),
                     n->cq_consumed,
                     __ATOMIC_RELEASE);
    *out = n;
    return DN_OK;
fail:
    dn_close(n);
    return rc;
}

static const char *env_or_null(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

int dn_open_env(dn_node **out, int timeout_ms)
{
    const char *id = env_or_null("DIMMNET_NODE_ID");
    const char *nodes = env_or_null("DIMMNET_NODES");
    char *end;

    if (!id) {
        return DN_EINVAL;
    }
    errno = 0;
    unsigned long node = strtoul(id, &end, 10);
    if (errno || *end || node > 0xffffu) {
        return DN_EINVAL;
    }
    /* DIMMNET_PORT=p: host port p, whose socket is DIMMNET_HOSTBUS's path
     * with p appended (node3.hostbus1). */
    const char *port_env = env_or_null("DIMMNET_PORT");
    unsigned long port = 0;
    if (port_env) {
        errno = 0;
        port = strtoul(port_env, &end, 10);
        if (errno || *end || port >= DN1_HOST_PORTS_MAX) {
            return DN_EINVAL;
        }
    }
    const char *hostbus = env_or_null("DIMMNET_HOSTBUS");
    char hostbus_port[4096];
    if (hostbus && port) {
        if ((size_t)snprintf(hostbus_port, sizeof(hostbus_port), "%s%lu", hostbus, port) >=
            sizeof(hostbus_port)) {
            return DN_EINVAL;
        }
        hostbus = hostbus_port;
    }
    struct dn_config cfg = {
        .node_id = (unsigned)node,
        .hostmem_path = env_or_null("DIMMNET_HOSTMEM"),
        .llcm_path = env_or_null("DIMMNET_LLCM"),
        .window_path = env_or_null("DIMMNET_WINDOW"),
        .hostbus_path = hostbus,
        .timeout_ms = timeout_ms,
        .wait_link = nodes && strtoul(nodes, NULL, 10) > 1,
        .port = (unsigned)port,
    };
    return dn_open(&cfg, out);
}

/* The process's node under host sync, for waits that are not on the NIC
 * (rendezvous.c). */
dn_node *dn_sync_waiter;

void dn_close(dn_node *n)
{
    if (!n) {
        return;
    }
    if (dn_sync_waiter == n) {
        dn_sync_waiter = NULL;
    }
    dn_hb_settle(n);        /* posted requests act (or fail) first */
    dn_msg_fini(n);
    dn_barrier_fini(n);
    dn_atomic_fini(n);
    if (n->hb_fd >= 0) {
        close(n->hb_fd);
    }
    if (n->hostmem) {
        munmap(n->hostmem, n->hostmem_size);
    }
    if (n->llcm) {
        munmap(n->llcm, n->llcm_size);
    }
    if (n->window) {
        munmap(n->window, n->window_size);
    }
    free(n->hostmem_path);
    free(n->charges);
    free(n);
}

unsigned dn_node_id(const dn_node *n)
{
    return n ? n->node_id : 0;
}

unsigned dn_port(const dn_node *n, unsigned *ports)
{
    if (ports) {
        *ports = n ? n->ports : 1;
    }
    return n ? n->port : 0;
}

int dn_port_incarnation(dn_node *n)
{
    return n && n->port ? (int)n->port_inc : dn_msg_incarnation(n);
}

uint8_t *dn_llcm_user(dn_node *n, size_t *size)
{
    if (!n) {
        return NULL;
    }
    if (size) {
        *size = n->llcm_size - DN1_LLCM_USER_BASE;
    }
    return n->llcm + DN1_LLCM_USER_BASE;
}

uint8_t *dn_hostmem(dn_node *n, size_t *size)
{
    if (!n) {
        return NULL;
    }
    if (size) {
        *size = n->hostmem_size;
    }
    return n->hostmem;
}

/*
 * What the provider "dimmnet" offers beyond libfabric's API, for
 * benchmarks: the modeled clock of the process's DIMMnet-1 board. Found
 * with dlsym() in the provider libfabric loaded (an MPI program has no
 * libfabric handles): dlopen("FI_PROVIDER_PATH/libdimmnet-fi.so",
 * RTLD_NOW | RTLD_NOLOAD), then dlsym(handle, "fi_dimmnet_clock").
 */
#ifndef FI_DIMMNET_H
#define FI_DIMMNET_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The board's clock in ns (its virtual time: modeled under --timing);
 * *host_sync (may be NULL) is 1 when the host is synced too
 * (--deterministic): then host waits cost modeled time, not wall-clock
 * time, and differences of this clock are the modeled figures. 0, or
 * -FI_ENODEV when no domain is open in this process, or -FI_EIO. */
int fi_dimmnet_clock(uint64_t *now_ns, int *host_sync);
typedef int (*fi_dimmnet_clock_fn)(uint64_t *now_ns, int *host_sync);

/* The clock of the provider libfabric loaded from FI_PROVIDER_PATH, or
 * NULL (not loaded, no domain open yet, or no board clock). */
static inline fi_dimmnet_clock_fn fi_dimmnet_find_clock(void)
{
    const char *dir = getenv("FI_PROVIDER_PATH");
    char path[4096];
    void *h;

    snprintf(path, sizeof(path), "%s/libdimmnet-fi.so", dir ? dir : ".");
    h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);     /* the one libfabric loaded */
    return h ? (fi_dimmnet_clock_fn)(uintptr_t)dlsym(h, "fi_dimmnet_clock") : NULL;
}

/* That clock if the cluster keeps deterministic modeled time (host sync:
 * its differences are modeled figures), else NULL. */
static inline fi_dimmnet_clock_fn fi_dimmnet_modeled_clock(void)
{
    fi_dimmnet_clock_fn clock = fi_dimmnet_find_clock();
    uint64_t ns;
    int sync = 0;

    return clock && clock(&ns, &sync) == 0 && sync ? clock : NULL;
}

#endif

/*
 * What the provider "dimmnet" offers beyond libfabric's API, for
 * benchmarks: the modeled clock of the process's DIMMnet-1 board. Found
 * with dlsym() in the provider libfabric loaded (an MPI program has no
 * libfabric handles): dlopen("FI_PROVIDER_PATH/libdimmnet-fi.so",
 * RTLD_NOW | RTLD_NOLOAD), then dlsym(handle, "fi_dimmnet_clock").
 */
#ifndef FI_DIMMNET_H
#define FI_DIMMNET_H

#include <stdint.h>

/* The board's clock in ns (its virtual time: modeled under --timing);
 * *host_sync (may be NULL) is 1 when the host is synced too
 * (--deterministic): then host waits cost modeled time, not wall-clock
 * time, and differences of this clock are the modeled figures. 0, or
 * -FI_ENODEV when no domain is open in this process, or -FI_EIO. */
int fi_dimmnet_clock(uint64_t *now_ns, int *host_sync);
typedef int (*fi_dimmnet_clock_fn)(uint64_t *now_ns, int *host_sync);

#endif

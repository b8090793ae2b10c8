/* Firmware statistics in LLCM (see fwstats.h). */
#include "fwstats.h"
#include "hal/nicmem.h"
#include "dimmnet1/memmap.h"


uint32_t fwstats_counts[DN1_FWST_COUNT];

void fwstats_init(void)
{
    for (unsigned i = 0; i < DN1_FWST_COUNT; i++) {
        fwstats_counts[i] = 0;
        hal_llcm_write32(FWST_OFF(2 + i), 0);
    }
    hal_llcm_write32(FWST_OFF(1), DN1_FWST_COUNT);
    hal_llcm_write32(FWST_OFF(0), DN1_FWSTATS_MAGIC);     /* valid from here */
}

void fwstats_add(unsigned counter, uint32_t n)
{
    hal_llcm_write32(FWST_OFF(2 + counter), fwstats_counts[counter] += n);
}

uint32_t fwstats_get(unsigned counter)
{
    return fwstats_counts[counter];
}

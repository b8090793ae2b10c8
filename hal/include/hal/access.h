/*
 * Where the HAL's one-access accessors live. On the NIC each is one load or
 * store (a register, SRAM, LLCM or receive-memory word), and a call would
 * cost the 50 MHz core more than the access itself (jal, delay slot, jr,
 * the caller's saved registers), so the headers define them inline. The
 * fake HAL (unit tests and fuzz targets, compiled for the build machine)
 * defines the same names as functions over its fake memories.
 */
#ifndef HAL_ACCESS_H
#define HAL_ACCESS_H

#if defined(__mips__) && !defined(HAL_FAKE)
#define HAL_ACCESS_INLINE 1
#define HAL_ACCESS static inline __attribute__((always_inline))
#include "hal/mmio.h"
#else
#define HAL_ACCESS_INLINE 0
#endif

#endif

/* tools/dimmnet-soak's node program: what soak_node.c and soak_restart.c share. */
#ifndef SOAK_H
#define SOAK_H

#include <stddef.h>
#include <stdint.h>

#define OUTSTANDING 16
#define RDV_TIMEOUT_MS 600000

extern uint64_t rng_state;
uint32_t rng(void);
uint8_t pattern(unsigned src, unsigned dst, uint32_t idx, size_t i);
size_t random_size(size_t lo, size_t hi);
double now_s(void);
/* Messages node @s sends in all. */
unsigned long share(unsigned long total, unsigned s, unsigned nodes);

struct soak_args {
    unsigned long total;
    size_t lo, hi;
    unsigned long long seed;
    double deadline_s, kill_every;
    int restart_boards;
};

/* --kill-every: host processes killed and started again (soak_restart.c). */
int soak_restart_main(const struct soak_args *a);

#endif

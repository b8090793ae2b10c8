/* FAKE HAL implementation (see fake_hal.h). */
#include <string.h>
#include "fake_hal.h"
#include "hal/hostmem.h"

uint8_t fake_hostmem[FAKE_HOSTMEM_SIZE];
struct fake_decision fake_decisions[16];
size_t fake_decision_count;

static struct dn1_hdr queue[16];
static size_t queue_len, queue_head;

void fake_hostmem_put_u64(uint64_t addr, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        fake_hostmem[addr + i] = (uint8_t)(v >> (8 * i));
    }
}

int hal_hostmem_read_u64(uint64_t addr, uint64_t *value)
{
    if ((addr & 7u) || addr > FAKE_HOSTMEM_SIZE - 8u) {
        return -1;
    }
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) {
        v = v << 8 | fake_hostmem[addr + (unsigned)i];
    }
    *value = v;
    return 0;
}

void fake_rx_reset(void)
{
    queue_len = queue_head = 0;
    fake_decision_count = 0;
    memset(fake_hostmem, 0, sizeof(fake_hostmem));
}

void fake_rx_push(const struct dn1_hdr *h)
{
    queue[queue_len++] = *h;
}

int hal_rx_held(void)
{
    return queue_head < queue_len;
}

void hal_rx_read(struct rx_packet *p)
{
    p->hdr = queue[queue_head];
    p->raddr = p->hdr.raddr;
    p->nack_reason = 0;
}

void hal_rx_finish(const struct rx_packet *p, enum rx_action action)
{
    fake_decisions[fake_decision_count++] = (struct fake_decision){
        .action = action, .raddr = p->raddr, .nack_reason = p->nack_reason,
    };
    queue_head++;
}

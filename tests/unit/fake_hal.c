/* FAKE HAL implementation (see fake_hal.h). */
#include <string.h>
#include "fake_hal.h"
#include "hal/nicmem.h"
#include "dimmnet1/memmap.h"

uint8_t fake_hostmem[FAKE_HOSTMEM_SIZE];
uint8_t fake_llcm[DN1_LLCM_SIZE];
struct fake_decision fake_decisions[16];
size_t fake_decision_count;

static struct dn1_hdr queue[16];
static uint8_t queue_reason[16];
static size_t queue_len, queue_head;

/* The fake NIC address space: host memory at 0, LLCM at DN1_RADDR_LLCM. */
static uint8_t *fake_nic(uint64_t addr)
{
    if (addr <= FAKE_HOSTMEM_SIZE - 8u) {
        return &fake_hostmem[addr];
    }
    if (addr >= DN1_RADDR_LLCM && addr <= DN1_RADDR_LLCM + DN1_LLCM_SIZE - 8u) {
        return &fake_llcm[addr - DN1_RADDR_LLCM];
    }
    return NULL;
}

void fake_hostmem_put_u64(uint64_t addr, uint64_t v)
{
    uint8_t *p = fake_nic(addr);
    for (int i = 0; i < 8; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

int hal_nic_read_u64(uint64_t addr, uint64_t *value)
{
    uint8_t *p = fake_nic(addr);
    if ((addr & 7u) || !p) {
        return -1;
    }
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) {
        v = v << 8 | p[i];
    }
    *value = v;
    return 0;
}

void fake_rx_reset(void)
{
    queue_len = queue_head = 0;
    fake_decision_count = 0;
    memset(fake_hostmem, 0, sizeof(fake_hostmem));
    memset(fake_llcm, 0, sizeof(fake_llcm));
}

void fake_rx_push(const struct dn1_hdr *h)
{
    fake_rx_push_held(h, DN1_HOLD_TYPE);
}

void fake_rx_push_held(const struct dn1_hdr *h, uint8_t reason)
{
    queue_reason[queue_len] = reason;
    queue[queue_len++] = *h;
}

int hal_rx_held(void)
{
    return queue_head < queue_len;
}

void hal_rx_read(struct rx_packet *p)
{
    p->hdr = queue[queue_head];
    p->hold_reason = queue_reason[queue_head];
    p->miss_addr = 0;
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

/* FAKE HAL implementation (see fake_hal.h). */
#include <string.h>
#include "fake_hal.h"
#include "hal/nicmem.h"
#include "dimmnet1/memmap.h"

uint8_t fake_hostmem[FAKE_HOSTMEM_SIZE];
uint8_t fake_llcm[DN1_LLCM_SIZE];
struct fake_decision fake_decisions[FAKE_DECISIONS];
size_t fake_decision_count;

static struct dn1_hdr queue[FAKE_DECISIONS];
static uint8_t queue_reason[FAKE_DECISIONS];
static size_t queue_len, queue_head;

/* The fake NIC address space: host memory at 0, LLCM at DN1_RADDR_LLCM;
 * @n bytes from @addr must lie inside one of them. */
static uint8_t *fake_nic_n(uint64_t addr, unsigned n)
{
    if (addr <= FAKE_HOSTMEM_SIZE - n) {
        return &fake_hostmem[addr];
    }
    if (addr >= DN1_RADDR_LLCM && addr <= DN1_RADDR_LLCM + DN1_LLCM_SIZE - n) {
        return &fake_llcm[addr - DN1_RADDR_LLCM];
    }
    return NULL;
}

static uint8_t *fake_nic(uint64_t addr)
{
    return fake_nic_n(addr, 8);
}

void fake_nic_put_u32(uint64_t addr, uint32_t v)
{
    uint8_t *p = fake_nic_n(addr, 4);
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

uint32_t fake_nic_get_u32(uint64_t addr)
{
    const uint8_t *p = fake_nic_n(addr, 4);
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

int hal_nic_read_u32(uint64_t addr, uint32_t *value)
{
    if ((addr & 3u) || !fake_nic_n(addr, 4)) {
        return -1;
    }
    *value = fake_nic_get_u32(addr);
    return 0;
}

void (*fake_nic_write_check)(uint64_t addr);

int hal_nic_write_u32(uint64_t addr, uint32_t value)
{
    if (fake_nic_write_check) {
        fake_nic_write_check(addr);
    }
    if ((addr & 3u) || !fake_nic_n(addr, 4)) {
        return -1;
    }
    fake_nic_put_u32(addr, value);
    return 0;
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
    if (queue_head == queue_len) {
        queue_head = queue_len = 0;   /* all served: start the list over */
    }
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
    p->written = 0;
}

uint32_t hal_rx_finish(const struct rx_packet *p, enum rx_action action)
{
    uint32_t result = DN1_RX_RESULT_OK;

    if (action == RX_CONTINUE && !dn1_raddr_writable(p->raddr, p->hdr.len)) {
        result = DN1_RX_RESULT_RANGE;   /* the hardware's check, and NACK */
    }
    fake_decisions[fake_decision_count++ % FAKE_DECISIONS] = (struct fake_decision){
        .action = action, .raddr = p->raddr, .len = p->hdr.len,
        .nack_reason = p->nack_reason,
    };
    queue_head++;
    return result;
}

/* FAKE HAL implementation (see fake_hal.h). */
#include <string.h>
#include "fake_hal.h"
#include "dimmnet1/shared_mem.h"
#include "dispatch.h"
#include "hal/nicmem.h"
#include "hal/sram.h"
#include "dimmnet1/regs.h"
#include "dimmnet1/memmap.h"

uint8_t fake_hostmem[FAKE_HOSTMEM_SIZE];
uint8_t fake_llcm[DN1_LLCM_SIZE];
struct fake_decision fake_decisions[FAKE_DECISIONS];
size_t fake_decision_count;

uint8_t fake_sram[FAKE_SRAM_SIZE];
struct fake_send fake_sends[FAKE_SENDS];
size_t fake_send_count;
uint32_t fake_tx_result;

static struct dn1_hdr queue[FAKE_DECISIONS];
static uint8_t queue_payload[FAKE_DECISIONS][64];
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

uint32_t hal_llcm_read32(uint32_t off)
{
    return fake_nic_get_u32(DN1_RADDR_LLCM + (off & (DN1_LLCM_SIZE - 4u)));
}

void hal_llcm_write32(uint32_t off, uint32_t value)
{
    fake_nic_put_u32(DN1_RADDR_LLCM + (off & (DN1_LLCM_SIZE - 4u)), value);
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

/* The HAL's own rule (hal/nicmem.c) over the fake's HOST_PORTS. */
int hal_nic_may_write(uint64_t addr, uint32_t len)
{
    return dn1_raddr_remote_writable(addr, len, fake_host_ports);
}

int hal_nic_may_read(uint64_t addr, uint32_t len)
{
    return dn1_raddr_readable(addr, len);
}

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

/* Receive memory past the fake's reads as 0 and takes no writes. */
uint32_t hal_hostmem_read32(uint32_t off)
{
    off &= DN1_HOSTMEM_SIZE - 4u;
    return off < FAKE_HOSTMEM_SIZE ? fake_nic_get_u32(off) : 0;
}

void hal_hostmem_write32(uint32_t off, uint32_t value)
{
    off &= DN1_HOSTMEM_SIZE - 4u;
    if (fake_nic_write_check) {
        fake_nic_write_check(off);
    }
    if (off < FAKE_HOSTMEM_SIZE) {
        fake_nic_put_u32(off, value);
    }
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
    memset(fake_sram, 0, sizeof(fake_sram));
    fake_send_count = 0;
    fake_tx_result = DN1_TX_RESULT_OK;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

uint32_t hal_sram_read32(uint32_t off)
{
    return be32(&fake_sram[off]);
}

void hal_sram_write32(uint32_t off, uint32_t value)
{
    for (int i = 0; i < 4; i++) {
        fake_sram[off + i] = (uint8_t)(value >> (24 - 8 * i));
    }
}

/* The host-order view: the word's bytes little-endian, as a host reads them. */
void hal_sram_write_le32(uint32_t off, uint32_t value)
{
    for (int i = 0; i < 4; i++) {
        fake_sram[off + i] = (uint8_t)(value >> (8 * i));
    }
}

/* Decode the image as the NIC would (section 3, "Firmware sends"). */
uint32_t hal_tx_send(uint32_t off)
{
    if ((off & 7u) || off > FAKE_SRAM_SIZE - DN1_PKT_HDR_SIZE) {
        return DN1_TX_RESULT_BAD_IMAGE;
    }
    const uint8_t *img = &fake_sram[off];
    struct fake_send *s = &fake_sends[fake_send_count++ % FAKE_SENDS];

    s->off = off;
    s->decisions_before = fake_decision_count;
    s->type = img[1];
    s->dst = (uint16_t)(img[6] << 8 | img[7]);
    s->len = (uint16_t)(img[8] << 8 | img[9]);
    s->flags = img[2];
    s->seq = (uint16_t)(img[10] << 8 | img[11]);
    s->tag = be32(img + 12);
    s->raddr = (uint64_t)be32(img + 16) << 32 | be32(img + 20);
    s->xoff = be32(img + 24);
    memcpy(s->payload, img + DN1_PKT_HDR_SIZE, sizeof(s->payload));
    return fake_tx_result;
}

void fake_rx_push_payload(const struct dn1_hdr *h, const void *data, unsigned len)
{
    fake_rx_push(h);
    memset(queue_payload[queue_len - 1], 0, 64);
    memcpy(queue_payload[queue_len - 1], data, len < 64 ? len : 64);
}

uint32_t hal_rx_payload32(unsigned off)
{
    const struct dn1_hdr *h = &queue[queue_head];
    uint32_t v = 0;

    for (unsigned i = 0; i < 4; i++) {
        v = v << 8 | (off + i < h->len && off + i < 64 ? queue_payload[queue_head][off + i] : 0);
    }
    return v;
}

uint32_t hal_rx_payload_le32(unsigned off)
{
    uint32_t v = hal_rx_payload32(off);

    return v >> 24 | (v >> 8 & 0xff00u) | (v << 8 & 0xff0000u) | v << 24;
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
    memset(queue_payload[queue_len], 0, 64);
    queue[queue_len++] = *h;
}

int fake_rx_held(void)
{
    return queue_head < queue_len;
}

/* No host asks the fake for a NIC restart. */
uint32_t hal_irq_status(void)
{
    return fake_rx_held() ? DN1_IRQ_RX_HELD : 0;
}

uint8_t hal_rx_type(void)
{
    return fake_rx_held() ? queue[queue_head].type : 0;
}

void hal_rx_read(struct rx_packet *p)
{
    p->hdr = queue[queue_head];
    p->hold_reason = queue_reason[queue_head];
    /* A miss names the write's first page, as on a one-page write. */
    p->miss_addr = p->hold_reason == DN1_HOLD_TYPE ? 0 : p->hdr.raddr;
    p->raddr = p->hdr.raddr;
    p->nack_reason = 0;
    p->written = 0;
}

uint32_t hal_rx_finish(const struct rx_packet *p, enum rx_action action)
{
    uint32_t result = DN1_RX_RESULT_OK;

    if (rx_action_writes(action) && !dn1_raddr_writable(p->raddr, p->hdr.len)) {
        result = DN1_RX_RESULT_RANGE;   /* the hardware's check, and NACK */
    }
    fake_decisions[fake_decision_count++ % FAKE_DECISIONS] = (struct fake_decision){
        .action = action, .raddr = p->raddr, .len = p->hdr.len,
        .nack_reason = p->nack_reason,
    };
    queue_head++;
    return result;
}

/* ---- hal/mmu.h (and hal_node_id of hal/martini.h) ---- */
uint32_t fake_node_id;
int fake_patlb_enabled, fake_rx_irq_enabled = 1;
uint64_t fake_patlb[64];

uint32_t hal_node_id(void)
{
    return fake_node_id;
}

uint32_t fake_host_ports = 1;

uint32_t hal_host_ports(void)
{
    return fake_host_ports;
}

void hal_mmu_patlb_enable(int on)
{
    fake_patlb_enabled = on != 0;
}

void hal_patlb_fill(unsigned index, uint64_t nic_addr)
{
    fake_patlb[index % 64] = nic_addr >> 12 | 1ull << 63;
}

uint32_t fake_rvatlb[64][4];

void hal_rvatlb_fill(unsigned index, uint32_t word0, uint64_t vpn, uint32_t ppn)
{
    uint32_t *e = fake_rvatlb[index % 64];

    e[1] = (uint32_t)(vpn >> 32);
    e[2] = (uint32_t)vpn;
    e[3] = ppn;
    e[0] = word0;
}

void hal_rvatlb_invalidate(unsigned index)
{
    fake_rvatlb[index % 64][0] = 0;
}

void hal_rx_irq_enable(int on)
{
    fake_rx_irq_enabled = on != 0;
}

void hal_restart_irq_enable(void)
{
}


unsigned fake_interrupts(void)
{
    unsigned n = 0;

    while (fake_rx_held()) {
        dispatch_service();
        n++;
    }
    return n;
}

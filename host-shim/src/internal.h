/* Host shim internals shared by its source files. */
#ifndef DN_INTERNAL_H
#define DN_INTERNAL_H

#include <stdint.h>
#include "dimmnet1/dn.h"
#include "dimmnet1/hostbus.h"
#include "dimmnet1/shared_mem.h"

/* Completions remembered per tag; a transfer must be waited for before
 * this many later packets complete, or dn_wait() says DN_ESTALE. */
#define DN_TAG_SLOTS 4096u

enum dn_slot_state { SLOT_PENDING = 0, SLOT_ACKED = 1, SLOT_NACKED = 2 };

struct dn_slot {
    uint32_t tag;
    uint8_t state;
    uint8_t reason;
    uint16_t from;
};

struct dn_node {
    unsigned node_id;
    int hb_fd;
    uint8_t *hostmem;
    size_t hostmem_size;
    uint8_t *llcm;
    size_t llcm_size;
    uint8_t *window;
    size_t window_size;

    unsigned next_window;      /* BOTF windows are used alternately */
    uint32_t next_tag;
    uint16_t next_seq;
    uint32_t cq_consumed;
    uint32_t completed;        /* ACK/NACK records consumed */
    struct dn_slot slots[DN_TAG_SLOTS];
};

int dn_hb_call(dn_node *n, uint32_t op, uint64_t arg0, uint64_t *value);
void dn_cq_drain(dn_node *n);
/* Wait until fewer than @limit packets are in flight. */
int dn_cq_wait_room(dn_node *n, uint32_t limit, int timeout_ms);
int64_t dn_now_ms(void);

#endif

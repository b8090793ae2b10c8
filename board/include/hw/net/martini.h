/*
 * Martini: the DIMMnet-1 network interface controller.
 * Contract: docs/hardware.md in the dimmnet1 project.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_NET_MARTINI_H
#define HW_NET_MARTINI_H

#include "hw/sysbus.h"
#include "chardev/char-fe.h"
#include "qemu/queue.h"
#include "qom/object.h"
#include "dimmnet1/packet.h"
#include "dimmnet1/regs.h"
#include "dimmnet1/link.h"
#include "dimmnet1/link_reasm.h"
#include "dimmnet1/hostbus.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/shared_mem.h"
#include "dimmnet1/shared_mem.h"

#define TYPE_MARTINI "martini"
OBJECT_DECLARE_SIMPLE_TYPE(MartiniState, MARTINI)

/* Packets the link may deliver while one is held for firmware. */
#define MARTINI_RXQ_MAX 64

/*
 * Frames waiting to leave on the link. Above this many bytes the board stops
 * taking host-bus requests and link input (both make more output) until the
 * peer has read enough: back-pressure instead of a blocking write.
 */
#define MARTINI_TX_HIGH (64 * 1024)

/* Host requests waiting for their virtual time (host sync). */
#define MARTINI_HBQ_MAX 16

/*
 * Without timing, one read from the host bus takes up to this many requests
 * (their responses leave in one write), and one read from the link up to
 * as many frames as the receive queue has room for: fewer system calls and
 * main-loop turns per packet. With timing, one request or frame at a time,
 * as before (virtual-time behaviour unchanged).
 */
#define MARTINI_HB_BATCH 16

/* Frames the firmware made wait at most this many bytes for the next
 * packet it has held already (timing off). */
#define MARTINI_TX_DEFER_MAX 4096

/* The smallest frame that can enter the receive queue. */
#define MARTINI_MIN_RX_FRAME (DN1_LINK_FRAME_HDR + DN1_PKT_HDR_SIZE)

typedef struct MartiniFrame {
    QSIMPLEQ_ENTRY(MartiniFrame) next;
    uint32_t size;
    uint32_t sent;
    uint32_t count;          /* to send: frames in it (merged, timing off) */
    int64_t at;              /* received, timing on: virtual arrival time */
    uint8_t data[];
} MartiniFrame;

typedef struct MartiniPacket {
    QSIMPLEQ_ENTRY(MartiniPacket) next;
    struct dn1_hdr hdr;
    uint32_t size;
    uint8_t data[DN1_PKT_MAX_SIZE];
} MartiniPacket;

/* A remote write resolved to (at most two) pieces of NIC memory. */
typedef struct MartiniPiece {
    MemoryRegion *mr;
    uint64_t off;
    uint32_t len;
    uint32_t src;            /* offset in the payload */
} MartiniPiece;

typedef struct MartiniWrite {
    MartiniPiece piece[2];
    unsigned npieces;
    uint8_t nack_reason;     /* when refused */
    uint8_t hold_reason;     /* when held: DN1_HOLD_* */
    uint64_t miss_addr;
} MartiniWrite;

typedef enum MartiniXlate {
    MARTINI_XLATE_OK,
    MARTINI_XLATE_HOLD,      /* a TLB miss: firmware must act */
    MARTINI_XLATE_REFUSE,    /* out of range or forbidden */
} MartiniXlate;

/* One host process's host-bus stream (martini-hostbus.c). */
typedef struct MartiniHostPort {
    MartiniState *s;
    unsigned port;
    CharBackend *chr;
    uint8_t buf[sizeof(struct dn1_hb_req)];
    uint32_t fill;
    /* Responses to one read's requests, written together (timing off). */
    bool batching;
    uint32_t out_len;
    uint8_t out[MARTINI_HB_BATCH * sizeof(struct dn1_hb_rsp)];
} MartiniHostPort;

struct MartiniState {
    SysBusDevice parent_obj;

    MemoryRegion regs;
    MemoryRegion payload_host_order;   /* RX_PAYLOAD, byte lanes swapped */
    MemoryRegion rvatlb;     /* on-chip TLB memories */
    MemoryRegion patlb;
    qemu_irq irq;
    int irq_level;           /* last level set on irq; -1: set it again */
    qemu_irq cpu_restart;    /* "cpu-restart": the board restarts the processor */

    /* Properties */
    uint32_t node_id;
    MemoryRegion *hostmem;   /* host receive memory */
    MemoryRegion *llcm;
    MemoryRegion *window;    /* BOTF window memory */
    MemoryRegion *sram;      /* on-chip SRAM */
    CharBackend hostbus;
    CharBackend link;
    char *pcap_path;         /* link trace, optional */
    bool sync;               /* timing: virtual time granted by the switch */
    bool host_sync;          /* host requests take effect in virtual time */
    bool flash;              /* the board has a writable boot flash */
    FILE *pcap;

    /* Receive pipeline: in order; stops while a packet is held. */
    QSIMPLEQ_HEAD(, MartiniPacket) rxq;
    uint32_t rxq_len;
    MartiniPacket *held;
    uint64_t held_raddr;     /* firmware may rewrite this */
    uint32_t hold_reason;    /* DN1_HOLD_* */
    uint64_t miss_addr;
    uint32_t mmu_ctrl;
    uint32_t nack_reason;
    uint32_t cmd_result;
    uint32_t tx_sram_off;
    uint32_t tx_result;

    uint32_t fw_status;
    uint32_t boot_version;   /* BOOT_VERSION, BOOT_SLOT */
    uint32_t boot_slot;
    uint32_t bios_version, bios_slot;   /* what -bios boots: BOOT_* at reset */
    uint32_t irq_enable;
    bool restart_pending;    /* NIC_RESTART waits for the firmware's leave */
    QEMUTimer *restart_timer;   /* ... at most DN1_RESTART_GRACE_NS */
    bool link_up;
    uint16_t aotf_seq;
    uint32_t counters[DN1_CNT_COUNT];

    /* Link output, in order */
    QSIMPLEQ_HEAD(, MartiniFrame) txq;
    uint32_t tx_bytes;
    guint tx_watch;
    unsigned tx_hold;        /* >0: frames wait for one write at the end of
                                the input being handled (timing off) */

    /* Stream reassembly */
    struct dn1_link_reasm link_rx;

    /* Timing (martini-sync.c) */
    QEMUTimer *quantum_timer;
    QEMUTimer *arrive_timer;
    QemuCond grant_cond;     /* the vCPU waits here at the horizon */
    bool wait_on_resume;     /* left the wait for a CPU stop: wait again */
    int64_t horizon;
    int64_t reported;        /* last horizon reported to the switch */
    bool ever_ready;         /* firmware READY seen since power-on */
    bool reported_booting;   /* the last report was DNB1 */
    int64_t tx_not_before;   /* end of the last grant after a DNB1 */
    int64_t tx_free;
    int64_t botf_busy_until[DN1_BOTF_WINDOWS]; /* its packet's last byte out */
    int64_t rx_last;         /* receive pipeline: last delivery time */
    QSIMPLEQ_HEAD(, MartiniFrame) inflight;
    /* Host sync (martini-sync.c): the host's place in virtual time. */
    struct dn1_hb_req hbq[MARTINI_HBQ_MAX];
    unsigned hbq_head;
    unsigned hbq_len;
    bool host_started;       /* firmware READY seen: host_at is set */
    bool host_stopped;       /* the board has stopped at host_at */
    bool host_connected;
    bool host_gone;          /* the synced host left: serve at once */
    int64_t host_at;
    bool head_known;         /* head_cost is the head request's */
    int64_t head_cost;       /* its cost from host_at, the DIMM's wait included */
    /* The DIMM side (martini-dimm.c): free from dimm_free; the host's
     * accesses of the head request hold it in [dimm_host_from, dimm_host_to). */
    int64_t dimm_free;
    int64_t dimm_host_from;
    int64_t dimm_host_to;
    /* Host ports (contract 1.27): port 0 is "hostbus", ports 1.. are
     * "hostbus1".."hostbus3", host-ports of them in all. */
    uint32_t host_ports;
    CharBackend hostbus_more[DN1_HOST_PORTS_MAX - 1];
    MartiniHostPort hport[DN1_HOST_PORTS_MAX];
};

/* Type and flags a host or firmware send may carry (the NIC adds OTF). */
static inline bool martini_sendable(uint8_t type, uint8_t flags)
{
    return dn1_type_sendable(type) && !(flags & ~DN1_FLAGS_SENDABLE);
}

/* martini.c */
void martini_count(MartiniState *s, unsigned counter);
bool martini_reg_readable(hwaddr offset);
uint32_t martini_reg_value(MartiniState *s, hwaddr offset);
void martini_set_boot(MartiniState *s, uint32_t version, uint32_t slot);
int32_t martini_nic_restart(MartiniState *s, uint64_t how);
void martini_restart_now(MartiniState *s);
void martini_rx_enqueue(MartiniState *s, const uint8_t *pkt, uint32_t size);
bool martini_rx_can_accept(MartiniState *s);

/* martini-link.c */
void martini_link_init(MartiniState *s);
bool martini_link_backlogged(MartiniState *s);
void martini_link_hold(MartiniState *s);
void martini_link_release(MartiniState *s);
void martini_link_release_unless(MartiniState *s, bool busy);
void martini_link_reset(MartiniState *s);
int martini_link_send(MartiniState *s, uint8_t *pkt, const struct dn1_hdr *h);
/* The same, leaving no earlier than @after_ns from now (timing on). */
int martini_link_send_after(MartiniState *s, uint8_t *pkt,
                            const struct dn1_hdr *h, int64_t after_ns);
void martini_link_control(MartiniState *s, uint32_t magic, int64_t vtime);

/* martini-hostbus.c */
/* BOTF_STATUS: bit w while window w's packet has not left. */
uint32_t martini_botf_status(MartiniState *s);

/* martini-mmu.c */
void martini_mmu_init(MartiniState *s, Error **errp);
void martini_mmu_reset(MartiniState *s);
/* Resolve a write of @len bytes at @raddr; @translate: RVATLB (flag VA) and
 * PATLB apply, else @raddr is a NIC address the firmware vouches for. */
MartiniXlate martini_xlate(MartiniState *s, uint8_t flags, uint64_t raddr,
                           uint32_t len, bool translate, bool read,
                           MartiniWrite *w);

/* martini-sync.c */
void martini_sync_init(MartiniState *s);
int64_t martini_sync_departure(MartiniState *s, uint32_t frame_size,
                               int64_t extra_ns);
void martini_sync_receive(MartiniState *s, const uint8_t *frame, uint32_t size);
void martini_sync_grant(MartiniState *s, int64_t horizon);
bool martini_sync_host_queues(MartiniState *s);
bool martini_sync_host_request(MartiniState *s, const struct dn1_hb_req *req);
void martini_sync_host_event(MartiniState *s, bool connected);
void martini_sync_fw_status(MartiniState *s, uint32_t old, uint32_t val);

/* martini-pcap.c */
void martini_pcap_open(MartiniState *s, Error **errp);
void martini_pcap_record(MartiniState *s, const uint8_t *pkt, uint32_t size,
                         int64_t at);

/* martini-hostbus.c */
void martini_hostbus_init(MartiniState *s, Error **errp);
/* Act on @req from host port @port (host sync: port 0 only). */
void martini_hostbus_apply(MartiniState *s, unsigned port,
                           const struct dn1_hb_req *req);
/* The host ports may send more (the link's backlog has gone). */
void martini_hostbus_accept(MartiniState *s);
int64_t martini_hostbus_cost(MartiniState *s, const struct dn1_hb_req *req,
                             int64_t *dimm_ns);

/* martini-dimm.c: the NIC takes the DIMM side for @ns from @at at the
 * earliest (returns when its access ends); the host's accesses hold it
 * for the last @dimm ns before @end (returns how much longer they wait). */
int64_t martini_dimm_nic(MartiniState *s, int64_t at, int64_t ns);
int64_t martini_dimm_host(MartiniState *s, int64_t end, int64_t dimm);

#endif

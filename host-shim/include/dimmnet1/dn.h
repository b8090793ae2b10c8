/*
 * DIMMnet-1 host shim: the library an MPI layer calls to drive a Martini NIC.
 *
 * A node is opened on the NIC's shared memories (receive memory, LLCM, BOTF
 * windows) and its host-bus socket. Sends are split into packets of at most
 * DN_BOTF_MAX_PAYLOAD bytes, built in the two BOTF windows alternately, each
 * asking for an ACK; dn_wait() returns when every packet of a transfer has
 * been ACKed (or one was NACKed). Contract: docs/hardware.md.
 *
 * Every call returns DN_OK (0) or a negative DN_E* code; dn_strerror() names
 * it. Calls on one node are not thread-safe: use one node per thread.
 */
#ifndef DIMMNET1_DN_H
#define DIMMNET1_DN_H

#include <stddef.h>
#include <stdint.h>
#include "dimmnet1/fw_types.h"   /* the firmware types dn_send_typed sends */

#ifdef __cplusplus
extern "C" {
#endif

enum dn_status {
    DN_OK = 0,
    DN_EINVAL = -1,      /* bad argument */
    DN_ERANGE = -2,      /* address or length outside what the NIC can reach */
    DN_ETIMEDOUT = -3,   /* no answer in time */
    DN_EIO = -4,         /* host-bus or shared-memory failure (the board gone) */
    DN_ELINKDOWN = -5,   /* link not connected: nothing sent */
    DN_ENACK = -6,       /* the receiver refused a packet (see dn_xfer) */
    DN_ENOMEM = -7,
    DN_ENODEV = -8,      /* not a Martini, wrong contract version or node */
    DN_ENOFW = -9,       /* firmware not running (or stopped on an error) */
    DN_ESTALE = -10,     /* transfer too old: its completions were recycled */
    DN_ERETRY = -11,     /* message: retries ran out (see dn_msg_status.text) */
    DN_ETRUNC = -12,     /* message longer than the receive buffer: truncated */
    DN_EBUSY = -13,      /* not now: e.g. a user buffer is still posted */
    DN_ENOFLASH = -14,   /* the board has no flash device (booted with -bios) */
    DN_EBADIMG = -15,    /* firmware image refused: not valid for this board */
    DN_EVERIFY = -16,    /* flash read-back differs from what was written */
};

#define DN_BOTF_MAX_PAYLOAD 464u

typedef struct dn_node dn_node;

struct dn_config {
    unsigned node_id;          /* the node this must be (checked) */
    const char *hostmem_path;  /* shared receive memory file */
    const char *llcm_path;     /* shared LLCM file */
    const char *window_path;   /* shared BOTF window file */
    const char *hostbus_path;  /* host-bus unix socket */
    int timeout_ms;            /* for connecting and for firmware ready */
    int wait_link;             /* also wait until link port 0 is up */
    /* The board's host port hostbus_path leads to (0 for "hostbus", p for
     * "hostbusP"; contract 1.27): a board with host-ports=N serves N
     * processes at once, each with its own completion queue and share of
     * BOTF windows, RDMA descriptors and registration entries. Ports
     * above 0 send and answer one-sided traffic only: no message layer,
     * barriers, AOTF channels, flashing or NIC restarts (DN_EINVAL). */
    unsigned port;
};

/*
 * A transfer in flight, and its outcome once waited for. Up to 64 transfers
 * may be outstanding (sent, not yet waited for) per node; an older one is
 * forgotten, and dn_wait() on it (or on one already waited for) answers
 * DN_ESTALE. A transfer may have any number of packets; at most 256 are in
 * flight at once (the LLCM completion queue's size), the rest wait to go.
 */
typedef struct dn_xfer {
    uint32_t id;
    uint32_t packets;          /* packets sent */
    uint32_t acked;            /* filled in by dn_wait() */
    uint32_t nacked;
    uint8_t nack_reason;       /* DN1_NACK_* of the first NACK seen */
    uint16_t nack_from;
} dn_xfer;

int dn_open(const struct dn_config *cfg, dn_node **out);

/*
 * Open the node a launcher (tools/dimmnet-cluster) prepared for this process,
 * from DIMMNET_NODE_ID, DIMMNET_NODES, DIMMNET_HOSTMEM, DIMMNET_LLCM,
 * DIMMNET_WINDOW and DIMMNET_HOSTBUS.
 *
 * On a board without timing these tune speed only (with timing every
 * request is a round trip and the paper's two BOTF windows alternate):
 * DIMMNET_HB_POSTED=0 makes every host-bus request wait for its answer;
 * DIMMNET_BOTF_WINDOWS=N (2..16, default 16) sets how many BOTF windows
 * the shim uses in turn; DIMMNET_HB_COMBINE=0 writes every posted kick of
 * the message layer at once (see dn_msg_isend).
 */
int dn_open_env(dn_node **out, int timeout_ms);

void dn_close(dn_node *n);

unsigned dn_node_id(const dn_node *n);
/* The board's host port this process opened (0 .. *ports - 1; contract
 * 1.27), and how many the board has. */
unsigned dn_port(const dn_node *n, unsigned *ports);
/* This process's incarnation on its host port (1..255, newer than any
 * earlier process's on the same port): port 0's is the message layer's
 * (dn_msg_incarnation, -1 before dn_msg_init); a port above 0 counts its
 * own in its LLCM block at each dn_open. */
int dn_port_incarnation(dn_node *n);

/* This node's receive memory (written by remote PUSHes), and its size. */
uint8_t *dn_hostmem(dn_node *n, size_t *size);

/*
 * Move the pages [@addr, @addr + @len) of this process onto the card: their
 * contents are copied into receive memory at offset @off and the range is
 * mapped there, at the same addresses, so that remote writes land in them
 * and the NIC can read them (memory registration, docs/libfabric.md). All
 * three page aligned (4 KiB); a range outside receive memory: DN_ERANGE.
 * What another thread writes to those pages during the call may be lost.
 * dn_hostmem_unalias() copies them back into ordinary memory.
 */
int dn_hostmem_alias(dn_node *n, void *addr, size_t len, uint64_t off);
int dn_hostmem_unalias(dn_node *n, void *addr, size_t len, uint64_t off);

/*
 * This node's LLCM user area (56 KiB), which remote writes may also target:
 * its byte k is remote address DN_RADDR_LLCM_USER + k on this node.
 */
uint8_t *dn_llcm_user(dn_node *n, size_t *size);
#define DN_RADDR_LLCM_USER 0x100002000ull

/* Read a Martini register (docs/hardware.md, "Registers") over the host bus. */
int dn_reg_read(dn_node *n, uint32_t reg, uint32_t *value);

/*
 * The NIC's counters (docs/hardware.md): how many there are, the name of
 * counter @i ("rx_push", "err_crc", ...; NULL past the end), and its value.
 */
unsigned dn_counter_count(void);
const char *dn_counter_name(unsigned i);
int dn_counter_read(dn_node *n, unsigned i, uint32_t *value);

/*
 * Remote direct write of @len bytes to @raddr in node @dst's NIC address
 * space: receive memory at 0 .. 16 MiB, or its LLCM user area from
 * DN_RADDR_LLCM_USER. A range that does not fit one of them: DN_ERANGE.
 */
int dn_botf_put(dn_node *n, unsigned dst, uint64_t raddr, const void *buf,
                size_t len, dn_xfer *x);

/*
 * Remote read (get): @len bytes at @raddr in node @src's NIC address space
 * (its receive memory or LLCM) land at @local in this node's, read by @src's
 * hardware in packets of up to 2048 bytes; dn_wait() says when all are here.
 * Unreadable there or unwritable here: DN_ERANGE (or a NACK RANGE later).
 */
int dn_get(dn_node *n, unsigned src, uint64_t raddr, uint64_t local, size_t len,
           dn_xfer *x);

/*
 * Multicast remote write through the switch to every member of @group
 * (group 0: all nodes, as the launcher sets it up): the same @raddr on each.
 * Nothing answers a multicast packet, so there is nothing to wait for.
 */
int dn_botf_put_group(dn_node *n, unsigned group, uint64_t raddr,
                      const void *buf, size_t len);

/*
 * Remote direct write to a remote *virtual* address (flag VA): @rva is
 * DN_RVA(context, va); node @dst's RVATLB maps it page by page, and a miss
 * is served by its firmware (or NACKed with DN1_NACK_NO_TRANSLATION).
 */
#define DN_RVA(ctx, va) ((uint64_t)(ctx) << 48 | ((uint64_t)(va) & 0xffffffffffffull))
int dn_botf_put_rva(dn_node *n, unsigned dst, uint64_t rva, const void *buf,
                    size_t len, dn_xfer *x);

/*
 * The same by RDMA: the NIC reads @len bytes from this node's receive
 * memory at @local and writes them to @rva in 2048-byte packets.
 */
int dn_rdma_write_rva(dn_node *n, unsigned dst, uint64_t rva, uint64_t local,
                      size_t len, dn_xfer *x);

/*
 * Remote read (as dn_get) of @len bytes at remote virtual address @rva of
 * node @src: its RVATLB translates each request and must allow reads (R);
 * a miss is served by its firmware (a registration, docs/hardware.md
 * section 14) or refused: DN_ENACK, x->nack_reason PROTECTION or
 * NO_TRANSLATION, nothing landed.
 */
int dn_get_rva(dn_node *n, unsigned src, uint64_t rva, uint64_t local, size_t len,
               dn_xfer *x);

/*
 * Remote indirect write: @ptr_addr in node @dst's NIC address space (its
 * receive memory, or its LLCM as in the paper, e.g. DN_RADDR_LLCM_USER + k)
 * holds a little-endian 64-bit pointer; the data lands at that pointer
 * (paper, Sec. 3). An unaligned slot: DN_EINVAL; one outside: DN_ERANGE.
 */
int dn_indirect_write(dn_node *n, unsigned dst, uint64_t ptr_addr,
                      const void *buf, size_t len, dn_xfer *x);

/*
 * The receiving side of an indirect write: set this node's pointer slot at
 * @ptr_addr (its NIC address space: receive memory or the LLCM user area)
 * to @target, as the little-endian 64-bit word the firmware reads. @target
 * is not checked here: the receiving firmware refuses a write it would put
 * outside receive memory (NACK). An unaligned slot: DN_EINVAL; one outside
 * those memories: DN_ERANGE.
 */
int dn_indirect_slot_set(dn_node *n, uint64_t ptr_addr, uint64_t target);

/*
 * "MP by soft indirect" (paper, Fig. 2; docs/hardware.md section 13): a
 * transfer the receiver's firmware takes entirely in software. The
 * receiver sets a pointer slot in its LLCM user area (@slot_off: the LLCM
 * offset, 16-aligned, in the user area): where offset 0 lands (@target, a
 * NIC address) and how many bytes a transfer may fill (@capacity); its
 * `done` count goes up once every byte of a transfer is in memory
 * (dn_soft_done). The sender writes @len bytes of @buf through node @dst's
 * slot, with @fseq the firmware takes them in f_seq order (duplicates
 * answered again, gaps NACKed). Refusals come back as DN_ENACK with the
 * firmware's reason; the caller sends again. Bad slot: DN_EINVAL.
 */
int dn_soft_slot_set(dn_node *n, uint32_t slot_off, uint64_t target,
                     uint32_t capacity);
int dn_soft_done(dn_node *n, uint32_t slot_off, uint32_t *done);
int dn_soft_indirect_write(dn_node *n, unsigned dst, uint32_t slot_off,
                           const void *buf, size_t len, int fseq, dn_xfer *x);

/*
 * Send a transfer of a firmware-implemented packet @type (one the hardware
 * stops for and hands to the NIC processor, e.g. DN1_TYPE_INDIRECT_WRITE):
 * every packet carries @raddr unchanged and its byte offset in the transfer.
 * The hardware types PUSH, ACK and NACK are refused (DN_EINVAL).
 */
int dn_send_typed(dn_node *n, uint8_t type, unsigned dst, uint64_t raddr,
                  const void *buf, size_t len, dn_xfer *x);

/*
 * RDMA: node @dst receives @len bytes that the NIC itself reads from this
 * node's receive memory at offset @local, in packets of up to 2048 bytes.
 * @type DN1_TYPE_PUSH writes at @raddr onwards; a firmware type (e.g.
 * DN1_TYPE_INDIRECT_WRITE) carries @raddr unchanged and each packet's offset.
 * Source or (for PUSH) target out of range: DN_ERANGE.
 */
int dn_rdma_write(dn_node *n, uint8_t type, unsigned dst, uint64_t raddr,
                  uint64_t local, size_t len, dn_xfer *x);

/*
 * AOTF channels (32 per node; the application's are 0-7: channels 8-15
 * are the collectives' small messages and credits (dn_coll_*), 16-23 the
 * barriers' (16 + id), 24-31 the collectives' firmware combine (24 + comm
 * slot); host port 0 only): open channel @ch once for packets of @type
 * (DN1_TYPE_PUSH for plain writes, or a firmware type) to node @dst, covering
 * @size bytes of its NIC address space from @raddr, asking for ACKs if @ack.
 * Then each dn_aotf_store() of 1-8 bytes at @offset in that range is one
 * host store and one packet: the low @size bytes of @value, in little-endian
 * order. On an ACK channel pass @x and dn_wait() for it; otherwise @x must be
 * NULL (nothing answers). A PUSH channel whose range is not writable at the
 * receiver: DN_ERANGE; a store outside the channel's range: DN_ERANGE.
 */
int dn_aotf_open(dn_node *n, unsigned ch, uint8_t type, int ack, unsigned dst,
                 uint64_t raddr, uint32_t size);
int dn_aotf_close(dn_node *n, unsigned ch);
int dn_aotf_store(dn_node *n, unsigned ch, uint32_t offset, uint64_t value,
                  unsigned size, dn_xfer *x);

/*
 * Wait until every packet of @x is ACKed: DN_OK, DN_ENACK or DN_ETIMEDOUT.
 * On a board without timing the sends of a tracked transfer do not wait for
 * the NIC (posted host-bus requests, docs/hardware.md "Host bus"): a packet
 * the NIC refused to send (DN_ELINKDOWN, DN_EINVAL...) is reported here,
 * as that error, once every other packet is answered.
 */
int dn_wait(dn_node *n, dn_xfer *x, int timeout_ms);

/*
 * After dn_wait() answered DN_ETIMEDOUT: send again only the packets of
 * @x still unanswered (lost, or their ACK lost), under their own tags, so
 * that the first answer to either copy counts once; *@resent (may be NULL)
 * says how many. Remote writes only (dn_botf_put, dn_botf_put_rva,
 * dn_rdma_write and dn_rdma_write_rva of DN1_TYPE_PUSH), of at most 64
 * packets, none NACKed: else DN_EINVAL (send the whole transfer again).
 * DN_OK with nothing resent when every packet is answered by now. A BOTF
 * transfer's bytes must stay as they were until it is done.
 */
int dn_resend(dn_node *n, dn_xfer *x, uint32_t *resent);

/*
 * Modeled time. dn_clock(): the board's virtual clock in ns (modeled time
 * when the cluster runs with --timing). A board with host sync (launcher
 * --deterministic; dn_host_sync() says so) applies each request at the
 * virtual time of the previous answer plus the modeled cost of issuing it,
 * and stands still while the host computes: runs then do not depend on host
 * speed. There, a host that waits for memory to change must let virtual
 * time pass instead of spinning: dn_idle() is one turn of a polling loop
 * (with host sync: the loads of the card's memory charged since the last
 * turn, or one LLCM load's time if none was; otherwise a yield, or a
 * 10 us sleep once many turns in a row saw no new completion record or
 * message notice, leaving the CPU to the emulated boards);
 * dn_delay() lets @ns of host time pass (at most 1 s; at once without host
 * sync) and returns the clock. Timeouts given in milliseconds stay in
 * wall-clock time; the message exchange's own resend timers do not
 * (dn_msg_config_default).
 */
int dn_clock(dn_node *n, uint64_t *now_ns);
int dn_delay(dn_node *n, uint64_t ns, uint64_t *now_ns);
int dn_idle(dn_node *n);
int dn_host_sync(dn_node *n);

/*
 * The host's own work in modeled time (docs/hardware.md section 9, "Host
 * profile"). With host sync the host's computation is charged as the
 * profile says, not as fast as this machine runs it: the shim charges its
 * own data-path work, and a layer above (a libfabric provider, an MPI
 * library) charges its own with dn_host_work(): @count instructions
 * (DN_HOST_INSNS: a code path's count, measured once), bytes copied in
 * host memory (DN_HOST_COPY) or checksummed with CRC-32 (DN_HOST_CRC), or
 * uncached loads (DN_HOST_LOAD) and stores (DN_HOST_STORE) of words in
 * the card's memory (LLCM, host receive memory: a flag or stamp polled,
 * an index written), or bytes of it read (DN_HOST_CARD_READ: uncached
 * loads, as wide as the profile's host makes one) or written
 * (DN_HOST_CARD_WRITE: write-combined) in bulk, as an application does
 * with a buffer whose pages were moved onto the card (zero-copy).
 * dn_copy() copies and charges by where the bytes lie:
 * from the card's memory as uncached loads, into it write-combined, else
 * as a host copy. The
 * charge goes with the next request to the NIC, which takes effect that
 * much later; without host sync nothing is charged. The profile comes from
 * DIMMNET_HOST_PROFILE at dn_open: "paper-host" (the default: the paper's
 * Pentium III 850 MHz on a 100 MHz bus), "modern" or "free" (hardware
 * only); another name fails dn_open with DN_EINVAL. dn_host_profile()
 * names it; dn_host_charged() gives the ns charged since dn_open.
 */
enum dn_host_work_kind {
    DN_HOST_INSNS = 0, DN_HOST_COPY = 1, DN_HOST_CRC = 2,
    DN_HOST_LOAD = 3, DN_HOST_STORE = 4,
    DN_HOST_CARD_READ = 5, DN_HOST_CARD_WRITE = 6,
};
int dn_host_work(dn_node *n, int kind, uint64_t count);
int dn_copy(dn_node *n, void *dst, const void *src, size_t len);
/* The shim charges its own instructions on the data path (a call, a
 * packet, a polling turn; measured once) unless a layer above counted them
 * with its own and says so: dn_host_self(n, 0). */
int dn_host_self(dn_node *n, int on);
/* The instructions the host-charge table gives the code path @row (e.g.
 * "prov.send", "openmpi.turn"; docs/hardware.md section 9): measured with
 * callgrind on the current sources (bench/measure_charges.py), read at
 * dn_open from DIMMNET_HOST_CHARGES, else the installed table, else the
 * source tree's. dn_open fails (DN_EINVAL, the reason on stderr) when
 * instructions are charged and the table cannot be read or lacks a row of
 * the shim's. DN_EINVAL and *insns 0 for a row it does not hold. */
int dn_host_insns(dn_node *n, const char *row, uint64_t *insns);
const char *dn_host_profile(dn_node *n);
uint64_t dn_host_charged(dn_node *n);
/* What was charged since dn_open, by kind (ns; sent with requests or
 * waiting for the next one). */
struct dn_host_charges {
    uint64_t insns_ns, copy_ns, crc_ns;   /* the host's own work */
    uint64_t load_ns, store_ns;           /* single words of the card's memory */
    uint64_t card_read_ns, card_write_ns; /* its bytes in bulk */
    uint64_t window_ns;                   /* window fills past the DIMM's rate */
};
int dn_host_charges(dn_node *n, struct dn_host_charges *c);

const char *dn_strerror(int status);

/*
 * Firmware variants, chosen at run time (docs/hardware.md section 12): the
 * paper's miss-continue experiments. With DN_MISS_CONTINUE a TLB miss on a
 * write whose raddr lies in [window_base, window_base + window_size) (an
 * RVA for VA packets, a NIC address otherwise) continues at the pointer
 * this node keeps at LLCM offset @pointer_off (a little-endian u64, read
 * at every miss) plus the offset in the window. @patlb turns the PATLB on
 * (pages outside the window are entered on their first miss); @poll is
 * the paper's "non-intr": the NIC processor polls instead of taking the
 * interrupt; @batch lets one interrupt serve every packet held (the
 * default, as the paper's firmware, takes one interrupt a packet). Applies to this node's own firmware, in order with its
 * traffic (a CONTROL packet through the switch and back, so the node needs
 * its link). DN_EINVAL for a bad setting, DN_ENACK if the firmware
 * refused it.
 */
enum { DN_MISS_NACK = 0, DN_MISS_CONTINUE = 1 };
struct dn_fw_variant {
    unsigned miss_mode;       /* DN_MISS_NACK (default) or DN_MISS_CONTINUE */
    int patlb;                /* PATLB checks on */
    int poll;                 /* non-intr: poll for held packets */
    uint64_t window_base;
    uint32_t window_size;
    uint32_t pointer_off;     /* 8-aligned offset in this node's LLCM */
    int batch;                /* one interrupt serves every held packet (ours);
                                 0: one interrupt a packet, as the paper's */
};
int dn_fw_variant_set(dn_node *n, const struct dn_fw_variant *v);

/*
 * ---- Registered memory (docs/hardware.md section 14) ----
 *
 * This node's registration table: entry @idx (0 .. DN_MR_ENTRIES - 1) lets
 * remote packets that carry key @key (bit 15 set: 0x8000..0xffff) reach
 * @len bytes (1 .. 16 MiB) of this node's receive memory from offset
 * @nic_off, named by VA @va (48 bits) onwards: remote writes and atomics
 * with DN_MR_REMOTE_WRITE, remote reads (and atomics) with
 * DN_MR_REMOTE_READ. A remote write is DN_RVA(key, va) with flag VA
 * (dn_botf_put_rva); a remote atomic needs both bits (every atomic
 * returns the old value), a READ only DN_MR_REMOTE_READ. The NIC's
 * firmware fills its RVATLB from the table and refuses (NACK PROTECTION)
 * anything outside a registration, with another key, or without the
 * access. Several entries may share a key (a registration in pieces).
 * DN_EINVAL: bad idx, key without bit 15, access 0 or other bits, a VA
 * range past 48 bits; DN_ERANGE: length 0 or over 16 MiB, a range outside
 * receive memory; DN_EBUSY: the entry is in use (dn_mr_clear it first).
 * dn_mr_clear turns entry @idx off, tells the firmware (a packet to this
 * node itself, through the switch and back) and waits for its answer
 * (wall-clock @timeout_ms): once it returns, no packet can reach the old
 * registration. Clearing a free entry still waits for the firmware.
 * dn_mr_reset turns off every entry left on (by an earlier process of this
 * node that died without clearing them: the table outlives processes, in
 * LLCM) and then tells the firmware once to forget every translation;
 * returns how many it turned off (0: nothing to do, no packet sent), or a
 * DN_E* status. A process that takes the node's table over calls it first.
 * On a board with several host ports (dn_port) each port's process owns a
 * share of the entries, dn_mr_entries' [*first, *end); dn_mr_set and
 * dn_mr_clear refuse another port's entry (DN_EINVAL) and dn_mr_reset
 * turns off only the port's own.
 */
#define DN_MR_ENTRIES 32
#define DN_MR_REMOTE_WRITE 1u
#define DN_MR_REMOTE_READ  2u
int dn_mr_set(dn_node *n, unsigned idx, uint16_t key, uint64_t va,
              uint32_t nic_off, uint32_t len, unsigned access);
int dn_mr_clear(dn_node *n, unsigned idx, int timeout_ms);
int dn_mr_reset(dn_node *n, int timeout_ms);
int dn_mr_entries(const dn_node *n, unsigned *first, unsigned *end);

/*
 * Paged registrations (docs/hardware.md section 14, contract 1.28): a
 * registration not on the card as a whole, of @len bytes (1 .. 2^32 - 1)
 * from VA @va. dn_mr_set_paged writes its entry (flag NR); pieces of it
 * moved onto the card get resident entries of their own with the same key
 * (dn_mr_set). A remote access that only the paged entry holds is NACKed
 * NOT_RESIDENT (the initiator retries) and posted in the node's fault
 * ring: dn_mr_faults copies the faults posted since *@seen (at most @max,
 * the newest DN1_MR_FAULT_SLOTS at most) into @f, advances *@seen and
 * returns how many, so that the host can move what was asked for onto the
 * card. Errors as dn_mr_set's (DN_ERANGE: length 0 or over 2^32 - 1).
 */
typedef struct {
    uint16_t key;
    uint64_t va;                /* the refused access's first byte */
    uint32_t len;               /* and its length */
} dn_mr_fault;
int dn_mr_set_paged(dn_node *n, unsigned idx, uint16_t key, uint64_t va, uint64_t len,
                    unsigned access);
int dn_mr_faults(dn_node *n, uint32_t *seen, dn_mr_fault *f, unsigned max);

/*
 * ---- Remote atomics (docs/hardware.md section 15) ----
 *
 * dn_atomic_post: @op (DN1_AOP_*, dimmnet1/atomic.h: libfabric's enum
 * fi_op numbers) on the @datatype (DN1_ADT_INT32, _UINT32, _INT64,
 * _UINT64) at @rva = DN_RVA(key, va) in node @dst's registered memory,
 * served by @dst's firmware; @operand and @compare point to values of the
 * datatype (@compare only for the CSWAP ops and MSWAP, else may be NULL).
 * The old value lands at @reply_raddr in this node's NIC address space
 * (receive memory, or DN_RADDR_LLCM_USER + k), 4 or 8 bytes, aligned;
 * leave it to the request until dn_atomic_test says done. A second answer
 * (to a duplicate, or to a resend whose first answer came too) may land
 * there later: take reply slots in turn from a ring several hundred long
 * rather than reusing one at once (the provider keeps 512).
 * dn_atomic_test progresses every atomic of the node (answers, resends)
 * and says whether @r is done: *done = 1 and DN_OK (the old value is at
 * reply_raddr), DN_ENACK (refused: r->nack_reason, DN1_NACK_PROTECTION or
 * DN1_NACK_BAD_ATOMIC), DN_ERETRY (no answer after DN_ATOMIC_RETRIES
 * resends: the conversation with @dst is broken, later posts to it fail
 * too); *done = 0 while it waits. A request is sent again after a backoff
 * when no answer came, with the same seq, so it is never applied twice
 * (the firmware answers a duplicate from memory). Requests are numbered
 * per destination node, whichever of its host ports @dst names (its
 * firmware numbers them per source address). At most
 * DN_ATOMIC_WINDOW atomics are unanswered per destination node and
 * DN_ATOMIC_MAX per node: a post beyond answers DN_EBUSY (test earlier
 * ones first). Also DN_EINVAL (bad op, datatype, unaligned @rva or
 * @reply_raddr, a group), DN_ERANGE (@reply_raddr not writable).
 * The backoff starts at 20 ms of wall clock (200 us of the board's clock
 * when it keeps modeled time; DIMMNET_ATOMIC_TIMEOUT_US sets it) and
 * doubles to 64 times that; a SEQUENCE refusal (an earlier atomic to the
 * same node is missing there) resends once that earlier one is answered.
 * dn_atomic: post, wait (wall-clock @timeout_ms: DN_ETIMEDOUT leaves the
 * request to the shim, which forgets it), copy the old value to @old (4 or
 * 8 bytes); the reply lands in this node's LLCM user area at
 * DN_ATOMIC_LLCM_OFF (256 bytes that belong to dn_atomic; on host port
 * p > 0, the 256 bytes at DN1_LLCM_PORT_ATOMIC of its LLCM block).
 */
#define DN_ATOMIC_WINDOW  8u
#define DN_ATOMIC_MAX     64u
#define DN_ATOMIC_RETRIES 12u
#define DN_ATOMIC_LLCM_OFF 0x7f00u
typedef struct dn_atomic_req dn_atomic_req;
struct dn_atomic_req {
    /* The outcome, once dn_atomic_test said done. */
    int error;                 /* DN_OK, DN_ENACK, DN_ERETRY */
    uint8_t nack_reason;       /* DN1_NACK_* with DN_ENACK */
    unsigned resends;          /* sent again: no answer in time, or after SEQUENCE */
    /* The shim's. */
    int state;                 /* 0 not posted, 1 waiting, 2 done */
    uint32_t tag;
    uint16_t dst, seq;
    uint64_t rva;
    uint8_t payload[32];
    uint64_t due_ns, rto_ns;
    unsigned timeouts;         /* resends after no answer (against DN_ATOMIC_RETRIES) */
    int seq_nacked;            /* refused SEQUENCE: resend when the gap closes */
};
int dn_atomic_post(dn_node *n, dn_atomic_req *r, unsigned dst, uint64_t rva,
                   unsigned op, unsigned datatype, const void *operand,
                   const void *compare, uint64_t reply_raddr);
int dn_atomic_test(dn_node *n, dn_atomic_req *r, int *done);
int dn_atomic(dn_node *n, unsigned dst, uint64_t rva, unsigned op,
              unsigned datatype, const void *operand, const void *compare,
              void *old, int timeout_ms);

/*
 * ---- Message exchange (docs/hardware.md section 10; paper, steps 1-7) ----
 *
 * Messages of 0 bytes to 16 MiB - 1 with a 32-bit tag, delivered exactly
 * once and in send order per (sender, receiver), matched by source and tag
 * (DN_ANY_SOURCE, DN_ANY_TAG) with MPI's rules: posted receives in posting
 * order, early arrivals kept in arrival order until a receive matches.
 *
 * Each receiver gives every sender a system buffer (a ring) in its receive
 * memory and a notice queue in its LLCM; the NIC firmware places each
 * message there (or in a user buffer posted with dn_msg_post_buffer) and
 * NACKs it while there is no room. A sender keeps every packet until it is
 * ACKed and resends: after a NACK for lack of room (BUFFER_FULL, TOO_LONG,
 * NO_BUFFER, BAD_POINTER) once the RNR backoff has passed, counted against
 * rnr_retry; after a gap (SEQUENCE) or no answer for timeout_us, counted
 * against retry; a packet the NIC would not send for want of a link
 * counts as unanswered from the first refusal. 7 means forever; when
 * retries run out, the message fails with DN_ERETRY and a text naming
 * destination, message and count, and so does everything queued to that
 * peer after it. Other NACKs fail it at once (DN_ENACK); so does a host bus
 * that broke (DN_EIO: the board went away; never a SIGPIPE). Progress happens inside these calls (and dn_msg_progress).
 *
 * Peers are addresses (contract 1.29): node | port << 12, the node id for
 * port 0. Every host port of a board sends and receives messages on its
 * own; every board of a run must have the same number K of host ports,
 * and nodes below 64 / K^2 can take part (dn1_msg_nodes: all 64 with one
 * port, 16 with two, 4 with four). Other addresses: DN_EINVAL.
 */
#define DN_ANY_SOURCE  (-1)
#define DN_ANY_TAG     (-1)

struct dn_msg_config {
    uint32_t sysbuf_off;     /* system buffers start here in receive memory */
    uint32_t sysbuf_bytes;   /* per sender (multiple of 8) */
    unsigned senders;        /* set up for senders 0 .. senders-1 (<= 64 / K): sender
                                node * K + port (dn1_msg_sender) */
    uint32_t nq_off;         /* notice queue: offset in LLCM (user area, 32-aligned) */
    uint32_t nq_entries;     /* a power of two, <= 1024 */
    unsigned retry;          /* 0..7 (7: forever): resends after a gap or a timeout */
    unsigned rnr_retry;      /* 0..7 (7: forever): resends after a NACK for room */
    unsigned min_rnr_timer;  /* 5-bit code of InfiniBand's RNR table (dn_msg_rnr_ns) */
    uint32_t timeout_us;     /* resend when nothing was answered for this long */
    unsigned window;         /* packets in flight per peer, 1..1024 */
    uint64_t stash_bytes;    /* early arrivals copied out of the ring up to this */
};

/* Defaults for this node: the upper half of receive memory split among
 * DIMMNET_NODES senders (1 MiB each at most), 512 notices at LLCM 0xc000;
 * on a board of K > 1 host ports, port p's part of it (a Kth) among
 * DIMMNET_NODES * K senders, 128 notices at LLCM 0x2000 + 0x1000 p;
 * retry 6, rnr_retry 7, min_rnr_timer 12 (0.64 ms), timeout 200 ms of wall
 * clock, window 256. On a board that keeps modeled time (--timing,
 * --deterministic) the timeout (200 us) and the RNR backoff run on the
 * board's clock (dn_clock), which runs far slower than the wall clock. */
void dn_msg_config_default(dn_node *n, struct dn_msg_config *cfg);

/* Set up message exchange (cfg NULL: defaults). Once per node and port. */
int dn_msg_init(dn_node *n, const struct dn_msg_config *cfg);

/* InfiniBand's min_rnr_timer table: code 0..31 to ns (0: 655.36 ms). */
uint64_t dn_msg_rnr_ns(unsigned code);

typedef struct dn_msg_req dn_msg_req;

struct dn_msg_status {
    unsigned src;            /* receive: the sender's address; send: the destination */
    uint32_t tag;
    size_t len;              /* receive: the message's length (even if truncated) */
    int error;               /* DN_OK, DN_ETRUNC, DN_ERETRY, DN_ENACK ... */
    uint8_t nack_reason;     /* the last NACK's reason, if any */
    unsigned retries;        /* resends this message needed */
    char text[160];          /* on error: what happened, for humans */
};

/* Non-blocking send of @len bytes of @buf (left untouched until the
 * request completes) to node @dst with @tag: by BOTF in 464-byte packets,
 * or, when @buf lies in this node's receive memory (dn_hostmem), by RDMA in
 * 2048-byte packets that the NIC reads itself. On a board without timing
 * its packets' kicks may wait in the shim, to go to the board in one write
 * with those of the sends that follow, until the next call into the
 * library that sends nothing new (dn_msg_test or _wait of a request not
 * done, dn_msg_progress, dn_msg_irecv, dn_idle, any call that waits for the
 * board): a program must call into the library to see a send complete
 * anyway, but not block outside it (on another process) right after
 * dn_msg_isend. DIMMNET_HB_COMBINE=0 writes every kick at once. */
int dn_msg_isend(dn_node *n, unsigned dst, uint32_t tag, const void *buf,
                 size_t len, dn_msg_req **req);
/* Non-blocking receive from @src (or DN_ANY_SOURCE) with @tag (or
 * DN_ANY_TAG) into @buf, at most @cap bytes. */
int dn_msg_irecv(dn_node *n, int src, int64_t tag, void *buf, size_t cap,
                 dn_msg_req **req);
/* Done? *done = 1 and the request is freed (status in *st, may be NULL),
 * or *done = 0. Returns DN_OK or the request's error. */
int dn_msg_test(dn_node *n, dn_msg_req *req, int *done, struct dn_msg_status *st);
/* Wait for it (wall-clock @timeout_ms; DN_ETIMEDOUT leaves it pending). */
int dn_msg_wait(dn_node *n, dn_msg_req *req, struct dn_msg_status *st,
                int timeout_ms);
int dn_msg_send(dn_node *n, unsigned dst, uint32_t tag, const void *buf,
                size_t len, int timeout_ms);
int dn_msg_recv(dn_node *n, int src, int64_t tag, void *buf, size_t cap,
                struct dn_msg_status *st, int timeout_ms);
/* Serve completions, notices, resends and queued packets once. */
int dn_msg_progress(dn_node *n);
/* Has @req finished (1) or not (0)? No progress is made: a caller with
 * many requests calls dn_msg_progress once, then this on each, and
 * dn_msg_test on those finished (dn_msg_test on an unfinished request
 * makes progress each time). */
int dn_msg_done(const dn_msg_req *req);
/* Withdraw a receive no message has matched yet: DN_OK, and the request is
 * gone. DN_EBUSY if a message already completed it (dn_msg_test it as
 * usual); DN_EINVAL for a send (sends cannot be withdrawn). */
int dn_msg_cancel(dn_node *n, dn_msg_req *req);

/*
 * Zero copy: the next message from @src that fits lands in [@off, @off +
 * @len) of this node's receive memory instead of the system buffer. The
 * region belongs to the NIC until that message's receive completes; a post
 * cannot be withdrawn. One post per sender at a time (DN_EBUSY).
 */
int dn_msg_post_buffer(dn_node *n, unsigned src, uint32_t off, uint32_t len);

struct dn_msg_stats {
    uint64_t sent, received;            /* messages completed */
    uint64_t packets, retransmits;      /* packets sent; of them resent */
    uint64_t nacks, timeouts, gaps;     /* NACKs seen; timeouts; go-backs after gaps */
    uint64_t stashed;                   /* arrivals that waited for a receive */
    uint64_t notice_errors;             /* notices out of order or malformed (never expected) */
    uint64_t incarnations;              /* conversations started over: a receiver
                                           answered INCARNATION (it was set up anew) */
    uint64_t cold_starts;               /* this node's firmware started cold under
                                           us: every sender set up again */
};
int dn_msg_stats(dn_node *n, struct dn_msg_stats *st);
/* The incarnation this process's message conversations took (1..255; it is
 * newer than any earlier process's on this node: docs/hardware.md section
 * 10, "Restarts"), or -1 before dn_msg_init. */
int dn_msg_incarnation(dn_node *n);

/* Firmware statistics (LLCM, docs/hardware.md section 10): how many, names, values. */
unsigned dn_fw_stat_count(void);
const char *dn_fw_stat_name(unsigned i);
int dn_fw_stat_read(dn_node *n, unsigned i, uint32_t *value);

/*
 * ---- Barriers (docs/hardware.md section 11; paper, "counting barrier") ----
 *
 * A barrier over a set of nodes: no member leaves dn_barrier_wait() before
 * every member has entered it. Algorithms:
 *   FIRMWARE        each member's AOTF store reaches the root's firmware,
 *                   which counts in on-chip SRAM and sends one completion
 *                   per member, in ascending rank order (the paper's);
 *   FIRMWARE_MCAST  the same, released by one multicast completion;
 *   HOST            host-assisted, hardware aids only: a dissemination
 *                   barrier of AOTF stores that the Mini-OTF receivers write
 *                   into LLCM, each host polling its own LLCM;
 *   HOST_MCAST      host-assisted: members store into the root's LLCM, the
 *                   root's host polls and releases all with one multicast
 *                   AOTF store;
 *   AUTO            tries each candidate for auto_trials calls, compares
 *                   them by the slowest member's time and keeps the fastest
 *                   (FIRMWARE, FIRMWARE_MCAST, HOST, HOST_MCAST);
 *   FIRMWARE_PAPER  the paper's counting barrier as the paper built it
 *                   (packet type BARRIER_PAPER, docs/hardware.md section
 *                   11): the root's firmware only counts down and sends
 *                   the completions it pre-built, one per member in
 *                   ascending rank order; no epochs, no member check, no
 *                   resends. For measuring the paper's firmware (Fig. 4),
 *                   not for a network that loses or duplicates packets;
 *   FIRMWARE_PAPER_MCAST  the same, released by one multicast completion.
 * Lost, duplicated or reordered packets neither hang the others nor let
 * anyone out early: epochs make every packet idempotent, and a member that
 * waits resend_us (doubling) sends its part again. The FIRMWARE_PAPER ones
 * have none of that: a lost packet hangs them until timeout_ms
 * (DN_ETIMEDOUT), a duplicated arrival lets them out early. Their root sets
 * the counter up in its first dn_barrier_wait (waiting for its firmware's
 * ACK) before it answers any member's join (below).
 *
 * Across processes and jobs: each barrier object has an incarnation, the
 * same on every member, that its root takes (the one after the last it
 * gave out for this id, kept in its board's LLCM) and every other member
 * asks it for in its first dn_barrier_wait, which waits for the answer. Epochs are the incarnation's, so nothing a dead process
 * or an earlier job left (words in LLCM, a half-counted barrier at the
 * root's firmware, packets in the network) counts in a new object's
 * barriers: a new job on the same boards needs nothing set up by hand,
 * whether the old one ended, was killed between barriers or inside one.
 *
 * Every member creates the same barriers (same id, members, root,
 * algorithm) in the same order. Ids 0..15 name the root's firmware group,
 * an AOTF channel (16 + id) and a 1 KiB block of each member's LLCM user
 * area at DN_BARRIER_LLCM_OFF + 1024 id that the barrier owns.
 */
/* Barrier ids 0-7 (the firmware's groups 8-15 and their LLCM blocks
 * belong to the collectives' firmware combine: group 8 + comm slot). */
#define DN_BARRIER_MAX         8
#define DN_BARRIER_LLCM_OFF    0x8000u   /* LLCM offset (user area) of barrier 0's block */

enum dn_barrier_algorithm {
    DN_BARRIER_AUTO = 0,
    DN_BARRIER_FIRMWARE = 1,
    DN_BARRIER_FIRMWARE_MCAST = 2,
    DN_BARRIER_HOST = 3,
    DN_BARRIER_HOST_MCAST = 4,
    DN_BARRIER_FIRMWARE_PAPER = 5,
    DN_BARRIER_FIRMWARE_PAPER_MCAST = 6,
};
#define DN_BARRIER_ALGORITHMS 7

typedef struct dn_barrier dn_barrier;

struct dn_barrier_config {
    unsigned id;                 /* 0 .. DN_BARRIER_MAX - 1 */
    unsigned nmembers;           /* 1 .. 64 */
    uint16_t members[64];        /* node ids < 64, ascending; this node one of them */
    unsigned root;               /* a member: counter node (FIRMWARE*), gatherer (HOST_MCAST) */
    int mcast_group;             /* switch group whose members are exactly these, or -1:
                                    then the *_MCAST algorithms are refused (DN_EINVAL) */
    enum dn_barrier_algorithm algorithm;
    unsigned auto_trials;        /* AUTO: calls per candidate, 1..1000 */
    uint32_t resend_us;          /* first resend after this long (0: 5 ms wall clock, or
                                    2 ms of the board's clock in modeled time) */
    int timeout_ms;              /* wall clock: dn_barrier_wait gives up, DN_ETIMEDOUT */
};

/* Defaults: id 0, all DIMMNET_NODES nodes, root the lowest, switch group 0
 * (the launcher's all-nodes group), AUTO with 4 trials, resend after 5 ms
 * of wall clock (2 ms modeled with host sync), give up after 60 s. */
void dn_barrier_config_default(dn_node *n, struct dn_barrier_config *cfg);
int dn_barrier_create(dn_node *n, const struct dn_barrier_config *cfg, dn_barrier **out);
/* Enter and wait: DN_OK, DN_ETIMEDOUT (give-up), DN_ENACK (a member the
 * root does not know; text in dn_barrier_report), DN_EIO. */
int dn_barrier_wait(dn_barrier *b);
/*
 * A member that left its last barrier may still owe the others a packet
 * the network lost (host algorithms: only hosts resend them). Until it
 * knows every member is out, it calls this in its idle loop: one poll
 * turn, resending its parts when they are due. Then destroy.
 */
int dn_barrier_progress(dn_barrier *b);
void dn_barrier_destroy(dn_barrier *b);

struct dn_barrier_report {
    unsigned id;
    enum dn_barrier_algorithm algorithm;   /* in use; AUTO while still trying */
    int modeled;                 /* times are the board's ns (--timing, --deterministic),
                                    else wall-clock ns */
    uint64_t calls;
    uint64_t resends;            /* parts sent again after a wait */
    uint64_t nacks;              /* refusals seen (e.g. root not set up yet) */
    uint64_t last_ns;            /* this member's time in its last call */
    struct {
        uint32_t trials;         /* AUTO: calls tried */
        uint64_t own_ns;         /* this member's total over them */
        uint64_t slowest_ns;     /* the slowest member's total: what AUTO compares */
    } candidate[DN_BARRIER_ALGORITHMS];
    char text[160];              /* the last error, for humans */
};
/* The report of a barrier this process holds. */
int dn_barrier_report(dn_barrier *b, struct dn_barrier_report *r);
/* The report barrier @id's owner published in this node's LLCM (another
 * process may read it, e.g. dnctl): DN_EINVAL if none. */
int dn_barrier_report_read(dn_node *n, unsigned id, struct dn_barrier_report *r);
/* "auto", "firmware", "firmware-mcast", "host", "host-mcast", "firmware-paper",
 * "firmware-paper-mcast" (and back: -1 if unknown). */
const char *dn_barrier_algorithm_name(enum dn_barrier_algorithm a);
int dn_barrier_algorithm_parse(const char *name);

/*
 * ---- Collectives (NBC-SIA, seed 001; docs/collectives.md) ----
 *
 * A communicator is an ordered group of processes, each a host port of a
 * board named by its address (node | port << 12, as dn_msg_isend takes);
 * rank r is members[r]. Every member makes the same calls in the same
 * order (MPI's rule for collectives), blocking or not; any number may be
 * in flight (DN_COLL_INFLIGHT epochs, pieces of them, progress at once,
 * the rest wait their turn).
 *
 * Data moves by the NIC's hardware remote writes: a message is written
 * into the receiver's landing cells in receive memory (the collectives'
 * area, receive memory [0, 1 MiB), split among the host ports) by an RDMA
 * post from the sender's staging cells, or by one multicast the switch
 * copies; no firmware, no matching, no ACKs. Each frame (2048 bytes, 464
 * for multicast) carries
 * a stamp first and last (the NIC writes a packet's first 8 bytes first
 * and its last 8 bytes last, docs/hardware.md section 5) and a check word
 * of its payload, so a reader takes only whole frames of the collective
 * it waits for, with no byte of a late packet of another in them. A receiver that
 * waits resend_us asks the sender to write again (lost, duplicated,
 * reordered or late packets never make a wrong result); a sender writes
 * an epoch's cells only once their reader freed the previous use (a
 * remote read of its progress word).
 *
 * Implementations (docs/collectives.md; dn_coll_impls): each
 * collective has at least two that use the hardware differently (trees
 * of RDMA writes, recursive doubling, rings, direct writes, the switch's
 * multicast). While selecting, each candidate is tried for cfg.trials
 * calls (default 6, the first two untimed warm-ups) of each (collective, type, op, size class) in turn; the candidates are compared by
 * the slowest member's time (all members agree by a max-reduction) and
 * the fastest is kept: NBC-SIA's selection with its lesson applied.
 * DIMMNET_COLL_CHECK=1 (read when a communicator is made) compares every
 * call with every member's before it starts (one small allreduce, waited
 * for in the start): calls that differ in kind, count, root, type or op
 * are DN_EINVAL on every member, started nowhere; without it they wait
 * for frames that never come and fail DN_ETIMEDOUT after timeout_ms.
 * DIMMNET_COLL=coll:impl[,coll:impl...] forces a choice by name;
 * DIMMNET_COLL_REPORT=1 prints every choice and candidate time to stderr
 * at dn_coll_comm_free.
 *
 * Reductions: ops SUM, PROD, MIN, MAX, BAND, BOR, BXOR on int32, int64,
 * uint64, float and double (the bitwise ones on integers only). Every
 * implementation combines in one canonical order, the binomial tree over
 * ranks (C(a, n): the values of ranks a..a+n-1), whatever the order in
 * which packets arrive, so a floating-point result is bit-for-bit the
 * same from run to run and whichever implementation the selection keeps.
 */
#define DN_COLL_MAX_MEMBERS 64u
#define DN_COLL_INFLIGHT    4u          /* collectives progressing at once a communicator */
#define DN_COLL_COMMS       8u          /* communicators with an area at once, a process */
#define DN_COLL_AREA_SIZE   (1u << 20)  /* receive memory [0, this): the collectives' */

/* The selection's size classes of a call's bytes (count x element size):
 * <=8 B (what the firmware combine takes), <=64 B, <=1 KiB, <=16 KiB,
 * <=256 KiB, more. A layer that chooses over the library's calls
 * (coll/dimmnet) keys on the same classes, so both count the same calls. */
#define DN_COLL_SIZE_CLASSES 6u
#define DN_COLL_SIZE_CLASS(bytes) \
    ((bytes) <= 8 ? 0u : (bytes) <= 64 ? 1u : (bytes) <= 1024 ? 2u : (bytes) <= 16384 ? 3u : \
     (bytes) <= 262144 ? 4u : 5u)

enum dn_coll_type {
    DN_COLL_INT32 = 0, DN_COLL_INT64 = 1, DN_COLL_UINT64 = 2,
    DN_COLL_FLOAT = 3, DN_COLL_DOUBLE = 4,
    DN_COLL_BYTE = 5,                   /* data movement only (no op) */
};
enum dn_coll_op {
    DN_COLL_SUM = 0, DN_COLL_PROD = 1, DN_COLL_MIN = 2, DN_COLL_MAX = 3,
    DN_COLL_BAND = 4, DN_COLL_BOR = 5, DN_COLL_BXOR = 6,
};
enum dn_coll_kind {
    DN_COLL_BARRIER = 0, DN_COLL_BCAST = 1, DN_COLL_REDUCE = 2,
    DN_COLL_ALLREDUCE = 3, DN_COLL_ALLGATHER = 4, DN_COLL_ALLTOALL = 5,
    DN_COLL_REDUCE_SCATTER = 6,
};
#define DN_COLL_KINDS 7

typedef struct dn_coll_comm dn_coll_comm;
typedef struct dn_coll_req dn_coll_req;

struct dn_coll_config {
    unsigned nmembers;                  /* 1 .. DN_COLL_MAX_MEMBERS */
    uint16_t members[DN_COLL_MAX_MEMBERS];  /* addresses; this process one of them */
    int mcast_group;                    /* switch group whose members are exactly these
                                           nodes (one port each), or -1: no multicast */
    unsigned trials;                    /* calls per candidate while selecting, 1..1000 */
    uint32_t resend_us;                 /* ask again after this long (0: 5 ms wall clock,
                                           2 ms of the board's clock in modeled time) */
    int timeout_ms;                     /* wall clock: a collective gives up, DN_ETIMEDOUT */
};
/* Defaults: every port of DIMMNET_NODES nodes (DIMMNET_HOST_PORTS a node),
 * rank = node * ports + port; switch group 0 with one port a node, else
 * none; 6 trials; resends as above; 60 s. */
void dn_coll_config_default(dn_node *n, struct dn_coll_config *cfg);
/*
 * The first communicator of a job (collective over its members): the area
 * of comm slot 0, agreed by a join to rank 0, which takes a new
 * incarnation, so nothing an earlier job left counts. DN_ETIMEDOUT if a
 * member does not come within timeout_ms.
 */
int dn_coll_comm_create(dn_node *n, const struct dn_coll_config *cfg, dn_coll_comm **out);
/*
 * MPI_Comm_split over @parent (collective over it): members with the same
 * @color form a communicator, ranked by (@key, parent rank); a negative
 * color joins none (*@out NULL). DN_ENOMEM on every member of a color
 * if one of them has no free area (DN_COLL_COMMS).
 */
int dn_coll_comm_split(dn_coll_comm *parent, int color, int key, dn_coll_comm **out);
/*
 * For a layer that has collectives of its own to agree with (an MPI
 * library creating a communicator): each member takes a join record
 * (reserves an area slot, DN_COLL_NO_SLOT if none is free, and takes a
 * new nonce), the layer gives every member every record in rank order
 * (its allgather), and each creates the communicator from them, with no
 * traffic of its own; the incarnation comes from rank 0's record.
 * DN_ENOMEM on every member if a record has no slot (the reserved one is
 * given back); dn_coll_join_cancel gives it back if the layer gives up.
 */
#define DN_COLL_NO_SLOT 0xffu
struct dn_coll_join {
    uint16_t addr;                      /* this process's address */
    uint8_t slot;                       /* its area slot, or DN_COLL_NO_SLOT */
    uint8_t reserved;
    uint32_t nonce;
};
int dn_coll_join_prepare(dn_node *n, struct dn_coll_join *mine);
void dn_coll_join_cancel(dn_node *n, const struct dn_coll_join *mine);
/* cfg->members[i] must be all[i].addr. */
int dn_coll_comm_create_joined(dn_node *n, const struct dn_coll_config *cfg,
                               const struct dn_coll_join *all, dn_coll_comm **out);
/* Waits for its collectives in flight; then frees its area. */
void dn_coll_comm_free(dn_coll_comm *c);
unsigned dn_coll_rank(const dn_coll_comm *c);
unsigned dn_coll_size(const dn_coll_comm *c);

/*
 * Non-blocking collectives: start, then dn_coll_test / dn_coll_wait (which
 * free the request when done and give its status). Counts are elements of
 * @type; buffers are the caller's until done. Bad arguments (a null
 * buffer, an op the type has not, a root out of range): DN_EINVAL at once.
 */
int dn_coll_ibarrier(dn_coll_comm *c, dn_coll_req **req);
int dn_coll_ibcast(dn_coll_comm *c, void *buf, size_t count, enum dn_coll_type type,
                   unsigned root, dn_coll_req **req);
int dn_coll_ireduce(dn_coll_comm *c, const void *sbuf, void *rbuf, size_t count,
                    enum dn_coll_type type, enum dn_coll_op op, unsigned root,
                    dn_coll_req **req);
int dn_coll_iallreduce(dn_coll_comm *c, const void *sbuf, void *rbuf, size_t count,
                       enum dn_coll_type type, enum dn_coll_op op, dn_coll_req **req);
/* @count elements from each member, rank r's at rbuf + r * count. */
int dn_coll_iallgather(dn_coll_comm *c, const void *sbuf, void *rbuf, size_t count,
                       enum dn_coll_type type, dn_coll_req **req);
/* @count elements to each member: sbuf + j * count goes to rank j's rbuf + r * count. */
int dn_coll_ialltoall(dn_coll_comm *c, const void *sbuf, void *rbuf, size_t count,
                      enum dn_coll_type type, dn_coll_req **req);
/* MPI_Reduce_scatter_block: rank r gets block r (@count elements) of the reduction. */
int dn_coll_ireduce_scatter(dn_coll_comm *c, const void *sbuf, void *rbuf, size_t count,
                            enum dn_coll_type type, enum dn_coll_op op, dn_coll_req **req);
/* *@done 1 once complete (the request is freed, its status returned);
 * DN_ETIMEDOUT once timeout_ms passed without it (freed as well).
 * dn_coll_wait: when the idle turn between tests fails (DN_EIO: the board
 * went away; or the error of dn_coll_set_idle's function), every
 * collective in flight on the communicator fails with that error (it is
 * broken: later calls return it too) and the request is freed. */
int dn_coll_test(dn_coll_req *req, int *done);
int dn_coll_wait(dn_coll_req *req);
/* One turn of progress for everything in flight on @c (a progress loop). */
int dn_coll_progress(dn_coll_comm *c);
/* One turn for every communicator of @n's process, for a layer whose
 * polling loop runs outside the collectives (a point-to-point wait): what
 * a peer may still ask of this process after its part of a collective is
 * done (a frame written again, a credit) gets served. DN_OK with none
 * open, and nothing done when called from inside a turn. */
int dn_coll_progress_node(dn_node *n);
/*
 * Where the collectives wait on node @n (dn_coll_wait, a blocking form,
 * a start that waits for the run-time selection's agreement, a join, a
 * free) they call dn_idle(n) between turns, or @idle(@arg) once set: a
 * layer that shares the node with other traffic (a libfabric provider)
 * gives its own endpoints their turns there, so that a peer's message
 * that needs this process (a long send to a receive posted here before
 * the collective) finishes while this process waits. @idle must let time
 * pass (call dn_idle). NULL: dn_idle again.
 */
void dn_coll_set_idle(dn_node *n, int (*idle)(void *arg), void *arg);

/* Blocking forms. */
int dn_coll_barrier(dn_coll_comm *c);
int dn_coll_bcast(dn_coll_comm *c, void *buf, size_t count, enum dn_coll_type type,
                  unsigned root);
int dn_coll_reduce(dn_coll_comm *c, const void *sbuf, void *rbuf, size_t count,
                   enum dn_coll_type type, enum dn_coll_op op, unsigned root);
int dn_coll_allreduce(dn_coll_comm *c, const void *sbuf, void *rbuf, size_t count,
                      enum dn_coll_type type, enum dn_coll_op op);
int dn_coll_allgather(dn_coll_comm *c, const void *sbuf, void *rbuf, size_t count,
                      enum dn_coll_type type);
int dn_coll_alltoall(dn_coll_comm *c, const void *sbuf, void *rbuf, size_t count,
                     enum dn_coll_type type);
int dn_coll_reduce_scatter(dn_coll_comm *c, const void *sbuf, void *rbuf, size_t count,
                           enum dn_coll_type type, enum dn_coll_op op);

/* Size of one element of @type (0 for an unknown type). */
size_t dn_coll_type_size(enum dn_coll_type type);
/* Names: "barrier", "bcast", ... ; "sum", ... ; "int32", ... (NULL if unknown). */
const char *dn_coll_kind_name(enum dn_coll_kind k);
/* Force implementation @impl (a name, or "auto") of collective @k on @c
 * from its next call: DN_EINVAL for a name @k has not or that cannot run
 * on @c (e.g. multicast without a group). */
int dn_coll_force(dn_coll_comm *c, enum dn_coll_kind k, const char *impl);
/* The implementation names of @k, NULL-terminated. */
const char *const *dn_coll_impls(enum dn_coll_kind k);
/* The selection table (every key's choice and candidates' slowest-member
 * times) and statistics, as text, to @f (a FILE *). */
int dn_coll_report(dn_coll_comm *c, void *f);
struct dn_coll_stats {
    uint64_t calls[DN_COLL_KINDS];
    uint64_t frames_sent, frames_taken;  /* 2048-byte frames (or multicast ones) */
    uint64_t resend_asks, resends;       /* frames asked for again / written again */
    uint64_t credit_reads;               /* remote reads of a reader's progress */
    uint64_t stale_frames;               /* frames found of another epoch or torn, not taken */
    uint64_t small_sent;                 /* messages of up to 8 bytes sent as AOTF stores
                                            (of frames_sent; resends not counted) */
    uint64_t credit_pushes;              /* this process's progress pushed to its writers
                                            (AOTF stores; where small_sent is used) */
    uint64_t fw_combines;                /* reductions combined by rank 0's NIC processor
                                            (implementation "firmware"): this member's */
};
int dn_coll_stats(const dn_coll_comm *c, struct dn_coll_stats *st);

/*
 * ---- Firmware in the boot flash (docs/firmware.md, "Images and flash") ----
 * The board's flash holds a boot loader and two image slots; the loader
 * boots the newer committed slot that verifies, else the other.
 * dn_flash_write() checks an image (dimmnet1/fw_image.h) before it touches
 * the board, writes it into the slot not running, reads it back, and
 * commits it as the newer slot; a write cut off midway leaves that slot
 * uncommitted (the loader skips it). The running firmware keeps serving
 * traffic throughout; dn_nic_restart() then starts the processor again
 * (packets for firmware stay held meanwhile, none is lost).
 */
#define DN_BOOT_SLOT_BIOS 0xffu      /* firmware loaded by the board (-bios) */
struct dn_boot_info {
    unsigned slot;                   /* 0, 1, or DN_BOOT_SLOT_BIOS */
    uint32_t generation;             /* of that slot (0 for -bios) */
    uint32_t version;                /* image version major<<16|minor<<8|patch */
};
struct dn_flash_slot {
    int committed;                   /* a valid slot record */
    uint32_t generation;
    int image_ok;                    /* the image verifies (header and CRC) */
    uint32_t version;
    char build[17];
    char why[64];                    /* why not, for humans */
};
/* What is running (BOOT_VERSION, BOOT_SLOT). */
int dn_boot_info(dn_node *n, struct dn_boot_info *bi);
/* One slot of the board's flash, read back and checked: DN_ENOFLASH without one. */
int dn_flash_slot_read(dn_node *n, unsigned slot, struct dn_flash_slot *out);
/*
 * Write @img (@len bytes) into the inactive slot and commit it; *@slot_out
 * says which. DN_EBADIMG with the reason in @why (@why_len bytes) for an
 * image this board cannot boot; DN_EVERIFY if the read-back differs (the
 * slot is left uncommitted); DN_ENOFLASH without a flash device.
 */
int dn_flash_write(dn_node *n, const void *img, size_t len, unsigned *slot_out,
                   char *why, size_t why_len);
/* Restart the NIC processor and wait (wall clock) until the firmware it
 * boots is READY: DN_ENOFW if it does not come up (the loader found nothing). */
int dn_nic_restart(dn_node *n, int timeout_ms);
/* The same as a hard reset: the firmware is not asked to leave its state
 * (no handover), so it starts cold (docs/hardware.md section 10,
 * "Restarts"); a host living on with dn_msg_init done takes the RESTART
 * notice and sets its senders up again by itself (dn_msg_stats: cold_starts). */
int dn_nic_reset(dn_node *n, int timeout_ms);

/*
 * Launcher rendezvous (like PMI put/get): publish a value under a key for
 * the other processes of this run, and wait for one to appear.
 */
int dn_publish(const char *key, const char *value);
int dn_lookup(const char *key, char *value, size_t size, int timeout_ms);
/* Every node of the run reaches the point named @what before any goes on
 * (a barrier outside the NIC, through the launcher's run directory). */
int dn_rendezvous(const char *what, int timeout_ms);

#ifdef __cplusplus
}
#endif

#endif

/*
 * libfabric provider "dimmnet": FI_EP_RDM with FI_TAGGED and FI_MSG over
 * the host shim's message exchange (host-shim/include/dimmnet1/dn.h), one
 * DIMMnet-1 node per process (opened from the launcher's environment).
 * Written against the installed provider interface only (fi_prov.h).
 *
 * Wire (docs/libfabric.md): every message starts with a FIRST shim message
 * (shim tag 0, so the shim keeps per-pair order): a 48-byte header and up
 * to DNF_EAGER payload bytes. A longer message is a rendezvous: the
 * receiver matches the FIRST, posts shim receives for the rest straight
 * into the user's buffer under a fresh shim tag (the receive id) and
 * answers CTS; the sender then sends the rest in DNF_EAGER chunks under
 * that tag. With sender-side matching (MPI-EMX, FI_DIMMNET_SENDER_MATCHING)
 * a receiver advertises a directed receive to its sender (RREQ); a send
 * that matches it there goes at once as DIRECT under the receive's tag, no
 * CTS round trip; the advertisement itself travels by remote write into
 * the sender's receive memory (a mailbox), which no firmware touches.
 * Matching (tag, ignore bits, source, unexpected list, probes) happens
 * here, in the provider.
 */
#ifndef DIMMNET_PROV_H
#define DIMMNET_PROV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_collective.h>
#include <rdma/providers/fi_prov.h>
#include <rdma/providers/fi_log.h>
#include "dimmnet1/dn.h"
#include "dimmnet1/message.h"

#define DNF_NAME        "dimmnet"
#define DNF_VERSION     FI_VERSION(0, 2)
#define DNF_API_VERSION FI_VERSION(1, 17)
#define DNF_MAX_MSG     (256u << 20)       /* max_msg_size */
#define DNF_EAGER       (64u * 1024u)      /* payload of a FIRST, and of each later chunk */
#define DNF_ADV_MAX     (4u << 20)         /* larger receives are never advertised */
#define DNF_INJECT_SIZE 1024u
#define DNF_QUEUE_SIZE  256u              /* tx_attr/rx_attr size: a hint, queues grow */
#define DNF_BOUNCES     8u                 /* shim receives kept posted for FIRSTs */
#define DNF_NODES       64u                /* DN1_MSG_SENDERS: peers at most */
/* Capabilities, by the attribute they belong to (fi_getinfo(3)): transmit,
 * receive, domain; info->caps is their union. Primary ones are answered only
 * when asked for (or with no caps in the hints), secondary ones always. */
#define DNF_TX_CAPS     (FI_TAGGED | FI_MSG | FI_SEND | FI_RMA | FI_ATOMIC | FI_READ | \
                         FI_WRITE | FI_COLLECTIVE)
#define DNF_RX_CAPS     (FI_TAGGED | FI_MSG | FI_RECV | FI_DIRECTED_RECV | FI_SOURCE | \
                         FI_MULTI_RECV | FI_RMA | FI_ATOMIC | FI_REMOTE_READ | \
                         FI_REMOTE_WRITE | FI_RMA_EVENT | FI_COLLECTIVE)
/* FI_RMA (FI_ATOMIC) asked without FI_READ, FI_WRITE, FI_REMOTE_* implies them. */
#define DNF_RMA_ROLES   (FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE)
#define DNF_DOMAIN_CAPS (FI_LOCAL_COMM | FI_REMOTE_COMM)
#define DNF_CAPS        (DNF_TX_CAPS | DNF_RX_CAPS | DNF_DOMAIN_CAPS)
#define DNF_SECONDARY_CAPS (FI_SOURCE | FI_MULTI_RECV | FI_LOCAL_COMM | FI_REMOTE_COMM)
#define DNF_MIN_MULTI_RECV 16384u          /* FI_OPT_MIN_MULTI_RECV's default */
#define DNF_MSG_ORDER   FI_ORDER_SAS       /* per pair, the shim's order (tag 0) */

/* The header in front of every provider message (host order: the hosts
 * are all little-endian x86). Fields by kind:
 *   FIRST:  tag, seq (this sender's FIRSTs to the peer before it), seen
 *           (highest RREQ id it had taken from the peer), sid, len, data,
 *           rid: lfree (every landing of the peer's receives below it is
 *           finished for good, see below)
 *   CTS:    sid (the FIRST's), rid (shim tag of the chunks), len (bytes taken)
 *   RREQ:   tag, ignore, seq (FIRSTs the receiver had taken from the peer
 *           when it posted), rid, len (capacity), sid (its landing zone,
 *           with DNF_F_ZONE); in a mailbox entry
 *   DIRECT: tag, seen (as FIRST), rid, len, data, sid: lfree (as FIRST)
 *   PING:   nothing (a liveness probe while waiting for a CTS)
 *   WDATA:  an RMA write now in place, or a read done: flags DNF_F_DATA
 *           (remote CQ data: data, len) and/or DNF_F_EVENT (an RMA event,
 *           FI_RMA_EVENT: rid = the key's context, seen = 1 for a read)
 *   REWRITE: rid (a receive of the sender's with a landing), sid (its
 *           chunk's slot, or DNF_MBOX_SLOTS + its zone): write it again
 *   DONE:   rid (the CTS's), len: a zero-copy rest is in place (below)
 *   JOIN:   fi_join_collective's record exchange (dimmnet_fcoll.c): tag the
 *           member list's key, seq the join's number for that list, sid the
 *           sender's rank, rid 0 (a member's record, in data, to rank 0) or
 *           1 (rank 0's table: len records after the header). Never matched
 *           against a receive: no application message has this kind.
 * data is the sender's remote CQ data (FI_REMOTE_CQ_DATA), there if flags
 * has DNF_F_DATA. */
#define DNF_MAGIC       0x49464e44u        /* "DNFI" */
enum { DNF_K_FIRST = 1, DNF_K_CTS, DNF_K_RREQ, DNF_K_DIRECT, DNF_K_PING, DNF_K_WDATA,
       DNF_K_REWRITE, DNF_K_DONE, DNF_K_JOIN };
#define DNF_F_TAGGED    1u
#define DNF_F_DATA      2u                 /* FIRST, DIRECT: data is remote CQ data */
#define DNF_F_LAND      4u                 /* RREQ: a landing chunk waits for it (below) */
#define DNF_F_ZONE      8u                 /* RREQ: a landing zone (sid) waits for it */
#define DNF_F_ZCOPY     16u                /* RREQ, CTS, DIRECT: zero-copy (below) */
#define DNF_F_EVENT     32u                /* WDATA: an RMA event for the target */
#define DNF_CQ_DATA     8u                 /* cq_data_size */
#define DNF_CNTR_CNT    16u                /* cntr_cnt: a hint, nothing bounds them */
struct dnf_hdr {
    uint32_t magic;
    uint8_t kind, flags;
    uint16_t sess;               /* the writer endpoint's session (dnf_ep) */
    uint64_t tag;
    union {
        uint64_t ignore;                   /* RREQ */
        uint64_t data;                     /* FIRST, DIRECT */
    };
    uint32_t seq, seen;
    uint32_t sid, rid;
    uint64_t len;
};
_Static_assert(sizeof(struct dnf_hdr) == 48, "wire header is 48 bytes");

/* Sender-side matching's advertisements (RREQ) go by remote write
 * (dn_botf_put) into the sender's receive memory: per writer a ring of
 * DNF_MBOX_SLOTS entries at DNF_MBOX_OFF (below the shim's system buffers
 * in the upper half; a reader port's part of it, dnf_mbox_base), read in
 * order. An entry is valid when both its k and
 * its check say it is the reader's next; a slot is written again only once
 * the reader has handled the entry in it (its `seen`, on FIRST and
 * DIRECT). An entry is written again until ACKed (same k: harmless). */
#define DNF_MBOX_OFF       (1u << 20)
#define DNF_MBOX_SLOTS     16u
#define DNF_MBOX_CHECK     0x51455252u     /* "RREQ" */
#define DNF_MBOX_TRIES     8u
struct dnf_mbox {
    uint32_t k;                  /* the writer's advertisement number to this reader */
    uint32_t rsvd0;
    struct dnf_hdr h;            /* kind RREQ */
    uint32_t rsvd1;
    uint32_t check;              /* DNF_MBOX_STAMP(k, the reader's session) */
};
/* A mailbox entry's or a landing's check names the session of the endpoint
 * it is for: one written for an endpoint of an earlier process there (a
 * late packet, issue 25) never passes for one of the present's. */
#define DNF_SESS_CHECK(v, sess)  ((v) ^ (uint32_t)(sess) << 16)
#define DNF_MBOX_STAMP(k, sess)  DNF_SESS_CHECK((k) ^ DNF_MBOX_CHECK, sess)
#define DNF_LAND_STAMP(rid, sess) DNF_SESS_CHECK((rid) ^ DNF_LAND_CHECK, sess)
_Static_assert(sizeof(struct dnf_mbox) == 64, "mailbox entry is 64 bytes");

/* Landing (sender-side matching's one remote write): a receive of at most
 * DNF_LAND_MAX bytes advertised with DNF_F_LAND has a chunk in its own
 * receive memory, per writer and mailbox slot (the RREQ's k mod
 * DNF_MBOX_SLOTS) at DNF_LAND_OFF. The sender that matches it writes the
 * payload and a trailer there with one dn_botf_put (one packet: written
 * whole), ending at the chunk's end; the trailer's last 8 bytes (rid and
 * check) land last (contract 1.19), so the receiver polls them. Sent again
 * until ACKed. A chunk that took a landing is offered again only once the
 * sender's lfree (on FIRST, DIRECT and trailers) has passed its rid: no
 * resend of the old landing can come any more. */
#define DNF_LAND_OFF       (2u << 20)
#define DNF_LAND_CHUNK     512u
#define DNF_LAND_PACKET    464u            /* one BOTF packet */
#define DNF_LAND_CHECK     0x444e414cu     /* "LAND" */
#define DNF_LAND_TRIES     8u
struct dnf_land {
    uint64_t tag, data;
    uint32_t mlen;               /* the whole message's length (<= DNF_MAX_MSG) */
    uint32_t crc;                /* CRC-32 of payload and trailer (crc 0) */
    uint32_t sent;               /* payload bytes, in front of the trailer */
    uint32_t seen, lfree;
    uint8_t flags;               /* DNF_F_TAGGED, DNF_F_DATA */
    uint8_t rsvd[3];
    uint32_t rid, check;         /* last: DNF_LAND_STAMP(rid, the receiver's session) */
};
_Static_assert(sizeof(struct dnf_land) == 48, "landing trailer is 48 bytes");
_Static_assert(sizeof(struct dnf_land) <= sizeof(struct dnf_hdr),
               "a send's buffer (header + payload) holds a landing (payload + trailer)");
#define DNF_LAND_MAX       (DNF_LAND_PACKET - sizeof(struct dnf_land))

/* Larger advertised receives (up to DNF_ZONE_MAX) get a landing zone of the
 * receiver's memory, from a pool of 32 at 3 MiB (a reader port's part of
 * it, dnf_zone_base): written as a chunk is
 * (payload and trailer with one dn_botf_put, ending at the zone's end),
 * but in up to 18 packets, which may land in any order under faults (a
 * lost one comes again with the next write of the whole): the receiver
 * takes a landing only once the CRC-32 of payload and trailer matches (a
 * trailer may straddle two packets; dimmnet_emx.c land_crc).
 * A zone is taken again under the chunks' lfree rule. A lost packet costs
 * writing the whole payload again, so zones stay small (with 1 % of the
 * frames dropped on every port, a packet or its ACK: 2 %, a full write
 * fails 8 times in a row once in 13,000 landings); larger receives take a
 * DIRECT message. */
#define DNF_ZONE_OFF         (3u << 20)
#define DNF_ZONE_SIZE        (8u << 10)
#define DNF_ZONES            32u
_Static_assert(DNF_ZONE_OFF + DNF_ZONES * DNF_ZONE_SIZE <= (3u << 20) + (1u << 18),
               "zones end where the endpoints' areas begin");
#define DNF_ZONE_MAX         (DNF_ZONE_SIZE - sizeof(struct dnf_land))

#define DNF_MR_KEY_BIT       0x8000u
/*
 * RMA events (FI_RMA_EVENT): the NIC writes and reads registered memory
 * with no software at the target, so the initiator announces each RMA
 * operation to a registration that wants it, once done, by a WDATA message
 * with DNF_F_EVENT; the target bumps the counters bound to the
 * registration (fi_mr_bind) and its endpoint's FI_REMOTE_WRITE /
 * FI_REMOTE_READ counters. A provider key says so by this bit (a
 * registration with FI_RMA_EVENT, or any in a domain opened with it); an
 * initiator whose own domain has FI_RMA_EVENT announces every operation
 * (application keys cannot carry the bit). The bit is part of the wire
 * key, so a key fits the 2 bytes mr_key_size says: bit 15 a provider key,
 * bit 14 this one, bits 13-7 the process's incarnation, 6-0 a count.
 */
#define DNF_MR_KEY_EVENT     0x4000u
#define DNF_MR_MODES         (FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY)

/* RMA (dimmnet_rma.c): an operation goes in pieces of DNF_RMA_PIECE bytes,
 * each its own transfer; a write's packets still unanswered after the
 * resend time go again (dn_resend: a lost packet costs itself), a read's
 * piece goes again whole; DNF_RMA_SLOTS pieces in flight an endpoint.
 * Reads into memory the NIC cannot reach land in a staging slot per piece
 * first, in the endpoint's own area of receive memory (below). */
#define DNF_RMA_PIECE        8192u
#define DNF_RMA_SLOTS        16u
#define DNF_RMA_TRIES        8u
#define DNF_RMA_REFUSALS     1000u         /* refused at once in a row: it fails */
/* A piece into a paged registration NACKed NOT_RESIDENT waits for the
 * target's host to move the pages onto the card (its progress does),
 * then goes again: after a pause from a 64th of the resend time doubling
 * to an eighth, at most this many times (about a minute wall-clock):
 * then the operation fails (FI_EIO), never waits for ever. */
#define DNF_RMA_PAGE_WAITS   2000u
/* A paged registration moves onto the card in pieces of this many bytes
 * of its remote addresses (aligned there); RMA pieces never cross such a
 * boundary of the target address, so one piece of the target holds each
 * access (dimmnet_mr.c). A port's smaller pool (several host ports) takes
 * smaller pieces, a power of two dividing this (dnf_share.extent): an
 * access then touches at most two. */
#define DNF_MR_EXTENT        (1u << 20)
enum { DNF_RMA_WRITE = 1, DNF_RMA_READ };

/* Atomics (dimmnet_atomic.c): elements an operation, and the endpoint's
 * reply slots (8 bytes each) after the staging slots, where the targets'
 * firmware answers with the old values: a ring, taken in turn, so that a
 * late second answer to a request (a duplicate, or the answer to a resend
 * whose first answer came too) lands in a slot no request has used for
 * DNF_ATOMIC_REPLIES - DN_ATOMIC_MAX requests, never in one being read. */
#define DNF_ATOMIC_COUNT     64u
#define DNF_ATOMIC_REPLIES   512u

/* Endpoints a process (of its node's port): one that sends and receives
 * messages (FI_MSG or FI_TAGGED among its caps: the port's message
 * conversation, mailboxes, landings) and others for RMA and atomics only, as Open MPI's
 * btl ofi opens beside its mtl ofi. Each has an area of receive memory
 * after the landing zones: its RMA staging slots, then its atomic reply
 * slots. */
#define DNF_EPS              4u
#define DNF_EP_AREA_OFF      ((3u << 20) + (1u << 18))      /* after the zones */
#define DNF_EP_AREA          (DNF_RMA_SLOTS * DNF_RMA_PIECE + 4096u)
#define DNF_RMA_STAGE_OFF(ep_slot) (dnf_share.off + (ep_slot) * DNF_EP_AREA)
#define DNF_ATOMIC_REPLY_OFF(ep_slot) (DNF_RMA_STAGE_OFF(ep_slot) + DNF_RMA_SLOTS * DNF_RMA_PIECE)
_Static_assert(DNF_ATOMIC_REPLIES * 8u <= 4096u, "reply slots fit the area's last page");

/* Memory registration (dimmnet_mr.c): registrations open to remote access
 * whose memory lies outside receive memory have their pages moved into a
 * pool of receive memory, from the endpoints' areas' end (page-aligned) to
 * the shim's system buffers at 8 MiB: 4,336 KiB, so that a 4 MiB buffer,
 * which spans 1,025 pages unless page-aligned, fits. Keys are RVATLB
 * contexts with bit 15 set (docs/hardware.md section 14). */
#define DNF_MR_POOL_OFF      ((DNF_EP_AREA_OFF + DNF_EPS * DNF_EP_AREA + 4095u) & ~4095u)
#define DNF_MR_POOL_SIZE     ((8u << 20) - DNF_MR_POOL_OFF)
_Static_assert(DNF_MR_POOL_SIZE >= (4u << 20) + 4096u,
               "the pool holds a 4 MiB buffer at any alignment");

/*
 * Host ports (contracts 1.27, 1.29): a board with host-ports=K serves K
 * processes at once, each a full peer: messages, RMA and atomics on every
 * port (dn_msg_init on each; the NIC answers from the port a request
 * named). A peer is a process, (node, port), known by its peer number
 * e = node * K + port (dn1_msg_sender), dense below nodes * K; every
 * per-peer index of the provider ("node" in its fields and arrays, the
 * fi_addr_t of FI_AV_MAP) is that number, the node id with one port. On
 * the wire a peer is its address node | port << 12 (dnf_peer_addr), what
 * fi_getname and AV entries hold. Messages reach nodes below 64 / K^2
 * (dn1_msg_nodes), so a run has at most 64 / K peers.
 * Receive memory is the board's, so its parts that peers write into are
 * split among the reader ports: port p of K has its mailboxes and landing
 * chunks from p times a share of 64 / K writers (each indexed by the
 * writer's peer number, below 64 / K) and DNF_ZONES / K landing zones
 * (dnf_mbox_base and kin); one port: the layout above.
 * Receive memory from DNF_EP_AREA_OFF to 8 MiB is split into K
 * page-aligned shares, one a port: its endpoints' areas first, then its
 * registration pool (one port: the layout above). So with K = 2 a pool
 * holds 1,904 KiB; a larger receive takes chunks. Registration-table
 * entries are split the same way (dn_mr_entries), and provider keys carry
 * the port (dnf_mr.c); the table is the board's, so a key works at any
 * of its ports' addresses.
 */
struct dnf_share {
    unsigned port, ports;        /* dn_port */
    uint64_t off;                /* the share's start: its endpoints' areas */
    uint64_t pool_off, pool_size;
    uint64_t extent;             /* pieces of paged registrations: DNF_MR_EXTENT, or
                                  * as many bytes as four of them fit the pool */
    unsigned mr_first, mr_end;   /* its registration-table entries */
};
_Static_assert((((8u << 20) - DNF_EP_AREA_OFF) & 4095u) == 0,
               "one port's share is the whole pool (dnf_share_init)");
extern struct dnf_share dnf_share;
void dnf_share_init(dn_node *n);

/* Reader port @p of @ports: its mailboxes, its landing chunks (each a ring
 * of DNF_MBOX_SLOTS a writer, 64 / ports writers), its landing zones (the
 * first of them, dnf_zones of them). One port: DNF_MBOX_OFF and kin. */
static inline uint64_t dnf_mbox_base(unsigned p, unsigned ports)
{
    return DNF_MBOX_OFF + (uint64_t)p * dn1_msg_share(ports) * DNF_MBOX_SLOTS *
                              sizeof(struct dnf_mbox);
}

static inline uint64_t dnf_land_base(unsigned p, unsigned ports)
{
    return DNF_LAND_OFF + (uint64_t)p * dn1_msg_share(ports) * DNF_MBOX_SLOTS * DNF_LAND_CHUNK;
}

static inline unsigned dnf_zones(unsigned ports)
{
    return DNF_ZONES / ports;
}

static inline uint64_t dnf_zone_base(unsigned p, unsigned ports, unsigned z)
{
    return DNF_ZONE_OFF + ((uint64_t)p * dnf_zones(ports) + z) * DNF_ZONE_SIZE;
}
/* Late packets (a landing's earlier write, delayed in the network past its
 * rewrite, its ACK and the offer of its chunk or zone to a later receive)
 * may land on a later landing before its receiver took it. The receive id
 * in every landing's stamp is its generation: the receiver clears the
 * stamp when it offers the chunk or zone, takes only its own receive's
 * stamp, counts any other stamp it sees there as a late packet, and asks
 * the sender (REWRITE) to write its landing again, at once for a late
 * stamp, after the rewrite time while the stamp is its own but the CRC
 * fails (a late packet inside a zone; or a write still coming), again with
 * the rewrite time's backoff while it lasts. The sender keeps every
 * finished landing per receiver and chunk or zone (DNF_KEEP_KEYS) until the
 * next one there replaces it, and writes it again when asked. */
#define DNF_KEEP_KEYS        (DNF_MBOX_SLOTS + DNF_ZONES)

/* Zero-copy rendezvous (issue 24 item 6): a receive longer than DNF_EAGER
 * whose buffer lies on the card (in receive memory, or its pages moved
 * there and kept: dimmnet_mr.c's receive cache) says where, and the sender
 * writes the bytes straight into it by BOTF from its own buffer, or by RDMA
 * when that lies in its receive memory: raw receive memory addresses, no
 * RVATLB, no firmware and no copy on the data path, pieces of DNF_RMA_PIECE
 * resent until ACKed (the RMA engine). Then one message says it is in:
 *   - the CTS path (a FIRST of more than DNF_EAGER bytes carries none; the
 *     CTS has DNF_F_ZCOPY and data = the receive memory offset of the
 *     buffer): the bytes taken, then DONE (rid: the CTS's);
 *   - an advertised receive longer than DNF_ZCOPY_MIN (RREQ with
 *     DNF_F_ZCOPY, seen = the offset of its buffer): a message longer than
 *     DNF_ZCOPY_MIN, then its DIRECT with DNF_F_ZCOPY and no payload.
 * Receives of at most DNF_ZCOPY_MIN bytes take a landing or a copy.
 * FI_DIMMNET_ZCOPY=0 turns it off (the message then goes as chunks). */
#define DNF_ZCOPY_MIN        DNF_ZONE_SIZE
/* A zero-copy send at least this long has its own buffer moved onto the
 * card too, and the NIC reads it (RDMA) instead of the host storing it
 * into the window (BOTF, at the host's write-combining rate). */
#define DNF_RNDV_RDMA_MIN    DNF_EAGER

/* An advertisement written to a peer's mailbox, until ACKed. */
struct dnf_mput {
    struct dnf_mput *next;
    uint32_t node;
    unsigned tries;
    uint64_t sent_us;
    dn_xfer x;
    struct dnf_mbox e;
};

/* An endpoint's name (fi_getname, AV entries): node is the process's
 * address, node | port << 12 (the node id on port 0). */
#define DNF_ADDR_MAGIC  0x41464e44u        /* "DNFA" */
struct dnf_addr {
    uint32_t magic, node;
};

extern struct fi_provider dnf_prov;

struct dnf_fabric {
    struct fid_fabric fab;
    atomic_int refs;             /* EQs and domains open on it */
};

/* An event queue (dimmnet_eq.c): events in order, error entries among
 * them. Its events come from the application's own calls (fi_eq_write,
 * fi_av_insert on an FI_EVENT AV) and from progress on an endpoint bound
 * to it; any thread may write it, so it has a lock. */
struct dnf_eq_ev;
struct dnf_eq {
    struct fid_eq eq;
    struct dnf_fabric *fab;
    enum fi_wait_obj wait;
    int fd;                      /* eventfd: readable while an event waits; -1: none */
    pthread_mutex_t lock;
    struct dnf_eq_ev *head, **tail;
    size_t count, size;
    int overrun;                 /* an event was lost: fatal (fi_eq(3) NOTES) */
    atomic_int refs;             /* domains, endpoints and AVs bound to it */
    atomic_int joins;            /* fi_join_collective in flight reporting here:
                                  * reading it drives their progress (control
                                  * progress is manual, fi_domain(3)) */
};

struct dnf_ep;

/* Host instructions charged under host sync (dimmnet_charge.c: the
 * host-charge table's rows, the provider's own plus its caller's): a call
 * of each kind, a completion-queue read (a turn of the caller's progress
 * loop), a message completion pushed, and the caller's flush when the last
 * RMA or atomic in flight is done. */
struct dnf_charges {
    uint64_t send, inject, recv, write, read, atomic;
    uint64_t turn, completion, flush;
};

struct dnf_domain {
    struct fid_domain dom;
    struct dnf_fabric *fab;
    struct dnf_eq *eq;           /* fi_domain_bind: endpoints' default EQ */
    dn_node *node;
    unsigned nodes;              /* DIMMNET_NODES: boards */
    unsigned ports;              /* K: host ports a board (dn_port), every board's */
    unsigned peers;              /* processes that take part: nodes * K, at most 64 / K */
    unsigned self;               /* this process's peer number */
    char port_name[16];          /* " port P" with several ports, else "" (stats lines) */
    int modeled;                 /* the board keeps modeled time: resend
                                  * timers on its clock (TIMING register) */
    struct dnf_ep *ep;           /* its endpoint, if it has the node's one */
    int refs;                    /* AVs, CQs and the endpoint open on it */
    uint64_t mr_mode;            /* FI_MR_* the application allowed and we use */
    int rma_event;               /* FI_RMA_EVENT asked: every RMA announced (below) */
    int coll;                    /* FI_COLLECTIVE asked: AV sets, fi_query_collective */
    atomic_int mr_refs;          /* registrations open on it */
    struct dnf_charges charge;   /* host instructions charged, per path */
};
int dnf_charges_init(struct dnf_domain *d, int host_sync);

/* Peer @e's address (node | port << 12), what every shim call naming a
 * peer takes. */
static inline unsigned dnf_peer_addr(const struct dnf_domain *d, uint32_t e)
{
    return dn1_msg_sender_addr(e, d->ports);
}

/* The peer number of address @addr (a message's source, a name), or -1
 * if it is no peer of this run. */
static inline int dnf_peer_of(const struct dnf_domain *d, unsigned addr)
{
    int e = dn1_msg_sender(addr, d->ports);

    return e >= 0 && (unsigned)e < d->peers ? e : -1;
}


/* A copy, charged as the host profile says for where its bytes lie (in
 * host memory, or read from / written into the card's memory: dn_copy). */
static inline void dnf_copy(struct dnf_domain *dom, void *dst, const void *src, size_t len)
{
    dn_copy(dom->node, dst, src, len);
}

/* A registration (fi_mr_reg): key and table entry, where its memory lies. */
struct dnf_alias;
struct dnf_mr {
    struct fid_mr mr;            /* mr.key: the application's key; mem_desc: this */
    struct dnf_mr *next;         /* the node's registrations */
    struct dnf_domain *dom;
    uint8_t *buf;
    size_t len;
    uint64_t access;
    uint64_t base;               /* the remote address of buf: its VA, or the offset */
    uint16_t wire;               /* the context remote accesses carry */
    int entry;                   /* registration table index; -1: local access only */
    uint64_t nic_off;            /* buf in receive memory; UINT64_MAX: not there */
    struct dnf_alias *alias;     /* pages moved onto the card for it */
    int event;                   /* RMA to it is announced (FI_RMA_EVENT) */
    int paged;                   /* not on the card as a whole: entry is its NR entry,
                                  * pieces moved there on demand (dimmnet_mr.c) */
    struct dnf_mr *parent;       /* a piece of a paged registration (internal) */
    uint64_t used;               /* a piece's clock when moved there (oldest goes first) */
    struct dnf_cntr *cntr_remote[2];   /* fi_mr_bind's: [0] FI_REMOTE_WRITE,
                                        * [1] FI_REMOTE_READ */
};

/* A completion counter (fi_cntr(3)). */
/* A CQ's or counter's FI_WAIT_FD object (dimmnet_wait.c). */
struct dnf_cq;
struct dnf_cntr;
struct dnf_waitfd {
    struct dnf_waitfd *next;
    int fd;                      /* eventfd: readable once there is news */
    int armed;                   /* by fi_trywait, until signalled */
    struct dnf_cq *cq;           /* the one it belongs to (the other NULL) */
    struct dnf_cntr *cntr;
    uint64_t value, err;         /* a counter's values when armed */
};
extern atomic_int dnf_waiter_armed;
void dnf_wait_disarm(void);
void dnf_wait_rearm(void);
int dnf_waitfd_open(struct dnf_waitfd *w);
void dnf_waitfd_close(struct dnf_waitfd *w);
int dnf_waitfd_try(struct dnf_waitfd *w);
void dnf_waitfd_wake(struct dnf_waitfd *w);

/*
 * Threading (dimmnet_thread.c). FI_THREAD_DOMAIN, the default, leaves
 * serialization to the application: an entry point costs two loads (the
 * thread-safety flag, the waiter flag). Once a domain is opened
 * FI_THREAD_SAFE (or FI_THREAD_FID, which we serve the same way) every
 * entry point that uses the node, an
 * endpoint, a CQ, a counter, an AV or a registration holds one process-wide
 * recursive lock (the node and everything on it are one per process), taken
 * by dnf_enter() and released when the entry's scope ends: an uncontended
 * lock and unlock more a call.
 */
extern atomic_int dnf_thread_safe;
int dnf_lock_take_slow(void);
void dnf_lock_release_slow(void);
void dnf_thread_safe_on(void);

/* The common case inline: neither thread safety nor an armed waiter, two
 * loads; else dimmnet_thread.c. */
static inline int dnf_lock_take(void)
{
    if (!atomic_load_explicit(&dnf_thread_safe, memory_order_acquire) &&
        !atomic_load_explicit(&dnf_waiter_armed, memory_order_acquire)) {
        return 0;
    }
    return dnf_lock_take_slow();
}

static inline void dnf_lock_release(int *held)
{
    if (*held) {
        dnf_lock_release_slow();
    }
}

/* First thing in every call into the provider that uses the node or an
 * endpoint (after its declarations): under FI_THREAD_SAFE the provider's
 * lock, held to the end of the caller's scope; then the node taken back
 * from the waiter thread if fi_trywait lent it. */
#define dnf_enter() \
    int dnf_held_ __attribute__((cleanup(dnf_lock_release), unused)) = dnf_lock_take()

/* One more object on @d: its count is shared with other threads' opens
 * and closes. */
#define dnf_domain_ref(d) do { dnf_enter(); (d)->refs++; } while (0)

/* An idle turn of a polling loop (dn_idle), which uses the node too. */
static inline void dnf_idle(dn_node *node)
{
    dnf_enter();
    dn_idle(node);
}

struct dnf_cntr {
    struct fid_cntr cntr;
    struct dnf_domain *dom;
    enum fi_wait_obj wait;
    atomic_uint_fast64_t value, err;
    uint64_t last_read;          /* fi_cntr_read's last answer: an unchanged one idles */
    uint64_t last_err;           /* fi_cntr_readerr's last answer */
    struct dnf_waitfd wfd;       /* FI_WAIT_FD */
    int refs;                    /* endpoint bindings */
};

/* An RMA operation until every piece is answered (and, with remote CQ
 * data, its notice delivered). */
struct dnf_rma {
    struct dnf_rma *next;
    uint8_t kind;                /* DNF_RMA_WRITE, DNF_RMA_READ */
    uint8_t fence;               /* FI_FENCE: starts once those before are done */
    uint8_t nack;                /* the first NACK's reason */
    uint8_t event;               /* announce it to the target once done */
    int complete;                /* a completion on success (errors always) */
    int err;                     /* DN_* of the first failure */
    uint32_t node;
    uint16_t wire;
    uint64_t addr;               /* remote: VA or offset, as the key's MR takes it */
    const uint8_t *src;          /* write: the data */
    uint8_t *dst;                /* read: where it goes */
    size_t len, issued, finished;
    uint64_t local;              /* the local buffer in receive memory; UINT64_MAX: not */
    uint64_t flags, data;
    void *context;
    dn_msg_req *notice;          /* remote CQ data, once the write is in */
    struct dnf_hdr nh;           /* its message: the shim reads it until done */
    struct dnf_tx *rndv;         /* a zero-copy rest: addr is raw, no key */
    void *src_zc;                /* ... its source moved onto the card (RDMA) */
    uint8_t inject[];            /* FI_INJECT: the data, copied */
};

/* An atomic operation: its elements, each a request of the shim's. */
struct dnf_atomic_el {
    dn_atomic_req r;
    int slot;                    /* reply slot while in flight; -1: none */
};
struct dnf_atomic {
    struct dnf_atomic *next;
    uint8_t kind;                /* write, fetch, compare (dimmnet_atomic.c) */
    uint8_t nack;
    int complete, err;
    uint32_t node;
    uint16_t wire;
    uint64_t addr;
    enum fi_datatype dt;
    enum fi_op op;
    size_t count, posted, done;
    const uint8_t *buf, *cmp;    /* copies, after el[] */
    uint8_t *res;                /* the application's result buffer */
    void *context;
    struct dnf_atomic_el el[];
};

struct dnf_rma_piece {
    struct dnf_rma *op;          /* NULL: slot free */
    size_t off, len;
    unsigned tries;
    uint64_t sent_us;
    size_t ahead;                /* bytes of other pieces in flight when sent */
    unsigned refused;            /* sends refused at once in a row (room, link) */
    unsigned page_waits;         /* NACKed NOT_RESIDENT so far (paged target) */
    int paused;                  /* waiting to be sent again after NOT_RESIDENT */
    dn_xfer x;
};

struct dnf_av {
    struct fid_av av;
    struct dnf_domain *dom;
    struct dnf_eq *eq;           /* fi_av_bind */
    int async;                   /* FI_EVENT: insertions report on the EQ */
    int refs;                    /* endpoints bound to it */
    enum fi_av_type type;
    uint32_t *node;              /* FI_AV_TABLE: index -> node (UINT32_MAX: removed) */
    size_t count, cap;
    uint8_t *in;                 /* FI_AV_MAP: node inserted? (one byte a node) */
};

/* One completion, in order; err != 0 makes it an error entry. */
struct dnf_comp {
    struct fi_cq_tagged_entry e;
    fi_addr_t src;
    int err, prov_errno;
    size_t olen;
};

struct dnf_cq {
    struct fid_cq cq;
    struct dnf_domain *dom;
    enum fi_cq_format format;
    enum fi_wait_obj wait;       /* FI_WAIT_NONE, _UNSPEC, _YIELD or _FD */
    struct dnf_waitfd wfd;       /* FI_WAIT_FD */
    atomic_int signaled;         /* fi_cq_signal: the next empty sread returns */
    int refs;                    /* endpoint bindings (per direction) */
    struct dnf_comp *ring;
    size_t size, head, count;
};

/* Shim requests for a transfer's later part, in order (chunks of DNF_EAGER). */
struct dnf_chunks {
    dn_msg_req **req;
    unsigned n, done;
    int err;                     /* the first failure's DN_E* */
};

/* A receive: posted (matchable, ep->rx_head), then active (ep->act_head)
 * while the rest of its message comes. */
enum { DNF_ADV_NONE, DNF_ADV_OPEN, DNF_ADV_REMOTE };
struct dnf_rx {
    struct dnf_rx *next;
    uint8_t flags;               /* DNF_F_TAGGED or 0 */
    int complete;                /* a completion on success (errors always) */
    void *buf;
    size_t len;
    int64_t src;                 /* peer, or -1: any */
    uint64_t tag, ignore;
    void *context;
    /* Sender-side matching: OPEN = advertised as @rid, the sender's answer
     * unknown; REMOTE = the sender took it (only its DIRECT may match). */
    int adv;
    uint32_t rid, expect;
    unsigned land;               /* landing chunk slot + 1, 0: none */
    unsigned zone;               /* landing zone + 1, 0: none */
    uint32_t land_late;          /* the last late stamp's rid seen there */
    unsigned land_asks;          /* REWRITEs sent */
    uint64_t land_ask_us;        /* the next one not before (0: none due) */
    dn_msg_req *first;           /* the DIRECT's first part lands in @stage */
    uint8_t *stage;
    /* Once matched: the message, and the shim receives for its rest. */
    uint32_t node;
    uint8_t mflags;              /* the message's: DNF_F_TAGGED, DNF_F_DATA */
    uint64_t mtag, mlen, mdata;
    size_t taken;
    int err;                     /* FI_E* for the completion */
    struct dnf_chunks ch;
    void *zc;                    /* zero-copy: its buffer's place on the card */
    int zc_wait;                 /* ... the rest: waiting for the sender's DONE */
    int zc_adv;                  /* ... advertised so: the DIRECT says it is in */
    /* FI_MULTI_RECV (untagged): the posted buffer stays posted and each
     * message it matches becomes a child receive of the next @moff bytes
     * on; once fewer than the endpoint's minimum are left it is retired
     * (@mdone, off the posted list) and its last child to complete carries
     * FI_MULTI_RECV. */
    int multi, mdone;
    size_t moff;
    unsigned mkids;              /* children not yet completed */
    struct dnf_rx *mparent;      /* a child's buffer */
};

/* A FIRST that came before its receive (its first part only). */
struct dnf_unexp {
    struct dnf_unexp *next;
    uint32_t node;
    struct dnf_hdr h;            /* its FIRST's header */
    void *claim;                 /* FI_CLAIM: the context it belongs to */
    size_t part;
    uint8_t data[];
};

/* A send until all of it is delivered and ACKed. */
struct dnf_tx {
    struct dnf_tx *next;
    dn_msg_req *req;             /* FIRST or DIRECT; NULL once done */
    uint8_t flags;
    int complete;                /* a completion on success (errors always) */
    int err;                     /* DN_E* of the first failure */
    int wait_cts;                /* a rendezvous FIRST: the rest waits for CTS */
    uint32_t node, sid;
    const uint8_t *ubuf;         /* the user's buffer, for the chunks */
    size_t len;
    uint64_t tag;
    void *context;
    struct dnf_chunks ch;
    dn_msg_req *ping;            /* liveness probe while waiting for CTS */
    int64_t ping_at;             /* ms */
    /* A landing (in @buf, @land_size bytes to @land_raddr), until ACKed. */
    uint32_t land_rid;           /* 0: none, or finished */
    unsigned land_tries;
    uint16_t land_size;
    uint64_t land_raddr, land_sent_us;
    dn_xfer land_x;
    uint32_t keep_rid;           /* a landing's rid, kept once finished */
    unsigned keep_key;           /* its chunk slot or DNF_MBOX_SLOTS + zone, + 1 */
    int rewriting;               /* kept: a rewrite's land_x not yet done */
    /* Zero-copy: the RMA writing the rest (busy until every piece is
     * answered), then the DONE or DIRECT that says so (in @zh). */
    int zc;                      /* 0: none; 1: writing; 2: message sent; 3: done */
    int zc_busy, zc_err;
    uint8_t zc_direct;           /* the message is a DIRECT (else DONE, rid) */
    uint32_t zc_rid;
    dn_msg_req *zc_req;
    struct dnf_hdr zh;
    uint8_t buf[];               /* header + first part */
};

/* A control message (CTS, RREQ, PING) until the shim is done with it. */
struct dnf_ctl {
    struct dnf_ctl *next;
    dn_msg_req *req;
    struct dnf_hdr h;            /* a failed CTS fails receive h.rid */
};

/* Sender side of sender-side matching: a receive a peer advertised and
 * this node took, waiting for the send it matches. */
struct dnf_rreq {
    struct dnf_rreq *next;
    uint8_t flags;
    unsigned land;               /* its landing chunk's slot + 1, 0: none */
    unsigned zone;               /* its landing zone + 1, 0: none */
    uint32_t rid;
    uint64_t tag, ignore, cap;
    int zcopy;                   /* write it at @zc_off, then the DIRECT */
    uint64_t zc_off;
};

struct dnf_bounce {
    dn_msg_req *req;
    uint8_t buf[sizeof(struct dnf_hdr) + DNF_EAGER];
};

struct dnf_ep {
    struct fid_ep ep;
    struct dnf_domain *dom;
    struct dnf_av *av;
    struct dnf_cq *tx_cq, *rx_cq;
    struct dnf_eq *eq;           /* fi_ep_bind: critical errors go here */
    int enabled;
    int fatal;                   /* its board is gone: reported once */
    int messaging;               /* FI_MSG/FI_TAGGED: the port's message endpoint */
    int coll;                    /* FI_COLLECTIVE: joins and collectives (dimmnet_fcoll.c) */
    struct dnf_ep_coll *cl;      /* ... their state (NULL until the first join) */
    unsigned slot;               /* its place among the node's endpoints (area) */
    /* FI_SELECTIVE_COMPLETION on the CQ binding: then only operations with
     * FI_COMPLETION (their flags, or the default op_flags) complete. */
    int tx_selective, rx_selective;
    uint64_t tx_op_flags, rx_op_flags;
    int directed;                /* FI_DIRECTED_RECV asked: receives filter by source */
    size_t min_multi_recv;       /* FI_OPT_MIN_MULTI_RECV */
    struct dnf_rx *rx_head, **rx_tail;
    struct dnf_rx *act_head;
    struct dnf_unexp *ux_head, **ux_tail;
    struct dnf_tx *tx_head, **tx_tail;
    struct dnf_ctl *ctl_head;
    struct dnf_bounce *bounce;   /* DNF_BOUNCES, taken in posting order */
    unsigned bounce_next;
    uint32_t next_sid, next_rid;
    /* This endpoint's session (not 0, new at every fi_enable: the shim's
     * incarnation << 8 | the process's count of enabled endpoints), on
     * every header it writes, and each peer's as its messages and
     * advertisements tell it (0: not known yet, so nothing is advertised
     * to it): mailbox entries and landings are checked against the
     * reader's, so that an earlier process's late one is never taken. */
    uint16_t session, peer_sess[DNF_NODES];
    struct dnf_hdr ping;         /* what a PING says (its session; set at fi_enable) */
    /* Per peer: FIRSTs sent to it and taken from it, the highest RREQ id
     * taken from it, and the RREQs of it this node took (in order). */
    int sender_matching;         /* advertise directed receives */
    uint32_t sent_first[DNF_NODES], recv_first[DNF_NODES], seen_rid[DNF_NODES];
    struct dnf_rreq *rreq[DNF_NODES];
    /* Mailboxes: ours (in our receive memory), the next entry to read from
     * each writer; per peer, entries written, known free, their rids, and
     * the highest of our rids the peer has handled. */
    uint8_t *mbox;
    uint32_t mbox_next[DNF_NODES], mbox_k[DNF_NODES], mbox_freed[DNF_NODES];
    uint32_t mbox_rid[DNF_NODES][DNF_MBOX_SLOTS], peer_seen[DNF_NODES];
    struct dnf_mput *mput_head;
    /* Landing chunks (ours, in our receive memory): per writer and slot the
     * rid of the receive it belongs to (0: free), and whether it took its
     * landing (then free once the writer's lfree passed the rid). */
    int landing;                 /* offer landings (FI_DIMMNET_LANDING) */
    int zcopy;                   /* zero-copy rendezvous (FI_DIMMNET_ZCOPY) */
    uint8_t *land;
    uint32_t land_rid[DNF_NODES][DNF_MBOX_SLOTS], peer_lfree[DNF_NODES];
    uint8_t land_taken[DNF_NODES][DNF_MBOX_SLOTS];
    uint8_t *mem;                /* our receive memory */
    /* Our port's landing zones: 0 .. dnf_zones(K) - 1, at dnf_zone_base. */
    uint32_t zone_rid[DNF_ZONES], zone_node[DNF_ZONES];
    uint8_t zone_taken[DNF_ZONES];
    /* RMA: operations in order, their pieces in flight; counters bound
     * (FI_SEND, FI_RECV, FI_WRITE, FI_READ, FI_REMOTE_WRITE, FI_REMOTE_READ). */
    struct dnf_rma *rma_head, **rma_tail;
    struct dnf_rma_piece rma_piece[DNF_RMA_SLOTS];
    struct dnf_cntr *cntr_send, *cntr_recv, *cntr_write, *cntr_read;
    struct dnf_cntr *cntr_rwrite, *cntr_rread;
    struct dnf_atomic *atomic_head, **atomic_tail;
    uint8_t atomic_busy[DNF_ATOMIC_REPLIES];   /* reply slots in use */
    unsigned atomic_next;        /* the ring's next slot */
    /* Our finished landings, per receiver and chunk or zone (rewrites). */
    struct dnf_tx **keep[DNF_NODES];
    unsigned keep_busy;          /* of them, being written again */
    struct dnf_ep_stats {
        uint64_t advertised, taken, ignored, direct, rendezvous, withdrawn;
        uint64_t landed, land_rewrites;      /* landings taken; written again */
        uint64_t zone_landed;                /* of them, into landing zones */
        uint64_t mbox_rewrites, mbox_full;   /* advertisements written again; not made */
        uint64_t inject_errors;              /* injected sends that failed (no entry) */
        uint64_t rma_ops, rma_resends, rma_refused;   /* RMA: done; pieces sent again; NACKed */
        uint64_t rma_packets_resent;  /* packets of them: only the unanswered ones */
        uint64_t rma_not_resident;    /* pieces NACKed NOT_RESIDENT (a paged target) */
        uint64_t atomics;                    /* atomic operations done */
        uint64_t zcopy_sent, zcopy_recv;     /* zero-copy rendezvous */
        uint64_t zcopy_rdma;                 /* ... whose source the NIC read (RDMA) */
        uint64_t eager_long;                 /* over DNF_ZCOPY_MIN, whole in a FIRST */
        uint64_t land_late, land_asked;      /* late stamps seen in our landings; REWRITEs */
        uint64_t land_rewritten;             /* landings written again on a REWRITE */
    } stats;
};

/* dimmnet_init.c */
int dnf_getinfo(uint32_t version, const char *node, const char *service,
                uint64_t flags, const struct fi_info *hints, struct fi_info **info);
/* dimmnet_fabric.c */
int dnf_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context);
/* dimmnet_domain.c */
/* Claim a place for @ep among the process's endpoints (ep->slot), and its
 * port's message conversation if ep->messaging: -FI_EBUSY if taken. */
int dnf_domain_take_ep(struct dnf_ep *ep);
void dnf_domain_give_ep(struct dnf_ep *ep);
int dnf_domain_open(struct fid_fabric *fabric, struct fi_info *info,
                    struct fid_domain **dom, void *context);
/* The node fi_dimmnet_coll_ops wraps (dimmnet_coll.c), under the lock;
 * NULL when no domain is open. */
dn_node *dnf_coll_node(void);
void dnf_node_progress(void);
/* dimmnet_coll.c: the collectives' idle turn on the node (dn_coll_set_idle). */
int dnf_coll_idle(void *arg);
/* An empty poll of the application's (a CQ or counter read, a wait): the
 * node's idle turn, and every DNF_POLL_COLL_EVERY-th time a turn for the
 * node's collectives. */
void dnf_poll_idle(dn_node *node);
/* dimmnet_av.c */
int dnf_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
                struct fid_av **av, void *context);
int dnf_av_node(struct dnf_av *av, fi_addr_t addr, uint32_t *node);
fi_addr_t dnf_av_addr(struct dnf_av *av, uint32_t node);
/* dimmnet_cq.c */
int dnf_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
                struct fid_cq **cq, void *context);
int dnf_cq_push(struct dnf_cq *cq, const struct dnf_comp *c);
/* dimmnet_ep.c */
int dnf_endpoint(struct fid_domain *domain, struct fi_info *info,
                 struct fid_ep **ep, void *context);
/* dimmnet_progress.c */
void dnf_progress(struct dnf_ep *ep);
int dnf_post_bounces(struct dnf_ep *ep);
void dnf_ep_drain(struct dnf_ep *ep);
/* @flags: FI_INJECT, FI_COMPLETION (for selective completion),
 * FI_REMOTE_CQ_DATA (sends: @data goes along), FI_PEEK, FI_CLAIM,
 * FI_DISCARD, as fi_*msg; the plain calls pass the endpoint's
 * default op_flags. */
ssize_t dnf_send(struct dnf_ep *ep, uint8_t kflags, const void *buf, size_t len,
                 fi_addr_t dest, uint64_t tag, uint64_t data, void *context,
                 uint64_t flags);
ssize_t dnf_recv(struct dnf_ep *ep, uint8_t kflags, void *buf, size_t len,
                 fi_addr_t src, uint64_t tag, uint64_t ignore, void *context,
                 uint64_t flags);
int dnf_ctl_send(struct dnf_ep *ep, uint32_t node, const struct dnf_hdr *h);
int dnf_chunks_recv(struct dnf_ep *ep, struct dnf_chunks *ch, uint32_t node,
                    uint32_t rid, uint8_t *base, size_t bytes);
void dnf_chunks_cancel(struct dnf_ep *ep, struct dnf_chunks *ch);
unsigned dnf_chunk_count(size_t bytes);
int dnf_recv_drop(struct dnf_ep *ep, dn_msg_req *req);
int dnf_tag_matches(uint8_t rflags, uint64_t rtag, uint64_t ignore, uint8_t flags,
                    uint64_t tag);
/* dimmnet_emx.c: sender-side matching (MPI-EMX, seed 000) */
void dnf_emx_advertise(struct dnf_ep *ep, struct dnf_rx *r);
void dnf_emx_decide(struct dnf_ep *ep, uint32_t node, const struct dnf_hdr *h);
void dnf_emx_withdraw(struct dnf_ep *ep, struct dnf_rx *r);
void dnf_emx_rreq(struct dnf_ep *ep, uint32_t node, const struct dnf_hdr *h,
                  unsigned slot);
struct dnf_rreq *dnf_emx_take(struct dnf_ep *ep, uint32_t node, uint8_t flags,
                              uint64_t tag);
int dnf_emx_direct_done(struct dnf_ep *ep, struct dnf_rx *r, int rc,
                        const struct dn_msg_status *st);
void dnf_emx_free(struct dnf_ep *ep);
int dnf_emx_enable(struct dnf_ep *ep);
void dnf_emx_progress(struct dnf_ep *ep);
uint32_t dnf_emx_lfree(struct dnf_ep *ep, uint32_t node);
int dnf_emx_landed(struct dnf_ep *ep, struct dnf_rx *r);
void dnf_emx_land(struct dnf_ep *ep, struct dnf_tx *t, const struct dnf_rreq *q,
                  const struct dnf_hdr *h, const void *buf, size_t sent);
int dnf_emx_land_test(struct dnf_ep *ep, struct dnf_tx *t);
/* dimmnet_mr.c */
extern struct fi_ops_mr dnf_mr_ops;
/* Is [buf, buf + len) in receive memory (ours, or pages moved there)? Its offset. */
int dnf_mr_nic(struct dnf_domain *dom, const void *buf, size_t len, uint64_t *off);
size_t dnf_mr_card_bytes(dn_node *n, const void *buf, size_t len);
/* The context a remote access with the application's @key carries; *event
 * (may be NULL): whether the key asks for RMA events (DNF_MR_KEY_EVENT). */
int dnf_mr_wire(const struct dnf_domain *dom, uint64_t key, uint16_t *wire, int *event);
/* The target: an RMA event for the registration with context @wire. */
void dnf_mr_event(struct dnf_domain *dom, uint16_t wire, int read);
/* Zero-copy rendezvous: the receive memory offset of [buf, buf + len),
 * moving its pages onto the card if need be and keeping them there
 * (*handle for dnf_mr_rndv_give once the message is in); 0 or -FI_E*. */
int dnf_mr_rndv_take(struct dnf_domain *dom, void *buf, size_t len, uint64_t *off,
                     void **handle);
/* The same for a send's source, which the NIC then reads itself (RDMA);
 * checked without a store (others may read a send buffer meanwhile). */
int dnf_mr_rndv_take_src(struct dnf_domain *dom, const void *buf, size_t len,
                         uint64_t *off, void **handle);
void dnf_mr_rndv_give(struct dnf_domain *dom, void *handle);
/* The domain closes: kept pages go back to ordinary memory. */
void dnf_mr_cache_flush(struct dnf_domain *dom);
/* Paged registrations: move onto the card what the NIC was refused (the
 * fault ring); one load a turn, and only while such registrations live. */
void dnf_mr_page_service(struct dnf_domain *dom);
extern uint64_t dnf_mr_paged_in, dnf_mr_paged_out;    /* bytes moved, node-wide */
/* dimmnet_rma.c */
/* Write @len bytes of @src (at receive memory @local, or UINT64_MAX) to raw
 * receive memory address @raddr of @node, for send @t (t->zc_busy). */
int dnf_rma_rndv(struct dnf_ep *ep, struct dnf_tx *t, uint32_t node, uint64_t raddr,
                 const uint8_t *src, size_t len);
extern struct fi_ops_rma dnf_rma_ops;
void dnf_rma_progress(struct dnf_ep *ep);
void dnf_rma_notice(struct dnf_ep *ep, uint32_t node, const struct dnf_hdr *h);
int dnf_rma_idle(const struct dnf_ep *ep);
void dnf_rma_done_charge(struct dnf_ep *ep);
/* dimmnet_atomic.c */
extern struct fi_ops_atomic dnf_atomic_ops;
void dnf_atomic_progress(struct dnf_ep *ep);
int dnf_query_atomic(struct fid_domain *domain, enum fi_datatype dt, enum fi_op op,
                     struct fi_atomic_attr *attr, uint64_t flags);
/* dimmnet_cntr.c */
int dnf_cntr_open(struct fid_domain *domain, struct fi_cntr_attr *attr,
                  struct fid_cntr **cntr, void *context);
int dnf_cntr_bind(struct dnf_ep *ep, struct dnf_cntr *c, uint64_t flags);
void dnf_cntr_unbind(struct dnf_ep *ep);
/* One operation done: the counter's value, or its error count. */
static inline void dnf_cntr_bump(struct dnf_cntr *c, int failed)
{
    if (c) {
        atomic_fetch_add(failed ? &c->err : &c->value, 1);
    }
}
/* dimmnet_clock.c: resend timers on the board's clock when it keeps modeled time */
uint64_t dnf_now_us(const struct dnf_domain *dom);
uint64_t dnf_resend_us(const struct dnf_domain *dom, unsigned tries);
int dnf_emx_keep(struct dnf_ep *ep, struct dnf_tx *t);
void dnf_emx_rewrite(struct dnf_ep *ep, uint32_t node, const struct dnf_hdr *h);
/* dimmnet_ops.c */
extern struct fi_ops_msg dnf_msg_ops;
extern struct fi_ops_tagged dnf_tagged_ops;
/* dimmnet_eq.c */
int dnf_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
                struct fid_eq **eq, void *context);
int dnf_trywait(struct fid_fabric *fabric, struct fid **fids, int count);
/* Queue an event (@err: @buf is a struct fi_eq_err_entry); -FI_EOVERRUN
 * when the EQ is full (it then stays overrun). */
int dnf_eq_report(struct dnf_eq *eq, uint32_t event, const void *buf, size_t len,
                  int err);
/* A failed operation's shim status: DN_EIO (the board gone) is the
 * endpoint's critical error, reported once on its EQ. */
void dnf_ep_fatal(struct dnf_ep *ep, int dn_status);
/* dimmnet_fcoll.c: FI_COLLECTIVE (fi_collective(3), fi_av_set(3)) over the
 * shim's collectives (dn_coll_*): AV sets, fi_join_collective (a record
 * exchange by DNF_K_JOIN messages, then dn_coll_comm_create_joined), the
 * collectives started non-blocking and completed by the endpoint's
 * progress on its transmit CQ. */
extern struct fi_ops_collective dnf_coll_ops;
int dnf_av_set(struct fid_av *av, struct fi_av_set_attr *attr, struct fid_av_set **set,
               void *context);
int dnf_query_collective(struct fid_domain *domain, enum fi_collective_op coll,
                         struct fi_collective_attr *attr, uint64_t flags);
int dnf_coll_join(struct dnf_ep *ep, const void *addr, uint64_t flags, struct fid_mc **mc,
                  void *context);
void dnf_coll_msg(struct dnf_ep *ep, uint32_t node, const struct dnf_hdr *h,
                  const uint8_t *part, size_t plen);
void dnf_coll_progress(struct dnf_ep *ep);
/* -FI_EBUSY while the endpoint has collective groups open; else 0. */
int dnf_coll_ep_busy(struct dnf_ep *ep);
void dnf_coll_ep_free(struct dnf_ep *ep);
/* An EQ with joins in flight is read: progress for them (1 if it made any). */
int dnf_coll_eq_progress(struct dnf_eq *eq);
void dnf_coll_eq_idle(void);
/* dimmnet_nosys.c: what is not offered (-FI_ENOSYS, or the error the man
 * page names) */
int dnf_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags);
int dnf_no_control(struct fid *fid, int command, void *arg);
int dnf_no_ops_open(struct fid *fid, const char *name, uint64_t flags, void **ops,
                    void *context);
int dnf_no_tostr(const struct fid *fid, char *buf, size_t len);
int dnf_no_ops_set(struct fid *fid, const char *name, uint64_t flags, void *ops,
                   void *context);
int dnf_no_passive_ep(struct fid_fabric *fabric, struct fi_info *info,
                      struct fid_pep **pep, void *context);
int dnf_no_wait_open(struct fid_fabric *fabric, struct fi_wait_attr *attr,
                     struct fid_wait **waitset);
int dnf_no_scalable_ep(struct fid_domain *domain, struct fi_info *info,
                       struct fid_ep **sep, void *context);
int dnf_no_cntr_open(struct fid_domain *domain, struct fi_cntr_attr *attr,
                     struct fid_cntr **cntr, void *context);
int dnf_no_poll_open(struct fid_domain *domain, struct fi_poll_attr *attr,
                     struct fid_poll **pollset);
int dnf_no_stx_ctx(struct fid_domain *domain, struct fi_tx_attr *attr,
                   struct fid_stx **stx, void *context);
int dnf_no_srx_ctx(struct fid_domain *domain, struct fi_rx_attr *attr,
                   struct fid_ep **rx_ep, void *context);
int dnf_no_query_atomic(struct fid_domain *domain, enum fi_datatype datatype,
                        enum fi_op op, struct fi_atomic_attr *attr, uint64_t flags);
int dnf_no_query_collective(struct fid_domain *domain, enum fi_collective_op coll,
                            struct fi_collective_attr *attr, uint64_t flags);
int dnf_no_mr_reg(struct fid *fid, const void *buf, size_t len, uint64_t access,
                  uint64_t offset, uint64_t requested_key, uint64_t flags,
                  struct fid_mr **mr, void *context);
int dnf_no_mr_regv(struct fid *fid, const struct iovec *iov, size_t count,
                   uint64_t access, uint64_t offset, uint64_t requested_key,
                   uint64_t flags, struct fid_mr **mr, void *context);
int dnf_no_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr, uint64_t flags,
                      struct fid_mr **mr);
int dnf_no_av_insertsvc(struct fid_av *av, const char *node, const char *service,
                        fi_addr_t *fi_addr, uint64_t flags, void *context);
int dnf_no_av_insertsym(struct fid_av *av, const char *node, size_t nodecnt,
                        const char *service, size_t svccnt, fi_addr_t *fi_addr,
                        uint64_t flags, void *context);
int dnf_no_av_set(struct fid_av *av, struct fi_av_set_attr *attr,
                  struct fid_av_set **av_set, void *context);
extern struct fi_ops_rma dnf_no_rma_ops;
extern struct fi_ops_atomic dnf_no_atomic_ops;
extern struct fi_ops_collective dnf_no_collective_ops;

/* libfabric errors for the shim's statuses. */
int dnf_errno(int dn_status);
/* fi_cq_strerror / fi_eq_strerror: prov_errno is the shim's status (DN_*);
 * copied into @buf when there is one. */
const char *dnf_strerror(int prov_errno, char *buf, size_t len);

#endif

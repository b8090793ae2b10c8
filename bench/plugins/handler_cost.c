/*
 * TCG plugin: the cost of each firmware interrupt, from the exception
 * vector to the return (eret, or the R3000's rfe), in guest instructions
 * and in modeled time (docs/hardware.md section 9: 32 ns an instruction,
 * plus 20 ns for each processor access to a 64-bit resource: host receive
 * memory, LLCM, window memory, chip SRAM, RVATLB, PATLB; the host-order
 * views of the first, second and fourth alike).
 *
 * The firmware serves every held packet in one loop (dispatch_service),
 * which reads IRQ_STATUS before each packet; under dense traffic one
 * interrupt serves many. So the plugin cuts at those reads and counts:
 *   "entry"  vector to the first IRQ_STATUS read;
 *   packets  one IRQ_STATUS read to the next, labeled by the Martini
 *            registers the firmware wrote meanwhile: "cmdN" (N RX_CMD
 *            writes), "+nack" (RX_NACK_REASON), "+raddr" (RX_RADDR_LO: an
 *            address rewrite), "+tx" (TX_CMD: a firmware send); this works
 *            for a polling firmware too (no interrupt);
 *   "exit"   the last IRQ_STATUS read (nothing held) to the return
 *            ("LABEL+exit" when the loop served a packet and returned,
 *            leaving the next one to an assembly fast path);
 *   "irq:"   + a packet label: an interrupt that served its packet without
 *            reading IRQ_STATUS at all (an assembly fast path), whole.
 * A one-packet interrupt costs entry + packet + exit exactly. Labels come
 * from register writes, not symbols, which inlining may remove; with
 * syms=FILE (lines "ADDRESS NAME", the functions to name: a handler's
 * NAME_handle, which the dispatcher calls, is never inlined) a packet's
 * label also gets "@NAME" of the first of them its segment entered
 * (scripts/handler-cost). Built against the qemu-plugin.h of the same QEMU
 * source as the board.
 *
 *   -plugin libhandler_cost.so,out=FILE[,vector=0x80000180][,syms=FILE]
 *
 * At exit FILE gets one line per distinct (label, instructions, wide):
 *   LABEL INSTRUCTIONS WIDE_ACCESSES MODELED_NS OCCURRENCES
 *
 * With pcs=FILE it also writes, for every instruction address executed
 * inside an interrupt (vector to return), "ADDRESS COUNT INTERRUPTS": how
 * often it ran there and how many interrupts were counted; bench/handler_profile.py
 * sums them by function (where a handler's instructions go).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define INSN_NS 32u          /* icount shift 5 */
#define WIDE_NS 20u          /* DN1_WIDE_ACCESS_NS */
#define REG_IRQ_STATUS  0x10000014u
#define REG_RX_RADDR_LO 0x10000034u
#define REG_RX_CMD      0x1000003cu
#define REG_RX_NACK     0x10000040u
#define REG_TX_CMD      0x10000054u
#define MIPS_ERET       0x42000018u
#define MIPS_RFE        0x42000010u

struct bucket {
    char label[64];
    uint64_t insns, wide, seen;
};

static uint64_t vector = 0x80000180u;   /* 4Kc general exception, BEV=0 */
static const char *out_path;
static uint64_t executed;               /* one vCPU per board */
static uint64_t start, wide;             /* the segment being counted */
static unsigned nack, raddr, tx, cmds;
static int inside, at_entry;
static struct bucket *buckets;
static size_t nbuckets, cap;
/* syms=FILE: functions that name the segment they are entered in. */
#define SYMS_MAX 64
static struct { uint32_t addr; char name[40]; } syms[SYMS_MAX];
static size_t nsyms;
static int named = -1;                   /* the segment's first, or -1 */
/* pcs=FILE: instructions executed inside interrupts, by address. */
static const char *pcs_path;
static struct pc_count { uint32_t addr; uint64_t n; } *pcs;
static size_t npcs, pcs_cap;
static uint64_t interrupts;

static int wide_pa(uint32_t pa)
{
    return (pa >= 0x04000000u && pa < 0x06000000u) ||   /* host receive memory, both views */
           (pa >= 0x11000000u && pa < 0x11010000u) ||   /* LLCM */
           (pa >= 0x11100000u && pa < 0x11110000u) ||   /* LLCM, host order */
           (pa >= 0x12000000u && pa < 0x12001000u) ||   /* window memory */
           (pa >= 0x13000000u && pa < 0x13010000u) ||   /* chip SRAM */
           (pa >= 0x13100000u && pa < 0x13110000u) ||   /* chip SRAM, host order */
           (pa >= 0x13800000u && pa < 0x13801200u);     /* RVATLB, PATLB */
}

static void record(const char *label, uint64_t insns)
{
    for (size_t i = 0; i < nbuckets; i++) {
        if (buckets[i].insns == insns && buckets[i].wide == wide &&
            !strcmp(buckets[i].label, label)) {
            buckets[i].seen++;
            return;
        }
    }
    if (nbuckets == cap) {
        cap = cap ? cap * 2 : 256;
        buckets = realloc(buckets, cap * sizeof(*buckets));
        if (!buckets) {
            abort();
        }
    }
    struct bucket *b = &buckets[nbuckets++];
    snprintf(b->label, sizeof(b->label), "%s", label);
    b->insns = insns;
    b->wide = wide;
    b->seen = 1;
}

static void new_segment(uint64_t from)
{
    start = from;
    wide = nack = raddr = tx = cmds = 0;
    named = -1;
}

static void on_named(unsigned int vcpu, void *udata)
{
    if (named < 0) {
        named = (int)(uintptr_t)udata;
    }
}

static void on_pc(unsigned int vcpu, void *udata)
{
    if (inside) {
        pcs[(uintptr_t)udata].n++;
    }
}

/* The slot of @addr in pcs (translation time; a TB may be translated again). */
static size_t pc_slot(uint32_t addr)
{
    for (size_t i = 0; i < npcs; i++) {
        if (pcs[i].addr == addr) {
            return i;
        }
    }
    if (npcs == pcs_cap) {
        pcs_cap = pcs_cap ? pcs_cap * 2 : 1024;
        pcs = realloc(pcs, pcs_cap * sizeof(*pcs));
        if (!pcs) {
            abort();
        }
    }
    pcs[npcs].addr = addr;
    pcs[npcs].n = 0;
    return npcs++;
}

static void on_entry(unsigned int vcpu, void *udata)
{
    interrupts++;
    inside = at_entry = 1;
    new_segment(executed);   /* before the vector's own count */
}

/* "cmdN+..." for the Martini registers written in this segment. */
static void packet_label(char *label, size_t size, const char *prefix)
{
    snprintf(label, size, "%scmd%u%s%s%s%s%s", prefix, cmds, nack ? "+nack" : "",
             raddr ? "+raddr" : "", tx ? "+tx" : "", named >= 0 ? "@" : "",
             named >= 0 ? syms[named].name : "");
}

static void on_return(unsigned int vcpu, void *udata)
{
    char label[64];

    if (!inside) {
        return;
    }
    inside = 0;
    /* Callbacks run before the instruction's inline count: + 1 for it. */
    if (!at_entry && cmds) {
        /* The loop left a packet for the vector: its work and the exit. */
        packet_label(label, sizeof(label), "");
        strncat(label, "+exit", sizeof(label) - strlen(label) - 1);
        record(label, executed - start + 1);
    } else if (!at_entry) {
        record("exit", executed - start + 1);
    } else if (cmds) {
        packet_label(label, sizeof(label), "irq:");
        record(label, executed - start + 1);
    } else {
        record("entry-noread", executed - start + 1);
    }
    new_segment(executed + 1);
}

/* An IRQ_STATUS read: the loop looks for the next packet (it is counted). */
static void at_status_read(void)
{
    char label[64];

    if (at_entry) {
        record("entry", executed - start);
        at_entry = 0;
    } else if (cmds) {
        packet_label(label, sizeof(label), "");
        record(label, executed - start);
    }
    new_segment(executed);
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info,
                   uint64_t vaddr, void *udata)
{
    uint32_t pa = (uint32_t)vaddr & 0x1fffffffu;   /* kseg0/kseg1 */

    if (wide_pa(pa)) {
        wide++;
    }
    if (!qemu_plugin_mem_is_store(info)) {
        if (pa == REG_IRQ_STATUS) {
            at_status_read();
        }
        return;
    }
    switch (pa) {
    case REG_RX_CMD:      cmds++;  break;
    case REG_RX_NACK:     nack++;  break;
    case REG_RX_RADDR_LO: raddr++; break;
    case REG_TX_CMD:      tx++;    break;
    }
}

static void on_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t n = qemu_plugin_tb_n_insns(tb);

    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint64_t va = qemu_plugin_insn_vaddr(insn);
        const uint8_t *b = qemu_plugin_insn_data(insn);
        uint32_t word = (uint32_t)b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3];

        for (size_t k = 0; k < nsyms; k++) {
            if ((va & 0xffffffffu) == syms[k].addr) {
                qemu_plugin_register_vcpu_insn_exec_cb(insn, on_named,
                                                       QEMU_PLUGIN_CB_NO_REGS,
                                                       (void *)(uintptr_t)k);
            }
        }
        if ((va & 0xffffffffu) == vector) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_entry,
                                                   QEMU_PLUGIN_CB_NO_REGS, NULL);
        }
        /* After on_entry: the vector's first instruction is inside. */
        if (pcs_path) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_pc, QEMU_PLUGIN_CB_NO_REGS,
                                                   (void *)pc_slot(va & 0xffffffffu));
        }
        qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
                                                   &executed, 1);
        qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS,
                                         QEMU_PLUGIN_MEM_RW, NULL);
        if (word == MIPS_ERET || word == MIPS_RFE) {
            qemu_plugin_register_vcpu_insn_exec_cb(insn, on_return,
                                                   QEMU_PLUGIN_CB_NO_REGS, NULL);
        }
    }
}

static void write_report(qemu_plugin_id_t id, void *p)
{
    FILE *f = fopen(out_path, "w");

    if (!f) {
        return;
    }
    for (size_t i = 0; i < nbuckets; i++) {
        struct bucket *b = &buckets[i];
        fprintf(f, "%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
                b->label, b->insns, b->wide, b->insns * INSN_NS + b->wide * WIDE_NS,
                b->seen);
    }
    fclose(f);
    if (pcs_path && (f = fopen(pcs_path, "w"))) {
        for (size_t i = 0; i < npcs; i++) {
            if (pcs[i].n) {
                fprintf(f, "%08" PRIx32 " %" PRIu64 " %" PRIu64 "\n", pcs[i].addr,
                        pcs[i].n, interrupts);
            }
        }
        fclose(f);
    }
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
                                           const qemu_info_t *info,
                                           int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (!strncmp(argv[i], "out=", 4)) {
            out_path = argv[i] + 4;
        } else if (!strncmp(argv[i], "vector=", 7)) {
            vector = strtoull(argv[i] + 7, NULL, 0);
        } else if (!strncmp(argv[i], "pcs=", 4)) {
            pcs_path = argv[i] + 4;
        } else if (!strncmp(argv[i], "syms=", 5)) {
            FILE *f = fopen(argv[i] + 5, "r");
            unsigned long a;
            char name[40];
            if (!f) {
                fprintf(stderr, "handler_cost: cannot read %s\n", argv[i] + 5);
                return -1;
            }
            while (nsyms < SYMS_MAX && fscanf(f, "%lx %39s", &a, name) == 2) {
                syms[nsyms].addr = (uint32_t)a;
                snprintf(syms[nsyms].name, sizeof(syms[nsyms].name), "%s", name);
                nsyms++;
            }
            fclose(f);
        } else {
            fprintf(stderr, "handler_cost: unknown argument '%s'\n", argv[i]);
            return -1;
        }
    }
    if (!out_path) {
        fprintf(stderr, "handler_cost: out=FILE is required\n");
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb);
    qemu_plugin_register_atexit_cb(id, write_report, NULL);
    return 0;
}

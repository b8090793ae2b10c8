/*
 * DIMMnet-1 board: the Martini chip's on-chip processor and what it reaches.
 *
 * The real processor is an R3000-compatible core at 50 MHz; QEMU has no R3000,
 * so the board uses a big-endian MIPS32 4Kc at the same clock. Memory map,
 * interrupts and shared memories follow docs/hardware.md. The chip's
 * 64-bit-wide memories reach the 32-bit processor through the internal-bus
 * bridge (hw/net/martini-bridge.c), which charges its extra cycle per access.
 *
 *   -M dimmnet1,node-id=N,hostmem=ID,llcm=ID,window=ID,hostbus=CHR,link=CHR
 *   -drive if=pflash,format=raw,file=FLASH   (or -bios IMAGE)
 *
 * hostmem/llcm/window name memory-backend-file objects shared with the host
 * shim (omitted: private RAM); hostbus and link name chardevs. The boot
 * flash is a CFI flash backed by FLASH (boot loader and two image slots,
 * docs/firmware.md); -bios instead loads one checked image straight into
 * local memory, as QEMU boards do for -kernel.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/datadir.h"
#include "qapi/visitor.h"
#include "qapi/error.h"
#include "hw/boards.h"
#include "hw/clock.h"
#include "hw/loader.h"
#include "hw/mips/mips.h"
#include "hw/mips/cpudevs.h"
#include "hw/char/serial.h"
#include "hw/qdev-properties.h"
#include "hw/qdev-properties-system.h"
#include "hw/net/martini.h"
#include "hw/net/martini-bridge.h"
#include "hw/block/flash.h"
#include "hw/irq.h"
#include "sysemu/blockdev.h"
#include "sysemu/block-backend.h"
#include "sysemu/hw_accel.h"
#include "chardev/char.h"
#include "sysemu/hostmem.h"
#include "sysemu/reset.h"
#include "sysemu/sysemu.h"
#include "sysemu/qtest.h"
#include "exec/address-spaces.h"
#include "cpu.h"
#include "dimmnet1/memmap.h"
#include "dimmnet1/fw_image.h"

#define TYPE_DIMMNET1_MACHINE MACHINE_TYPE_NAME("dimmnet1")
OBJECT_DECLARE_SIMPLE_TYPE(Dimmnet1MachineState, DIMMNET1_MACHINE)

struct Dimmnet1MachineState {
    MachineState parent_obj;

    uint32_t node_id;
    bool sync;
    bool host_sync;
    char *hostmem_id;
    char *llcm_id;
    char *window_id;
    char *hostbus_id;
    char *hostbus1_id;       /* host ports 1..3 (host-ports) */
    char *hostbus2_id;
    char *hostbus3_id;
    uint32_t host_ports;
    char *link_id;
    char *pcap_id;           /* a file path, not an id: named for the macro */

    MIPSCPU *cpu;
    MartiniState *martini;
    /* -bios: the checked image, copied to local memory at every start. */
    uint8_t *bios;           /* whole image, header first */
    struct dn1_img_info bios_info;
};

/*
 * Start the processor: the 4Kc resets to 0xbfc00000, the boot loader at the
 * start of the boot flash; with -bios the board does the loader's work
 * (copy the image, say what it booted) and starts at the image's entry.
 */
static void dimmnet1_cpu_start(Dimmnet1MachineState *m)
{
    const struct dn1_img_info *info = &m->bios_info;

    cpu_reset(CPU(m->cpu));
    if (m->bios) {
        address_space_write(&address_space_memory, info->load & 0x1fffffffu,
                            MEMTXATTRS_UNSPECIFIED, m->bios + DN1_IMG_HDR_SIZE,
                            info->size);
        m->cpu->env.active_tc.PC = (int32_t)info->entry;
        martini_set_boot(m->martini, info->version, DN1_BOOT_SLOT_BIOS);
    }
}

static void dimmnet1_cpu_reset(void *opaque)
{
    dimmnet1_cpu_start(opaque);
}

static void dimmnet1_restart_work(CPUState *cs, run_on_cpu_data data)
{
    dimmnet1_cpu_start(data.host_ptr);
}

/* The Martini's "cpu-restart" line (host-bus NIC_RESTART): the processor
 * alone starts again, from its own thread. */
static void dimmnet1_cpu_restart(void *opaque, int n, int level)
{
    Dimmnet1MachineState *m = opaque;

    if (level) {
        async_run_on_cpu(CPU(m->cpu), dimmnet1_restart_work,
                         RUN_ON_CPU_HOST_PTR(m));
    }
}

/* A memory shared with the host: a named backend, or private RAM. */
static MemoryRegion *dimmnet1_shared_memory(Dimmnet1MachineState *m,
                                            const char *prop, const char *id,
                                            uint64_t size)
{
    HostMemoryBackend *backend;
    MemoryRegion *mr;
    Object *obj;

    if (!id) {
        g_autofree char *name = g_strdup_printf("dimmnet1.%s", prop);

        mr = g_new(MemoryRegion, 1);
        memory_region_init_ram(mr, NULL, name, size, &error_fatal);
        return mr;
    }
    obj = object_resolve_path_component(object_get_objects_root(), id);
    if (!obj || !object_dynamic_cast(obj, TYPE_MEMORY_BACKEND)) {
        error_report("dimmnet1: %s=%s does not name a memory backend object",
                     prop, id);
        exit(1);
    }
    backend = MEMORY_BACKEND(obj);
    if (host_memory_backend_is_mapped(backend)) {
        error_report("dimmnet1: memory backend '%s' is already in use", id);
        exit(1);
    }
    mr = host_memory_backend_get_memory(backend);
    if (memory_region_size(mr) != size) {
        error_report("dimmnet1: %s backend '%s' has %" PRIu64 " bytes; the "
                     "board needs exactly %" PRIu64, prop, id,
                     memory_region_size(mr), size);
        exit(1);
    }
    host_memory_backend_set_mapped(backend, true);
    return mr;
}

/*
 * Map @ram, one of the chip's 64-bit-wide memories, at @base of the
 * processor's address space: through the internal-bus bridge, which charges
 * the 32-bit processor's extra cycle per access (docs/hardware.md, "Timing"),
 * in memory order or (@host_order) as the host's little-endian values.
 * The device model keeps using @ram itself.
 */
static void dimmnet1_map_wide(MemoryRegion *sysmem, hwaddr base,
                              MemoryRegion *ram, const char *name,
                              bool host_order)
{
    MemoryRegion *bus = g_new(MemoryRegion, 1);

    martini_bridge_init(bus, NULL, name, ram, host_order);
    memory_region_add_subregion(sysmem, base, bus);
}

static Chardev *dimmnet1_chardev(const char *prop, const char *id)
{
    Chardev *chr;

    if (!id) {
        return NULL;
    }
    chr = qemu_chr_find(id);
    if (!chr) {
        error_report("dimmnet1: %s=%s does not name a chardev", prop, id);
        exit(1);
    }
    return chr;
}

/* -bios IMAGE: read and check it now, refusing a bad one with the reason. */
static void dimmnet1_load_firmware(Dimmnet1MachineState *m,
                                   const char *name)
{
    g_autofree char *filename = qemu_find_file(QEMU_FILE_TYPE_BIOS, name);
    g_autoptr(GError) err = NULL;
    enum dn1_img_check c;
    gchar *data;
    gsize len;

    if (!filename) {
        error_report("dimmnet1: firmware image '%s' not found", name);
        exit(1);
    }
    if (!g_file_get_contents(filename, &data, &len, &err)) {
        error_report("dimmnet1: firmware image '%s': %s", filename,
                     err->message);
        exit(1);
    }
    c = dn1_img_check((const uint8_t *)data, len, DN1_IMG_CPU_4KC,
                      &m->bios_info);
    if (c != DN1_IMG_OK) {
        error_report("dimmnet1: firmware image '%s' refused: %s", filename,
                     dn1_img_why(c));
        exit(1);
    }
    m->bios = (uint8_t *)data;
}

/* The boot flash: a CFI flash on a raw file of exactly its size, or (with
 * -bios, or none under qtest) an empty ROM. */
static void dimmnet1_boot_flash(Dimmnet1MachineState *m, MemoryRegion *sysmem)
{
    MachineState *machine = MACHINE(m);
    DriveInfo *dinfo = drive_get(IF_PFLASH, 0, 0);
    MemoryRegion *rom;

    if (dinfo) {
        BlockBackend *blk = blk_by_legacy_dinfo(dinfo);
        int64_t len = blk_getlength(blk);

        if (machine->firmware) {
            error_report("dimmnet1: give either -bios or a flash drive, "
                         "not both");
            exit(1);
        }
        if (len != DN1_FLASH_SIZE) {
            error_report("dimmnet1: the flash file must be exactly %u bytes "
                         "(it has %" PRId64 "); dimmnet-flash create makes one",
                         DN1_FLASH_SIZE, len);
            exit(1);
        }
        pflash_cfi01_register(DN1_FLASH_BASE, "dimmnet1.flash", DN1_FLASH_SIZE,
                              blk, DN1_FLASH_BLOCK, 4, 0x89, 0x18, 0, 0, 1);
        return;
    }
    if (machine->firmware) {
        dimmnet1_load_firmware(m, machine->firmware);
    } else if (!qtest_enabled()) {
        error_report("dimmnet1: no firmware; give -drive if=pflash,format=raw,"
                     "file=FLASH or -bios IMAGE");
        exit(1);
    }
    rom = g_new(MemoryRegion, 1);
    memory_region_init_rom(rom, NULL, "dimmnet1.flash", DN1_FLASH_SIZE,
                           &error_fatal);
    memory_region_add_subregion(sysmem, DN1_FLASH_BASE, rom);
}

static void dimmnet1_init(MachineState *machine)
{
    Dimmnet1MachineState *m = DIMMNET1_MACHINE(machine);
    MemoryRegion *sysmem = get_system_memory();
    MemoryRegion *hostmem, *llcm, *window;
    MemoryRegion *chip_sram = g_new(MemoryRegion, 1);
    Clock *cpuclk;
    MIPSCPU *cpu;
    DeviceState *dev;
    SysBusDevice *sbd;

    if (machine->ram_size != DN1_LOCAL_SIZE) {
        error_report("dimmnet1: the processor has %u bytes of local memory; -m must "
                     "not change it", DN1_LOCAL_SIZE);
        exit(1);
    }

    cpuclk = clock_new(OBJECT(machine), "cpu-refclk");
    clock_set_hz(cpuclk, DN1_CORE_HZ);
    cpu = mips_cpu_create_with_clock(machine->cpu_type, cpuclk);
    m->cpu = cpu;
    qemu_register_reset(dimmnet1_cpu_reset, m);
    cpu_mips_irq_init_cpu(cpu);
    cpu_mips_clock_init(cpu);

    memory_region_add_subregion(sysmem, DN1_LOCAL_BASE, machine->ram);

    dimmnet1_boot_flash(m, sysmem);

    hostmem = dimmnet1_shared_memory(m, "hostmem", m->hostmem_id,
                                     DN1_HOSTMEM_SIZE);
    llcm = dimmnet1_shared_memory(m, "llcm", m->llcm_id, DN1_LLCM_SIZE);
    window = dimmnet1_shared_memory(m, "window", m->window_id,
                                    DN1_WINDOW_SIZE);
    memory_region_init_ram(chip_sram, NULL, "dimmnet1.chip-sram",
                           DN1_CHIP_SRAM_SIZE, &error_fatal);
    /* 64-bit-wide memories: the processor reaches them through the bridge. */
    dimmnet1_map_wide(sysmem, DN1_HOSTMEM_BASE, hostmem,
                      "dimmnet1.hostmem-bus", false);
    dimmnet1_map_wide(sysmem, DN1_HOSTMEM_HOST_ORDER_BASE, hostmem,
                      "dimmnet1.hostmem-host-order-bus", true);
    dimmnet1_map_wide(sysmem, DN1_LLCM_BASE, llcm, "dimmnet1.llcm-bus", false);
    /* LLCM again, byte lanes swapped: host-written words without bswap. */
    dimmnet1_map_wide(sysmem, DN1_LLCM_HOST_ORDER_BASE, llcm,
                      "dimmnet1.llcm-host-order-bus", true);
    dimmnet1_map_wide(sysmem, DN1_WINDOW_BASE, window, "dimmnet1.window-bus",
                      false);
    dimmnet1_map_wide(sysmem, DN1_CHIP_SRAM_BASE, chip_sram,
                      "dimmnet1.chip-sram-bus", false);
    dimmnet1_map_wide(sysmem, DN1_CHIP_SRAM_HOST_ORDER_BASE, chip_sram,
                      "dimmnet1.chip-sram-host-order-bus", true);

    dev = qdev_new(TYPE_MARTINI);
    qdev_prop_set_uint32(dev, "node-id", m->node_id);
    object_property_set_link(OBJECT(dev), "hostmem", OBJECT(hostmem),
                             &error_fatal);
    object_property_set_link(OBJECT(dev), "llcm", OBJECT(llcm), &error_fatal);
    object_property_set_link(OBJECT(dev), "window", OBJECT(window),
                             &error_fatal);
    object_property_set_link(OBJECT(dev), "sram", OBJECT(chip_sram),
                             &error_fatal);
    qdev_prop_set_chr(dev, "hostbus", dimmnet1_chardev("hostbus",
                                                       m->hostbus_id));
    {
        const char *more[] = { m->hostbus1_id, m->hostbus2_id, m->hostbus3_id };

        for (unsigned i = 0; i < ARRAY_SIZE(more); i++) {
            g_autofree char *prop = g_strdup_printf("hostbus%u", i + 1);

            if (more[i]) {
                qdev_prop_set_chr(dev, prop, dimmnet1_chardev(prop, more[i]));
            }
        }
    }
    qdev_prop_set_uint32(dev, "host-ports", m->host_ports ? m->host_ports : 1);
    qdev_prop_set_chr(dev, "link", dimmnet1_chardev("link", m->link_id));
    if (m->pcap_id) {
        qdev_prop_set_string(dev, "pcap", m->pcap_id);
    }
    qdev_prop_set_bit(dev, "sync", m->sync);
    qdev_prop_set_bit(dev, "host-sync", m->host_sync);
    qdev_prop_set_bit(dev, "flash", drive_get(IF_PFLASH, 0, 0) != NULL);
    object_property_add_child(OBJECT(machine), "martini", OBJECT(dev));
    sbd = SYS_BUS_DEVICE(dev);
    sysbus_realize_and_unref(sbd, &error_fatal);
    sysbus_mmio_map(sbd, 0, DN1_REGS_BASE);
    sysbus_mmio_map(sbd, 1, DN1_RVATLB_BASE);
    sysbus_mmio_map(sbd, 2, DN1_PATLB_BASE);
    sysbus_mmio_map(sbd, 3, DN1_RX_PAYLOAD_HOST_ORDER_BASE);
    qdev_connect_gpio_out(dev, 0, cpu->env.irq[DN1_IRQ_MARTINI]);
    qdev_connect_gpio_out_named(dev, "cpu-restart", 0,
                                qemu_allocate_irq(dimmnet1_cpu_restart, m, 0));
    m->martini = MARTINI(dev);

    serial_mm_init(sysmem, DN1_UART_BASE, 0, cpu->env.irq[DN1_IRQ_UART],
                   115200, serial_hd(0), DEVICE_BIG_ENDIAN);
}

static void dimmnet1_get_node_id(Object *obj, Visitor *v, const char *name,
                                 void *opaque, Error **errp)
{
    visit_type_uint32(v, name, &DIMMNET1_MACHINE(obj)->node_id, errp);
}

static void dimmnet1_set_node_id(Object *obj, Visitor *v, const char *name,
                                 void *opaque, Error **errp)
{
    uint32_t value;

    if (!visit_type_uint32(v, name, &value, errp)) {
        return;
    }
    if (value > UINT16_MAX) {
        error_setg(errp, "node-id must be 0..65535");
        return;
    }
    DIMMNET1_MACHINE(obj)->node_id = value;
}

#define DIMMNET1_STR_PROP(field)                                            \
    static char *dimmnet1_get_##field(Object *obj, Error **errp)            \
    {                                                                       \
        return g_strdup(DIMMNET1_MACHINE(obj)->field##_id);                 \
    }                                                                       \
    static void dimmnet1_set_##field(Object *obj, const char *v,            \
                                     Error **errp)                          \
    {                                                                       \
        Dimmnet1MachineState *m = DIMMNET1_MACHINE(obj);                    \
        g_free(m->field##_id);                                              \
        m->field##_id = g_strdup(v);                                        \
    }

DIMMNET1_STR_PROP(hostmem)
DIMMNET1_STR_PROP(llcm)
DIMMNET1_STR_PROP(window)
DIMMNET1_STR_PROP(hostbus)
DIMMNET1_STR_PROP(hostbus1)
DIMMNET1_STR_PROP(hostbus2)
DIMMNET1_STR_PROP(hostbus3)
DIMMNET1_STR_PROP(link)
DIMMNET1_STR_PROP(pcap)

typedef struct Dimmnet1StrProp {
    const char *name;
    char *(*get)(Object *, Error **);
    void (*set)(Object *, const char *, Error **);
    const char *desc;
} Dimmnet1StrProp;

static const Dimmnet1StrProp dimmnet1_str_props[] = {
    { "hostmem", dimmnet1_get_hostmem, dimmnet1_set_hostmem,
      "Memory backend id for host receive memory (16 MiB)" },
    { "llcm", dimmnet1_get_llcm, dimmnet1_set_llcm,
      "Memory backend id for LLCM (64 KiB)" },
    { "window", dimmnet1_get_window, dimmnet1_set_window,
      "Memory backend id for BOTF window memory (4 KiB)" },
    { "hostbus", dimmnet1_get_hostbus, dimmnet1_set_hostbus,
      "Chardev id carrying host bus transactions (host port 0)" },
    { "hostbus1", dimmnet1_get_hostbus1, dimmnet1_set_hostbus1,
      "Chardev id of host port 1's host bus (host-ports >= 2)" },
    { "hostbus2", dimmnet1_get_hostbus2, dimmnet1_set_hostbus2,
      "Chardev id of host port 2's host bus (host-ports >= 3)" },
    { "hostbus3", dimmnet1_get_hostbus3, dimmnet1_set_hostbus3,
      "Chardev id of host port 3's host bus (host-ports = 4)" },
    { "link", dimmnet1_get_link, dimmnet1_set_link,
      "Chardev id of link port 0" },
    { "pcap", dimmnet1_get_pcap, dimmnet1_set_pcap,
      "File to write a pcap trace of link port 0 to (virtual-time stamps)" },
};

static bool dimmnet1_get_sync(Object *obj, Error **errp)
{
    return DIMMNET1_MACHINE(obj)->sync;
}

static void dimmnet1_set_sync(Object *obj, bool value, Error **errp)
{
    DIMMNET1_MACHINE(obj)->sync = value;
}

static bool dimmnet1_get_host_sync(Object *obj, Error **errp)
{
    return DIMMNET1_MACHINE(obj)->host_sync;
}

static void dimmnet1_set_host_sync(Object *obj, bool value, Error **errp)
{
    DIMMNET1_MACHINE(obj)->host_sync = value;
}

static void dimmnet1_get_host_ports(Object *obj, Visitor *v, const char *name,
                                    void *opaque, Error **errp)
{
    visit_type_uint32(v, name, &DIMMNET1_MACHINE(obj)->host_ports, errp);
}

static void dimmnet1_set_host_ports(Object *obj, Visitor *v, const char *name,
                                    void *opaque, Error **errp)
{
    uint32_t value;

    if (!visit_type_uint32(v, name, &value, errp)) {
        return;
    }
    if (value < 1 || value > DN1_HOST_PORTS_MAX) {
        error_setg(errp, "host-ports must be 1..%u", DN1_HOST_PORTS_MAX);
        return;
    }
    DIMMNET1_MACHINE(obj)->host_ports = value;
}

static void dimmnet1_class_init(ObjectClass *oc, void *data)
{
    MachineClass *mc = MACHINE_CLASS(oc);

    mc->desc = "DIMMnet-1 board (Martini NIC, 4Kc in place of its R3000)";
    mc->init = dimmnet1_init;
    mc->max_cpus = 1;
    mc->default_cpu_type = MIPS_CPU_TYPE_NAME("4Kc");
    mc->default_ram_size = DN1_LOCAL_SIZE;
    mc->default_ram_id = "dimmnet1.local";

    object_class_property_add(oc, "node-id", "uint32", dimmnet1_get_node_id,
                              dimmnet1_set_node_id, NULL, NULL);
    object_class_property_set_description(oc, "node-id",
                                          "This board's node number");
    object_class_property_add(oc, "host-ports", "uint32", dimmnet1_get_host_ports,
                              dimmnet1_set_host_ports, NULL, NULL);
    object_class_property_set_description(oc, "host-ports",
        "Host processes the board serves, each on its own host bus (1..4)");
    object_class_property_add_bool(oc, "sync", dimmnet1_get_sync,
                                   dimmnet1_set_sync);
    object_class_property_set_description(oc, "sync",
        "Timing: virtual time granted by the switch (use with -icount and -S)");
    object_class_property_add_bool(oc, "host-sync", dimmnet1_get_host_sync,
                                   dimmnet1_set_host_sync);
    object_class_property_set_description(oc, "host-sync",
        "Host requests take effect in virtual time (needs sync=on)");
    for (size_t i = 0; i < ARRAY_SIZE(dimmnet1_str_props); i++) {
        const Dimmnet1StrProp *p = &dimmnet1_str_props[i];

        object_class_property_add_str(oc, p->name, p->get, p->set);
        object_class_property_set_description(oc, p->name, p->desc);
    }
}

static const TypeInfo dimmnet1_machine_info = {
    .name = TYPE_DIMMNET1_MACHINE,
    .parent = TYPE_MACHINE,
    .instance_size = sizeof(Dimmnet1MachineState),
    .class_init = dimmnet1_class_init,
};

static void dimmnet1_machine_register_types(void)
{
    type_register_static(&dimmnet1_machine_info);
}

type_init(dimmnet1_machine_register_types)

/*
 * dimmnet-flash: make, check and flash DIMMnet-1 firmware images
 * (docs/firmware.md, "Images and flash").
 *
 *   dimmnet-flash pack --cpu 4kc|r3000 [--version X.Y.Z] [--build ID] [--digest]
 *                      [--size-report FILE] ELF IMAGE
 *   dimmnet-flash check [--cpu 4kc|r3000] IMAGE...
 *   dimmnet-flash create --loader LOADER.bin [--cpu 4kc|r3000] FLASH IMAGE [IMAGE2]
 *   dimmnet-flash write [--no-restart] [--timeout SEC] IMAGE
 *   dimmnet-flash info
 *   dimmnet-flash restart [--hard] [--timeout SEC]
 *
 * pack: an image from a linked firmware ELF, and its size report.
 *   --digest appends to the build id (8 characters at most then) the eight
 *   hex digits of the code's CRC-32, so that two images of different
 *   contents never carry the same id. The project's build packs with
 *   --build COMMIT- (7 characters of the commit, '-' a clean tree) or
 *   COMMIT+ (uncommitted changes, or no git) and --digest (build_note).
 * check: is each file an image this board (or --cpu) can boot; exit 1 if not.
 * create: a flash file for the board (-drive if=pflash): the boot loader in
 *   block 0, IMAGE committed in slot 0 (generation 1), IMAGE2 if given in
 *   slot 1 (generation 2, so the loader tries it first).
 * write (on a running board, under tools/dimmnet-cluster like any host
 *   program): checks IMAGE, writes it into the slot the running firmware
 *   did not come from, reads it back, commits it, restarts the NIC
 *   processor into it and waits until it is ready.
 * info: the running firmware and both slots of a running board.
 * restart: restart the NIC processor (the loader boots the newer good slot,
 *   e.g. after write --no-restart) and wait until the firmware is ready;
 *   --hard: without asking the running firmware, which hands nothing over
 *   (a cold start: docs/hardware.md section 10, "Restarts").
 * Exit status: 0 done; 1 refused or failed (the reason on stderr); 2 usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "dimmnet1/dn.h"
#include "dimmnet1/fw_image.h"
#include "image_pack.h"

#define MAX_FILE (16u << 20)   /* larger than anything a flash could hold */

static const char *prog = "dimmnet-flash";

static int usage(void)
{
    fprintf(stderr,
            "usage: %s pack --cpu 4kc|r3000 [--version X.Y.Z] [--build ID] [--digest]\n"
            "                        [--size-report FILE] ELF IMAGE\n"
            "       %s check [--cpu 4kc|r3000] IMAGE...\n"
            "       %s create --loader LOADER.bin [--cpu 4kc|r3000] FLASH IMAGE [IMAGE2]\n"
            "       %s write [--no-restart] [--timeout SEC] IMAGE\n"
            "       %s info\n"
            "       %s restart [--hard] [--timeout SEC]\n", prog, prog, prog, prog, prog, prog);
    return 2;
}

static void version_str(uint32_t v, char *buf, size_t len)
{
    snprintf(buf, len, "%u.%u.%u", v >> 16, (v >> 8) & 0xff, v & 0xff);
}

static int parse_cpu(const char *s, uint16_t *cpu)
{
    if (!strcmp(s, "4kc")) {
        *cpu = DN1_IMG_CPU_4KC;
    } else if (!strcmp(s, "r3000")) {
        *cpu = DN1_IMG_CPU_R3000;
    } else {
        fprintf(stderr, "%s: unknown CPU port '%s' (4kc or r3000)\n", prog, s);
        return -1;
    }
    return 0;
}

static int parse_version(const char *s, uint32_t *v)
{
    unsigned a, b, c;
    char end;

    if (sscanf(s, "%u.%u.%u%c", &a, &b, &c, &end) != 3 || a > 0xffff ||
        b > 0xff || c > 0xff) {
        fprintf(stderr, "%s: version '%s' is not X.Y.Z (X <= 65535, Y, Z <= 255)\n",
                prog, s);
        return -1;
    }
    *v = a << 16 | b << 8 | c;
    return 0;
}

/* The whole file, or NULL with the reason printed. */
static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    uint8_t *buf;

    if (!f) {
        fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
        return NULL;
    }
    if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || st.st_size > MAX_FILE) {
        const char *why = fstat(fileno(f), &st) ? strerror(errno)
                          : !S_ISREG(st.st_mode) ? "not a regular file"
                                                 : "larger than any flash";

        fprintf(stderr, "%s: %s: %s\n", prog, path, why);
        fclose(f);
        return NULL;
    }
    buf = malloc(st.st_size ? (size_t)st.st_size : 1);
    *len = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
    fclose(f);
    if (!buf || *len != (size_t)st.st_size) {
        fprintf(stderr, "%s: %s: cannot read\n", prog, path);
        free(buf);
        return NULL;
    }
    return buf;
}

static int write_file(const char *path, const void *p, size_t len)
{
    FILE *f = fopen(path, "wb");
    int bad;

    if (!f) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(errno));
        return -1;
    }
    bad = fwrite(p, 1, len, f) != len;
    bad |= fclose(f) != 0;
    if (bad) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(errno));
        remove(path);      /* no half-written image or flash file left */
        return -1;
    }
    return 0;
}

/* An image file checked for @cpu: its bytes, or NULL with the reason printed. */
static uint8_t *load_image(const char *path, uint16_t cpu, size_t *len,
                           struct dn1_img_info *info)
{
    uint8_t *img = read_file(path, len);
    enum dn1_img_check c;

    if (!img) {
        return NULL;
    }
    c = dn1_img_check(img, *len, cpu, info);
    if (c == DN1_IMG_OK && *len > DN1_SLOT_MAX_IMAGE) {
        fprintf(stderr, "%s: %s refused: larger than a flash slot (%zu > %u bytes)\n",
                prog, path, *len, DN1_SLOT_MAX_IMAGE);
        free(img);
        return NULL;
    }
    if (c != DN1_IMG_OK) {
        if (c == DN1_IMG_WRONG_CPU) {
            fprintf(stderr, "%s: %s refused: %s (%s, this board runs %s)\n", prog,
                    path, dn1_img_why(c), dn1_img_cpu_name(info->cpu),
                    dn1_img_cpu_name(cpu));
        } else if (c == DN1_IMG_WRONG_CONTRACT) {
            fprintf(stderr, "%s: %s refused: %s (%u, this board has %u)\n", prog,
                    path, dn1_img_why(c), info->contract,
                    DN1_CONTRACT_VERSION >> 16);
        } else {
            fprintf(stderr, "%s: %s refused: %s\n", prog, path, dn1_img_why(c));
        }
        free(img);
        return NULL;
    }
    return img;
}

/* What a build id of the project's build says (COMMIT, '-' clean or '+'
 * modified, the code's CRC-32 in hex: dimmnet-flash pack --digest), as
 * " [commit C, clean tree|modified tree, contents D]", with "contents
 * differ" when @crc (the image's code CRC, or NULL: unknown) is not D; ""
 * for any other id. */
static const char *build_note(const char *build, const uint32_t *crc, char *out, size_t n)
{
    unsigned d;
    char tail;

    out[0] = 0;
    if (strlen(build) != 16 || (build[7] != '-' && build[7] != '+') ||
        sscanf(build + 8, "%8x%c", &d, &tail) != 1 || strspn(build + 8, "0123456789abcdef") != 8) {
        return out;
    }
    snprintf(out, n, " [commit %.7s, %s tree, contents %.8s%s]", build,
             build[7] == '-' ? "clean" : "modified", build + 8,
             crc && *crc != d ? ": the code differs from them" : "");
    return out;
}

static int cmd_pack(int argc, char **argv)
{
    struct dn1_pack_opts o = { .cpu = 0, .version = 0, .build = "" };
    const char *report = NULL;
    static char digested[DN1_IMG_BUILD_LEN + 1];
    int digest = 0;
    struct dn1_packed out;
    char why[128], vs[16];
    uint8_t *elf;
    size_t len;
    int i;

    for (i = 0; i < argc && argv[i][0] == '-'; i += 2) {
        if (i + 1 >= argc) {
            return usage();
        }
        if (!strcmp(argv[i], "--cpu")) {
            if (parse_cpu(argv[i + 1], &o.cpu)) {
                return 2;
            }
        } else if (!strcmp(argv[i], "--version")) {
            if (parse_version(argv[i + 1], &o.version)) {
                return 2;
            }
        } else if (!strcmp(argv[i], "--build")) {
            o.build = argv[i + 1];
            if (strlen(o.build) > DN1_IMG_BUILD_LEN) {
                fprintf(stderr, "%s: build id longer than %u characters\n", prog,
                        DN1_IMG_BUILD_LEN);
                return 2;
            }
        } else if (!strcmp(argv[i], "--digest")) {
            digest = 1;
            i--;                /* a flag without a value */
        } else if (!strcmp(argv[i], "--size-report")) {
            report = argv[i + 1];
        } else {
            return usage();
        }
    }
    if (argc - i != 2 || !o.cpu) {
        return usage();
    }
    if (digest && strlen(o.build) > DN1_IMG_BUILD_LEN - 8) {
        fprintf(stderr, "%s: --digest: build id longer than %u characters\n", prog,
                DN1_IMG_BUILD_LEN - 8);
        return 2;
    }
    if (!(elf = read_file(argv[i], &len))) {
        return 1;
    }
    if (dn1_pack_elf(elf, len, &o, &out, why, sizeof(why))) {
        fprintf(stderr, "%s: %s: %s\n", prog, argv[i], why);
        free(elf);
        return 1;
    }
    free(elf);
    if (digest) {               /* the id names the contents too */
        snprintf(digested, sizeof(digested), "%s%08x", o.build,
                 (unsigned)dn1_get_be32(out.image + DN1_IMG_OFF_CRC));
        o.build = digested;
        dn1_img_header_put(out.image, o.cpu, dn1_get_be32(out.image + DN1_IMG_OFF_LOAD),
                           dn1_get_be32(out.image + DN1_IMG_OFF_ENTRY),
                           dn1_get_be32(out.image + DN1_IMG_OFF_SIZE), o.version, o.build);
    }
    /* What the loader would refuse is not written at all. */
    {
        struct dn1_img_info info;
        enum dn1_img_check c = dn1_img_check(out.image, out.bytes, o.cpu, &info);

        if (c != DN1_IMG_OK) {
            fprintf(stderr, "%s: %s: not packed: the image would be refused: %s\n",
                    prog, argv[i], dn1_img_why(c));
            free(out.image);
            return 1;
        }
    }
    if (write_file(argv[i + 1], out.image, out.bytes)) {
        free(out.image);
        return 1;
    }
    if (report) {
        FILE *f = fopen(report, "w");

        version_str(o.version, vs, sizeof(vs));
        if (!f) {
            fprintf(stderr, "%s: cannot write %s: %s\n", prog, report, strerror(errno));
            free(out.image);
            return 1;
        }
        fprintf(f, "image %s: firmware %s (%s), build %s\n", argv[i + 1], vs,
                dn1_img_cpu_name(o.cpu), o.build[0] ? o.build : "-");
        fprintf(f, "text    %8u\nrodata  %8u\ndata    %8u\nbss     %8u\n",
                out.text, out.rodata, out.data, out.bss);
        fprintf(f, "image   %8zu  (header %u + code %zu; slot holds %u)\n",
                out.bytes, DN1_IMG_HDR_SIZE, out.bytes - DN1_IMG_HDR_SIZE,
                DN1_SLOT_MAX_IMAGE);
        fprintf(f, "memory  %8u  (code, data and bss of %u bytes below the stacks)\n",
                (unsigned)(out.bytes - DN1_IMG_HDR_SIZE) + out.bss,
                DN1_IMG_LOAD_LIMIT - DN1_IMG_LOAD_MIN);
        fclose(f);
    }
    free(out.image);
    return 0;
}

static int cmd_check(int argc, char **argv)
{
    uint16_t cpu = DN1_IMG_CPU_BOARD;
    int i = 0, bad = 0;

    if (argc >= 2 && !strcmp(argv[0], "--cpu")) {
        if (parse_cpu(argv[1], &cpu)) {
            return 2;
        }
        i = 2;
    }
    if (i >= argc) {
        return usage();
    }
    for (; i < argc; i++) {
        struct dn1_img_info info;
        size_t len;
        char vs[16];
        uint8_t *img = load_image(argv[i], cpu, &len, &info);

        if (!img) {
            bad = 1;
            continue;
        }
        char note[96];

        version_str(info.version, vs, sizeof(vs));
        printf("%s: valid: firmware %s build %s%s (%s), %u code bytes at 0x%08x, "
               "entry 0x%08x\n", argv[i], vs, info.build[0] ? info.build : "-",
               build_note(info.build, &info.crc, note, sizeof(note)),
               dn1_img_cpu_name(info.cpu), info.size, info.load, info.entry);
        free(img);
    }
    return bad;
}

static int cmd_create(int argc, char **argv)
{
    uint16_t cpu = DN1_IMG_CPU_BOARD;
    const char *loader = NULL;
    uint8_t *flash, *ld;
    size_t len;
    int i;

    for (i = 0; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (!strcmp(argv[i], "--loader")) {
            loader = argv[i + 1];
        } else if (!strcmp(argv[i], "--cpu")) {
            if (parse_cpu(argv[i + 1], &cpu)) {
                return 2;
            }
        } else {
            return usage();
        }
    }
    if (!loader || argc - i < 2 || argc - i > 3) {
        return usage();
    }
    if (!(ld = read_file(loader, &len))) {
        return 1;
    }
    if (len == 0 || len > DN1_FLASH_LOADER_SIZE) {
        fprintf(stderr, "%s: %s: a boot loader must fit the first %u bytes of flash\n",
                prog, loader, DN1_FLASH_LOADER_SIZE);
        free(ld);
        return 1;
    }
    flash = malloc(DN1_FLASH_SIZE);
    if (!flash) {
        free(ld);
        return 1;
    }
    memset(flash, 0xff, DN1_FLASH_SIZE);   /* erased */
    memcpy(flash, ld, len);
    free(ld);
    for (unsigned s = 0; s < (unsigned)(argc - i - 1); s++) {   /* 1 or 2 images */
        struct dn1_img_info info;
        size_t ilen;
        uint8_t *img = load_image(argv[i + 1 + s], cpu, &ilen, &info);
        uint32_t base = dn1_flash_slot_offset(s);

        if (!img) {
            free(flash);
            return 1;
        }
        memcpy(flash + base + DN1_SLOT_IMAGE, img, ilen);
        dn1_slot_record_put(flash + base, s + 1, (uint32_t)ilen);
        free(img);
    }
    i = write_file(argv[i], flash, DN1_FLASH_SIZE);
    free(flash);
    return i ? 1 : 0;
}

static int open_node(dn_node **n)
{
    int rc = dn_open_env(n, 30000);

    if (rc != DN_OK) {
        fprintf(stderr, "%s: cannot open this node (run it under "
                "tools/dimmnet-cluster): %s\n", prog, dn_strerror(rc));
    }
    return rc;
}

static void print_running(dn_node *n)
{
    struct dn_boot_info bi;
    char vs[16];

    if (dn_boot_info(n, &bi) != DN_OK) {
        printf("node %u: running firmware unknown\n", dn_node_id(n));
        return;
    }
    version_str(bi.version, vs, sizeof(vs));
    if (bi.slot == DN_BOOT_SLOT_BIOS) {
        printf("node %u: running firmware %s loaded by the board (-bios, no flash)\n",
               dn_node_id(n), vs);
    } else {
        printf("node %u: running firmware %s from slot %u (generation %u)\n",
               dn_node_id(n), vs, bi.slot, bi.generation);
    }
}

static int cmd_info(int argc, char **argv)
{
    dn_node *n;
    int rc;

    (void)argv;
    if (argc) {
        return usage();
    }
    if (open_node(&n) != DN_OK) {
        return 1;
    }
    print_running(n);
    for (unsigned s = 0; s < DN1_FLASH_SLOTS; s++) {
        struct dn_flash_slot fs;
        char vs[16];

        rc = dn_flash_slot_read(n, s, &fs);
        if (rc == DN_ENOFLASH) {
            printf("node %u: no flash device\n", dn_node_id(n));
            break;
        }
        if (rc != DN_OK) {
            fprintf(stderr, "%s: reading slot %u: %s\n", prog, s, dn_strerror(rc));
            dn_close(n);
            return 1;
        }
        version_str(fs.version, vs, sizeof(vs));
        if (!fs.committed) {
            printf("node %u: slot %u: %s\n", dn_node_id(n), s, fs.why);
        } else {
            char note[96];

            printf("node %u: slot %u: generation %u, firmware %s build %s%s, %s\n",
                   dn_node_id(n), s, fs.generation, vs, fs.build[0] ? fs.build : "-",
                   build_note(fs.build, NULL, note, sizeof(note)),
                   fs.image_ok ? "valid" : fs.why);
        }
    }
    dn_close(n);
    return 0;
}

/* NIC_RESTART (@hard: a hard reset) and wait for the firmware it boots:
 * 0, or 1 with the reason. */
static int restart_node(dn_node *n, int timeout_s, int hard)
{
    int rc;

    printf("node %u: %s the NIC processor\n", dn_node_id(n),
           hard ? "resetting (hard, nothing handed over)" : "restarting");
    fflush(stdout);
    rc = hard ? dn_nic_reset(n, timeout_s * 1000) : dn_nic_restart(n, timeout_s * 1000);
    if (rc != DN_OK) {
        fprintf(stderr, "%s: node %u: firmware did not come up after the restart: %s\n",
                prog, dn_node_id(n), dn_strerror(rc));
        return 1;
    }
    print_running(n);
    return 0;
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmd_write(int argc, char **argv)
{
    struct dn1_img_info info;
    int restart = 1, timeout_s = 60, i, rc;
    unsigned slot = 0;
    char why[128], vs[16];
    double t0;
    uint8_t *img;
    size_t len;
    dn_node *n;

    for (i = 0; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--no-restart")) {
            restart = 0;
        } else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
            timeout_s = atoi(argv[++i]);
            if (timeout_s <= 0) {
                return usage();
            }
        } else {
            return usage();
        }
    }
    if (argc - i != 1) {
        return usage();
    }
    /* The image first: a bad one never reaches the board. */
    if (!(img = load_image(argv[i], DN1_IMG_CPU_BOARD, &len, &info))) {
        return 1;
    }
    if (open_node(&n) != DN_OK) {
        free(img);
        return 1;
    }
    print_running(n);
    version_str(info.version, vs, sizeof(vs));
    printf("node %u: writing %s (firmware %s build %s, %zu bytes)\n", dn_node_id(n),
           argv[i], vs, info.build[0] ? info.build : "-", len);
    fflush(stdout);
    t0 = now_s();
    rc = dn_flash_write(n, img, len, &slot, why, sizeof(why));
    free(img);
    if (rc != DN_OK) {
        fprintf(stderr, "%s: node %u: flashing failed: %s%s%s\n", prog, dn_node_id(n),
                dn_strerror(rc), why[0] ? ": " : "", why);
        dn_close(n);
        return 1;
    }
    printf("node %u: slot %u written, read back and committed in %.1f s (wall clock)\n",
           dn_node_id(n), slot, now_s() - t0);
    rc = restart ? restart_node(n, timeout_s, 0) : 0;
    dn_close(n);
    return rc;
}

static int cmd_restart(int argc, char **argv)
{
    int timeout_s = 60, hard = 0, rc;
    dn_node *n;

    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--hard")) {
            hard = 1;
        } else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
            timeout_s = atoi(argv[++i]);
        } else {
            return usage();
        }
    }
    if (timeout_s <= 0) {
        return usage();
    }
    if (open_node(&n) != DN_OK) {
        return 1;
    }
    print_running(n);
    rc = restart_node(n, timeout_s, hard);
    dn_close(n);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        return usage();
    }
    if (!strcmp(argv[1], "pack")) {
        return cmd_pack(argc - 2, argv + 2);
    }
    if (!strcmp(argv[1], "check")) {
        return cmd_check(argc - 2, argv + 2);
    }
    if (!strcmp(argv[1], "create")) {
        return cmd_create(argc - 2, argv + 2);
    }
    if (!strcmp(argv[1], "write")) {
        return cmd_write(argc - 2, argv + 2);
    }
    if (!strcmp(argv[1], "info")) {
        return cmd_info(argc - 2, argv + 2);
    }
    if (!strcmp(argv[1], "restart")) {
        return cmd_restart(argc - 2, argv + 2);
    }
    return usage();
}

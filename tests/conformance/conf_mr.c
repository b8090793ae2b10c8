/*
 * Memory registration as fabtests' fi_mr_test drives it (issue 36 item
 * 3): with the mr_mode the provider answers, fi_mr_reg and fi_close over
 * every access combination its remote bits allow and sizes from 1 byte to
 * 8 MiB (more than the card's pool: paged registrations), fi_mr_regv and
 * fi_mr_regattr of 8 MiB, and five rounds of registering 8 MiB, closing
 * it, and registering a new buffer malloc'd in place of the freed one.
 * Every call must answer 0, and a close must leave nothing behind: the
 * table's entries are all free again at the end (counted by registering
 * as many small buffers for remote access as the table has entries). Run
 * on one board (no switch: a close's MR_SYNC finds no link, so the sync
 * is owed, fabtests' fi_close answered -FI_EHOSTUNREACH there) and on two.
 *
 *   conf_mr
 */
#include "conf_util.h"

#define MAX_SIZE (8u << 20)

static struct fid_domain *domain;

static int access_combo(unsigned i, uint64_t bits)
{
    /* The subsets of @bits in the order fabtests' ft_alloc_bit_combo makes
     * them: i = 0 .. 2^popcount - 1. */
    uint64_t a = 0;
    unsigned k = 0;

    for (uint64_t b = 1; b; b <<= 1) {
        if (bits & b) {
            if (i & (1u << k)) {
                a |= b;
            }
            k++;
        }
    }
    return (int)a;
}

int main(void)
{
    struct fi_info *hints = fi_allocinfo(), *info = NULL;
    struct fid_fabric *fabric;
    struct fid_mr *mr;
    uint8_t *buf = malloc(MAX_SIZE);

    hints->caps = FI_MSG | FI_RMA;
    hints->mode = ~0ull;
    hints->domain_attr->mode = ~0ull;
    hints->domain_attr->mr_mode = ~(FI_MR_BASIC | FI_MR_SCALABLE | FI_MR_LOCAL);
    hints->fabric_attr->prov_name = strdup("dimmnet");
    MUST(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &info));
    MUST(fi_fabric(info->fabric_attr, &fabric, NULL));
    MUST(fi_domain(fabric, info, &domain, NULL));
    CHECK(buf != NULL);
    CHECK(info->domain_attr->mr_iov_limit >= 1);
    uint64_t remote = FI_REMOTE_READ | FI_REMOTE_WRITE;

    /* mr_reg: sizes 1 B .. 8 MiB (fabtests' list: 1, 2, 3, 4, 6, 8, 12, ...),
     * each with every access combination. */
    for (size_t size = 1; size <= MAX_SIZE; size = size < 4 ? size + 1
                                                  : (size & (size - 1)) ? size / 3 * 4
                                                                        : size / 2 * 3) {
        for (unsigned c = 0; c < 4; c++) {
            uint64_t access = (uint64_t)access_combo(c, remote);
            int rc = fi_mr_reg(domain, buf, size, access, 0, 0xC0DE, 0, &mr, NULL);

            CHECK_MSG(rc == 0, "fi_mr_reg(%zu bytes, access %#llx) = %d (%s)", size,
                      (unsigned long long)access, rc, fi_strerror(-rc));
            if (rc == 0) {
                EXPECT(fi_close(&mr->fid), 0);
            }
        }
    }
    /* mr_regv and mr_regattr: one iov of 8 MiB. */
    struct iovec iov = { buf, MAX_SIZE };
    EXPECT(fi_mr_regv(domain, &iov, 1, remote, 0, 0xC0DE, 0, &mr, NULL), 0);
    EXPECT(fi_close(&mr->fid), 0);
    struct fi_mr_attr attr = { .mr_iov = &iov, .iov_count = 1, .access = remote,
                               .requested_key = 0xC0DE, .iface = FI_HMEM_SYSTEM };
    EXPECT(fi_mr_regattr(domain, &attr, 0, &mr), 0);
    EXPECT(fi_close(&mr->fid), 0);
    /* mr_reg_free_then_alloc: the freed address is usually handed out again. */
    for (unsigned round = 0; round < 5; round++) {
        iov.iov_base = buf;
        EXPECT(fi_mr_regattr(domain, &attr, 0, &mr), 0);
        EXPECT(fi_close(&mr->fid), 0);
        uint8_t *next = malloc(MAX_SIZE);
        free(buf);
        buf = next;
        CHECK(buf != NULL);
    }
    /* Nothing left behind: the table's 32 entries all take a registration
     * for remote access again. */
    struct fid_mr *all[32];
    uint8_t *small = malloc(32 * 8192);
    unsigned got = 0;
    for (unsigned i = 0; i < 32; i++) {
        int rc = fi_mr_reg(domain, small + 8192 * i, 4096, remote, 0, 0xC0DE, 0, &all[i], NULL);
        CHECK_MSG(rc == 0, "registration %u of the table's 32: %d (%s)", i, rc,
                  fi_strerror(-rc));
        got += rc == 0;
        if (rc) {
            break;
        }
    }
    for (unsigned i = 0; i < got; i++) {
        EXPECT(fi_close(&all[i]->fid), 0);
    }
    EXPECT(fi_close(&domain->fid), 0);
    EXPECT(fi_close(&fabric->fid), 0);
    fi_freeinfo(info);
    fi_freeinfo(hints);
    free(buf);
    free(small);
    if (check_failures) {
        fprintf(stderr, "conf_mr: %d check(s) failed\n", check_failures);
        return 1;
    }
    printf("conf_mr: registrations 1 B..8 MiB x 4 access combinations, regv, regattr, "
           "free-then-alloc, 32 entries free again: ok\n");
    return 0;
}

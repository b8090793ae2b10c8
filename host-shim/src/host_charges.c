/*
 * The host instructions the model charges, per code path, read at dn_open
 * from the measured table (host-shim/host-charges.tab, installed as
 * PREFIX/share/dimmnet1/host-charges.tab; docs/hardware.md section 9,
 * "Host profile"). No figure lives in the code: bench/measure_charges.py
 * counts them with callgrind on the current sources and writes the table,
 * and a test fails when those sources change without a new count.
 *
 * The table: one row a line, `NAME INSNS [what it is]`, `#` to the end of a
 * line a comment. Where it is: DIMMNET_HOST_CHARGES (dimmnet-cluster sets
 * it), else the installed one, else the source tree's.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define ROW_NAME_MAX 40
#define ROWS_MAX     64

struct dn_charge_row {
    char name[ROW_NAME_MAX];
    uint64_t insns;
};

/* The shim's own rows, by enum dn_self_path. */
static const char *const self_rows[DN_SELF_PATHS] = {
    [DN_SELF_BARRIER] = "shim.barrier",
    [DN_SELF_XFER] = "shim.xfer",
    [DN_SELF_PACKET] = "shim.packet",
    [DN_SELF_TURN] = "shim.turn",
};

static const char *table_path(void)
{
    const char *env = getenv("DIMMNET_HOST_CHARGES");

    if (env && *env) {
        return env;
    }
#ifdef DN_HOST_CHARGES_INSTALLED
    FILE *f = fopen(DN_HOST_CHARGES_INSTALLED, "r");
    if (f) {
        fclose(f);
        return DN_HOST_CHARGES_INSTALLED;
    }
#endif
    return DN_HOST_CHARGES_SOURCE;
}

/* One line into @row; 0 when it holds none (blank, comment), -1 when it
 * is not a row. */
static int parse_row(char *line, struct dn_charge_row *row)
{
    char *end, *name, *num;

    line[strcspn(line, "#\n")] = '\0';
    name = strtok(line, " \t");
    if (!name) {
        return 0;
    }
    num = strtok(NULL, " \t");
    if (!num || strlen(name) >= ROW_NAME_MAX || !isdigit((unsigned char)num[0])) {
        return -1;
    }
    errno = 0;
    unsigned long long v = strtoull(num, &end, 10);
    if (errno || *end || v > 1000000000ull) {
        return -1;
    }
    strcpy(row->name, name);
    row->insns = v;
    return 1;
}

static void complain(const char *path, unsigned line, const char *why)
{
    if (line) {
        fprintf(stderr, "dimmnet1: host charges %s, line %u: %s\n", path, line, why);
    } else {
        fprintf(stderr, "dimmnet1: host charges %s: %s\n", path, why);
    }
}

int dn_host_charges_load(dn_node *n, int required)
{
    const char *path = table_path();
    struct dn_charge_row rows[ROWS_MAX], row;
    unsigned count = 0, line = 0;
    char buf[512];
    FILE *f = fopen(path, "r");

    if (!f) {
        if (required) {
            complain(path, 0, strerror(errno));
        }
        return required ? DN_EINVAL : DN_OK;
    }
    while (fgets(buf, sizeof(buf), f)) {
        int got = parse_row(buf, &row);
        line++;
        if (got < 0 || (got && count == ROWS_MAX)) {
            complain(path, line, got < 0 ? "not `NAME INSNS`" : "too many rows");
            fclose(f);
            return DN_EINVAL;
        }
        if (got) {
            rows[count++] = row;
        }
    }
    fclose(f);
    free(n->charges);
    n->charges = malloc(count * sizeof(*rows) + 1);
    if (!n->charges) {
        return DN_ENOMEM;
    }
    memcpy(n->charges, rows, count * sizeof(*rows));
    n->ncharges = count;
    for (unsigned i = 0; i < DN_SELF_PATHS; i++) {
        uint64_t v = 0;
        if (dn_host_insns(n, self_rows[i], &v) != DN_OK && required) {
            snprintf(buf, sizeof(buf), "no row %s", self_rows[i]);
            complain(path, 0, buf);
            return DN_EINVAL;
        }
        n->self_insns[i] = v;
    }
    return DN_OK;
}

int dn_host_insns(dn_node *n, const char *row, uint64_t *insns)
{
    if (!n || !row || !insns) {
        return DN_EINVAL;
    }
    for (unsigned i = 0; i < n->ncharges; i++) {
        if (!strcmp(n->charges[i].name, row)) {
            *insns = n->charges[i].insns;
            return DN_OK;
        }
    }
    *insns = 0;
    return DN_EINVAL;
}

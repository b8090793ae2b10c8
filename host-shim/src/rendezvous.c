/*
 * Launcher rendezvous: key/value files in the run directory the launcher
 * made (DIMMNET_RUN_DIR), or in DIMMNET_KV_DIR when the boards are on
 * several hosts (a directory every host sees). Written to a temporary name
 * and renamed, so a reader sees a whole value or none.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "internal.h"

static int key_path(const char *key, char *path, size_t size, const char *suffix)
{
    const char *dir = getenv("DIMMNET_KV_DIR");

    if (!dir || !*dir) {
        dir = getenv("DIMMNET_RUN_DIR");
    }
    if (!dir || !*dir || !key || !*key || strchr(key, '/') || key[0] == '.') {
        return DN_EINVAL;
    }
    int k = snprintf(path, size, "%s/kv.%s%s", dir, key, suffix);
    return k > 0 && (size_t)k < size ? DN_OK : DN_EINVAL;
}

int dn_publish(const char *key, const char *value)
{
    char path[4096], tmp[4096];
    FILE *f;

    if (!value || key_path(key, path, sizeof(path), "") ||
        key_path(key, tmp, sizeof(tmp), ".tmp")) {
        return DN_EINVAL;
    }
    f = fopen(tmp, "w");
    if (!f) {
        return DN_EIO;
    }
    int ok = fputs(value, f) >= 0;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return DN_EIO;
    }
    return DN_OK;
}

#define RDV_SYNC_PATIENCE_MS 5000

int dn_lookup(const char *key, char *value, size_t size, int timeout_ms)
{
    char path[4096];
    int64_t started = dn_now_ms(), deadline = started + timeout_ms;

    if (!value || size == 0 || timeout_ms < 0 ||
        key_path(key, path, sizeof(path), "")) {
        return DN_EINVAL;
    }
    for (;;) {
        FILE *f = fopen(path, "r");
        if (f) {
            size_t k = fread(value, 1, size - 1, f);
            int complete = feof(f);
            fclose(f);
            if (!complete) {
                return DN_ERANGE;   /* value longer than the buffer */
            }
            value[k] = '\0';
            return DN_OK;
        }
        if (errno != ENOENT) {
            return DN_EIO;
        }
        if (dn_now_ms() >= deadline) {
            return DN_ETIMEDOUT;
        }
        /* Under host sync our board waits for us, and every board for it:
         * a peer that still needs virtual time to reach this rendezvous
         * (set-up on many boards) would wait forever. After a while, let
         * our board's time pass while we wait (modeled still; the point
         * this wait ends at is then no longer deterministic). */
        if (dn_sync_waiter && dn_now_ms() >= started + RDV_SYNC_PATIENCE_MS) {
            int rc = dn_idle(dn_sync_waiter);
            if (rc != DN_OK) {
                return rc;
            }
            continue;
        }
        struct timespec ts = { 0, 10 * 1000000L };
        nanosleep(&ts, NULL);
    }
}

int dn_rendezvous(const char *what, int timeout_ms)
{
    const char *id = getenv("DIMMNET_NODE_ID"), *nodes = getenv("DIMMNET_NODES");
    char key[256], v[8];
    int rc;

    if (!what || !id || !nodes || strlen(what) > 200) {
        return DN_EINVAL;
    }
    snprintf(key, sizeof(key), "%s.%s", what, id);
    if ((rc = dn_publish(key, "1")) != DN_OK) {
        return rc;
    }
    for (unsigned long i = 0, n = strtoul(nodes, NULL, 10); i < n; i++) {
        snprintf(key, sizeof(key), "%s.%lu", what, i);
        if ((rc = dn_lookup(key, v, sizeof(v), timeout_ms)) != DN_OK) {
            return rc;
        }
    }
    return DN_OK;
}

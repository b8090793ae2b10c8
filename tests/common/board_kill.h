/*
 * Take a board away mid-run, as its tests do: SIGKILL to its QEMU, whose
 * process id the launcher writes to DIMMNET_RUN_DIR/nodeN.pid, then wait
 * until it is gone (exited, or a zombie its launcher has not reaped yet).
 */
#ifndef TESTS_BOARD_KILL_H
#define TESTS_BOARD_KILL_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* 0 once board @node's QEMU is gone; -1 (and why, on stderr) if it could
 * not be killed. */
static inline int board_kill(unsigned node)
{
    const char *dir = getenv("DIMMNET_RUN_DIR");
    char path[512];
    FILE *f;
    int pid = 0;

    snprintf(path, sizeof(path), "%s/node%u.pid", dir ? dir : ".", node);
    f = fopen(path, "r");
    if (!f || fscanf(f, "%d", &pid) != 1 || pid <= 1 || kill(pid, SIGKILL) != 0) {
        fprintf(stderr, "cannot kill board %u (%s)\n", node, path);
        if (f) {
            fclose(f);
        }
        return -1;
    }
    fclose(f);
    for (int i = 0; i < 500 && kill(pid, 0) == 0; i++) {
        char st = 0;

        snprintf(path, sizeof(path), "/proc/%d/stat", pid);
        f = fopen(path, "r");
        if (!f || fscanf(f, "%*d %*s %c", &st) != 1 || st == 'Z') {
            if (f) {
                fclose(f);
            }
            break;
        }
        fclose(f);
        usleep(10000);
    }
    return 0;
}

#endif

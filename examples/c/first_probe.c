/*
 * first_probe.c: what an app pays to start using the tables: the time to
 * open them, the time of its first lookup (and of a second one), and the
 * process's resident memory before and after, from /proc/self/status.
 *
 * Usage: first_probe TABLE_DIR [GAME [POSITION]]
 *   GAME      default cannon-chess; POSITION default its start position
 *
 * Build as examples/c/play.c.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qibase.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* A field of /proc/self/status in KiB (VmRSS, VmHWM), -1 if unknown. */
static long status_kib(const char *field) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long kib = -1;
    size_t n = strlen(field);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, field, n) == 0 && line[n] == ':') {
            kib = strtol(line + n + 1, NULL, 10);
            break;
        }
    }
    fclose(f);
    return kib;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s TABLE_DIR [GAME [POSITION]]\n", argv[0]);
        return 2;
    }
    const char *game = argc > 2 ? argv[2] : "cannon-chess";
    char pos[256];
    if (argc > 3) {
        snprintf(pos, sizeof pos, "%s", argv[3]);
    } else if (qb_start_position(game, pos, sizeof pos, NULL) != QB_OK) {
        fprintf(stderr, "start position: %s\n", qb_last_error());
        return 1;
    }
    long rss0 = status_kib("VmRSS");
    double t0 = now_ms();
    qb_tablebase *tb = NULL;
    if (qb_open(argv[1], game, &tb) != QB_OK) {
        fprintf(stderr, "open: %s\n", qb_last_error());
        return 1;
    }
    double t1 = now_ms();
    long rss1 = status_kib("VmRSS");
    qb_value v;
    if (qb_probe(tb, pos, &v) != QB_OK) {
        fprintf(stderr, "probe: %s\n", qb_last_error());
        return 1;
    }
    double t2 = now_ms();
    /* A second lookup of another position: the first one's block cache
     * and page faults are paid. */
    qb_move moves[64];
    size_t count = 0;
    if (qb_moves(tb, pos, moves, 64, &count) != QB_OK) {
        fprintf(stderr, "moves: %s\n", qb_last_error());
        return 1;
    }
    double t3 = now_ms();
    long rss2 = status_kib("VmRSS");
    printf("open %.3f ms; first probe %.3f ms (wdl %d, remoteness %d); "
           "all %zu moves valued %.3f ms\n",
           t1 - t0, t2 - t1, v.wdl, v.remoteness, count, t3 - t2);
    printf("resident KiB: %ld before open, %ld after open, %ld after the lookups "
           "(peak %ld)\n",
           rss0, rss1, rss2, status_kib("VmHWM"));
    qb_close(tb);
    return 0;
}

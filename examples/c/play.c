/*
 * play.c: a game of cannon chess against perfect play, from the compact
 * tables, through the qibase C library. X plays at the "easy" level (a
 * stand-in for the app's user), O perfectly; each move is printed with
 * its exact value.
 *
 * Usage: play TABLE_DIR [GAME [POSITION]]
 *   TABLE_DIR  made by `qibase solve cannon-chess --dir FAST` and
 *              `qibase pack cannon-chess --dir FAST --out TABLE_DIR`
 *              (or FAST itself: the fast tables work as well)
 *   GAME       default cannon-chess (any game or variant string)
 *   POSITION   default the game's start position
 *
 * Build (see docs/embedding.md):
 *   cc -std=c99 -I crates/qibase-c/include examples/c/play.c \
 *      target/release/libqibase_c.a -lpthread -ldl -lm -o play
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qibase.h"

/* Print the library's message for a failed call and exit. */
static void fail(const char *what) {
    fprintf(stderr, "%s: %s\n", what, qb_last_error());
    exit(1);
}

static void show(qb_value v, char *out, size_t len) {
    if (v.wdl == 0) {
        snprintf(out, len, "draw");
    } else {
        snprintf(out, len, "%s in %d", v.wdl > 0 ? "win" : "loss", v.remoteness);
    }
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s TABLE_DIR [GAME [POSITION]]\n", argv[0]);
        return 2;
    }
    const char *game = argc > 2 ? argv[2] : "cannon-chess";
    qb_tablebase *tb = NULL;
    if (qb_open(argv[1], game, &tb) != QB_OK) fail("open");

    /* Positions fit in 256 bytes for every game; a longer one would get
     * QB_ERR_BUFFER_TOO_SMALL and the size it needs. */
    char pos[256];
    if (argc > 3) {
        snprintf(pos, sizeof pos, "%s", argv[3]);
    } else if (qb_start_position(game, pos, sizeof pos, NULL) != QB_OK) {
        fail("start position");
    }

    const int max_plies = 200; /* endless play is a draw: stop somewhere */
    for (int ply = 0; ply < max_plies; ply++) {
        int over = 0;
        qb_value v;
        char reason[256];
        if (qb_game_end(game, pos, &over, &v, reason, sizeof reason, NULL) != QB_OK)
            fail("game end");
        if (over) {
            char words[32];
            show(v, words, sizeof words);
            printf("game over after %d plies: %s for the side to move (%s)\n", ply,
                   words, reason);
            qb_close(tb);
            return 0;
        }
        if (qb_probe(tb, pos, &v) != QB_OK) fail("probe");
        /* X (moving first from the start) is the user, O the program. */
        int user = pos[strlen(pos) - 1] == 'X';
        char mv[QB_MOVE_MAX];
        if (qb_best_move(tb, pos, user ? "easy" : "perfect", 1000 + (uint64_t)ply, mv,
                         sizeof mv, NULL) != QB_OK)
            fail("best move");
        char words[32];
        show(v, words, sizeof words);
        printf("%3d. %s  %-8s (%s, %s to move)\n", ply + 1, pos, mv, words,
               user ? "user" : "program");
        char next[256];
        if (qb_apply(game, pos, mv, next, sizeof next, NULL) != QB_OK) fail("apply");
        memcpy(pos, next, sizeof pos);
    }
    char line[4096];
    if (qb_pv(tb, pos, line, sizeof line, NULL) != QB_OK) fail("principal variation");
    printf("game over: stopped after %d plies (a draw goes on forever); best line: %s\n",
           max_plies, line);
    qb_close(tb);
    return 0;
}

/*
 * Tests of every entry point of the qibase C library and of every error
 * path: bad and illegal positions, illegal moves, an unknown game, a
 * missing, damaged or foreign table, too-small buffers, NULL pointers,
 * bytes that are not UTF-8, and lookups from several threads at once.
 *
 * Usage: test_api GOOD DAMAGED FOREIGN EMPTY
 *   GOOD     a tablebase directory with the compact tables of
 *            cannon-chess up to two pieces a side
 *   DAMAGED  the same with one file damaged
 *   FOREIGN  the same with one file of another game in place of one
 *   EMPTY    an existing directory without tables
 * Exits 0 when every check passes, 1 otherwise (each failure printed).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qibase.h"

static int failures = 0;
static int checks = 0;

#define CHECK(cond)                                                          \
    do {                                                                     \
        checks++;                                                            \
        if (!(cond)) {                                                       \
            failures++;                                                      \
            fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n",    \
                    __FILE__, __LINE__, #cond, qb_last_error());             \
        }                                                                    \
    } while (0)

/* A status, and a message in qb_last_error() exactly when it is not OK. */
#define CHECK_STATUS(call, want)                                             \
    do {                                                                     \
        qb_status got_ = (call);                                             \
        checks++;                                                            \
        if (got_ != (want)) {                                                \
            failures++;                                                      \
            fprintf(stderr, "%s:%d: %s returned %d, expected %d (%s)\n",     \
                    __FILE__, __LINE__, #call, (int)got_, (int)(want),       \
                    qb_last_error());                                        \
        } else {                                                             \
            CHECK(((want) == QB_OK) == (qb_last_error()[0] == '\0'));        \
        }                                                                    \
    } while (0)

static const char *GAME = "cannon-chess";
/* Two pieces a side (in the solved subset), X to move. */
static const char *P22 = "OO../..../..../..../XX.. X";
/* One piece a side: a draw by rule 3. */
static const char *P11 = "O.../..../..../..../X... X";

static int same_value(qb_value a, qb_value b) {
    return a.wdl == b.wdl && a.remoteness == b.remoteness;
}

/* The value of a move to a position of value v for the opponent. */
static qb_value move_to(qb_value v) {
    qb_value m;
    m.wdl = -v.wdl;
    m.remoteness = v.wdl == 0 ? -1 : v.remoteness + 1;
    return m;
}

static void test_version_and_games(void) {
    CHECK(strlen(qb_version()) > 0);
    size_t needed = 0;
    CHECK_STATUS(qb_games(NULL, 0, &needed), QB_ERR_BUFFER_TOO_SMALL);
    CHECK(needed > 1);
    char small[4];
    size_t needed2 = 0;
    CHECK_STATUS(qb_games(small, sizeof small, &needed2), QB_ERR_BUFFER_TOO_SMALL);
    CHECK(needed2 == needed);
    char *buf = malloc(needed);
    CHECK_STATUS(qb_games(buf, needed, NULL), QB_OK);
    CHECK(strlen(buf) + 1 == needed);
    CHECK(strstr(buf, "cannon-chess\n") != NULL);
    CHECK(strstr(buf, "weiming\n") != NULL);
    free(buf);
    CHECK_STATUS(qb_games(NULL, 10, &needed), QB_ERR_NULL_ARGUMENT);
}

static void test_variants_and_start(void) {
    char buf[4096];
    CHECK_STATUS(qb_variants(GAME, buf, sizeof buf, NULL), QB_OK);
    CHECK(strstr(buf, "board=") != NULL);
    CHECK_STATUS(qb_variants("weiming", buf, sizeof buf, NULL), QB_OK);
    CHECK(buf[0] == '\0');
    CHECK_STATUS(qb_variants("chess", buf, sizeof buf, NULL), QB_ERR_UNKNOWN_GAME);
    CHECK(strstr(qb_last_error(), "chess") != NULL);
    CHECK_STATUS(qb_variants(NULL, buf, sizeof buf, NULL), QB_ERR_NULL_ARGUMENT);
    CHECK_STATUS(qb_variants("cannon-chess:nonsense=1", buf, sizeof buf, NULL),
                 QB_ERR_UNKNOWN_GAME);

    char start[64];
    CHECK_STATUS(qb_start_position(GAME, start, sizeof start, NULL), QB_OK);
    CHECK(strcmp(start, "OOOO/O..O/..../X..X/XXXX X") == 0);
    CHECK_STATUS(qb_start_position("\xff\xfe", start, sizeof start, NULL),
                 QB_ERR_BAD_ARGUMENT);
    size_t needed = 0;
    CHECK_STATUS(qb_start_position(GAME, start, 5, &needed), QB_ERR_BUFFER_TOO_SMALL);
    CHECK(needed == strlen("OOOO/O..O/..../X..X/XXXX X") + 1);
    CHECK_STATUS(qb_start_position(GAME, NULL, 0, &needed), QB_ERR_BUFFER_TOO_SMALL);
}

static void test_apply_and_game_end(void) {
    char buf[64];
    CHECK_STATUS(qb_apply(GAME, P22, "a1-a2", buf, sizeof buf, NULL), QB_OK);
    CHECK(strcmp(buf, "OO../..../..../X.../.X.. O") == 0);
    CHECK_STATUS(qb_apply(GAME, P22, "a1-a4", buf, sizeof buf, NULL), QB_ERR_ILLEGAL_MOVE);
    CHECK_STATUS(qb_apply(GAME, P22, "zz", buf, sizeof buf, NULL), QB_ERR_ILLEGAL_MOVE);
    CHECK_STATUS(qb_apply(GAME, P11, "a1-a2", buf, sizeof buf, NULL), QB_ERR_ILLEGAL_MOVE);
    CHECK(strstr(qb_last_error(), "over") != NULL);
    CHECK_STATUS(qb_apply(GAME, "nonsense", "a1-a2", buf, sizeof buf, NULL),
                 QB_ERR_BAD_POSITION);
    CHECK_STATUS(qb_apply(GAME, "XXXX/XXX./..../..../.... X", "a1-a2", buf, sizeof buf, NULL),
                 QB_ERR_ILLEGAL_POSITION);
    CHECK_STATUS(qb_apply(GAME, P22, NULL, buf, sizeof buf, NULL), QB_ERR_NULL_ARGUMENT);
    CHECK_STATUS(qb_apply(GAME, NULL, "a1-a2", buf, sizeof buf, NULL), QB_ERR_NULL_ARGUMENT);
    CHECK_STATUS(qb_apply("nope", P22, "a1-a2", buf, sizeof buf, NULL), QB_ERR_UNKNOWN_GAME);
    size_t needed = 0;
    CHECK_STATUS(qb_apply(GAME, P22, "a1-a2", buf, 3, &needed), QB_ERR_BUFFER_TOO_SMALL);
    CHECK(needed == strlen("OO../..../..../X.../.X.. O") + 1);

    int over = -1;
    qb_value v = {9, 9};
    char reason[128];
    CHECK_STATUS(qb_game_end(GAME, P22, &over, &v, reason, sizeof reason, NULL), QB_OK);
    CHECK(over == 0 && v.wdl == 9);
    CHECK_STATUS(qb_game_end(GAME, P11, &over, &v, reason, sizeof reason, NULL), QB_OK);
    CHECK(over == 1 && v.wdl == 0 && v.remoteness == -1 && strlen(reason) > 0);
    CHECK_STATUS(qb_game_end(GAME, P11, &over, &v, NULL, 0, NULL), QB_OK);
    CHECK(over == 1);
    CHECK_STATUS(qb_game_end(GAME, P11, &over, &v, reason, 2, &needed), QB_ERR_BUFFER_TOO_SMALL);
    CHECK(needed == strlen(reason) + 1);
    CHECK_STATUS(qb_game_end(GAME, P11, NULL, &v, NULL, 0, NULL), QB_ERR_NULL_ARGUMENT);
    CHECK_STATUS(qb_game_end(GAME, P11, &over, NULL, NULL, 0, NULL), QB_ERR_NULL_ARGUMENT);
    CHECK_STATUS(qb_game_end(GAME, "X", &over, &v, NULL, 0, NULL), QB_ERR_BAD_POSITION);
}

static void test_open(const char *good, const char *damaged, const char *foreign,
                      const char *empty) {
    qb_tablebase *tb = (qb_tablebase *)&failures; /* must be reset to NULL */
    CHECK_STATUS(qb_open("/nonexistent/qibase-tables", GAME, &tb), QB_ERR_NOT_FOUND);
    CHECK(tb == NULL);
    CHECK_STATUS(qb_open(empty, GAME, &tb), QB_ERR_MISSING_TABLE);
    CHECK(tb == NULL);
    CHECK_STATUS(qb_open(damaged, GAME, &tb), QB_ERR_DAMAGED_TABLE);
    CHECK(tb == NULL);
    CHECK_STATUS(qb_open(foreign, GAME, &tb), QB_ERR_FOREIGN_TABLE);
    CHECK(tb == NULL);
    CHECK_STATUS(qb_open(good, "go", &tb), QB_ERR_UNKNOWN_GAME);
    CHECK_STATUS(qb_open(good, GAME, NULL), QB_ERR_NULL_ARGUMENT);
    CHECK_STATUS(qb_open(NULL, GAME, &tb), QB_ERR_NULL_ARGUMENT);
    CHECK_STATUS(qb_open(good, NULL, &tb), QB_ERR_NULL_ARGUMENT);
    /* The tables of another game are not there. */
    CHECK_STATUS(qb_open(good, "two-cannons", &tb), QB_ERR_MISSING_TABLE);
    qb_close(NULL);
}

static void test_probe_and_moves(qb_tablebase *tb) {
    qb_value v;
    CHECK_STATUS(qb_probe(tb, P22, &v), QB_OK);
    CHECK(v.wdl >= -1 && v.wdl <= 1);
    CHECK((v.wdl == 0) == (v.remoteness == -1));
    char start[64];
    CHECK_STATUS(qb_start_position(GAME, start, sizeof start, NULL), QB_OK);
    CHECK_STATUS(qb_probe(tb, start, &v), QB_ERR_MISSING_TABLE);
    CHECK(strstr(qb_last_error(), "not solved") != NULL);
    CHECK_STATUS(qb_probe(tb, "OO../..../XX.. X", &v), QB_ERR_BAD_POSITION);
    CHECK_STATUS(qb_probe(NULL, P22, &v), QB_ERR_NULL_ARGUMENT);
    CHECK_STATUS(qb_probe(tb, NULL, &v), QB_ERR_NULL_ARGUMENT);
    CHECK_STATUS(qb_probe(tb, P22, NULL), QB_ERR_NULL_ARGUMENT);

    qb_value pv;
    CHECK_STATUS(qb_probe(tb, P22, &pv), QB_OK);
    size_t count = 0;
    CHECK_STATUS(qb_moves(tb, P22, NULL, 0, &count), QB_ERR_BUFFER_TOO_SMALL);
    CHECK(count > 1);
    qb_move one[1];
    size_t count2 = 0;
    CHECK_STATUS(qb_moves(tb, P22, one, 1, &count2), QB_ERR_BUFFER_TOO_SMALL);
    CHECK(count2 == count);
    qb_move moves[64];
    CHECK_STATUS(qb_moves(tb, P22, moves, 64, &count2), QB_OK);
    CHECK(count2 == count);
    CHECK(same_value(moves[0].value, pv));
    for (size_t i = 0; i < count; i++) {
        char after[64];
        CHECK_STATUS(qb_apply(GAME, P22, moves[i].text, after, sizeof after, NULL), QB_OK);
        int over = 0;
        qb_value av;
        CHECK_STATUS(qb_game_end(GAME, after, &over, &av, NULL, 0, NULL), QB_OK);
        if (!over) {
            CHECK_STATUS(qb_probe(tb, after, &av), QB_OK);
        }
        CHECK(same_value(moves[i].value, move_to(av)));
    }
    CHECK_STATUS(qb_moves(tb, P11, moves, 64, &count), QB_OK);
    CHECK(count == 0);
    CHECK_STATUS(qb_moves(tb, P22, moves, 64, NULL), QB_ERR_NULL_ARGUMENT);
    CHECK_STATUS(qb_moves(tb, P22, NULL, 5, &count), QB_ERR_NULL_ARGUMENT);
    CHECK_STATUS(qb_moves(tb, "nonsense", moves, 64, &count), QB_ERR_BAD_POSITION);
}

static void test_best_move_and_pv(qb_tablebase *tb) {
    qb_move moves[64];
    size_t count = 0;
    CHECK_STATUS(qb_moves(tb, P22, moves, 64, &count), QB_OK);
    char best[QB_MOVE_MAX];
    CHECK_STATUS(qb_best_move(tb, P22, "perfect", 1, best, sizeof best, NULL), QB_OK);
    int found = 0;
    for (size_t i = 0; i < count; i++) {
        if (strcmp(moves[i].text, best) == 0) {
            found = 1;
            CHECK(same_value(moves[i].value, moves[0].value));
        }
    }
    CHECK(found);
    char a[QB_MOVE_MAX], b[QB_MOVE_MAX];
    CHECK_STATUS(qb_best_move(tb, P22, "easy", 42, a, sizeof a, NULL), QB_OK);
    CHECK_STATUS(qb_best_move(tb, P22, "easy", 42, b, sizeof b, NULL), QB_OK);
    CHECK(strcmp(a, b) == 0);
    CHECK_STATUS(qb_best_move(tb, P22, "insane", 1, a, sizeof a, NULL), QB_ERR_BAD_ARGUMENT);
    CHECK_STATUS(qb_best_move(tb, P22, NULL, 1, a, sizeof a, NULL), QB_ERR_NULL_ARGUMENT);
    CHECK_STATUS(qb_best_move(tb, P11, "perfect", 1, a, sizeof a, NULL), QB_OK);
    CHECK(a[0] == '\0');
    size_t needed = 0;
    CHECK_STATUS(qb_best_move(tb, P22, "perfect", 1, a, 1, &needed), QB_ERR_BUFFER_TOO_SMALL);
    CHECK(needed == strlen(best) + 1);

    qb_value v;
    CHECK_STATUS(qb_probe(tb, P22, &v), QB_OK);
    CHECK_STATUS(qb_pv(tb, P22, NULL, 0, &needed), QB_ERR_BUFFER_TOO_SMALL);
    char *line = malloc(needed);
    CHECK_STATUS(qb_pv(tb, P22, line, needed, NULL), QB_OK);
    /* The line starts with a best move and, for a decided position, has
     * exactly the remoteness in plies. */
    CHECK(strncmp(line, moves[0].text, strlen(moves[0].text)) == 0);
    size_t plies = line[0] ? 1 : 0;
    for (const char *c = line; *c; c++) plies += *c == ' ';
    if (v.wdl != 0) CHECK(plies == (size_t)v.remoteness);
    free(line);
    CHECK_STATUS(qb_pv(tb, P11, a, sizeof a, NULL), QB_OK);
    CHECK(a[0] == '\0');
    CHECK_STATUS(qb_pv(NULL, P22, a, sizeof a, NULL), QB_ERR_NULL_ARGUMENT);
}

/* Threads probing one handle at once agree with one thread. */
struct job {
    qb_tablebase *tb;
    const char *positions[8];
    qb_value want[8];
    int bad;
};

static void *prober(void *arg) {
    struct job *j = arg;
    for (int round = 0; round < 200; round++) {
        for (int i = 0; i < 8; i++) {
            qb_value v;
            if (qb_probe(j->tb, j->positions[i], &v) != QB_OK || !same_value(v, j->want[i])) {
                j->bad++;
            }
        }
    }
    return NULL;
}

static void test_threads(qb_tablebase *tb) {
    static char after[8][64];
    qb_move moves[8];
    size_t count = 0;
    qb_status s = qb_moves(tb, P22, moves, 8, &count);
    CHECK(s == QB_OK || s == QB_ERR_BUFFER_TOO_SMALL);
    size_t n = count < 8 ? count : 8;
    if (n == 0) return;
    if (s == QB_ERR_BUFFER_TOO_SMALL) {
        qb_move all[64];
        CHECK_STATUS(qb_moves(tb, P22, all, 64, &count), QB_OK);
        memcpy(moves, all, sizeof moves);
    }
    struct job jobs[4];
    for (size_t i = 0; i < 8; i++) {
        CHECK_STATUS(qb_apply(GAME, P22, moves[i % n].text, after[i], sizeof after[i], NULL),
                     QB_OK);
    }
    pthread_t threads[4];
    for (int t = 0; t < 4; t++) {
        jobs[t].tb = tb;
        jobs[t].bad = 0;
        for (int i = 0; i < 8; i++) {
            jobs[t].positions[i] = after[i];
            CHECK_STATUS(qb_probe(tb, after[i], &jobs[t].want[i]), QB_OK);
        }
        CHECK(pthread_create(&threads[t], NULL, prober, &jobs[t]) == 0);
    }
    for (int t = 0; t < 4; t++) {
        pthread_join(threads[t], NULL);
        CHECK(jobs[t].bad == 0);
    }
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s GOOD DAMAGED FOREIGN EMPTY\n", argv[0]);
        return 2;
    }
    test_version_and_games();
    test_variants_and_start();
    test_apply_and_game_end();
    test_open(argv[1], argv[2], argv[3], argv[4]);
    qb_tablebase *tb = NULL;
    CHECK_STATUS(qb_open(argv[1], GAME, &tb), QB_OK);
    if (tb != NULL) {
        test_probe_and_moves(tb);
        test_best_move_and_pv(tb);
        test_threads(tb);
        qb_close(tb);
    }
    printf("%d checks, %d failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}

/* Walks random games through the C API and prints what it answers, one line a
 * position, for scripts/c-check.sh to compare with the command line's answers:
 *
 *   POSITION|RESULT PLIES|WDL|BITS_RESULT BITS_PLIES|MOVE=RESULT PLIES,...
 *
 * and checks the error paths on the way. Usage: check DIR START GAMES SEED */
#include "morris.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *READING[24] = {"a7", "d7", "g7", "b6", "d6", "f6", "c5", "d5", "e5", "a4", "b4", "c4",
                                  "e4", "f4", "g4", "c3", "d3", "e3", "b2", "d2", "f2", "a1", "d1", "g1"};

static int failures = 0;

#define EXPECT(cond, ...)                        \
    do {                                         \
        if (!(cond)) {                           \
            fprintf(stderr, "check.c: " __VA_ARGS__); \
            fprintf(stderr, "\n");               \
            failures++;                          \
        }                                        \
    } while (0)

static const char *word(MorrisResult r) { return r == MORRIS_RESULT_WIN ? "win" : r == MORRIS_RESULT_LOSS ? "loss" : "draw"; }

static unsigned long long rng = 1;
static unsigned long long next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The bitboards of a position string, through morris_point_bit. */
static void bits_of(const MorrisTablebase *tb, const char *pos, uint32_t *w, uint32_t *b, int *side, int *wh, int *bh) {
    *w = *b = 0;
    for (int i = 0; i < 24; i++) {
        int bit = morris_point_bit(tb, READING[i]);
        if (pos[i] == 'W') *w |= 1u << bit;
        if (pos[i] == 'B') *b |= 1u << bit;
    }
    *side = pos[25] == 'b' ? MORRIS_SIDE_BLACK : MORRIS_SIDE_WHITE;
    *wh = *bh = 0;
    sscanf(pos + 26, "%d %d", wh, bh);
}

static void errors(const char *dir) {
    MorrisTablebase *tb = NULL;
    MorrisValue v;
    EXPECT(morris_open("/nonexistent/morris", NULL, &tb) == MORRIS_STATUS_MISSING, "a missing directory: %s", morris_last_error());
    EXPECT(strlen(morris_last_error()) > 0, "no message for a missing directory");
    EXPECT(morris_open(dir, "standard,flying=sometimes", &tb) == MORRIS_STATUS_RULES, "an unknown option: %s", morris_last_error());
    EXPECT(morris_open(dir, "lasker", &tb) == MORRIS_STATUS_OK, "lasker handle");
    EXPECT(morris_probe(tb, "........................ w 4 4", &v) == MORRIS_STATUS_TABLE || morris_probe(tb, "........................ w 4 4", &v) == MORRIS_STATUS_MISSING,
           "standard tables read under lasker rules: %s", morris_last_error());
    morris_close(tb);
    EXPECT(morris_open(dir, NULL, &tb) == MORRIS_STATUS_OK, "open: %s", morris_last_error());
    EXPECT(morris_probe(tb, "WWW", &v) == MORRIS_STATUS_POSITION, "a short position: %s", morris_last_error());
    EXPECT(strstr(morris_last_error(), "WWW") != NULL, "the message names the position: %s", morris_last_error());
    EXPECT(morris_probe(tb, NULL, &v) == MORRIS_STATUS_ARGUMENT, "a null position");
    EXPECT(morris_probe(NULL, "........................ w 4 4", &v) == MORRIS_STATUS_ARGUMENT, "a null handle");
    EXPECT(morris_probe(tb, "WWWWWWWWW..........BBBBB w", &v) == MORRIS_STATUS_MISSING, "a 9-5 table that is not there: %s", morris_last_error());
    EXPECT(morris_probe_bits(tb, 7, 56, 0, 0, 2, &v) == MORRIS_STATUS_ARGUMENT, "side 2: %s", morris_last_error());
    EXPECT(morris_probe_bits(tb, 7, 7, 0, 0, 0, &v) == MORRIS_STATUS_POSITION, "overlapping stones: %s", morris_last_error());
    MorrisMove few[1];
    size_t n = 0;
    EXPECT(morris_moves(tb, "........................ w 4 4", few, 1, &n) == MORRIS_STATUS_ARGUMENT && n == 24, "a buffer too small: %zu", n);
    n = 0;
    EXPECT(morris_moves(tb, "........................ w 4 4", NULL, 0, &n) == MORRIS_STATUS_OK && n == 24, "no buffer, to count: %zu", n);
    EXPECT(morris_point_bit(tb, "z9") == -1, "no point z9");
    morris_close(tb);
    morris_close(NULL);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: check DIR START GAMES SEED\n");
        return 2;
    }
    errors(argv[1]);
    MorrisTablebase *tb = NULL;
    if (morris_open(argv[1], NULL, &tb) != MORRIS_STATUS_OK) {
        fprintf(stderr, "open: %s\n", morris_last_error());
        return 2;
    }
    rng = strtoull(argv[4], NULL, 10) * 2654435761ull + 1;
    int games = atoi(argv[3]);
    static MorrisMove moves[256];
    for (int g = 0; g < games; g++) {
        char pos[40];
        snprintf(pos, sizeof pos, "%s", argv[2]);
        for (int ply = 0; ply < 200; ply++) {
            MorrisValue v, vb;
            MorrisResult wdl, wdlb;
            size_t n = 0;
            if (morris_probe(tb, pos, &v) != MORRIS_STATUS_OK || morris_probe_wdl(tb, pos, &wdl) != MORRIS_STATUS_OK ||
                morris_moves(tb, pos, moves, 256, &n) != MORRIS_STATUS_OK) {
                fprintf(stderr, "check.c: %s: %s\n", pos, morris_last_error());
                failures++;
                break;
            }
            uint32_t w, b;
            int side, wh, bh;
            bits_of(tb, pos, &w, &b, &side, &wh, &bh);
            EXPECT(morris_probe_bits(tb, w, b, wh, bh, side, &vb) == MORRIS_STATUS_OK, "%s by bits: %s", pos, morris_last_error());
            EXPECT(morris_probe_wdl_bits(tb, w, b, wh, bh, side, &wdlb) == MORRIS_STATUS_OK && wdlb == wdl, "%s: wdl by bits", pos);
            printf("%s|%s %u|%s|%s %u|", pos, word(v.result), v.plies, word(wdl), word(vb.result), vb.plies);
            for (size_t k = 0; k < n; k++) printf("%s%s=%s %u", k ? "," : "", moves[k].name, word(moves[k].value.result), moves[k].value.plies);
            printf("\n");
            if (n == 0) break;
            snprintf(pos, sizeof pos, "%s", moves[next() % n].position);
        }
    }
    morris_close(tb);
    if (failures) {
        fprintf(stderr, "check.c: %d failures\n", failures);
        return 1;
    }
    return 0;
}

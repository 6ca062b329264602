/* Nanoseconds per warm WDL probe from C: positions gathered by random walks from the
 * 4-4 start, each probed once to warm the block cache, then probed in a loop by
 * bitboards (morris_probe_wdl_bits) and by string (morris_probe_wdl).
 * Usage: bench DIR [POSITIONS] (scripts/c-bench.sh builds it and a small set). */
#define _POSIX_C_SOURCE 199309L
#include "morris.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *READING[24] = {"a7", "d7", "g7", "b6", "d6", "f6", "c5", "d5", "e5", "a4", "b4", "c4",
                                  "e4", "f4", "g4", "c3", "d3", "e3", "b2", "d2", "f2", "a1", "d1", "g1"};

typedef struct {
    char text[40];
    uint32_t w, b;
    int side, wh, bh;
} Pos;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench DIR [POSITIONS]\n");
        return 2;
    }
    int want = argc > 2 ? atoi(argv[2]) : 512;
    MorrisTablebase *tb;
    if (morris_open(argv[1], NULL, &tb) != MORRIS_STATUS_OK) {
        fprintf(stderr, "open: %s\n", morris_last_error());
        return 2;
    }
    int bits[24];
    for (int i = 0; i < 24; i++) bits[i] = morris_point_bit(tb, READING[i]);
    Pos *ps = calloc(want, sizeof *ps);
    static MorrisMove moves[256];
    unsigned long long rng = 88172645463325252ull;
    int n = 0;
    char pos[40] = "........................ w 4 4";
    while (n < want) {
        size_t k = 0;
        if (morris_moves(tb, pos, moves, 256, &k) != MORRIS_STATUS_OK || k == 0) {
            strcpy(pos, "........................ w 4 4");
            continue;
        }
        Pos *p = &ps[n++];
        snprintf(p->text, sizeof p->text, "%s", pos);
        p->w = p->b = 0;
        for (int i = 0; i < 24; i++) {
            if (pos[i] == 'W') p->w |= 1u << bits[i];
            if (pos[i] == 'B') p->b |= 1u << bits[i];
        }
        p->side = pos[25] == 'b';
        p->wh = p->bh = 0;
        sscanf(pos + 26, "%d %d", &p->wh, &p->bh);
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        snprintf(pos, sizeof pos, "%s", moves[rng % k].position);
    }
    MorrisResult r;
    long sum = 0;
    for (int i = 0; i < n; i++) morris_probe_wdl_bits(tb, ps[i].w, ps[i].b, ps[i].wh, ps[i].bh, ps[i].side, &r);
    const int rounds = 2000;
    double t = now();
    for (int k = 0; k < rounds; k++)
        for (int i = 0; i < n; i++) {
            if (morris_probe_wdl_bits(tb, ps[i].w, ps[i].b, ps[i].wh, ps[i].bh, ps[i].side, &r) != MORRIS_STATUS_OK) return 1;
            sum += r;
        }
    double bits_ns = (now() - t) * 1e9 / ((double)rounds * n);
    t = now();
    for (int k = 0; k < rounds / 10; k++)
        for (int i = 0; i < n; i++) {
            if (morris_probe_wdl(tb, ps[i].text, &r) != MORRIS_STATUS_OK) return 1;
            sum += r;
        }
    double text_ns = (now() - t) * 1e9 / ((double)(rounds / 10) * n);
    MorrisValue v;
    t = now();
    for (int k = 0; k < rounds / 10; k++)
        for (int i = 0; i < n; i++) {
            if (morris_probe_bits(tb, ps[i].w, ps[i].b, ps[i].wh, ps[i].bh, ps[i].side, &v) != MORRIS_STATUS_OK) return 1;
            sum += v.plies;
        }
    double value_ns = (now() - t) * 1e9 / ((double)(rounds / 10) * n);
    printf("%d positions of random 4-4 games, blocks cached: WDL by bitboards %.0f ns, WDL by string %.0f ns, value by bitboards %.0f ns a probe (checksum %ld)\n",
           n, bits_ns, text_ns, value_ns, sum);
    morris_close(tb);
    free(ps);
    return 0;
}

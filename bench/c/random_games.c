/* A plain C random-game loop: the yardstick the engine's playout speed is quoted against.
 * A 6x6 array, a uniformly random empty square and twist, and a check of all 32 five-lines
 * after every placement and every twist; no bit tricks. Built by bench/build.rs. */
#include <stdint.h>

static uint32_t next_u32(uint64_t *state) {
    /* xorshift64*: a fast, ordinary generator. */
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return (uint32_t)((*state * 0x2545F4914F6CDD1DULL) >> 32);
}

static uint32_t below(uint64_t *state, uint32_t bound) {
    return (uint32_t)(((uint64_t)next_u32(state) * bound) >> 32);
}

/* Fills `lines` with the 32 five-lines as cell indices (row * 6 + column). */
static void init_lines(int lines[32][5]) {
    static const int dirs[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    int line_count = 0;
    for (int d = 0; d < 4; d++)
        for (int r = 0; r < 6; r++)
            for (int c = 0; c < 6; c++) {
                int er = r + 4 * dirs[d][0], ec = c + 4 * dirs[d][1];
                if (er < 0 || er > 5 || ec < 0 || ec > 5) continue;
                for (int k = 0; k < 5; k++)
                    lines[line_count][k] = (r + k * dirs[d][0]) * 6 + c + k * dirs[d][1];
                line_count++;
            }
}

/* The full five check: every one of the 32 lines, cell by cell. */
static int has_five(const int lines[32][5], const int8_t b[6][6], int8_t who) {
    const int8_t *cells = &b[0][0];
    for (int l = 0; l < 32; l++) {
        int k = 0;
        while (k < 5 && cells[lines[l][k]] == who) k++;
        if (k == 5) return 1;
    }
    return 0;
}

static void twist(int8_t b[6][6], int quadrant, int clockwise) {
    int r0 = (quadrant / 2) * 3, c0 = (quadrant % 2) * 3;
    int8_t old[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) old[i][j] = b[r0 + i][c0 + j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            b[r0 + i][c0 + j] = clockwise ? old[2 - j][i] : old[j][2 - i];
}

/* One game from the empty board: 1 black wins, 2 white wins, 0 draw. */
static int random_game(const int lines[32][5], uint64_t *rng) {
    int8_t b[6][6] = {{0}};
    int8_t mover = 1;
    for (int stones = 0; stones < 36; stones++) {
        uint32_t k = below(rng, (uint32_t)(36 - stones));
        int r = 0, c = 0;
        for (int i = 0; i < 36; i++)
            if (b[i / 6][i % 6] == 0 && k-- == 0) { r = i / 6; c = i % 6; break; }
        b[r][c] = mover;
        if (has_five(lines, b, mover)) return mover;
        uint32_t t = below(rng, 8);
        twist(b, (int)(t / 2), (int)(t % 2 == 0));
        int mine = has_five(lines, b, mover), theirs = has_five(lines, b, (int8_t)(3 - mover));
        if (mine && theirs) return 0;
        if (mine) return mover;
        if (theirs) return 3 - mover;
        mover = (int8_t)(3 - mover);
    }
    return 0;
}

/* Plays `games` games from `seed`; returns black wins in the low 32 bits and white wins in the
 * high 32 bits, so the work cannot be optimised away. */
uint64_t c_random_games(uint64_t games, uint64_t seed) {
    uint64_t rng = seed | 1;
    int lines[32][5];
    init_lines(lines);
    uint64_t black = 0, white = 0;
    for (uint64_t g = 0; g < games; g++) {
        int r = random_game(lines, &rng);
        black += r == 1;
        white += r == 2;
    }
    return black | (white << 32);
}

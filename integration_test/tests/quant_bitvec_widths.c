/* bit_vectorize(8 | 16 | 64): see quant_bitvec_widths.tc. Every cell
   against plain C. */
#include "quant_bitvec_widths.h"
#define LAST_ERROR quant_bitvec_widths_last_error
#include "common.h"
#include "quant_ref.h"

#define N 256
static uint32_t a[N * N], b[N * N], got[N * N];
static int32_t goti[N * N];

static uint64_t rng = 0x13198A2E03707344ull;
static uint32_t next(void) { return xorshift32(&rng); }

/* One B3/S23 step inside the dead border (rows 0 and N-1, columns outside
   [64, N - 64)); cells outside are 0 in `out`. */
static void life_ref(const uint32_t *in, uint32_t *out) {
  memset(out, 0, sizeof a);
  life_step_ref(in, out, N, 64);
}

/* got against want over [0, N) x [j0, j1). */
static int compare(const char *what, const uint32_t *want, int j0, int j1) {
  int i, j, bad = 0;
  for (i = 0; i < N; ++i)
    for (j = j0; j < j1; ++j)
      if (got[i * N + j] != want[i * N + j] && bad++ < 5)
        fprintf(stderr, "%s (%d, %d): got %u, want %u\n", what, i, j,
                got[i * N + j], want[i * N + j]);
  return report_mismatches(what, bad, (size_t)N * (j1 - j0));
}

/* y = x at (i, j + dj), where that is inside the field. */
static void shift_ref(int dj) {
  int i, j;
  for (i = 0; i < N; ++i)
    for (j = 0; j < N; ++j)
      b[i * N + j] = j + dj >= 0 && j + dj < N ? a[i * N + j + dj] : 0;
}

/* A random soup: about a quarter alive, and the lanes of a word not all
   alike (each lane has its own random bits). */
static void check_soup(const char *what, int lanes) {
  size_t alive = 0, uniform = 0, words = 0;
  int k, l;
  for (k = 0; k < N * N; ++k)
    alive += got[k] == 1;
  for (k = 0; k < N * N; k += lanes, ++words) {
    int same = 1;
    for (l = 1; l < lanes; ++l)
      same &= got[k + l] == got[k];
    uniform += same;
  }
  if (alive < N * N / 4 - N * N / 40 || alive > N * N / 4 + N * N / 40) {
    fprintf(stderr, "%s: %zu of %d alive, want about a quarter\n", what, alive,
            N * N);
    ++tic_test_failures;
  }
  /* P(8 lanes alike) = 0.75^8 + 0.25^8 ~ 0.1; 64 lanes: ~1e-8. */
  if (uniform > words / (lanes == 8 ? 5 : 1000)) {
    fprintf(stderr, "%s: %zu of %zu words have all lanes alike\n", what,
            uniform, words);
    ++tic_test_failures;
  }
}

int main(void) {
  quant_bitvec_widths_ctx *ctx = NULL;
  int k, i, j, step;
  CHECK(quant_bitvec_widths_create(NULL, &ctx));

  /* 20 generations at each width, bit-exact every step (y64's compute
     type is i32: its cells come through an int32 array). */
#define LIFE(W, Y_READ)                                                        \
  do {                                                                         \
    for (k = 0; k < N * N; ++k)                                                \
      a[k] = next() % 3 == 0;                                                  \
    for (step = 0; step < 20; ++step) {                                        \
      CHECK(quant_bitvec_widths_x##W##_write(ctx, a, N *N));                   \
      memset(goti, 0, sizeof goti);                                            \
      CHECK(quant_bitvec_widths_y##W##_write(ctx, (void *)goti, N *N));        \
      CHECK(quant_bitvec_widths_life##W(ctx));                                 \
      CHECK(Y_READ(ctx, (void *)goti, N *N));                                  \
      for (k = 0; k < N * N; ++k)                                              \
        got[k] = (uint32_t)goti[k];                                            \
      life_ref(a, b);                                                          \
      if (compare("life" #W, b, 0, N))                                         \
        break;                                                                 \
      memcpy(a, b, sizeof a);                                                  \
    }                                                                          \
  } while (0)
  LIFE(8, quant_bitvec_widths_y8_read);
  LIFE(16, quant_bitvec_widths_y16_read);
  LIFE(64, quant_bitvec_widths_y64_read);

  /* Copies across words (lanes whose source is outside are not compared). */
  for (k = 0; k < N * N; ++k)
    a[k] = next() % 2;
  CHECK(quant_bitvec_widths_x8_write(ctx, a, N * N));
  CHECK(quant_bitvec_widths_copy8(ctx));
  CHECK(quant_bitvec_widths_y8_read(ctx, got, N * N));
  shift_ref(9);
  compare("copy8 j+9", b, 0, N - 9);
  CHECK(quant_bitvec_widths_x16_write(ctx, a, N * N));
  CHECK(quant_bitvec_widths_copy16(ctx));
  CHECK(quant_bitvec_widths_y16_read(ctx, got, N * N));
  shift_ref(-17);
  compare("copy16 j-17", b, 17, N);
  CHECK(quant_bitvec_widths_x64_write(ctx, a, N * N));
  CHECK(quant_bitvec_widths_copy64(ctx));
  CHECK(quant_bitvec_widths_y64_read(ctx, goti, N * N));
  for (k = 0; k < N * N; ++k)
    got[k] = (uint32_t)goti[k];
  shift_ref(65);
  compare("copy64 j+65", b, 0, N - 65);

  /* Differences: signed (i32) in diff64, wrapping unsigned in diff16. */
  memset(goti, 0, sizeof goti);
  CHECK(quant_bitvec_widths_y64_write(ctx, goti, N * N));
  CHECK(quant_bitvec_widths_diff64(ctx));
  CHECK(quant_bitvec_widths_y64_read(ctx, goti, N * N));
  memset(b, 0, sizeof b);
  for (i = 1; i < N - 1; ++i)
    for (j = 64; j < N - 64; ++j) {
      int32_t d = (int32_t)(a[i * N + j - 1] + a[i * N + j + 1]) -
                  (int32_t)a[(i - 1) * N + j] - (int32_t)a[(i + 1) * N + j];
      b[i * N + j] = d >= 1;
    }
  for (k = 0; k < N * N; ++k)
    got[k] = (uint32_t)goti[k];
  compare("diff64 (signed)", b, 0, N);

  memset(got, 0, sizeof got);
  CHECK(quant_bitvec_widths_y16_write(ctx, got, N * N));
  CHECK(quant_bitvec_widths_diff16(ctx));
  CHECK(quant_bitvec_widths_y16_read(ctx, got, N * N));
  memset(b, 0, sizeof b);
  for (i = 0; i < N; ++i)
    for (j = 16; j < N - 16; ++j) {
      uint32_t d = a[i * N + j - 1] - a[i * N + j + 1];
      b[i * N + j] = (d >= 1) & ((d - 1 == 0) | (d > 5));
    }
  compare("diff16 (unsigned)", b, 0, N);

  CHECK(quant_bitvec_widths_soup8(ctx));
  CHECK(quant_bitvec_widths_y8_read(ctx, got, N * N));
  check_soup("soup8", 8);
  CHECK(quant_bitvec_widths_soup64(ctx));
  CHECK(quant_bitvec_widths_y64_read(ctx, goti, N * N));
  for (k = 0; k < N * N; ++k)
    got[k] = (uint32_t)goti[k];
  check_soup("soup64", 64);

  quant_bitvec_widths_destroy(ctx);
  if (tic_test_failures)
    return 1;
  printf("quant_bitvec_widths: ok\n");
  return 0;
}

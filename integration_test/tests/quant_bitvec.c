/* bit_vectorize(32): see quant_bitvec.tc. Every cell against plain C. */
#include "quant_bitvec.h"
#define LAST_ERROR quant_bitvec_last_error
#include "common.h"
#include "quant_ref.h"

#define N 256
static uint32_t a[N * N], b[N * N], got[N * N];

static uint64_t rng = 0x243F6A8885A308D3ull;
static uint32_t next(void) { return xorshift32(&rng); }

/* One step inside life()'s dead border (columns outside [32, N - 32)). */
static void life_ref(const uint32_t *in, uint32_t *out) {
  life_step_ref(in, out, N, 32);
}

/* Compares got with want over [0, N) x [j0, j1) (the cells the scalar
   program reads in range). */
static int compare(const char *what, const uint32_t *want, int j0, int j1) {
  int i, j, bad = 0;
  for (i = 0; i < N; ++i)
    for (j = j0; j < j1; ++j)
      if (got[i * N + j] != want[i * N + j] && bad++ < 5)
        fprintf(stderr, "%s (%d, %d): got %d, want %d\n", what, i, j,
                got[i * N + j], want[i * N + j]);
  return report_mismatches(what, bad, (size_t)N * (j1 - j0));
}

int main(void) {
  quant_bitvec_ctx *ctx = NULL;
  int k, i, j, step;
  CHECK(quant_bitvec_create(NULL, &ctx));
  for (k = 0; k < N * N; ++k)
    a[k] = next() % 3 == 0;

  /* 100 generations, ping-ponging through x and y; bit-exact every step. */
  memcpy(b, a, sizeof a);
  for (step = 0; step < 100; ++step) {
    CHECK(quant_bitvec_x_write(ctx, a, N * N));
    CHECK(quant_bitvec_y_write(ctx, a, N * N));
    CHECK(quant_bitvec_life(ctx));
    CHECK(quant_bitvec_y_read(ctx, got, N * N));
    memcpy(b, a, sizeof a);
    life_ref(a, b);
    if (compare("life", b, 0, N))
      break;
    memcpy(a, b, sizeof a);
  }

  for (k = 0; k < N * N; ++k)
    a[k] = next() % 2;
  CHECK(quant_bitvec_x_write(ctx, a, N * N));
#define COPY(kernel, di, dj)                                                   \
  do {                                                                         \
    memset(got, 0, sizeof got);                                                \
    CHECK(quant_bitvec_y_write(ctx, got, N *N));                               \
    CHECK(kernel(ctx));                                                        \
    CHECK(quant_bitvec_y_read(ctx, got, N *N));                                \
    for (i = 0; i < N; ++i)                                                    \
      for (j = 0; j < N; ++j)                                                  \
        b[i * N + j] =                                                         \
            (i + (di) >= 0 && i + (di) < N && j + (dj) >= 0 && j + (dj) < N)   \
                ? a[(i + (di)) * N + j + (dj)]                                 \
                : 0;                                                           \
  } while (0)
  /* Lanes whose source is outside the field are not compared (the scalar
     program would index out of range there). */
  COPY(quant_bitvec_copy_plus1, 0, 1);
  compare("copy j+1", b, 0, N - 1);
  COPY(quant_bitvec_copy_minus1, 0, -1);
  compare("copy j-1", b, 1, N);
  COPY(quant_bitvec_copy_plus33, 0, 33);
  compare("copy j+33", b, 0, N - 33);
  COPY(quant_bitvec_copy_minus32, 0, -32);
  compare("copy j-32", b, 32, N);
  COPY(quant_bitvec_copy_down, 1, 0);
  compare("copy i+1", b, 0, N);

  memset(got, 0, sizeof got);
  CHECK(quant_bitvec_y_write(ctx, got, N * N));
  CHECK(quant_bitvec_majority(ctx));
  CHECK(quant_bitvec_y_read(ctx, got, N * N));
  for (i = 0; i < N; ++i)
    for (j = 1; j < N - 1; ++j) {
      uint32_t x0 = a[i * N + j], l = a[i * N + j - 1], r = a[i * N + j + 1];
      b[i * N + j] = x0 != r ? (l + x0 + r >= 2) : x0 == 1;
    }
  compare("majority", b, 1, N - 1);

  memset(got, 0, sizeof got);
  CHECK(quant_bitvec_y_write(ctx, got, N * N));
  CHECK(quant_bitvec_even_rows(ctx));
  CHECK(quant_bitvec_y_read(ctx, got, N * N));
  for (i = 0; i < N; ++i)
    for (j = 0; j < N - 1; ++j) {
      uint32_t s = a[i * N + j] + (i % 2 == 0 ? a[i * N + j + 1] : 0);
      b[i * N + j] = s == 1;
    }
  compare("even rows", b, 0, N - 1);

  /* Sparse: xs has cells in the blocks with bi + bj even only. */
  {
    int32_t blocks = -1;
    CHECK(quant_bitvec_seed_sparse(ctx));
    CHECK(quant_bitvec_life_sparse(ctx));
    CHECK(quant_bitvec_ys_read(ctx, got, N * N));
    for (i = 0; i < N; ++i)
      for (j = 0; j < N; ++j)
        a[i * N + j] = ((i / 64 + j / 64) % 2 == 0) && (i * 7 + j * 13) % 5 < 2;
    memset(b, 0, sizeof b);
    /* Only the words of active xs blocks are visited. */
    for (i = 1; i < N - 1; ++i)
      for (j = 32; j < N - 32; ++j) {
        uint32_t c = 0;
        int di, dj;
        if ((i / 64 + j / 64) % 2 != 0)
          continue;
        for (di = -1; di <= 1; ++di)
          for (dj = -1; dj <= 1; ++dj)
            if (di || dj)
              c += a[(i + di) * N + j + dj];
        b[i * N + j] = c == 3 || (c == 2 && a[i * N + j]);
      }
    compare("sparse life", b, 0, N);
    /* ys got blocks where xs had them (every such block has a word inside
       the border): 8 of 16. */
    CHECK(quant_bitvec_count_ys_blocks(ctx, &blocks));
    EXPECT_TRUE(blocks == 8);
  }

  quant_bitvec_destroy(ctx);
  if (tic_test_failures)
    return 1;
  printf("quant_bitvec: ok\n");
  return 0;
}

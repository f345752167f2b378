// bench/bench_life.cpp - the Game of Life with one bit per cell
// (examples/life/life.tc, bit_vectorize(32)) against a hand-written
// C++/OpenMP Game of Life with a byte per cell (the same rule, border and
// soup), in cells per second. The grids are compared after the timed
// generations: tic's packed words (life_a_words_read) against the
// reference's bytes packed the same way.
#include "common.h"
#include "life.h"

#include <memory>
#include <vector>

using namespace bench;

namespace {
const int64_t kShape[] = LIFE_A_SHAPE;
const int64_t kN = kShape[0];

// One B3/S23 generation inside the dead border (rows 0 and n-1, the first
// and last 32 columns), as life.tc's step.
void lifeRef(const uint8_t *__restrict in, uint8_t *__restrict out, int64_t n) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 1; i < n - 1; ++i) {
    const uint8_t *u = in + (i - 1) * n, *m = in + i * n, *d = in + (i + 1) * n;
    uint8_t *o = out + i * n;
    for (int64_t j = 32; j < n - 32; ++j) {
      int c = u[j - 1] + u[j] + u[j + 1] + m[j - 1] + m[j + 1] + d[j - 1] +
              d[j] + d[j + 1];
      o[j] = uint8_t(c == 3 || (c == 2 && m[j]));
    }
  }
}
} // namespace

int main(int argc, char **argv) {
  Args args = parseArgs(argc, argv);
  header("life", args);
  const int64_t n = kN, words = n * n / 32;
  std::printf("# %lld x %lld cells: tic 1 bit per cell (bit_vectorize(32)), "
              "C++ 1 byte per cell\n",
              (long long)n, (long long)n);
  tc_options opts = ticOptions(args);
  life_ctx *ctx = nullptr;
  if (life_create(&opts, &ctx) != TC_OK) {
    std::fprintf(stderr, "life_create: %s\n", life_last_error(nullptr));
    return 1;
  }
  TC_CHECK(ctx, life_last_error, life_init(ctx));
  std::vector<uint32_t> w(words);
  TC_CHECK(ctx, life_last_error, life_a_words_read(ctx, w.data(), words));
  std::vector<uint8_t> a(n * n), b(n * n);
  for (int64_t k = 0; k < n * n; ++k)
    a[k] = (w[k / 32] >> (k % 32)) & 1;
  b = a;
  TC_CHECK(ctx, life_last_error, life_b_words_write(ctx, w.data(), words));

  // Timed: a generation each way per call (a -> b -> a), ping-pong.
  Pair p = medianPairMs(
      args,
      [&] {
        life_step_ab(ctx);
        life_step_ba(ctx);
      },
      [&] {
        lifeRef(a.data(), b.data(), n);
        lifeRef(b.data(), a.data(), n);
      });
  // Both ran the same number of generations: compare.
  TC_CHECK(ctx, life_last_error, life_a_words_read(ctx, w.data(), words));
  double err = 0;
  for (int64_t k = 0; k < n * n; ++k)
    err += double(((w[k / 32] >> (k % 32)) & 1) != a[k]);
  checkErr("life", err, 0.0);
  double cells = 2.0 * double(n) * double(n);
  char extra[128];
  std::snprintf(extra, sizeof extra,
                "gcells_per_s_ours=%.2f gcells_per_s_ref=%.2f speedup=%.1f",
                cells / (p.ours * 1e-3) * 1e-9, cells / (p.ref * 1e-3) * 1e-9,
                p.ref / p.ours);
  char variant[32];
  std::snprintf(variant, sizeof variant, "n=%lld", (long long)n);
  result("life", variant, p.ours / 2, p.ref / 2, err, 0, extra);
  life_destroy(ctx);
  return 0;
}

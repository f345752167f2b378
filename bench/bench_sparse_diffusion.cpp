// bench/bench_sparse_diffusion.cpp - diffusion on a sparse grid of pointer
// blocks: tic against a hand-written C++/OpenMP sparse grid running the same
// algorithm (a slot per block, null for inactive ones; parallel over the
// slots, the inactive ones skipped; every neighbour read looks its block up
// and reads 0 from a missing one), at two occupancies.
#include "common.h"

#include "sparse_diffusion.h"

using namespace bench;

#ifndef SPARSE_VARIANT_SUFFIX
#define SPARSE_VARIANT_SUFFIX ""
#endif

namespace {
constexpr int64_t N = SPARSE_DIFFUSION_CONST_N;
constexpr int64_t B = SPARSE_DIFFUSION_CONST_B;
constexpr int64_t NB = N / B;

struct Cell {
  float u, v;
};
struct Grid {
  std::vector<Cell *> slots = std::vector<Cell *>(NB * NB, nullptr);
  ~Grid() {
    for (Cell *c : slots)
      delete[] c;
  }
  Cell *block(int64_t i, int64_t j) const {
    return slots[(i / B) * NB + j / B];
  }
  float get(int64_t i, int64_t j, bool v) const {
    const Cell *c = block(i, j);
    if (!c)
      return 0.0f;
    const Cell &e = c[(i % B) * B + j % B];
    return v ? e.v : e.u;
  }
};

bool activeBlock(int64_t bi, int64_t bj, int pct) {
  return (bi * 7919 + bj * 104729) % 100 < pct;
}

void initRef(Grid &g, int pct) {
  for (int64_t bi = 0; bi < NB; ++bi)
    for (int64_t bj = 0; bj < NB; ++bj)
      if (activeBlock(bi, bj, pct)) {
        Cell *c = new Cell[B * B]();
        for (int64_t a = 0; a < B; ++a)
          for (int64_t b = 0; b < B; ++b) {
            int64_t i = bi * B + a, j = bj * B + b;
            c[a * B + b].u =
                std::sin(float(i) * 0.05f) * std::cos(float(j) * 0.03f) + 1.0f;
          }
        g.slots[bi * NB + bj] = c;
      }
}

// One step from u to v (fromV: from v to u).
void stepRef(Grid &g, bool fromV) {
#pragma omp parallel for schedule(dynamic, 16)
  for (int64_t s = 0; s < NB * NB; ++s) {
    Cell *c = g.slots[s];
    if (!c)
      continue;
    int64_t bi = s / NB, bj = s % NB;
    for (int64_t a = 0; a < B; ++a)
      for (int64_t b = 0; b < B; ++b) {
        int64_t i = bi * B + a, j = bj * B + b;
        if (i > 0 && i < N - 1 && j > 0 && j < N - 1) {
          float x = g.get(i, j, fromV);
          float r =
              x + 0.2f * (g.get(i - 1, j, fromV) + g.get(i + 1, j, fromV) +
                          g.get(i, j - 1, fromV) + g.get(i, j + 1, fromV) -
                          4.0f * x);
          Cell &e = c[a * B + b];
          (fromV ? e.u : e.v) = r;
        }
      }
  }
}
} // namespace

int main(int argc, char **argv) {
  Args args = parseArgs(argc, argv);
  header("sparse_diffusion", args);
  std::printf("# %lld x %lld f32 grid of %lld x %lld pointer blocks\n",
              (long long)N, (long long)N, (long long)B, (long long)B);
  for (int pct : {1, 10}) {
    tc_options opts = ticOptions(args);
    sparse_diffusion_ctx *ctx = nullptr;
    if (sparse_diffusion_create(&opts, &ctx) != TC_OK) {
      std::fprintf(stderr, "create: %s\n",
                   sparse_diffusion_last_error(nullptr));
      return 1;
    }
    TC_CHECK(ctx, sparse_diffusion_last_error, sparse_diffusion_init(ctx, pct));
    Grid g;
    initRef(g, pct);
    // Four steps each, then the results.
    for (int k = 0; k < 2; ++k) {
      TC_CHECK(ctx, sparse_diffusion_last_error, sparse_diffusion_step_uv(ctx));
      TC_CHECK(ctx, sparse_diffusion_last_error, sparse_diffusion_step_vu(ctx));
      stepRef(g, false);
      stepRef(g, true);
    }
    std::vector<float> got((size_t)N * N), want((size_t)N * N, 0.0f);
    TC_CHECK(ctx, sparse_diffusion_last_error,
             sparse_diffusion_u_read(ctx, got.data(), got.size()));
    for (int64_t i = 0; i < N; ++i)
      for (int64_t j = 0; j < N; ++j)
        want[i * N + j] = g.get(i, j, false);
    double err = maxAbsErr(got.data(), want.data(), got.size());
    char variant[32];
    std::snprintf(variant, sizeof variant, "%d%%%s", pct,
                  SPARSE_VARIANT_SUFFIX);
    checkErr("sparse_diffusion", err, 1e-5);
    tc_memory_stats ms;
    TC_CHECK(ctx, sparse_diffusion_last_error,
             sparse_diffusion_memory_stats(ctx, "blk", &ms));
    std::printf(
        "# %d%%: %llu active blocks, %.1f bytes per active cell (dense: 8)\n",
        pct, (unsigned long long)ms.live_cells,
        double(ms.committed_bytes) / double(ms.live_cells * B * B));
    Pair t = medianPairMs(
        args,
        [&] {
          sparse_diffusion_step_uv(ctx);
          sparse_diffusion_step_vu(ctx);
        },
        [&] {
          stepRef(g, false);
          stepRef(g, true);
        });
    result("sparse_diffusion", variant, t.ours, t.ref, err, 0);
    sparse_diffusion_destroy(ctx);
  }
  return 0;
}

// bench/bench_sparse_diffusion.cpp - diffusion on a sparse grid of pointer
// blocks: tic against a hand-written C++/OpenMP sparse grid running the same
// algorithm (a slot per block, null for inactive ones; parallel over the
// slots, the inactive ones skipped; every neighbour read looks its block up
// and reads 0 from a missing one), at two occupancies.
//
// Built with TIC_BENCH_OPENVDB=1 (bench/CMakeLists.txt, when OpenVDB is
// installed: scripts/install-deps.sh --bench), it also runs the same
// algorithm on OpenVDB grids and prints tic / OpenVDB (issue 10 item 9 (b)).
#include "common.h"

#include "sparse_diffusion.h"

#if TIC_BENCH_OPENVDB
#include <memory>

#include <openvdb/openvdb.h>
#include <openvdb/tree/LeafManager.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#endif

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

#if TIC_BENCH_OPENVDB
// The same algorithm on OpenVDB: the 2-D grid is the x = 0 plane of two
// openvdb::FloatGrids (u, v) with the default tree, Tree4<float, 5, 4, 3>
// (8 x 8 x 8 leaves: a 16 x 16 block is four leaves, of which only the x = 0
// slice is active and used), background 0, cell (i, j) at Coord(0, i, j).
// The x = 0 plane, not z = 0: a leaf stores its values x-major (offset
// x * 64 + y * 8 + z), so the x = 0 slice is the leaf's first 64 floats,
// contiguous, while the z = 0 slice is every 8th float (one value per 32
// bytes: about 8x the memory traffic; about 3x slower here at 10%).
// u and v have the same topology: every cell of an active block is active.
struct VdbGrids {
  using Tree = openvdb::FloatTree;
  using Leaf = Tree::LeafNodeType;
  openvdb::FloatGrid::Ptr u, v;
  // Built once: the topology never changes during the sweeps.
  std::unique_ptr<openvdb::tree::LeafManager<Tree>> uLeaves, vLeaves;
};

void initVdb(VdbGrids &g, int pct) {
  g.u = openvdb::FloatGrid::create(0.0f);
  g.v = openvdb::FloatGrid::create(0.0f);
  auto ua = g.u->getAccessor();
  auto va = g.v->getAccessor();
  for (int64_t bi = 0; bi < NB; ++bi)
    for (int64_t bj = 0; bj < NB; ++bj)
      if (activeBlock(bi, bj, pct))
        for (int64_t a = 0; a < B; ++a)
          for (int64_t b = 0; b < B; ++b) {
            int64_t i = bi * B + a, j = bj * B + b;
            openvdb::Coord c(0, (int)i, (int)j);
            ua.setValue(
                c,
                std::sin(float(i) * 0.05f) * std::cos(float(j) * 0.03f) + 1.0f);
            va.setValue(c, 0.0f);
          }
  g.uLeaves =
      std::make_unique<openvdb::tree::LeafManager<VdbGrids::Tree>>(g.u->tree());
  g.vLeaves =
      std::make_unique<openvdb::tree::LeafManager<VdbGrids::Tree>>(g.v->tree());
}

// One sweep src -> dst, parallel over dst's leaves with TBB (tbb::parallel_for
// over the LeafManager's leaf range). Reads are leaf-local: from the source
// leaf at the same origin (same topology) for the cell and its in-leaf
// neighbours, and from the four neighbour leaves in the plane for the cells
// on the leaf's border; those five leaves are looked up once per leaf with a
// ValueAccessor (one per TBB task, the unsafe/unregistered kind, as the
// topology is not modified during the sweep); a missing neighbour leaf reads
// as the background 0. (The simpler acc.getValue() per border read was about
// 10% slower here.)
void stepVdb(const openvdb::FloatGrid &src,
             openvdb::tree::LeafManager<VdbGrids::Tree> &dstLeaves) {
  using Leaf = VdbGrids::Leaf;
  static_assert(Leaf::DIM == 8, "offsets below assume 8^3 leaves");
  tbb::parallel_for(
      dstLeaves.leafRange(),
      [&](const openvdb::tree::LeafManager<VdbGrids::Tree>::LeafRange &r) {
        auto acc = src.getConstUnsafeAccessor();
        for (auto leaf = r.begin(); leaf; ++leaf) {
          const openvdb::Coord o = leaf->origin();
          const Leaf *sl = acc.probeConstLeaf(o);
          const float *s = sl->buffer().data();
          float *d = leaf->buffer().data();
          // The four neighbour leaves in the plane, looked up once per leaf
          // (null: missing, reads 0).
          const Leaf *nim = acc.probeConstLeaf(o.offsetBy(0, -8, 0));
          const Leaf *nip = acc.probeConstLeaf(o.offsetBy(0, 8, 0));
          const Leaf *njm = acc.probeConstLeaf(o.offsetBy(0, 0, -8));
          const Leaf *njp = acc.probeConstLeaf(o.offsetBy(0, 0, 8));
          auto at = [](const Leaf *l, openvdb::Index off) {
            return l ? l->buffer().data()[off] : 0.0f;
          };
          // The 64 cells of the x = 0 slice (offset li * 8 + lj; the only
          // ones that can be active), each tested in the leaf's value mask:
          // about 1.2x faster here than a leaf->cbeginValueOn() iteration.
          // Inactive cells of an existing leaf hold the background 0.
          const auto &mask = leaf->getValueMask();
          for (int li = 0; li < 8; ++li)
            for (int lj = 0; lj < 8; ++lj) {
              const openvdb::Index off = li * 8 + lj;
              const int64_t i = o.y() + li, j = o.z() + lj;
              if (!mask.isOn(off) ||
                  !(i > 0 && i < N - 1 && j > 0 && j < N - 1))
                continue;
              float x = s[off];
              float im = li > 0 ? s[off - 8] : at(nim, off + 56);
              float ip = li < 7 ? s[off + 8] : at(nip, off - 56);
              float jm = lj > 0 ? s[off - 1] : at(njm, off + 7);
              float jp = lj < 7 ? s[off + 1] : at(njp, off - 7);
              d[off] = x + 0.2f * (im + ip + jm + jp - 4.0f * x);
            }
        }
      });
}
#endif
} // namespace

int main(int argc, char **argv) {
  Args args = parseArgs(argc, argv);
  header("sparse_diffusion", args);
  std::printf("# %lld x %lld f32 grid of %lld x %lld pointer blocks\n",
              (long long)N, (long long)N, (long long)B, (long long)B);
#if TIC_BENCH_OPENVDB
  openvdb::initialize();
  // TBB with the same number of threads as tic and the OpenMP reference.
  tbb::global_control tbbThreads(tbb::global_control::max_allowed_parallelism,
                                 (size_t)args.threads);
  std::printf("# OpenVDB %s: FloatGrid (Tree4<float, 5, 4, 3>), x = 0 plane, "
              "TBB over the leaves, %d threads\n",
              openvdb::getLibraryAbiVersionString(), args.threads);
#elif defined(TIC_BENCH_OPENVDB)
  std::printf("# OpenVDB: skipped (not found when bench/ was configured; "
              "scripts/install-deps.sh --bench)\n");
#endif
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
#if TIC_BENCH_OPENVDB
    {
      VdbGrids vg;
      initVdb(vg, pct);
      // The grids are compared after four steps, like tic's. The reference
      // has gone on stepping (timed runs), so it starts again from scratch.
      Grid g2;
      initRef(g2, pct);
      for (int k = 0; k < 2; ++k) {
        stepVdb(*vg.u, *vg.vLeaves);
        stepVdb(*vg.v, *vg.uLeaves);
        stepRef(g2, false);
        stepRef(g2, true);
      }
      std::vector<float> vdb((size_t)N * N), want2((size_t)N * N);
      auto acc = vg.u->getConstAccessor();
      for (int64_t i = 0; i < N; ++i)
        for (int64_t j = 0; j < N; ++j) {
          vdb[i * N + j] = acc.getValue(openvdb::Coord(0, (int)i, (int)j));
          want2[i * N + j] = g2.get(i, j, false);
        }
      double verr = maxAbsErr(vdb.data(), want2.data(), vdb.size());
      checkErr("sparse_diffusion OpenVDB vs C++", verr, 1e-5);
      uint64_t cells = vg.u->activeVoxelCount();
      double bytesPerCell =
          double(vg.u->memUsage() + vg.v->memUsage()) / double(cells);
      std::printf("# %d%%: OpenVDB %llu active cells in %llu leaves per grid, "
                  "%.1f bytes per active cell (u and v grids)\n",
                  pct, (unsigned long long)cells,
                  (unsigned long long)vg.u->tree().leafCount(), bytesPerCell);
      // tic against OpenVDB, alternating like the pair above.
      Pair tv = medianPairMs(
          args,
          [&] {
            sparse_diffusion_step_uv(ctx);
            sparse_diffusion_step_vu(ctx);
          },
          [&] {
            stepVdb(*vg.u, *vg.vLeaves);
            stepVdb(*vg.v, *vg.uLeaves);
          });
      char extra[64];
      std::snprintf(extra, sizeof extra, "ref=openvdb vdb_bytes_per_cell=%.1f",
                    bytesPerCell);
      result("sparse_diffusion_openvdb", variant, tv.ours, tv.ref, verr, 0,
             extra);
    }
#endif
    sparse_diffusion_destroy(ctx);
  }
  return 0;
}

// bench/bench_quant.cpp - quantized stores (bench/quant.tc) against a
// hand-written C++/OpenMP loop packing the same 32-bit words: a in bits
// [0, 10), b in [10, 21), c in [21, 32), two's complement, wrapping (the
// layout docs/quant.md defines); and a quantized matmul against an
// int8/int32 one. The variant (TIC_VARIANT) names the tic
// options the module was built with: the store optimisations' ablation.
#include "common.h"
#include "quant.h"

#include <memory>

using namespace bench;

#ifndef TIC_VARIANT
#define TIC_VARIANT "default"
#endif

namespace {
const int64_t kShape[] = QUANT_A_SHAPE;
const int64_t kN = kShape[0];

inline uint32_t pack(int32_t a, int32_t b, int32_t c) {
  return (uint32_t(a) & 0x3ffu) | ((uint32_t(b) & 0x7ffu) << 10) |
         ((uint32_t(c) & 0x7ffu) << 21);
}
inline int32_t field(uint32_t w, int off, int bits) {
  return int32_t(w << (32 - off - bits)) >> (32 - bits);
}

// The matmul's reference: int8 matrices, a 32-bit accumulator per element
// (the sum wraps to 24 bits at the end, as tic's field wraps at every +=:
// the same value modulo 2^24).
const int64_t kMShape[] = QUANT_MC_SHAPE;
const int64_t kM = kMShape[0];
void matmulRef(const int8_t *a, const int8_t *b, int32_t *c) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < kM; ++i)
    for (int64_t j = 0; j < kM; ++j) {
      int32_t acc = 0;
      for (int64_t k = 0; k < kM; ++k)
        acc += int32_t(a[i * kM + k]) * int32_t(b[k * kM + j]);
      c[i * kM + j] = int32_t(uint32_t(acc) << 8) >> 8;
    }
}

void storeRef(uint32_t *w, int64_t n, int32_t s) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i)
    w[i] = pack(int32_t(i) + s, int32_t(i) - s, int32_t(i) ^ s);
}

void updateRef(uint32_t *w, int64_t n, int32_t s) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    uint32_t x = w[i];
    uint32_t b = uint32_t(field(x, 10, 11) + s) & 0x7ffu;
    w[i] = (x & ~(0x7ffu << 10)) | (b << 10);
  }
}
} // namespace

int main(int argc, char **argv) {
  Args args = parseArgs(argc, argv);
  header("quant", args);
  const int64_t n = kN;
  std::printf("# n = %lld words of 32 bits (a: 10, b: 11, c: 11 bits), tic %s\n",
              (long long)n, TIC_VARIANT);
  tc_options opts = ticOptions(args);
  quant_ctx *ctx = nullptr;
  if (quant_create(&opts, &ctx) != TC_OK) {
    std::fprintf(stderr, "quant_create: %s\n", quant_last_error(nullptr));
    return 1;
  }
  std::unique_ptr<uint32_t[]> w(new uint32_t[n]);
  std::unique_ptr<int32_t[]> got(new int32_t[n]);

  // --- correctness: the fields tic stores decode as the reference's -------
  const int32_t s = 12345;
  TC_CHECK(ctx, quant_last_error, quant_store(ctx, s));
  TC_CHECK(ctx, quant_last_error, quant_update(ctx, 7));
  storeRef(w.get(), n, s);
  updateRef(w.get(), n, 7);
  double err = 0;
  const struct {
    tc_status (*read)(quant_ctx *, int32_t *, size_t);
    int off, bits;
  } fields[] = {{quant_a_read, 0, 10}, {quant_b_read, 10, 11},
                {quant_c_read, 21, 11}};
  for (const auto &f : fields) {
    TC_CHECK(ctx, quant_last_error, f.read(ctx, got.get(), size_t(n)));
    for (int64_t i = 0; i < n; ++i)
      err = std::max(err, std::fabs(double(got[i]) -
                                    double(field(w[i], f.off, f.bits))));
  }
  checkErr("quant", err, 0.0);

  Pair st = medianPairMs(args, [&] { quant_store(ctx, s); },
                         [&] { storeRef(w.get(), n, s); });
  result("quant_store", TIC_VARIANT, st.ours, st.ref, err, 4.0 * n * 1e-9);
  Pair up = medianPairMs(args, [&] { quant_update(ctx, 1); },
                         [&] { updateRef(w.get(), n, 1); });
  result("quant_update", TIC_VARIANT, up.ours, up.ref, err, 8.0 * n * 1e-9);

  // --- matmul: int8 in, 24-bit out, against the int8/int32 reference -------
  {
    const size_t mm = size_t(kM * kM);
    std::unique_ptr<int8_t[]> a8(new int8_t[mm]), b8(new int8_t[mm]);
    std::unique_ptr<int32_t[]> a32(new int32_t[mm]), b32(new int32_t[mm]);
    std::unique_ptr<int32_t[]> cref(new int32_t[mm]), cgot(new int32_t[mm]);
    uint32_t r = 0x9e3779b9u;
    for (size_t k = 0; k < mm; ++k) {
      r = r * 1664525u + 1013904223u;
      a8[k] = int8_t(r >> 24);
      r = r * 1664525u + 1013904223u;
      b8[k] = int8_t(r >> 24);
      a32[k] = a8[k];
      b32[k] = b8[k];
    }
    TC_CHECK(ctx, quant_last_error, quant_ma_write(ctx, a32.get(), mm));
    TC_CHECK(ctx, quant_last_error, quant_mb_write(ctx, b32.get(), mm));
    TC_CHECK(ctx, quant_last_error, quant_matmul(ctx));
    TC_CHECK(ctx, quant_last_error, quant_mc_read(ctx, cgot.get(), mm));
    matmulRef(a8.get(), b8.get(), cref.get());
    double merr = 0;
    for (size_t k = 0; k < mm; ++k)
      merr = std::max(merr, std::fabs(double(cgot[k]) - double(cref[k])));
    checkErr("quant_matmul", merr, 0.0);
    Pair mp = medianPairMs(
        args, [&] { quant_matmul(ctx); },
        [&] { matmulRef(a8.get(), b8.get(), cref.get()); });
    char rate[96];
    const double gmacs = double(kM) * kM * kM * 1e-9;
    std::snprintf(rate, sizeof rate, "gmacs_ours=%.2f gmacs_ref=%.2f",
                  gmacs / (mp.ours * 1e-3), gmacs / (mp.ref * 1e-3));
    result("quant_matmul", TIC_VARIANT, mp.ours, mp.ref, merr, 0, rate);
  }
  quant_destroy(ctx);
  return 0;
}

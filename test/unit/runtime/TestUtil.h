//===- TestUtil.h - Helpers for the runtime unit tests ---------*- C++ -*-===//

#ifndef TIC_TEST_UNIT_RUNTIME_TESTUTIL_H
#define TIC_TEST_UNIT_RUNTIME_TESTUTIL_H

#include "tic/rt.h"

#include <gtest/gtest.h>

#include <cstddef>

namespace tic {
namespace test {

inline const char *const kFieldNames[] = {"u", "v"};

/// A module descriptor like the ones the compiler emits.
inline tic_rt_module_desc makeDesc(uint64_t rootSize = 1024,
                                   uint64_t rootAlign = 0) {
  tic_rt_module_desc d{}; // members not set below (ptx, ...) are null
  d.abi_version = TIC_RT_ABI_VERSION;
  d.name = "testmod";
  d.root_size = rootSize;
  d.root_align = rootAlign;
  d.num_fields = 2;
  d.field_names = kFieldNames;
  d.field_bytes = nullptr;
  d.num_pools = 0;
  d.pools = nullptr;
  return d;
}

/// Whether the `n` bytes at `p` are all zero.
inline bool allZero(const void *p, size_t n) {
  const unsigned char *b = static_cast<const unsigned char *>(p);
  for (size_t i = 0; i < n; ++i)
    if (b[i])
      return false;
  return true;
}

/// Owns a context; the descriptor must outlive it.
class Context {
public:
  explicit Context(const tic_rt_module_desc &desc,
                   const tc_options *opts = nullptr) {
    status_ = tic_rt_context_create(opts, &desc, &ctx_);
  }
  static tc_options threads(int32_t n, uint64_t seed = 0) {
    tc_options o;
    tc_options_init(&o);
    o.num_threads = n;
    o.seed = seed;
    return o;
  }
  ~Context() { tic_rt_context_destroy(ctx_); }
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  tic_rt_context *get() const { return ctx_; }
  operator tic_rt_context *() const { return ctx_; }
  tc_status status() const { return status_; }

private:
  tic_rt_context *ctx_ = nullptr;
  tc_status status_ = TC_ERR_INTERNAL;
};

} // namespace test
} // namespace tic

#endif // TIC_TEST_UNIT_RUNTIME_TESTUTIL_H

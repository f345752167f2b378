//===- CPU.cpp - the x86-64 micro-architecture level of this machine
//-------===//
//
// Modules compiled for several levels (`tic --cpu=auto` or
// `--cpu=x86-64-v2,x86-64-v3,x86-64-v4`) ask here which of their versions of
// a kernel may run: the highest level whose features the CPU and the OS
// support, capped by the environment variable TIC_CPU_LEVEL.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <atomic>
#include <cstdlib>

namespace {

int32_t detectLevel() {
  int32_t level = 1;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // libgcc's / compiler-rt's CPU model: the AVX checks include the OS's
  // support for the wider registers (XGETBV).
  __builtin_cpu_init();
  if (__builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("popcnt") &&
      __builtin_cpu_supports("ssse3"))
    level = 2;
  if (level == 2 && __builtin_cpu_supports("avx2") &&
      __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi") &&
      __builtin_cpu_supports("bmi2"))
    level = 3;
  if (level == 3 && __builtin_cpu_supports("avx512f") &&
      __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512cd") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    level = 4;
#endif
  if (const char *cap = std::getenv("TIC_CPU_LEVEL")) {
    long n = std::strtol(cap, nullptr, 10);
    if (n >= 1 && n < level)
      level = int32_t(n);
  }
  return level;
}

} // namespace

extern "C" int32_t tic_rt_cpu_level(void) {
  static std::atomic<int32_t> cached{0};
  int32_t level = cached.load(std::memory_order_relaxed);
  if (level == 0) {
    level = detectLevel();
    cached.store(level, std::memory_order_relaxed);
  }
  return level;
}

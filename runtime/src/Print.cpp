//===- Print.cpp - print() from kernels -----------------------------------===//

#include "Internal.h"

#include <cstdio>
#include <cstdlib>

namespace {

/// Serializes kernel prints across threads and contexts (stdout is shared by
/// the whole process).
pthread_mutex_t printLock = PTHREAD_MUTEX_INITIALIZER;

constexpr size_t kStackBuffer = 512;

} // namespace

extern "C" void tic_rt_print(tic_rt_context *ctx, const char *fmt, ...) {
  (void)ctx;
  if (!fmt)
    return;
  char stackBuf[kStackBuffer];
  char *buf = stackBuf;
  size_t cap = sizeof(stackBuf);

  va_list ap;
  va_start(ap, fmt);
  va_list ap2;
  va_copy(ap2, ap);
  int n = std::vsnprintf(buf, cap, fmt, ap);
  va_end(ap);
  if (n < 0) {
    va_end(ap2);
    return;
  }
  size_t len = size_t(n);
  if (len + 2 > cap) {
    // Long line: format again into a heap buffer; on allocation failure
    // print the truncated text.
    char *heap = static_cast<char *>(std::malloc(len + 2));
    if (heap) {
      buf = heap;
      cap = len + 2;
      std::vsnprintf(buf, cap, fmt, ap2);
    } else {
      len = cap - 2;
    }
  }
  va_end(ap2);
  if (len == 0 || buf[len - 1] != '\n')
    buf[len++] = '\n';

  pthread_mutex_lock(&printLock);
  std::fwrite(buf, 1, len, stdout);
  pthread_mutex_unlock(&printLock);
  if (buf != stackBuf)
    std::free(buf);
}

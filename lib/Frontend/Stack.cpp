//===- Stack.cpp - Running the compiler on a large stack ------------------===//

#include "tic/Frontend/Stack.h"

#include <pthread.h>

using namespace tic;

namespace {
void *trampoline(void *p) {
  (*static_cast<const std::function<void()> *>(p))();
  return nullptr;
}
} // namespace

void tic::runOnLargeStack(const std::function<void()> &fn, size_t stackSize) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_t thread;
  bool started =
      pthread_attr_setstacksize(&attr, stackSize) == 0 &&
      pthread_create(&thread, &attr, trampoline,
                     const_cast<std::function<void()> *>(&fn)) == 0;
  pthread_attr_destroy(&attr);
  if (started)
    pthread_join(thread, nullptr);
  else
    fn();
}

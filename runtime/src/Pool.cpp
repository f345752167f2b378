//===- Pool.cpp - Memory pools for the cells of sparse SNodes -------------===//
//
// One pool per allocating SNode: fixed-size elements handed out from a range
// of address space reserved with PROT_NONE and made read-write on demand, in
// steps of kCommitStep, by the thread that needs more (under a mutex; every
// other path is lock-free).
//
// An element comes from the free list (elements recycled by
// tic_rt_pool_collect) or, when that is empty, from the bump counter over
// fresh memory, which the system zeroes. Freed elements go to a pending list
// first and reach the free list only at collect time, when no kernel can
// still read them, so that a cell deactivated in one launch is never reused
// while another thread of that launch still looks at it. Both lists are
// Treiber stacks of element indices linked through the elements' first four
// bytes; the stack heads carry a tag against ABA.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <sys/mman.h>
#include <unistd.h>

using namespace tic::rt;

namespace {

/// Memory is committed in steps of at least this many bytes.
constexpr uint64_t kCommitStep = uint64_t(1) << 20;

/// Element alignment and size granule below a page.
constexpr uint64_t kGranule = 16;

/// A stack head: (tag << 32) | link, where a link is an element index + 1
/// and 0 ends the stack. The tag grows with every change (against ABA).
uint64_t makeHead(uint64_t old, uint32_t link) {
  return ((old >> 32) + 1) << 32 | link;
}
uint32_t headLink(uint64_t head) { return uint32_t(head); }

uint64_t pageSize() {
  long p = sysconf(_SC_PAGESIZE);
  return p > 0 ? uint64_t(p) : 4096;
}

uint64_t roundUp(uint64_t x, uint64_t to) { return (x + to - 1) / to * to; }

} // namespace

struct tic_rt_pool {
  char name[128] = {0};
  uint64_t elementSize = 0;
  uint64_t maxElements = 0;
  uint8_t *base = nullptr;
  uint64_t reservedBytes = 0;
  bool pageElements = false; // elements are whole pages: recycle by madvise

  std::atomic<uint64_t> next{0};      // bump index (may pass maxElements)
  std::atomic<uint64_t> committed{0}; // [base, base + committed) is RW
  pthread_mutex_t commitLock = PTHREAD_MUTEX_INITIALIZER;

  std::atomic<uint64_t> freeHead{0};    // reusable, zeroed but the link
  std::atomic<uint64_t> pendingHead{0}; // freed, waiting for collect
  std::atomic<int64_t> live{0};

  uint8_t *at(uint32_t index) const {
    return base + uint64_t(index) * elementSize;
  }

  /// The link word of element `index` (the next element's index + 1, or
  /// 0). Read without synchronisation by a pop that may lose its race (its
  /// CAS then fails), hence atomic.
  uint32_t loadLink(uint32_t index) const {
    return __atomic_load_n(reinterpret_cast<uint32_t *>(at(index)),
                           __ATOMIC_RELAXED);
  }
  void storeLink(uint32_t index, uint32_t link) {
    __atomic_store_n(reinterpret_cast<uint32_t *>(at(index)), link,
                     __ATOMIC_RELAXED);
  }

  void push(std::atomic<uint64_t> &head, uint32_t index) {
    uint64_t old = head.load(std::memory_order_relaxed);
    do
      storeLink(index, headLink(old));
    while (!head.compare_exchange_weak(old, makeHead(old, index + 1),
                                       std::memory_order_release,
                                       std::memory_order_relaxed));
  }

  /// Pops an index; false when the stack is empty.
  bool pop(std::atomic<uint64_t> &head, uint32_t &index) {
    uint64_t old = head.load(std::memory_order_acquire);
    do {
      if (headLink(old) == 0)
        return false;
    } while (!head.compare_exchange_weak(
        old, makeHead(old, loadLink(headLink(old) - 1)),
        std::memory_order_acquire, std::memory_order_acquire));
    index = headLink(old) - 1;
    return true;
  }

  /// Makes [0, needed) read-write. False when the system refuses.
  bool commit(uint64_t needed) {
    if (committed.load(std::memory_order_acquire) >= needed)
      return true;
    pthread_mutex_lock(&commitLock);
    uint64_t have = committed.load(std::memory_order_relaxed);
    bool ok = true;
    if (have < needed) {
      uint64_t want = roundUp(needed, kCommitStep);
      if (want > reservedBytes)
        want = reservedBytes;
      if (mprotect(base + have, size_t(want - have), PROT_READ | PROT_WRITE) !=
          0)
        ok = false;
      else
        committed.store(want, std::memory_order_release);
    }
    pthread_mutex_unlock(&commitLock);
    return ok;
  }
};

extern "C" {

tc_status tic_rt_pool_create(const char *name, uint64_t element_size,
                             uint64_t max_elements, tic_rt_pool **out) {
  const char *n = name ? name : "?";
  if (!out)
    return tic_rt_fail(nullptr, TC_ERR_INVALID_ARGUMENT,
                       "tic_rt_pool_create: 'out' is NULL");
  *out = nullptr;
  if (element_size == 0 || max_elements == 0 ||
      max_elements > TIC_RT_POOL_MAX_ELEMENTS)
    return tic_rt_fail(nullptr, TC_ERR_INVALID_ARGUMENT,
                       "pool of SNode '%s': element size %llu and count %llu "
                       "must be positive, the count at most %llu",
                       n, (unsigned long long)element_size,
                       (unsigned long long)max_elements,
                       (unsigned long long)TIC_RT_POOL_MAX_ELEMENTS);
  uint64_t page = pageSize();
  bool pageElements = element_size >= page;
  uint64_t size = roundUp(element_size, pageElements ? page : kGranule);
  if (size < element_size || max_elements > UINT64_MAX / size ||
      size * max_elements > UINT64_MAX - page ||
      roundUp(size * max_elements, page) > uint64_t(SIZE_MAX))
    return tic_rt_fail(nullptr, TC_ERR_OUT_OF_MEMORY,
                       "pool of SNode '%s': %llu elements of %llu bytes do "
                       "not fit in the address space",
                       n, (unsigned long long)max_elements,
                       (unsigned long long)element_size);
  uint64_t bytes = roundUp(size * max_elements, page);
  void *mem = mmap(nullptr, size_t(bytes), PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mem == MAP_FAILED)
    return tic_rt_fail(nullptr, TC_ERR_OUT_OF_MEMORY,
                       "pool of SNode '%s': cannot reserve %llu bytes of "
                       "address space",
                       n, (unsigned long long)bytes);
  void *p = std::malloc(sizeof(tic_rt_pool));
  if (!p) {
    munmap(mem, size_t(bytes));
    return tic_rt_fail(nullptr, TC_ERR_OUT_OF_MEMORY,
                       "pool of SNode '%s': cannot allocate the pool", n);
  }
  tic_rt_pool *pool = new (p) tic_rt_pool();
  std::snprintf(pool->name, sizeof(pool->name), "%s", n);
  pool->elementSize = size;
  pool->maxElements = max_elements;
  pool->base = static_cast<uint8_t *>(mem);
  pool->reservedBytes = bytes;
  pool->pageElements = pageElements;
  *out = pool;
  return TC_OK;
}

void tic_rt_pool_destroy(tic_rt_pool *pool) {
  if (!pool)
    return;
  munmap(pool->base, size_t(pool->reservedBytes));
  pthread_mutex_destroy(&pool->commitLock);
  pool->~tic_rt_pool();
  std::free(pool);
}

void *tic_rt_pool_alloc(tic_rt_context *ctx, tic_rt_pool *pool) {
  uint32_t index;
  if (pool->pop(pool->freeHead, index)) {
    pool->storeLink(index, 0); // the rest was zeroed by collect
    pool->live.fetch_add(1, std::memory_order_relaxed);
    return pool->at(index);
  }
  uint64_t i = pool->next.fetch_add(1, std::memory_order_relaxed);
  if (i >= pool->maxElements) {
    reportKernelFailure(ctx, TC_ERR_OUT_OF_MEMORY,
                        "SNode '%s' is out of memory: all %llu cells of its "
                        "pool (%llu bytes each) are in use",
                        pool->name, (unsigned long long)pool->maxElements,
                        (unsigned long long)pool->elementSize);
    return nullptr;
  }
  if (!pool->commit((i + 1) * pool->elementSize)) {
    int err = errno;
    reportKernelFailure(ctx, TC_ERR_OUT_OF_MEMORY,
                        "SNode '%s' is out of memory: the system refused to "
                        "commit more than %llu bytes for its pool (%s)",
                        pool->name, (unsigned long long)pool->committed.load(),
                        std::strerror(err));
    return nullptr;
  }
  pool->live.fetch_add(1, std::memory_order_relaxed);
  return pool->at(uint32_t(i));
}

void tic_rt_pool_free(tic_rt_pool *pool, void *element) {
  if (!pool || !element)
    return;
  pool->push(pool->pendingHead, tic_rt_pool_index(pool, element));
  pool->live.fetch_sub(1, std::memory_order_relaxed);
}

void tic_rt_pool_release_unused(tic_rt_pool *pool, void *element) {
  if (!pool || !element)
    return;
  // Never published, still zero but for the link: reusable at once.
  pool->push(pool->freeHead, tic_rt_pool_index(pool, element));
  pool->live.fetch_sub(1, std::memory_order_relaxed);
}

void tic_rt_pool_collect(tic_rt_pool *pool) {
  if (!pool)
    return;
  uint32_t index;
  while (pool->pop(pool->pendingHead, index)) {
    uint8_t *e = pool->at(index);
    if (pool->pageElements)
      madvise(e, size_t(pool->elementSize), MADV_DONTNEED); // zero pages
    else
      std::memset(e, 0, size_t(pool->elementSize));
    pool->push(pool->freeHead, index);
  }
}

void tic_rt_pool_reset(tic_rt_pool *pool) {
  if (!pool)
    return;
  uint64_t committed = pool->committed.load();
  if (committed) {
    // Back to reserved-only: the pages are dropped (and read as zero when
    // committed again).
    madvise(pool->base, size_t(committed), MADV_DONTNEED);
    mprotect(pool->base, size_t(committed), PROT_NONE);
  }
  pool->committed.store(0);
  pool->next.store(0);
  pool->freeHead.store(0);
  pool->pendingHead.store(0);
  pool->live.store(0);
}

void *tic_rt_pool_element(const tic_rt_pool *pool, uint32_t index) {
  return pool->at(index);
}

uint32_t tic_rt_pool_index(const tic_rt_pool *pool, const void *element) {
  return uint32_t((static_cast<const uint8_t *>(element) - pool->base) /
                  pool->elementSize);
}

void tic_rt_pool_get_stats(const tic_rt_pool *pool, tic_rt_pool_stats *stats) {
  if (!pool || !stats)
    return;
  uint64_t next = pool->next.load();
  int64_t live = pool->live.load();
  stats->element_size = pool->elementSize;
  stats->max_elements = pool->maxElements;
  stats->reserved_bytes = pool->reservedBytes;
  stats->committed_bytes = pool->committed.load();
  stats->live_elements = live > 0 ? uint64_t(live) : 0;
  stats->high_water = next < pool->maxElements ? next : pool->maxElements;
}

} // extern "C"

//===- Pool.cpp - Memory pools for the cells of sparse SNodes -------------===//
//
// One pool per allocating SNode: fixed-size elements handed out from a range
// of address space reserved with PROT_NONE and made read-write on demand, in
// steps of kCommitStep, by the thread that needs more (under a mutex; every
// other path is lock-free).
//
// An element comes from the free list (elements recycled by
// tic_rt_pool_collect) or, when that is used up, from the bump counter over
// fresh memory, which the system zeroes. Freed elements go to a pending list
// first and reach the free list only at collect time, when no kernel can
// still read them, so that a cell deactivated in one launch is never reused
// while another thread of that launch still looks at it.
//
// ABI 6 (docs/runtime.md): both lists are arrays of element indices, with
// counters taken from and appended to by atomic adds; the free list is only
// taken from between collects. The arrays are reserved beside the elements
// and committed with them (4 bytes each per element). ABI 5 modules inline
// Treiber stacks of element indices linked through the elements' first four
// bytes, whose heads carry a tag against ABA: a pool created for such a
// module's state (tic_rt_pool_create_abi5) keeps its elements on those.
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

/// Element alignment and size granule.
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
  // The state generated code shares (rt.h): in a context's root buffer, or
  // `own` for a pool on its own. Its fields are accessed atomically.
  tic_rt_pool_state *st = nullptr;
  tic_rt_pool_state own{};
  uint64_t elementSize = 0;
  uint64_t maxElements = 0;
  uint8_t *base = nullptr;
  uint64_t reservedBytes = 0;
  bool pageElements = false; // elements are whole pages: recycle by madvise
  // ABI 6: the free and pending lists, max_elements entries each, in one
  // reservation of listBytes (committed with the elements). Null for an
  // ABI 5 pool (stacks).
  uint32_t *freeList = nullptr, *pendingList = nullptr;
  uint64_t listBytes = 0;
  // [base, base + committed) is read-write; st->capacity follows it.
  std::atomic<uint64_t> committed{0};
  pthread_mutex_t commitLock = PTHREAD_MUTEX_INITIALIZER;

  template <typename T> static T load(const T &x, int order) {
    return __atomic_load_n(&x, order);
  }
  template <typename T> static void store(T &x, T v, int order) {
    __atomic_store_n(&x, v, order);
  }

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

  void push(uint64_t &head, uint32_t index) {
    uint64_t old = load(head, __ATOMIC_RELAXED);
    do
      storeLink(index, headLink(old));
    while (!__atomic_compare_exchange_n(&head, &old, makeHead(old, index + 1),
                                        /*weak=*/true, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED));
  }

  /// Pops an index; false when the stack is empty.
  bool pop(uint64_t &head, uint32_t &index) {
    uint64_t old = load(head, __ATOMIC_ACQUIRE);
    do {
      if (headLink(old) == 0)
        return false;
    } while (!__atomic_compare_exchange_n(
        &head, &old, makeHead(old, loadLink(headLink(old) - 1)),
        /*weak=*/true, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE));
    index = headLink(old) - 1;
    return true;
  }

  void addLive(int64_t d) {
    __atomic_fetch_add(&st->live, d, __ATOMIC_RELAXED);
  }

  /// The first `elements` entries of both lists read-write (their pages;
  /// what is already is again: mprotect is idempotent).
  bool commitLists(uint64_t elements) {
    if (!freeList)
      return true;
    if (elements > maxElements)
      elements = maxElements;
    uint64_t bytes = roundUp(elements * 4, pageSize());
    if (bytes > listBytes / 2)
      bytes = listBytes / 2;
    return mprotect(freeList, size_t(bytes), PROT_READ | PROT_WRITE) == 0 &&
           mprotect(pendingList, size_t(bytes), PROT_READ | PROT_WRITE) == 0;
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
              0 ||
          !commitLists(want / elementSize)) {
        ok = false;
      } else {
        committed.store(want, std::memory_order_release);
        // Generated code takes indices below the capacity without asking.
        uint64_t cap = want / elementSize;
        store(st->capacity, cap < maxElements ? cap : maxElements,
              __ATOMIC_RELEASE);
      }
    }
    pthread_mutex_unlock(&commitLock);
    return ok;
  }

  /// Element `i` of fresh memory (taken from the bump counter): committed,
  /// or NULL with the failure reported on ctx.
  void *fresh(tic_rt_context *ctx, uint64_t i) {
    if (i >= maxElements) {
      reportKernelFailure(ctx, TC_ERR_OUT_OF_MEMORY,
                          "SNode '%s' is out of memory: all %llu cells of its "
                          "pool (%llu bytes each) are in use",
                          name, (unsigned long long)maxElements,
                          (unsigned long long)elementSize);
      return nullptr;
    }
    if (!commit((i + 1) * elementSize)) {
      int err = errno;
      reportKernelFailure(ctx, TC_ERR_OUT_OF_MEMORY,
                          "SNode '%s' is out of memory: the system refused to "
                          "commit more than %llu bytes for its pool (%s)",
                          name, (unsigned long long)committed.load(),
                          std::strerror(err));
      return nullptr;
    }
    addLive(1);
    return at(uint32_t(i));
  }

  /// The state of an empty pool.
  void resetState() {
    tic_rt_pool_state s{};
    s.base = reinterpret_cast<uint64_t>(base);
    s.element_size = elementSize;
    s.capacity = 0;
    s.max_elements = maxElements;
    s.free_list = reinterpret_cast<uint64_t>(freeList);
    s.pending_list = reinterpret_cast<uint64_t>(pendingList);
    if (freeList)
      *st = s;
    else // an ABI 5 state: its first 64 bytes only
      std::memcpy(st, &s, offsetof(tic_rt_pool_state, free_list));
  }

  /// ABI 6: pops the free list (no retry), else takes fresh memory.
  void *allocListed(tic_rt_context *ctx) {
    uint64_t count = load(st->free_count, __ATOMIC_RELAXED);
    if (load(st->free_taken, __ATOMIC_RELAXED) < count) {
      uint64_t t = __atomic_fetch_add(&st->free_taken, 1, __ATOMIC_RELAXED);
      if (t < count) {
        addLive(1);
        return at(freeList[count - 1 - t]);
      }
    }
    return fresh(ctx, __atomic_fetch_add(&st->next, 1, __ATOMIC_RELAXED));
  }

  /// ABI 6: queues `index` on the pending list.
  void queue(uint32_t index) {
    pendingList[__atomic_fetch_add(&st->pending_count, 1, __ATOMIC_RELAXED)] =
        index;
    addLive(-1);
  }

  /// Zeroes element `index` for reuse.
  void zero(uint32_t index) {
    uint8_t *e = at(index);
    if (pageElements)
      madvise(e, size_t(elementSize), MADV_DONTNEED); // zero pages
    else
      std::memset(e, 0, size_t(elementSize));
  }
};

extern "C" {

tc_status tic_rt_pool_create(const char *name, uint64_t element_size,
                             uint64_t max_elements, tic_rt_pool **out) {
  return tic_rt_pool_create_with_state(name, element_size, max_elements,
                                       nullptr, out);
}

} // extern "C"

namespace {

tc_status createPool(const char *name, uint64_t element_size,
                     uint64_t max_elements, tic_rt_pool_state *state,
                     bool lists, tic_rt_pool **out) {
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
  // Elements are rounded to 16 bytes only: generated code walks a hash
  // node's entries with the compiler's stride (getHashEntryBytes, a
  // multiple of 16), whatever the page size. Elements of whole pages are
  // recycled by returning their pages to the system.
  bool pageElements = element_size >= page && element_size % page == 0;
  uint64_t size = roundUp(element_size, kGranule);
  if (size < element_size || max_elements > UINT64_MAX / size ||
      size * max_elements > UINT64_MAX - page ||
      roundUp(size * max_elements, page) > uint64_t(SIZE_MAX))
    return tic_rt_fail(nullptr, TC_ERR_OUT_OF_MEMORY,
                       "pool of SNode '%s': %llu elements of %llu bytes do "
                       "not fit in the address space",
                       n, (unsigned long long)max_elements,
                       (unsigned long long)element_size);
  uint64_t bytes = roundUp(size * max_elements, page);
  // ABI 6: the two lists, 4 bytes per element each, reserved after the
  // elements (bytes is a multiple of the page size, so is listBytes).
  uint64_t listBytes = lists ? 2 * roundUp(4 * max_elements, page) : 0;
  void *mem = mmap(nullptr, size_t(bytes + listBytes), PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mem == MAP_FAILED)
    return tic_rt_fail(nullptr, TC_ERR_OUT_OF_MEMORY,
                       "pool of SNode '%s': cannot reserve %llu bytes of "
                       "address space",
                       n, (unsigned long long)(bytes + listBytes));
  void *p = std::malloc(sizeof(tic_rt_pool));
  if (!p) {
    munmap(mem, size_t(bytes + listBytes));
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
  if (lists) {
    pool->listBytes = listBytes;
    pool->freeList = reinterpret_cast<uint32_t *>(pool->base + bytes);
    pool->pendingList = pool->freeList + listBytes / 2 / 4;
  }
  pool->st = state ? state : &pool->own;
  pool->resetState();
  *out = pool;
  return TC_OK;
}

} // namespace

extern "C" {

tc_status tic_rt_pool_create_with_state(const char *name, uint64_t element_size,
                                        uint64_t max_elements,
                                        tic_rt_pool_state *state,
                                        tic_rt_pool **out) {
  return createPool(name, element_size, max_elements, state, /*lists=*/true,
                    out);
}

tc_status tic_rt_pool_create_abi5(const char *name, uint64_t element_size,
                                  uint64_t max_elements,
                                  tic_rt_pool_state *state, tic_rt_pool **out) {
  return createPool(name, element_size, max_elements, state, /*lists=*/false,
                    out);
}

void tic_rt_pool_destroy(tic_rt_pool *pool) {
  if (!pool)
    return;
  munmap(pool->base, size_t(pool->reservedBytes + pool->listBytes));
  pthread_mutex_destroy(&pool->commitLock);
  pool->~tic_rt_pool();
  std::free(pool);
}

void *tic_rt_pool_alloc(tic_rt_context *ctx, tic_rt_pool *pool) {
  if (pool->freeList)
    return pool->allocListed(ctx);
  uint32_t index;
  if (pool->pop(pool->st->free_head, index)) {
    pool->storeLink(index, 0); // the rest was zeroed by collect
    pool->addLive(1);
    return pool->at(index);
  }
  return pool->fresh(ctx,
                     __atomic_fetch_add(&pool->st->next, 1, __ATOMIC_RELAXED));
}

void *tic_rt_pool_alloc_at(tic_rt_context *ctx, tic_rt_pool *pool,
                           uint64_t index) {
  return pool->fresh(ctx, index);
}

void tic_rt_pool_free(tic_rt_pool *pool, void *element) {
  if (!pool || !element)
    return;
  if (pool->freeList)
    return pool->queue(tic_rt_pool_index(pool, element));
  pool->push(pool->st->pending_head, tic_rt_pool_index(pool, element));
  pool->addLive(-1);
}

void tic_rt_pool_release_unused(tic_rt_pool *pool, void *element) {
  if (!pool || !element)
    return;
  if (pool->freeList) // the free list is only taken from between collects
    return pool->queue(tic_rt_pool_index(pool, element));
  // Never published, still zero but for the link: reusable at once.
  pool->push(pool->st->free_head, tic_rt_pool_index(pool, element));
  pool->addLive(-1);
}

void tic_rt_pool_collect(tic_rt_pool *pool) {
  if (!pool)
    return;
  tic_rt_pool_state *st = pool->st;
  if (pool->freeList) {
    // The untaken entries stay at the bottom; the pending ones follow.
    uint64_t count = st->free_count;
    uint64_t left = count - (st->free_taken < count ? st->free_taken : count);
    for (uint64_t i = 0, n = st->pending_count; i < n; ++i) {
      uint32_t index = pool->pendingList[i];
      pool->zero(index);
      pool->freeList[left++] = index;
    }
    st->free_count = left;
    st->free_taken = 0;
    st->pending_count = 0;
    return;
  }
  uint32_t index;
  while (pool->pop(st->pending_head, index)) {
    pool->zero(index);
    pool->push(st->free_head, index);
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
    if (pool->listBytes) {
      madvise(pool->freeList, size_t(pool->listBytes), MADV_DONTNEED);
      mprotect(pool->freeList, size_t(pool->listBytes), PROT_NONE);
    }
  }
  pool->committed.store(0);
  pool->resetState();
}

tic_rt_pool_state *tic_rt_pool_get_state(tic_rt_pool *pool) {
  return pool ? pool->st : nullptr;
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
  uint64_t next = __atomic_load_n(&pool->st->next, __ATOMIC_RELAXED);
  int64_t live = __atomic_load_n(&pool->st->live, __ATOMIC_RELAXED);
  stats->element_size = pool->elementSize;
  stats->max_elements = pool->maxElements;
  stats->reserved_bytes = pool->reservedBytes;
  stats->committed_bytes = pool->committed.load();
  stats->live_elements = live > 0 ? uint64_t(live) : 0;
  stats->high_water = next < pool->maxElements ? next : pool->maxElements;
}

} // extern "C"

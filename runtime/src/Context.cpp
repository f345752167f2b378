//===- Context.cpp - Context creation, root buffer, errors ----------------===//

#include "Internal.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sys/mman.h>
#include <unistd.h>

using namespace tic::rt;

namespace {

/// Mapped root buffers of at least this many bytes ask for huge pages.
constexpr uint64_t kHugePageThreshold = uint64_t(8) << 20;

/// Root buffers of at least this many bytes come from mmap: they are zeroed
/// by the kernel and their untouched pages are never committed.
constexpr uint64_t kMmapThreshold = uint64_t(1) << 20;

/// Upper bound on tc_options::num_threads.
constexpr int32_t kMaxThreads = 1 << 16;

/// Messages recorded without a context (tic_rt_fail(NULL, ...), failed
/// context creation), one per host thread.
thread_local char threadLastError[kErrorCapacity];

bool isPowerOfTwo(uint64_t x) { return x && !(x & (x - 1)); }

/// num_threads = 0: OMP_NUM_THREADS when set (the variable users of
/// OpenMP programs already know), else every CPU this process may run on.
int32_t defaultThreadCount() {
  int32_t n = parseThreadCount(std::getenv("OMP_NUM_THREADS"), kMaxThreads);
  if (n > 0)
    return n;
  n = availableCpus();
  return n < kMaxThreads ? n : kMaxThreads;
}

/// Allocates the zeroed root buffer of `ctx`.
tc_status allocateRoot(tic_rt_context *ctx, uint64_t size, uint64_t align) {
  // Always hand out a valid, distinct pointer, even for modules without
  // dense fields.
  if (size == 0)
    size = 1;
  if (size > UINT64_MAX - align || size + align > SIZE_MAX)
    return tic_rt_fail(nullptr, TC_ERR_OUT_OF_MEMORY,
                       "root buffer of %llu bytes is too large",
                       (unsigned long long)size);
  long page = sysconf(_SC_PAGESIZE);
  if (page <= 0)
    page = 4096;

  if (size >= kMmapThreshold && align <= uint64_t(page)) {
    size_t bytes = size_t((size + page - 1) / page * page);
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      return tic_rt_fail(nullptr, TC_ERR_OUT_OF_MEMORY,
                         "cannot map a root buffer of %llu bytes",
                         (unsigned long long)size);
#ifdef MADV_HUGEPAGE
    // Large fields are streamed through: transparent huge pages cut the TLB
    // misses of such sweeps (a hint; the kernel may ignore it).
    if (bytes >= kHugePageThreshold)
      (void)madvise(p, bytes, MADV_HUGEPAGE);
#endif
    ctx->root = p;
    ctx->rootAllocBytes = bytes;
    ctx->rootMapped = true;
    return TC_OK;
  }

  // aligned_alloc wants a size that is a multiple of the alignment.
  size_t bytes = size_t((size + align - 1) / align * align);
  void *p = std::aligned_alloc(size_t(align), bytes);
  if (!p)
    return tic_rt_fail(nullptr, TC_ERR_OUT_OF_MEMORY,
                       "cannot allocate a root buffer of %llu bytes",
                       (unsigned long long)size);
  std::memset(p, 0, bytes);
  ctx->root = p;
  ctx->rootAllocBytes = bytes;
  ctx->rootMapped = false;
  return TC_OK;
}

void freeRoot(tic_rt_context *ctx) {
  if (!ctx->root)
    return;
  if (ctx->rootMapped)
    munmap(ctx->root, ctx->rootAllocBytes);
  else
    std::free(ctx->root);
  ctx->root = nullptr;
}

/// Picks the arch for `requested`; on failure the message is recorded on
/// the calling thread. CUDA needs a module compiled with --target=cuda and
/// a usable GPU.
tc_status resolveArch(int requested, const tic_rt_module_desc *desc,
                      tc_arch *resolved) {
  const char *name = desc->name ? desc->name : "<unnamed>";
  bool hasPTX = desc->abi_version >= 4 && desc->ptx;
  switch (requested) {
  case TC_ARCH_CPU:
    *resolved = TC_ARCH_CPU;
    return TC_OK;
  case TC_ARCH_CUDA: {
    char why[512];
    tc_status s = cudaLoaderInit(why, sizeof(why));
    if (s != TC_OK)
      return tic_rt_fail(nullptr, s, "TC_ARCH_CUDA is not available: %s", why);
    if (!hasPTX)
      return tic_rt_fail(nullptr, TC_ERR_UNSUPPORTED,
                         "TC_ARCH_CUDA: module '%s' has no device code "
                         "(compile it with --target=host,cuda)",
                         name);
    *resolved = TC_ARCH_CUDA;
    return TC_OK;
  }
  case TC_ARCH_ANY: {
    char why[512];
    // A GPU is used when the module has device code and the CUDA loader
    // finds one; otherwise the CPU.
    *resolved = hasPTX && cudaLoaderInit(why, sizeof(why)) == TC_OK
                    ? TC_ARCH_CUDA
                    : TC_ARCH_CPU;
    return TC_OK;
  }
  }
  return tic_rt_fail(nullptr, TC_ERR_INVALID_ARGUMENT,
                     "tc_options.arch has invalid value %d", requested);
}

void destroyContext(tic_rt_context *ctx) {
  cudaDestroyContext(ctx);
  destroyThreadPool(ctx->pool);
  for (int32_t i = 0; i < ctx->numPools; ++i)
    tic_rt_pool_destroy(ctx->pools[i]);
  std::free(ctx->pools);
  freeRoot(ctx);
  std::free(ctx->rng);
  for (size_t i = 0; i < ctx->tapeSize; ++i)
    std::free(ctx->tape[i].args);
  std::free(ctx->tape);
  destroyAccessLog(ctx->accessLog.load());
  for (int32_t i = 0; i < ctx->numScratch; ++i)
    std::free(ctx->scratch[i].data);
  std::free(ctx->scratch);
  sweepHashBlocks(ctx, /*all=*/true);
  pthread_mutex_destroy(&ctx->hashBlockLock);
  pthread_mutex_destroy(&ctx->errorLock);
  ctx->~tic_rt_context();
  std::free(ctx);
}

} // namespace

void tic::rt::formatMessage(char *buf, size_t cap, const char *fmt,
                            va_list ap) {
  if (!cap)
    return;
  if (!fmt) {
    buf[0] = '\0';
    return;
  }
  int n = std::vsnprintf(buf, cap, fmt, ap);
  if (n < 0)
    std::snprintf(buf, cap, "(unformattable message: %s)", fmt);
}

void tic::rt::sweepHashBlocks(tic_rt_context *ctx, bool all) {
  pthread_mutex_lock(&ctx->hashBlockLock);
  for (HashBlock *b = ctx->hashBlocks, *next; b; b = next) {
    next = b->next;
    // The owner is in the root buffer or in a pool's element, both mapped
    // while the context lives (a freed parent cell reads as zero or as
    // what its next owner wrote).
    if (!all && __atomic_load_n(b->owner, __ATOMIC_RELAXED) == b + 1)
      continue;
    (b->prev ? b->prev->next : ctx->hashBlocks) = next;
    if (next)
      next->prev = b->prev;
    std::free(b);
  }
  pthread_mutex_unlock(&ctx->hashBlockLock);
}

uint64_t tic::rt::hashBlockBytes(tic_rt_context *ctx, int32_t pool) {
  uint64_t bytes = 0;
  pthread_mutex_lock(&ctx->hashBlockLock);
  for (const HashBlock *b = ctx->hashBlocks; b; b = b->next)
    if (pool < 0 || b->pool == pool)
      bytes += sizeof(HashBlock) + b->bytes;
  pthread_mutex_unlock(&ctx->hashBlockLock);
  return bytes;
}

extern "C" {

tc_status tic_rt_context_create(const tc_options *opts,
                                const tic_rt_module_desc *desc,
                                tic_rt_context **out) {
  if (!out)
    return tic_rt_fail(nullptr, TC_ERR_INVALID_ARGUMENT,
                       "context output pointer is NULL");
  *out = nullptr;
  threadLastError[0] = '\0';
  if (!desc)
    return tic_rt_fail(nullptr, TC_ERR_INVALID_ARGUMENT,
                       "module descriptor is NULL");
  const char *name = desc->name ? desc->name : "<unnamed>";
  if (desc->abi_version == 0 || desc->abi_version > TIC_RT_ABI_VERSION)
    return tic_rt_fail(nullptr, TC_ERR_UNSUPPORTED,
                       "module '%s' was compiled for runtime ABI %u, but "
                       "this libtic_runtime %s supports ABI 1..%u; rebuild "
                       "the module or update the runtime",
                       name, desc->abi_version, tc_runtime_version(),
                       TIC_RT_ABI_VERSION);
  uint64_t align = desc->root_align ? desc->root_align : kCacheLine;
  if (!isPowerOfTwo(align) || align > (uint64_t(1) << 30))
    return tic_rt_fail(nullptr, TC_ERR_INVALID_ARGUMENT,
                       "module '%s': root alignment %llu is not a power of "
                       "two up to 2^30",
                       name, (unsigned long long)desc->root_align);
  if (align < kCacheLine)
    align = kCacheLine;
  if (desc->num_fields < 0)
    return tic_rt_fail(nullptr, TC_ERR_INVALID_ARGUMENT,
                       "module '%s': negative field count %d", name,
                       int(desc->num_fields));

  tc_options o;
  tc_options_init(&o);
  if (opts)
    o = *opts;
  if (o.num_threads < 0 || o.num_threads > kMaxThreads)
    return tic_rt_fail(nullptr, TC_ERR_INVALID_ARGUMENT,
                       "tc_options.num_threads must be in [0, %d] (0 = all "
                       "cores), got %d",
                       int(kMaxThreads), int(o.num_threads));
  tc_status s = resolveArch(rawEnumValue(o.arch), desc, &o.arch);
  if (s != TC_OK)
    return s;
  if (o.num_threads == 0)
    o.num_threads = defaultThreadCount();

  void *mem =
      std::aligned_alloc(kCacheLine, (sizeof(tic_rt_context) + kCacheLine - 1) /
                                         kCacheLine * kCacheLine);
  if (!mem)
    return tic_rt_fail(nullptr, TC_ERR_OUT_OF_MEMORY,
                       "cannot allocate the context");
  tic_rt_context *ctx = new (mem) tic_rt_context();
  ctx->desc = desc;
  ctx->opts = o;
  ctx->numThreads = o.num_threads;
  ctx->rootSize = desc->root_size;

  s = o.arch == TC_ARCH_CUDA ? cudaCreateContext(ctx, desc->root_size, align)
                             : allocateRoot(ctx, desc->root_size, align);
  // (Not over a device memory budget: that message names the budget.)
  bool overBudget = o.arch == TC_ARCH_CUDA && o.device_memory_bytes &&
                    desc->root_size > o.device_memory_bytes;
  if (s == TC_ERR_OUT_OF_MEMORY && !overBudget && desc->abi_version >= 2 &&
      desc->field_bytes && desc->field_names && desc->num_fields > 0) {
    // Name the field that needs the most memory: the one to shrink.
    int32_t largest = 0;
    for (int32_t i = 1; i < desc->num_fields; ++i)
      if (desc->field_bytes[i] > desc->field_bytes[largest])
        largest = i;
    s = tic_rt_fail(nullptr, TC_ERR_OUT_OF_MEMORY,
                    "module '%s': cannot allocate the %llu bytes of its "
                    "fields; the largest is '%s' with %llu bytes",
                    name, (unsigned long long)desc->root_size,
                    desc->field_names[largest] ? desc->field_names[largest]
                                               : "?",
                    (unsigned long long)desc->field_bytes[largest]);
  }
  if (s != TC_OK) {
    destroyContext(ctx);
    return s;
  }

  ctx->rng = static_cast<RngState *>(std::aligned_alloc(
      alignof(RngState), sizeof(RngState) * size_t(ctx->numThreads)));
  if (!ctx->rng) {
    destroyContext(ctx);
    return tic_rt_fail(nullptr, TC_ERR_OUT_OF_MEMORY,
                       "cannot allocate random generator state");
  }
  for (int32_t t = 0; t < ctx->numThreads; ++t)
    seedRng(ctx->rng[t], o.seed, uint32_t(t));

  // One pool per pointer SNode: address space only, committed on demand.
  if (desc->abi_version >= 3 && desc->num_pools > 0) {
    if (!desc->pools) {
      destroyContext(ctx);
      return tic_rt_fail(nullptr, TC_ERR_INVALID_ARGUMENT,
                         "module '%s': %d pools but no pool table", name,
                         int(desc->num_pools));
    }
    ctx->pools = static_cast<tic_rt_pool **>(
        std::calloc(size_t(desc->num_pools), sizeof(tic_rt_pool *)));
    if (!ctx->pools) {
      destroyContext(ctx);
      return tic_rt_fail(nullptr, TC_ERR_OUT_OF_MEMORY,
                         "cannot allocate the pool table");
    }
    // ABI 5: generated code finds each pool's state in the root buffer
    // (ABI 6: 128 bytes, with the lists; ABI 5: the first 64, stacks).
    bool withState = desc->abi_version >= 5;
    bool abi5 = desc->abi_version == 5;
    uint64_t stateBytes = abi5 ? offsetof(tic_rt_pool_state, free_list)
                               : sizeof(tic_rt_pool_state);
    for (int32_t i = 0; withState && i < desc->num_pools; ++i) {
      tic_rt_pool_desc pd = desc->pools[i];
      if (pd.state_offset % 8 != 0 || pd.state_offset > desc->root_size ||
          desc->root_size - pd.state_offset < stateBytes) {
        destroyContext(ctx);
        return tic_rt_fail(nullptr, TC_ERR_INVALID_ARGUMENT,
                           "module '%s': the state of pool %d is outside "
                           "the root buffer",
                           name, int(i));
      }
    }
    if (withState && ctx->cuda) {
      // In device memory (Cuda.cpp); no host pools (entries NULL).
      ctx->numPools = desc->num_pools;
      s = cudaCreatePools(ctx);
      if (s != TC_OK) {
        destroyContext(ctx);
        return s;
      }
    } else {
      for (int32_t i = 0; i < desc->num_pools; ++i) {
        tic_rt_pool_desc pd = poolDescAt(desc, i);
        tic_rt_pool_state *state =
            withState ? reinterpret_cast<tic_rt_pool_state *>(
                            static_cast<char *>(ctx->root) + pd.state_offset)
                      : nullptr;
        // Room for the cells threads allocate while racing to install one
        // (a hash insert that loses gives its entry back; since ABI 6 it is
        // reused after the launch, as on a GPU). Address space only.
        uint64_t max = pd.max_elements +
                       (abi5 ? uint64_t(ctx->numThreads) : kPoolRaceRoom);
        if (max > TIC_RT_POOL_MAX_ELEMENTS)
          max = TIC_RT_POOL_MAX_ELEMENTS;
        s = (abi5 ? tic_rt_pool_create_abi5 : tic_rt_pool_create_with_state)(
            pd.name, pd.element_size, max, state, &ctx->pools[i]);
        if (s != TC_OK) {
          destroyContext(ctx);
          return s;
        }
        ctx->numPools = i + 1;
      }
    }
  }

  *out = ctx;
  return TC_OK;
}

void tic_rt_context_destroy(tic_rt_context *ctx) {
  if (ctx)
    destroyContext(ctx);
}

void *tic_rt_root(tic_rt_context *ctx) { return ctx ? ctx->root : nullptr; }

uint64_t tic_rt_root_size(const tic_rt_context *ctx) {
  return ctx ? ctx->rootSize : 0;
}

const tic_rt_module_desc *tic_rt_desc(const tic_rt_context *ctx) {
  return ctx ? ctx->desc : nullptr;
}

const tc_options *tic_rt_options(const tic_rt_context *ctx) {
  return ctx ? &ctx->opts : nullptr;
}

int32_t tic_rt_num_threads(const tic_rt_context *ctx) {
  return ctx ? ctx->numThreads : 1;
}

void *tic_rt_scratch(tic_rt_context *ctx, int32_t slot, uint64_t bytes) {
  // Slot numbers are small (one or two per privatized loop of a module).
  constexpr int32_t kMaxSlots = 1 << 16;
  // Generated code asks for at most 512 MiB; anything near the address
  // space is a bug, answered without asking the allocator.
  constexpr uint64_t kMaxBytes = uint64_t(1) << 40;
  if (!ctx || slot < 0 || slot >= kMaxSlots || bytes > kMaxBytes)
    return nullptr;
  if (slot >= ctx->numScratch) {
    int32_t n = slot + 1;
    auto *grown = static_cast<ScratchSlot *>(
        std::realloc(ctx->scratch, sizeof(ScratchSlot) * size_t(n)));
    if (!grown)
      return nullptr;
    for (int32_t i = ctx->numScratch; i < n; ++i)
      grown[i] = ScratchSlot{};
    ctx->scratch = grown;
    ctx->numScratch = n;
  }
  ScratchSlot &s = ctx->scratch[slot];
  if (bytes > s.bytes || !s.data) {
    // Zeroed memory; calloc maps large blocks lazily (pages the code never
    // touches cost nothing). The old contents are zero, so nothing is lost.
    void *fresh = std::calloc(1, bytes ? size_t(bytes) : 1);
    if (!fresh)
      return nullptr;
    std::free(s.data);
    s.data = fresh;
    s.bytes = bytes;
  }
  return s.data;
}

void *tic_rt_hash_block(tic_rt_context *ctx, int32_t pool, void *const *owner,
                        uint64_t bytes) {
  // At most kHashMaxTableBuckets heads (8 MiB); anything near the address
  // space is a bug, answered without asking the allocator.
  constexpr uint64_t kMaxBytes = uint64_t(1) << 40;
  if (!ctx || !owner || bytes > kMaxBytes)
    return nullptr;
  // Zeroed; calloc maps large blocks lazily.
  auto *blk = static_cast<HashBlock *>(
      std::calloc(1, sizeof(HashBlock) + size_t(bytes)));
  if (!blk)
    return nullptr;
  blk->owner = owner;
  blk->bytes = bytes;
  blk->pool = pool;
  pthread_mutex_lock(&ctx->hashBlockLock);
  blk->next = ctx->hashBlocks;
  if (blk->next)
    blk->next->prev = blk;
  ctx->hashBlocks = blk;
  pthread_mutex_unlock(&ctx->hashBlockLock);
  return blk + 1;
}

tc_status tic_rt_fail(tic_rt_context *ctx, tc_status status, const char *fmt,
                      ...) {
  va_list ap;
  va_start(ap, fmt);
  if (ctx) {
    pthread_mutex_lock(&ctx->errorLock);
    formatMessage(ctx->lastError, sizeof(ctx->lastError), fmt, ap);
    pthread_mutex_unlock(&ctx->errorLock);
  } else {
    formatMessage(threadLastError, sizeof(threadLastError), fmt, ap);
  }
  va_end(ap);
  return status;
}

const char *tic_rt_last_error(const tic_rt_context *ctx) {
  return ctx ? ctx->lastError : threadLastError;
}

} // extern "C"

//===- CudaPools.cpp - The SNode pools of a context on the device ---------===//
//
// Pointer, dynamic and hash SNodes take their cells from pools whose states
// (tic_rt_pool_state) are in the root buffer, so that device code allocates
// and frees cells inline, with the same IR as on the CPU. Device code takes
// fresh cells below the state's capacity; one past it is a failure
// (TC_ERR_OUT_OF_MEMORY naming the SNode). This file gives the pools their
// device memory:
//
//  * With the driver's virtual memory management API (and runtime ABI 6):
//    address space is reserved for every cell the node can have (bounded by
//    the device's memory, or tc_options.device_memory_bytes), with the free
//    and pending lists after the cells, and physical memory is mapped from
//    the start of each part: at first as much as a fixed pool had (up to
//    1 GiB, or an equal share of the budget), then more where the host has
//    waited for the device anyway (MODULE_sync, a field read, a checked
//    launch: the device is idle, no launch can see memory change) and the
//    pool's bump index has passed half of what is mapped: twice as much, or
//    twice the index. The runtime then raises the capacity, in stream
//    order before the next launch. Where the driver has pinned memory,
//    asynchronous copies and events, the same happens without a wait: each
//    launch is followed by a copy of the states into pinned memory (one in
//    flight), and the first launch after it arrived grows the pools from
//    it, raising the capacities with asynchronous copies ahead of itself.
//    A pool thus grows past its first size between launches; one launch
//    cannot take more than was mapped before it.
//  * Otherwise (an older driver, an ABI 5 object, or TIC_CUDA_FIXED_POOLS=1
//    in the environment) one allocation of that first size.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"
#include "Internal.h"

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>

using namespace tic::rt;
using namespace tic::rt::cu;

namespace {

/// The most device memory a pool takes at first without
/// tc_options.device_memory_bytes.
constexpr uint64_t kDevicePoolBytes = uint64_t(1) << 30;

/// Bytes of the free and pending lists per cell (uint32_t each; ABI 6).
constexpr uint64_t kListBytesPerCell = 4;

uint64_t roundUp(uint64_t v, uint64_t g) { return (v + g - 1) / g * g; }

CUdeviceptr stateAddress(const tic_rt_context *ctx, const DevicePool &p,
                         size_t member) {
  return reinterpret_cast<CUdeviceptr>(ctx->root) + p.stateOffset + member;
}

bool fixedPoolsRequested() {
  const char *v = std::getenv("TIC_CUDA_FIXED_POOLS");
  return v && v[0] && std::strcmp(v, "0") != 0;
}

/// Maps [at, at + bytes) of p's reservation (granularity multiples) to new
/// device memory, read-write for the device, and zeroes it.
CUresult mapChunk(DevicePool &p, CUdeviceptr at, size_t bytes) {
  const Driver &d = loader.drv;
  if (p.numChunks == p.capChunks) {
    int32_t cap = p.capChunks ? 2 * p.capChunks : 8;
    auto *grown = static_cast<DevicePool::Chunk *>(
        std::realloc(p.chunks, sizeof(DevicePool::Chunk) * size_t(cap)));
    if (!grown)
      return 2; // CUDA_ERROR_OUT_OF_MEMORY
    p.chunks = grown;
    p.capChunks = cap;
  }
  CUmemAllocationProp prop = devicePinned();
  CUmemGenericAllocationHandle h = 0;
  CUresult r = d.cuMemCreate(&h, bytes, &prop, 0);
  if (r != CUDA_SUCCESS)
    return r;
  if ((r = d.cuMemMap(at, bytes, 0, h, 0)) != CUDA_SUCCESS) {
    d.cuMemRelease(h);
    return r;
  }
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if ((r = d.cuMemSetAccess(at, bytes, &access, 1)) != CUDA_SUCCESS ||
      (r = d.cuMemsetD8(at, 0, bytes)) != CUDA_SUCCESS) {
    d.cuMemUnmap(at, bytes);
    d.cuMemRelease(h);
    return r;
  }
  p.chunks[p.numChunks++] = DevicePool::Chunk{at, bytes, h};
  return CUDA_SUCCESS;
}

/// Maps p's cells, and with `lists` its free and pending lists, up to
/// `elements` elements (what is mapped stays); p.mapped follows what all
/// parts hold, also after a failure.
CUresult mapUpTo(DevicePool &p, uint64_t elements, bool lists) {
  uint64_t g = loader.granularity;
  if (elements > p.reserved)
    elements = p.reserved;
  size_t cells = size_t(roundUp(elements * p.elementSize, g));
  if (cells > p.cellBytes)
    cells = p.cellBytes;
  CUresult r = CUDA_SUCCESS;
  if (cells > p.cellMapped) {
    r = mapChunk(p, p.va + p.cellMapped, cells - p.cellMapped);
    if (r == CUDA_SUCCESS)
      p.cellMapped = cells;
  }
  if (r == CUDA_SUCCESS && lists) {
    size_t list = size_t(roundUp(elements * kListBytesPerCell, g));
    if (list > p.listBytes)
      list = p.listBytes;
    if (list > p.listMapped) {
      size_t more = list - p.listMapped;
      CUdeviceptr freeList = p.va + p.cellBytes,
                  pending = freeList + p.listBytes;
      r = mapChunk(p, freeList + p.listMapped, more);
      if (r == CUDA_SUCCESS) {
        r = mapChunk(p, pending + p.listMapped, more);
        if (r == CUDA_SUCCESS) {
          p.listMapped = list;
        } else {
          // Keep the parts equal: give the free list's piece back.
          DevicePool::Chunk c = p.chunks[--p.numChunks];
          loader.drv.cuMemUnmap(c.at, c.bytes);
          loader.drv.cuMemRelease(c.handle);
        }
      }
    }
  }
  uint64_t held = p.cellMapped / p.elementSize;
  if (lists && p.listMapped / kListBytesPerCell < held)
    held = p.listMapped / kListBytesPerCell;
  p.mapped = held < p.reserved ? held : p.reserved;
  return r;
}

/// Reserves address space for `limit` elements of p (cells, then the two
/// lists), or as many as the driver gives, halving down to `least`. False
/// when not even that.
bool reserve(DevicePool &p, uint64_t limit, uint64_t least) {
  uint64_t g = loader.granularity;
  for (;;) {
    size_t cells = size_t(roundUp(limit * p.elementSize, g));
    size_t list = size_t(roundUp(limit * kListBytesPerCell, g));
    CUdeviceptr va = 0;
    if (loader.drv.cuMemAddressReserve(&va, cells + 2 * list, 0, 0, 0) ==
        CUDA_SUCCESS) {
      p.va = va;
      p.vaBytes = cells + 2 * list;
      p.cellBytes = cells;
      p.listBytes = list;
      p.reserved = limit;
      return true;
    }
    if (limit <= least)
      return false;
    limit = limit / 2 > least ? limit / 2 : least;
  }
}

/// The bytes mapping p up to `elements` elements adds (cells and lists).
uint64_t bytesToMap(const DevicePool &p, uint64_t elements) {
  uint64_t g = loader.granularity;
  uint64_t cells = roundUp(elements * p.elementSize, g);
  uint64_t list = roundUp(elements * kListBytesPerCell, g);
  cells = cells < p.cellBytes ? cells : p.cellBytes;
  list = list < p.listBytes ? list : p.listBytes;
  return (cells > p.cellMapped ? cells - p.cellMapped : 0) +
         2 * (list > p.listMapped ? list - p.listMapped : 0);
}

/// The most elements in [lo, hi] that p can map with at most `room` more
/// bytes (lo when none more).
uint64_t mostThatFit(const DevicePool &p, uint64_t lo, uint64_t hi,
                     uint64_t room) {
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo + 1) / 2;
    if (bytesToMap(p, mid) <= room)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/// Device memory pools take (mapped or allocated), in bytes.
uint64_t poolBytes(const DevicePool &p) {
  return p.cellMapped + 2 * p.listMapped;
}

/// Gives p's memory back (the device is idle); p is then empty.
void releasePool(DevicePool &p) {
  const Driver &d = loader.drv;
  if (p.fixed)
    d.cuMemFree(p.fixed);
  for (int32_t k = 0; k < p.numChunks; ++k) {
    d.cuMemUnmap(p.chunks[k].at, p.chunks[k].bytes);
    d.cuMemRelease(p.chunks[k].handle);
  }
  if (p.va)
    d.cuMemAddressFree(p.va, p.vaBytes);
  std::free(p.chunks);
  uint64_t size = p.elementSize, offset = p.stateOffset;
  p = DevicePool();
  p.elementSize = size;
  p.stateOffset = offset;
}

/// Writes p's capacity (and max_elements, where struct-fors over its cells
/// stop: no cell lies past the capacity on the device) to its state. With
/// `slot` (16 bytes of pinned host memory) the copy is asynchronous: in
/// stream order, after the launches in flight, and the host does not wait.
bool publishCapacity(tic_rt_context *ctx, const DevicePool &p, char *slot) {
  uint64_t both[2] = {p.mapped, p.mapped};
  static_assert(offsetof(tic_rt_pool_state, max_elements) ==
                    offsetof(tic_rt_pool_state, capacity) + 8,
                "capacity and max_elements are adjacent");
  CUdeviceptr at = stateAddress(ctx, p, offsetof(tic_rt_pool_state, capacity));
  if (!slot)
    return check(ctx, loader.drv.cuMemcpyHtoD(at, both, sizeof(both)),
                 "raising a pool's capacity");
  std::memcpy(slot, both, sizeof(both));
  return check(ctx,
               loader.drv.cuMemcpyHtoDAsync(at, slot, sizeof(both), nullptr),
               "raising a pool's capacity");
}

/// The span [lo, hi) of the root buffer holding the states of the pools
/// that reserved address space (those that may grow); empty without one.
void reservedStates(const CudaState *s, uint64_t &lo, uint64_t &hi) {
  lo = UINT64_MAX;
  hi = 0;
  for (int32_t i = 0; i < s->numPools; ++i) {
    const DevicePool &p = s->pools[i];
    if (!p.va)
      continue;
    lo = p.stateOffset < lo ? p.stateOffset : lo;
    uint64_t end = p.stateOffset + sizeof(tic_rt_pool_state);
    hi = end > hi ? end : hi;
  }
}

/// Device memory the root buffer and the pools take, in bytes.
uint64_t deviceBytesUsed(const tic_rt_context *ctx) {
  uint64_t used = ctx->rootSize;
  for (int32_t i = 0; i < ctx->cuda->numPools; ++i)
    used += poolBytes(ctx->cuda->pools[i]);
  return used;
}

/// Grows each reserved pool whose bump index, in `states` (a copy of the
/// root buffer's bytes [lo, hi)), passed half of what is mapped: twice as
/// much, or twice the index, within the reservation and the budget.
/// `slots` (pinned, 16 bytes per pool): the capacities rise asynchronously;
/// else with synchronous copies.
void growFrom(tic_rt_context *ctx, const char *states, uint64_t lo, uint64_t hi,
              char *slots) {
  CudaState *s = ctx->cuda;
  uint64_t budget = ctx->opts.device_memory_bytes;
  uint64_t used = deviceBytesUsed(ctx);
  for (int32_t i = 0; i < s->numPools; ++i) {
    DevicePool &p = s->pools[i];
    if (!p.va || p.mapped >= p.reserved || p.stateOffset < lo ||
        p.stateOffset + sizeof(tic_rt_pool_state) > hi)
      continue;
    uint64_t next;
    std::memcpy(&next,
                states + (p.stateOffset - lo) +
                    offsetof(tic_rt_pool_state, next),
                sizeof(next));
    if (next < p.mapped / 2)
      continue;
    uint64_t target = next > p.mapped ? 2 * next : 2 * p.mapped;
    if (target > p.reserved)
      target = p.reserved;
    // Within the budget: what the other pools and the fields leave, the
    // mappings' rounding included (the most elements that fit).
    if (budget)
      target =
          mostThatFit(p, p.mapped, target, budget > used ? budget - used : 0);
    if (target <= p.mapped)
      continue;
    uint64_t before = poolBytes(p), old = p.mapped;
    // A failure leaves what it could map: a launch past it fails as one
    // past a fixed pool does (TC_ERR_OUT_OF_MEMORY naming the SNode).
    mapUpTo(p, target, true);
    used += poolBytes(p) - before;
    if (p.mapped > old &&
        !publishCapacity(ctx, p, slots ? slots + 16 * size_t(i) : nullptr))
      break;
  }
}

} // namespace

namespace tic {
namespace rt {

tc_status cudaCreatePools(tic_rt_context *ctx) {
  CudaState *s = ctx->cuda;
  const char *mod = ctx->desc->name ? ctx->desc->name : "?";
  int32_t numPools = ctx->desc->num_pools;
  s->pools = static_cast<DevicePool *>(
      std::calloc(size_t(numPools), sizeof(DevicePool)));
  if (!s->pools)
    return tic_rt_fail(nullptr, TC_ERR_OUT_OF_MEMORY,
                       "cannot allocate the pool table");
  for (int32_t i = 0; i < numPools; ++i)
    new (&s->pools[i]) DevicePool();
  s->numPools = numPools;
  // What is left of the device memory budget after the root buffer is
  // shared by the pools; without a budget each pool gets up to
  // kDevicePoolBytes at first.
  uint64_t budget = ctx->opts.device_memory_bytes;
  uint64_t left = budget > ctx->rootSize ? budget - ctx->rootSize : 0;
  uint64_t share = budget ? left / uint64_t(numPools) : kDevicePoolBytes;
  // ABI 6: the free and pending lists (4 bytes per cell each) follow
  // the cells; such pools may grow.
  bool lists = ctx->desc->abi_version >= 6;
  bool grows = lists && loader.granularity && !fixedPoolsRequested();
  for (int32_t i = 0; i < numPools; ++i) {
    tic_rt_pool_desc pd = ctx->desc->pools[i];
    const char *n = pd.name ? pd.name : "?";
    uint64_t size = (pd.element_size + 15) / 16 * 16;
    if (size == 0)
      return tic_rt_fail(nullptr, TC_ERR_INVALID_ARGUMENT,
                         "module '%s': the cells of SNode '%s' have no size",
                         mod, n);
    DevicePool &p = s->pools[i];
    p.elementSize = size;
    p.stateOffset = pd.state_offset;
    // Every cell the node can have, and some for the threads whose hash
    // insert loses a race (they give their entry back at once; pointer
    // slots and list chunks are claimed before their cell is allocated).
    uint64_t want = pd.max_elements + kPoolRaceRoom;
    if (want > TIC_RT_POOL_MAX_ELEMENTS)
      want = TIC_RT_POOL_MAX_ELEMENTS;
    uint64_t perCell = size + (lists ? 2 * kListBytesPerCell : 0);
    uint64_t cap = share / perCell < want ? share / perCell : want;
    if (cap == 0)
      return tic_rt_fail(nullptr, TC_ERR_OUT_OF_MEMORY,
                         "module '%s': no device memory is left for the pool "
                         "of SNode '%s' within tc_options.device_memory_bytes "
                         "(%llu)",
                         mod, n, (unsigned long long)budget);
    CUresult r = CUDA_SUCCESS;
    if (grows) {
      // Room to grow into: as many cells as fit in the device's memory (or
      // the budget).
      uint64_t memory = budget ? left : loader.totalMemory;
      uint64_t limit = memory / perCell < want ? memory / perCell : want;
      if (limit < cap)
        limit = cap;
      if (reserve(p, limit, cap)) {
        // At first what a fixed pool has; under a budget the most whole
        // pieces of the mapping that fit in the pool's share.
        uint64_t first = budget ? mostThatFit(p, 0, cap, share) : cap;
        // Else (a share smaller than three pieces, or no memory to map)
        // one exact allocation, below.
        if (first == 0 || mapUpTo(p, first, lists) != CUDA_SUCCESS)
          releasePool(p);
      }
    }
    if (!p.va) {
      r = loader.drv.cuMemAlloc(&p.fixed, size_t(cap * perCell));
      if (r != CUDA_SUCCESS) {
        p.fixed = 0;
        return tic_rt_fail(nullptr, TC_ERR_OUT_OF_MEMORY,
                           "cannot allocate %llu bytes of device memory for "
                           "the pool of SNode '%s' on %s: %s",
                           (unsigned long long)(cap * perCell), n,
                           loader.deviceName, errorText(r));
      }
      p.reserved = p.mapped = cap;
      p.cellBytes = p.cellMapped = size_t(cap * size);
      p.listBytes = p.listMapped = lists ? size_t(cap * kListBytesPerCell) : 0;
      if ((r = loader.drv.cuMemsetD8(p.fixed, 0, size_t(cap * perCell))) !=
          CUDA_SUCCESS)
        return tic_rt_fail(nullptr, TC_ERR_DEVICE,
                           "cannot zero the pool of SNode '%s' on %s: %s", n,
                           loader.deviceName, errorText(r));
    }
    tic_rt_pool_state st{};
    st.base = p.fixed ? p.fixed : p.va;
    st.element_size = size;
    st.capacity = p.mapped;
    st.max_elements = p.mapped; // struct-fors over the pool stop here
    if (lists) {
      st.free_list = st.base + p.cellBytes;
      st.pending_list = st.free_list + p.listBytes;
    }
    size_t stateBytes =
        lists ? sizeof(st) : offsetof(tic_rt_pool_state, free_list);
    if ((r = loader.drv.cuMemcpyHtoD(stateAddress(ctx, p, 0), &st,
                                     stateBytes)) != CUDA_SUCCESS)
      return tic_rt_fail(nullptr, TC_ERR_DEVICE,
                         "cannot set up the pool of SNode '%s' on %s: %s", n,
                         loader.deviceName, errorText(r));
  }
  return TC_OK;
}

void cudaFreePools(tic_rt_context *ctx) {
  CudaState *s = ctx->cuda;
  for (int32_t i = 0; s && i < s->numPools; ++i)
    releasePool(s->pools[i]);
  if (s && s->pinned) {
    loader.drv.cuMemFreeHost(s->pinned);
    loader.drv.cuEventDestroy(s->statesCopied);
    s->pinned = nullptr;
    s->statesCopied = nullptr;
    s->stateRead = false;
  }
}

void cudaGrowPools(tic_rt_context *ctx) {
  CudaState *s = ctx->cuda;
  if (!s)
    return;
  // The device is idle: a read in flight has arrived (and the capacities
  // it raised are written); this one is fresher.
  s->stateRead = false;
  if (!s->launchedSinceGrowth)
    return;
  s->launchedSinceGrowth = false;
  // The states of the pools that may grow: read at once (one copy of the
  // root buffer's span from the first to the last).
  uint64_t lo, hi;
  reservedStates(s, lo, hi);
  if (hi <= lo)
    return;
  char *states = static_cast<char *>(std::malloc(size_t(hi - lo)));
  if (!states)
    return;
  if (check(ctx,
            loader.drv.cuMemcpyDtoH(
                states, reinterpret_cast<CUdeviceptr>(ctx->root) + lo,
                size_t(hi - lo)),
            "reading the pools' states"))
    growFrom(ctx, states, lo, hi, nullptr);
  std::free(states);
}

void cudaGrowPoolsFromRead(tic_rt_context *ctx) {
  CudaState *s = ctx->cuda;
  if (!s || !s->stateRead)
    return;
  CUresult r = loader.drv.cuEventQuery(s->statesCopied);
  if (r == CUDA_ERROR_NOT_READY)
    return; // look again before the next launch
  s->stateRead = false;
  // (An error is a launch's failure, which the next wait reports.)
  if (r == CUDA_SUCCESS)
    growFrom(ctx, s->pinned, s->pinnedLo, s->pinnedHi,
             s->pinned + (s->pinnedHi - s->pinnedLo));
}

void cudaReadPoolStates(tic_rt_context *ctx) {
  CudaState *s = ctx->cuda;
  if (!s || s->stateRead || !loader.asyncCopies)
    return;
  bool any = false;
  for (int32_t i = 0; i < s->numPools && !any; ++i)
    any = s->pools[i].va && s->pools[i].mapped < s->pools[i].reserved;
  if (!any)
    return;
  const Driver &d = loader.drv;
  if (!s->pinned) {
    uint64_t lo, hi;
    reservedStates(s, lo, hi);
    void *mem = nullptr;
    if (d.cuMemAllocHost(&mem, size_t(hi - lo) + 16 * size_t(s->numPools)) !=
        CUDA_SUCCESS)
      return;
    if (d.cuEventCreate(&s->statesCopied, CU_EVENT_DISABLE_TIMING) !=
        CUDA_SUCCESS) {
      d.cuMemFreeHost(mem);
      s->statesCopied = nullptr;
      return;
    }
    s->pinned = static_cast<char *>(mem);
    s->pinnedLo = lo;
    s->pinnedHi = hi;
  }
  s->stateRead =
      d.cuMemcpyDtoHAsync(
          s->pinned, reinterpret_cast<CUdeviceptr>(ctx->root) + s->pinnedLo,
          size_t(s->pinnedHi - s->pinnedLo), nullptr) == CUDA_SUCCESS &&
      d.cuEventRecord(s->statesCopied, nullptr) == CUDA_SUCCESS;
}

void cudaCollectPools(tic_rt_context *ctx) {
  CudaState *s = ctx->cuda;
  if (!s || s->numPools == 0 || !s->module || !makeCurrent())
    return;
  bool abi6 = ctx->desc->abi_version >= 6;
  if (!s->collectLooked) {
    s->collectLooked = true;
    if (loader.drv.cuModuleGetFunction(
            &s->collect, s->module, TIC_RT_POOL_COLLECT_KERNEL) != CUDA_SUCCESS)
      s->collect = nullptr;
    if (abi6 && loader.drv.cuModuleGetFunction(
                    &s->collectEnd, s->module,
                    TIC_RT_POOL_COLLECT_END_KERNEL) != CUDA_SUCCESS)
      s->collect = nullptr;
  }
  if (!s->collect)
    return;
  s->freedSinceCollect = false;
  void *root = ctx->root;
  void *params[] = {&root};
  if (!abi6) {
    // ABI 5: each thread recycles cells until none is pending, through a
    // compare-and-swap on the pending stack's head: one block, since each
    // success makes every other thread retry.
    check(ctx,
          loader.drv.cuLaunchKernel(s->collect, 1, 1, 1, 128, 1, 1, 0, nullptr,
                                    params, nullptr),
          TIC_RT_POOL_COLLECT_KERNEL);
    return;
  }
  // ABI 6: a grid-stride loop over the pending cells' words, no atomics
  // (a few blocks per multiprocessor; those past the work exit at once),
  // then one thread sets the counts, in stream order.
  if (check(ctx,
            loader.drv.cuLaunchKernel(s->collect, unsigned(loader.smCount) * 4,
                                      1, 1, 256, 1, 1, 0, nullptr, params,
                                      nullptr),
            TIC_RT_POOL_COLLECT_KERNEL))
    check(ctx,
          loader.drv.cuLaunchKernel(s->collectEnd, 1, 1, 1, 1, 1, 1, 0, nullptr,
                                    params, nullptr),
          TIC_RT_POOL_COLLECT_END_KERNEL);
}

uint64_t cudaPoolBound(const tic_rt_context *ctx, int32_t pool) {
  const CudaState *s = ctx->cuda;
  return s && pool >= 0 && pool < s->numPools ? s->pools[pool].mapped : 0;
}

void cudaPoolStats(tic_rt_context *ctx, int32_t pool, tic_rt_pool_stats *out) {
  CudaState *s = ctx->cuda;
  *out = tic_rt_pool_stats{};
  tic_rt_pool_state st{};
  // The members up to `live`: all an ABI 5 state has.
  if (!s || pool < 0 || pool >= s->numPools || !makeCurrent() ||
      !check(ctx,
             loader.drv.cuMemcpyDtoH(&st, stateAddress(ctx, s->pools[pool], 0),
                                     offsetof(tic_rt_pool_state, free_list)),
             "reading a pool's state"))
    return;
  const DevicePool &p = s->pools[pool];
  out->element_size = st.element_size;
  out->max_elements = p.reserved;
  out->reserved_bytes = p.reserved * st.element_size;
  out->committed_bytes = st.capacity * st.element_size;
  out->live_elements = st.live > 0 ? uint64_t(st.live) : 0;
  out->high_water = st.next < st.capacity ? st.next : st.capacity;
}

} // namespace rt
} // namespace tic

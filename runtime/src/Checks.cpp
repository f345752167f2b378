//===- Checks.cpp - Argument checks and kernel failure reports ------------===//

#include "Internal.h"

#include <cstdint>
#include <cstring>

#include <cstdio>

using namespace tic::rt;

tc_status tic::rt::reportKernelFailure(tic_rt_context *ctx, tc_status status,
                                       const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (!ctx) {
    char buf[kErrorCapacity];
    formatMessage(buf, sizeof(buf), fmt, ap);
    tic_rt_fail(nullptr, status, "%s", buf);
  } else {
    int expected = TC_OK;
    if (ctx->kernelStatus.compare_exchange_strong(expected, int(status))) {
      pthread_mutex_lock(&ctx->errorLock);
      formatMessage(ctx->lastError, sizeof(ctx->lastError), fmt, ap);
      pthread_mutex_unlock(&ctx->errorLock);
    }
  }
  va_end(ap);
  return status;
}

void tic::rt::collectPools(tic_rt_context *ctx) {
  if (ctx->cuda)
    return;
  for (int32_t i = 0; i < ctx->numPools; ++i)
    tic_rt_pool_collect(ctx->pools[i]);
  if (ctx->hashBlocks)
    sweepHashBlocks(ctx, /*all=*/false);
}

extern "C" {

tc_status tic_rt_check_ndarray(tic_rt_context *ctx, const tc_ndarray *a,
                               int32_t ndim, tc_dtype dtype,
                               const char *param_name) {
  const char *p = param_name ? param_name : "?";
  if (!a)
    return tic_rt_fail(ctx, TC_ERR_INVALID_ARGUMENT,
                       "ndarray parameter '%s': the array is NULL", p);
  if (!a->data)
    return tic_rt_fail(ctx, TC_ERR_INVALID_ARGUMENT,
                       "ndarray parameter '%s': data pointer is NULL", p);
  if (a->ndim != ndim)
    return tic_rt_fail(ctx, TC_ERR_INVALID_ARGUMENT,
                       "ndarray parameter '%s': expected %d dimension%s, got "
                       "%d",
                       p, int(ndim), ndim == 1 ? "" : "s", int(a->ndim));
  int actual = rawEnumValue(a->dtype);
  if (actual != int(dtype)) {
    if (actual < int(TC_DTYPE_I8) || actual > int(TC_DTYPE_BOOL))
      return tic_rt_fail(ctx, TC_ERR_INVALID_ARGUMENT,
                         "ndarray parameter '%s': expected dtype %s, got "
                         "invalid dtype value %d",
                         p, tc_dtype_name(dtype), actual);
    return tic_rt_fail(ctx, TC_ERR_INVALID_ARGUMENT,
                       "ndarray parameter '%s': expected dtype %s, got %s", p,
                       tc_dtype_name(dtype), tc_dtype_name(tc_dtype(actual)));
  }
  if (ndim < 0 || ndim > TC_NDARRAY_MAX_DIMS)
    return tic_rt_fail(ctx, TC_ERR_INVALID_ARGUMENT,
                       "ndarray parameter '%s': rank %d is outside [0, %d]", p,
                       int(ndim), TC_NDARRAY_MAX_DIMS);
  for (int32_t d = 0; d < ndim; ++d)
    if (a->shape[d] < 0)
      return tic_rt_fail(ctx, TC_ERR_INVALID_ARGUMENT,
                         "ndarray parameter '%s': negative extent %lld on "
                         "axis %d",
                         p, (long long)a->shape[d], int(d));
    else if (a->shape[d] > INT32_MAX)
      // Indices and `a.shape[d]` are i32 in kernels (64-bit offsets).
      return tic_rt_fail(ctx, TC_ERR_INVALID_ARGUMENT,
                         "ndarray parameter '%s': extent %lld on axis %d is "
                         "more than %d: ndarray indices are i32",
                         p, (long long)a->shape[d], int(d), int(INT32_MAX));
  return TC_OK;
}

tc_status tic_rt_report_out_of_bounds(tic_rt_context *ctx, const char *field,
                                      int32_t axis, int64_t index,
                                      int64_t extent, const char *loc) {
  return reportKernelFailure(
      ctx, TC_ERR_OUT_OF_BOUNDS,
      "%s%sindex %lld is out of bounds for axis %d of field '%s' with extent "
      "%lld",
      loc ? loc : "", loc ? ": " : "", (long long)index, int(axis),
      field ? field : "?", (long long)extent);
}

tc_status tic_rt_report_assert(tic_rt_context *ctx, const char *msg,
                               const char *loc) {
  return reportKernelFailure(ctx, TC_ERR_ASSERTION, "%s%sassertion failed: %s",
                             loc ? loc : "", loc ? ": " : "",
                             msg ? msg : "(no message)");
}

tc_status tic_rt_take_kernel_status(tic_rt_context *ctx) {
  if (!ctx)
    return TC_OK;
  if (ctx->cuda)
    cudaCollectPools(ctx);
  else
    tic::rt::collectPools(ctx);
  return tc_status(ctx->kernelStatus.exchange(TC_OK));
}

void *tic_rt_snode_alloc(tic_rt_context *ctx, int32_t pool) {
  return tic_rt_pool_alloc(ctx, ctx->pools[pool]);
}

void *tic_rt_snode_alloc_at(tic_rt_context *ctx, int32_t pool, uint64_t index) {
  return tic_rt_pool_alloc_at(ctx, ctx->pools[pool], index);
}

void tic_rt_snode_free(tic_rt_context *ctx, int32_t pool, void *cell) {
  tic_rt_pool_free(ctx->pools[pool], cell);
}

void tic_rt_snode_release_unused(tic_rt_context *ctx, int32_t pool,
                                 void *cell) {
  tic_rt_pool_release_unused(ctx->pools[pool], cell);
}

void *tic_rt_snode_pool_base(tic_rt_context *ctx, int32_t pool) {
  return tic_rt_pool_element(ctx->pools[pool], 0);
}

int32_t tic_rt_snode_pool_used(tic_rt_context *ctx, int32_t pool) {
  tic_rt_pool_stats s;
  tic_rt_pool_get_stats(ctx->pools[pool], &s);
  return s.high_water > uint64_t(INT32_MAX) ? INT32_MAX : int32_t(s.high_water);
}

int32_t tic_rt_snode_pool_bound(tic_rt_context *ctx, int32_t pool) {
  if (!ctx || pool < 0 || pool >= ctx->numPools)
    return 0;
  uint64_t n;
  if (ctx->cuda) {
    n = tic::rt::cudaPoolBound(ctx, pool);
  } else {
    const tic_rt_pool_state *st = tic_rt_pool_get_state(ctx->pools[pool]);
    if (!st)
      return tic_rt_snode_pool_used(ctx, pool);
    n = st->next;
    if (n > st->max_elements)
      n = st->max_elements;
  }
  return n > uint64_t(INT32_MAX) ? INT32_MAX : int32_t(n);
}

tc_status tic_rt_memory_stats(tic_rt_context *ctx, const char *snode,
                              tc_memory_stats *stats) {
  if (!ctx || !stats)
    return tic_rt_fail(ctx, TC_ERR_INVALID_ARGUMENT,
                       "memory_stats: the context or the output is NULL");
  *stats = tc_memory_stats{};
  auto add = [&](int32_t i) {
    tic_rt_pool_stats ps{};
    if (ctx->cuda)
      cudaPoolStats(ctx, i, &ps);
    else
      tic_rt_pool_get_stats(ctx->pools[i], &ps);
    // A hash node's grown tables (tic_rt_hash_block) count as its memory.
    uint64_t blocks = ctx->cuda ? 0 : tic::rt::hashBlockBytes(ctx, i);
    stats->reserved_bytes += ps.reserved_bytes + blocks;
    stats->committed_bytes += ps.committed_bytes + blocks;
    stats->live_bytes += ps.live_elements * ps.element_size + blocks;
    stats->live_cells += ps.live_elements;
  };
  if (!snode) {
    stats->reserved_bytes = stats->committed_bytes = stats->live_bytes =
        ctx->rootSize;
    for (int32_t i = 0; i < ctx->numPools; ++i)
      add(i);
    return TC_OK;
  }
  const tic_rt_module_desc *d = ctx->desc;
  for (int32_t i = 0; i < ctx->numPools; ++i)
    if (poolName(d, i) && std::strcmp(poolName(d, i), snode) == 0) {
      add(i);
      return TC_OK;
    }
  return tic_rt_fail(
      ctx, TC_ERR_INVALID_ARGUMENT,
      "memory_stats: module '%s' has no pointer, dynamic or hash SNode named "
      "'%s'",
      d->name ? d->name : "?", snode);
}

tc_status tic_rt_snode_pool_stats(const tic_rt_context *ctx, int32_t pool,
                                  tic_rt_pool_stats *stats) {
  if (!ctx || !stats || pool < 0 || pool >= ctx->numPools)
    return TC_ERR_INVALID_ARGUMENT;
  *stats = tic_rt_pool_stats{};
  if (ctx->cuda)
    cudaPoolStats(const_cast<tic_rt_context *>(ctx), pool, stats);
  else
    tic_rt_pool_get_stats(ctx->pools[pool], stats);
  return TC_OK;
}

} // extern "C"

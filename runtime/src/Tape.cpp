//===- Tape.cpp - Autodiff tape of kernel launches ------------------------===//
//
// While recording, every launch of a differentiable kernel appends its
// adjoint entry point and a copy of its argument block. tape_backward (in
// generated code) seeds the loss gradient and replays the adjoints in
// reverse order through tic_rt_tape_replay_reverse.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <cstdlib>
#include <cstring>
#include <new>

using namespace tic::rt;

/// The global data access rules' validation: one state byte per element of
/// each differentiable field that a checked kernel touched since tape_begin
/// (TIC_RT_AD_READ | _WRITTEN | _ACCUMULATED, in 32-bit words; a list: a
/// module has few such fields).
struct tic::rt::AccessLog {
  struct Field {
    const char *name; // the generated code's string: one per field
    uint64_t count;
    uint32_t *state; // calloc'ed words of 4 bytes, updated with atomic or
    Field *next;
  };
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  Field *fields = nullptr;
};

void tic::rt::destroyAccessLog(AccessLog *log) {
  if (!log)
    return;
  for (AccessLog::Field *f = log->fields; f;) {
    AccessLog::Field *next = f->next;
    std::free(f->state);
    std::free(f);
    f = next;
  }
  pthread_mutex_destroy(&log->lock);
  std::free(log);
}

namespace {

void clearTape(tic_rt_context *ctx) {
  for (size_t i = 0; i < ctx->tapeSize; ++i)
    std::free(ctx->tape[i].args);
  ctx->tapeSize = 0;
}

} // namespace

extern "C" {

tc_status tic_rt_tape_begin(tic_rt_context *ctx) {
  if (!ctx)
    return tic_rt_fail(nullptr, TC_ERR_INVALID_ARGUMENT,
                       "tape_begin: context is NULL");
  if (ctx->tapeRecording)
    return tic_rt_fail(ctx, TC_ERR_INVALID_ARGUMENT,
                       "tape_begin: a tape is already being recorded (call "
                       "tape_end first)");
  clearTape(ctx);
  // A new tape: every element is fresh for the access-rule validation.
  destroyAccessLog(ctx->accessLog.exchange(nullptr));
  ctx->tapeRecording = true;
  if (ctx->cuda)
    cudaSetTapeRecording(ctx, true);
  return TC_OK;
}

int32_t tic_rt_tape_recording(const tic_rt_context *ctx) {
  return ctx && ctx->tapeRecording ? 1 : 0;
}

tc_status tic_rt_tape_record(tic_rt_context *ctx, tic_rt_kernel_fn grad_fn,
                             const void *args, size_t args_size) {
  if (!ctx)
    return tic_rt_fail(nullptr, TC_ERR_INVALID_ARGUMENT,
                       "tape_record: context is NULL");
  if (!ctx->tapeRecording)
    return TC_OK;
  if (!grad_fn)
    return tic_rt_fail(ctx, TC_ERR_INVALID_ARGUMENT,
                       "tape_record: adjoint kernel is NULL");
  if (args_size && !args)
    return tic_rt_fail(ctx, TC_ERR_INVALID_ARGUMENT,
                       "tape_record: %zu argument bytes at NULL", args_size);
  if (ctx->tapeSize == ctx->tapeCapacity) {
    size_t cap = ctx->tapeCapacity ? ctx->tapeCapacity * 2 : 16;
    void *grown = std::realloc(ctx->tape, cap * sizeof(TapeEntry));
    if (!grown)
      return tic_rt_fail(ctx, TC_ERR_OUT_OF_MEMORY,
                         "tape_record: cannot grow the tape to %zu entries",
                         cap);
    ctx->tape = static_cast<TapeEntry *>(grown);
    ctx->tapeCapacity = cap;
  }
  void *copy = nullptr;
  if (args_size) {
    // malloc's alignment suits any scalar the argument block may hold.
    copy = std::malloc(args_size);
    if (!copy)
      return tic_rt_fail(ctx, TC_ERR_OUT_OF_MEMORY,
                         "tape_record: cannot copy %zu argument bytes",
                         args_size);
    std::memcpy(copy, args, args_size);
  }
  ctx->tape[ctx->tapeSize++] = TapeEntry{grad_fn, copy, args_size};
  return TC_OK;
}

uint32_t *tic_rt_ad_access_state(tic_rt_context *ctx, const char *field,
                                 uint64_t count) {
  if (!ctx || !ctx->tapeRecording.load(std::memory_order_relaxed))
    return nullptr;
  AccessLog *log = ctx->accessLog.load(std::memory_order_acquire);
  if (!log) {
    void *mem = std::calloc(1, sizeof(AccessLog));
    if (!mem)
      return nullptr; // no memory to validate with: skip, never fail
    AccessLog *fresh = new (mem) AccessLog();
    if (ctx->accessLog.compare_exchange_strong(log, fresh,
                                               std::memory_order_acq_rel))
      log = fresh;
    else
      destroyAccessLog(fresh); // another thread's log won
  }
  AccessLog::Field *f = nullptr;
  pthread_mutex_lock(&log->lock);
  for (AccessLog::Field *g = log->fields; g && !f; g = g->next)
    if (g->name == field)
      f = g;
  if (!f) {
    f = static_cast<AccessLog::Field *>(std::calloc(1, sizeof(*f)));
    // Whole 32-bit words: the code updates a byte with an atomic or on the
    // word holding it.
    uint32_t *state =
        static_cast<uint32_t *>(std::calloc((count + 3) / 4, sizeof(uint32_t)));
    if (f && state) {
      *f = AccessLog::Field{field, count, state, log->fields};
      log->fields = f;
    } else {
      std::free(f);
      std::free(state);
      f = nullptr;
    }
  }
  pthread_mutex_unlock(&log->lock);
  return f && f->count == count ? f->state : nullptr;
}

tc_status tic_rt_ad_access_violation(tic_rt_context *ctx, const char *kernel,
                                     const char *field, uint64_t index,
                                     int32_t what) {
  const char *text = nullptr;
  switch (what) {
  case TIC_RT_AD_WRITE_AFTER_WRITE:
    text = "is overwritten (written twice; a later write must be +=)";
    break;
  case TIC_RT_AD_WRITE_AFTER_ACCUMULATE:
    text = "is overwritten after an accumulation";
    break;
  case TIC_RT_AD_WRITE_AFTER_READ:
    text = "is overwritten after it was read (the adjoint would recompute "
           "the read with the new value)";
    break;
  case TIC_RT_AD_ACCUMULATE_AFTER_READ:
    text = "is accumulated into after it was read (no read may happen "
           "before the accumulation is done)";
    break;
  default:
    return TC_OK;
  }
  return reportKernelFailure(
      ctx, TC_ERR_ASSERTION,
      "kernel '%s' breaks the global data access rule of reverse-mode AD: "
      "element %llu of field '%s' %s",
      kernel ? kernel : "?", (unsigned long long)index, field ? field : "?",
      text);
}

tc_status tic_rt_ad_record_access(tic_rt_context *ctx, const char *kernel,
                                  const char *field, uint64_t count,
                                  uint64_t index, int32_t kind) {
  if (index >= count)
    return TC_OK;
  uint32_t *state = tic_rt_ad_access_state(ctx, field, count);
  if (!state)
    return TC_OK;
  unsigned shift = unsigned(index % 4) * 8;
  uint32_t bit = kind == 0   ? TIC_RT_AD_READ
                 : kind == 1 ? TIC_RT_AD_WRITTEN
                             : TIC_RT_AD_ACCUMULATED;
  uint32_t before =
      __atomic_fetch_or(&state[index / 4], bit << shift, __ATOMIC_RELAXED) >>
      shift;
  int32_t what = 0;
  if (kind == 1 && (before & TIC_RT_AD_WRITTEN))
    what = TIC_RT_AD_WRITE_AFTER_WRITE;
  else if (kind == 1 && (before & TIC_RT_AD_ACCUMULATED))
    what = TIC_RT_AD_WRITE_AFTER_ACCUMULATE;
  else if (kind == 1 && (before & TIC_RT_AD_READ))
    what = TIC_RT_AD_WRITE_AFTER_READ;
  else if (kind == 2 && (before & TIC_RT_AD_READ))
    what = TIC_RT_AD_ACCUMULATE_AFTER_READ;
  return what ? tic_rt_ad_access_violation(ctx, kernel, field, index, what)
              : TC_OK;
}

tc_status tic_rt_tape_end(tic_rt_context *ctx) {
  if (!ctx)
    return tic_rt_fail(nullptr, TC_ERR_INVALID_ARGUMENT,
                       "tape_end: context is NULL");
  if (!ctx->tapeRecording)
    return tic_rt_fail(ctx, TC_ERR_INVALID_ARGUMENT,
                       "tape_end: no tape is being recorded (call tape_begin "
                       "first)");
  ctx->tapeRecording = false;
  if (ctx->cuda)
    cudaSetTapeRecording(ctx, false);
  return TC_OK;
}

size_t tic_rt_tape_size(const tic_rt_context *ctx) {
  return ctx ? ctx->tapeSize : 0;
}

tc_status tic_rt_tape_replay_reverse(tic_rt_context *ctx) {
  if (!ctx)
    return tic_rt_fail(nullptr, TC_ERR_INVALID_ARGUMENT,
                       "tape replay: context is NULL");
  if (ctx->tapeRecording)
    return tic_rt_fail(ctx, TC_ERR_INVALID_ARGUMENT,
                       "tape replay: the tape is still being recorded (call "
                       "tape_end first)");
  for (size_t i = ctx->tapeSize; i-- > 0;) {
    const TapeEntry &e = ctx->tape[i];
    tc_status s = e.fn(ctx, e.args);
    if (s != TC_OK)
      return s;
  }
  return TC_OK;
}

} // extern "C"

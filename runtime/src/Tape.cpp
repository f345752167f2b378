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

using namespace tic::rt;

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
  ctx->tapeRecording = true;
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

tc_status tic_rt_tape_end(tic_rt_context *ctx) {
  if (!ctx)
    return tic_rt_fail(nullptr, TC_ERR_INVALID_ARGUMENT,
                       "tape_end: context is NULL");
  if (!ctx->tapeRecording)
    return tic_rt_fail(ctx, TC_ERR_INVALID_ARGUMENT,
                       "tape_end: no tape is being recorded (call tape_begin "
                       "first)");
  ctx->tapeRecording = false;
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

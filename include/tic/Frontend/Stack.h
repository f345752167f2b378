//===- Stack.h - Running the compiler on a large stack ----------*- C++ -*-===//
//
// The parser and the AST passes are recursive; the parser's limits
// (ParserLimits) bound the depth, and the compiler runs on a thread whose
// stack is large enough for those limits. The driver and the fuzzers use
// this one helper so that they check the same configuration.
//
//===----------------------------------------------------------------------===//

#ifndef TIC_FRONTEND_STACK_H
#define TIC_FRONTEND_STACK_H

#include <cstddef>
#include <functional>
#include <ostream>
#include <streambuf>

namespace tic {

/// The stack the compiler runs on: 512 MiB (reserved, committed on use).
constexpr size_t kCompilerStackSize = size_t(512) << 20;

/// Runs `fn` on a new thread with a `stackSize`-byte stack and waits for it;
/// runs it on the calling thread when no such thread can be created.
void runOnLargeStack(const std::function<void()> &fn,
                     size_t stackSize = kCompilerStackSize);

/// A stream that discards everything written to it (diagnostics in tools
/// that only care whether compilation succeeds).
class NullStream : public std::ostream {
public:
  NullStream() : std::ostream(&buffer) {}

private:
  class Buffer : public std::streambuf {
  protected:
    int overflow(int c) override { return traits_type::not_eof(c); }
    std::streamsize xsputn(const char *, std::streamsize n) override {
      return n;
    }
  } buffer;
};

} // namespace tic

#endif // TIC_FRONTEND_STACK_H

//===- Outputs.h - Reading the input, writing every output safely -*- C++
//-*-===//
//
// The driver's file I/O (docs/cli.md, "Inputs and outputs"):
//
// * readSource() reads a regular file, a pipe or stdin up to kMaxInputBytes;
//   a directory or an endless device is an error, not an empty module or an
//   out-of-memory.
// * OutputSet collects every file a run writes (object, header, JSON, -MD
//   file) and commits them all or none: each regular destination is written
//   to a temporary created with mkstemp() in its own directory and renamed
//   into place only once every output has been written. A destination that
//   is not a regular file (a character device such as /dev/null, a FIFO,
//   '-' for stdout) is written in place and never replaced; a symbolic link
//   is followed and its target replaced, the link kept. An output that is a
//   directory, the input itself, or the same file as another output is
//   refused before anything is written.
//
//===----------------------------------------------------------------------===//

#ifndef TIC_TOOLS_TIC_OUTPUTS_H
#define TIC_TOOLS_TIC_OUTPUTS_H

#include <cstddef>
#include <string>
#include <vector>

namespace tic {
namespace driver {

/// The largest input tic reads (documented in docs/cli.md).
constexpr size_t kMaxInputBytes = size_t(64) << 20;

/// Reads `path` ("-": stdin) into `text`. On failure returns false and sets
/// `error` to a message naming the file and the cause.
bool readSource(const std::string &path, std::string &text, std::string &error);

class OutputSet {
public:
  /// `inputPath` is the program's input ("-" for stdin): no output may be it.
  explicit OutputSet(std::string inputPath) : input(std::move(inputPath)) {}
  OutputSet(const OutputSet &) = delete;
  OutputSet &operator=(const OutputSet &) = delete;
  ~OutputSet();

  /// Adds an output; `what` names it in messages ("object", "header", ...).
  void add(std::string path, std::string data, std::string what = "output");

  /// Writes every output, or none of them: returns false with `error` set
  /// (and removes every temporary file) when any of them cannot be written.
  bool commit(std::string &error);

private:
  struct Output {
    std::string path, data, what;
    std::string target;   // the file replaced: `path`, or a symlink's target
    bool inPlace = false; // "-", a device or a FIFO: written, never replaced
    std::string temp;     // the temporary file, once created
  };
  bool prepare(Output &o, std::string &error);
  void removeTemporaries();

  std::string input;
  std::vector<Output> outputs;
};

} // namespace driver
} // namespace tic

#endif // TIC_TOOLS_TIC_OUTPUTS_H

//===- Outputs.cpp - Reading the input, writing every output safely -------===//
//
// See Outputs.h. POSIX only (open/mkstemp/rename), like the rest of tic.
//
//===----------------------------------------------------------------------===//

#include "Outputs.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tic {
namespace driver {

namespace {

std::string quoted(const std::string &path) { return "'" + path + "'"; }

std::string cause(int err) { return std::strerror(err); }

/// Writes all of `data` to `fd`; false with errno set on failure.
bool writeAll(int fd, const std::string &data) {
  const char *p = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    p += n;
    left -= size_t(n);
  }
  return true;
}

/// The directory part of `path` ("." when it has none).
std::string dirName(const std::string &path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  if (slash == 0)
    return "/";
  return path.substr(0, slash);
}

std::string baseName(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Temporary files are removed when tic is interrupted (Ctrl-C, kill): the
// handler reads a fixed table, async-signal-safely.
constexpr int kMaxTemps = 16;
char gTempPaths[kMaxTemps][PATH_MAX];
volatile sig_atomic_t gNumTemps = 0;

extern "C" void removeTempsAndReraise(int sig) {
  for (int i = 0; i < gNumTemps; ++i)
    ::unlink(gTempPaths[i]);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void trackTemps(const std::vector<std::string> &temps) {
  static bool installed = false;
  if (!installed) {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT})
      std::signal(sig, removeTempsAndReraise);
    installed = true;
  }
  gNumTemps = 0;
  int n = 0;
  for (const std::string &t : temps) {
    if (n == kMaxTemps || t.size() >= PATH_MAX)
      break;
    std::memcpy(gTempPaths[n], t.c_str(), t.size() + 1);
    ++n;
  }
  gNumTemps = n;
}

} // namespace

bool readSource(const std::string &path, std::string &text,
                std::string &error) {
  int fd = 0;
  std::string name = path == "-" ? "<stdin>" : quoted(path);
  if (path != "-") {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      int err = errno;
      error = err == ENOENT ? "no such file or directory: " + quoted(path)
                            : "cannot open " + name + ": " + cause(err);
      return false;
    }
  }
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    error = name + " is a directory, not a .tc file";
    if (fd != 0)
      ::close(fd);
    return false;
  }
  text.clear();
  char buffer[1 << 16];
  bool ok = true;
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      error = "cannot read " + name + ": " + cause(errno);
      ok = false;
      break;
    }
    if (n == 0)
      break;
    if (text.size() + size_t(n) > kMaxInputBytes) {
      error = name + " is larger than " + std::to_string(kMaxInputBytes >> 20) +
              " MiB, the largest input tic reads";
      ok = false;
      break;
    }
    text.append(buffer, size_t(n));
  }
  if (fd != 0)
    ::close(fd);
  return ok;
}

OutputSet::~OutputSet() { removeTemporaries(); }

void OutputSet::add(std::string path, std::string data, std::string what) {
  Output o;
  o.path = std::move(path);
  o.data = std::move(data);
  o.what = std::move(what);
  outputs.push_back(std::move(o));
}

void OutputSet::removeTemporaries() {
  for (Output &o : outputs)
    if (!o.temp.empty()) {
      ::unlink(o.temp.c_str());
      o.temp.clear();
    }
  gNumTemps = 0;
}

/// Decides how `o` is written: in place (stdout, devices, FIFOs) or through a
/// temporary beside its target; refuses directories and dangling links.
bool OutputSet::prepare(Output &o, std::string &error) {
  o.target = o.path;
  if (o.path == "-") {
    o.inPlace = true;
    return true;
  }
  struct stat st;
  if (::lstat(o.path.c_str(), &st) != 0) {
    if (errno == ENOENT)
      return true; // a new file
    error = "cannot write " + quoted(o.path) + ": " + cause(errno);
    return false;
  }
  if (S_ISLNK(st.st_mode)) {
    // Follow the link: its target is replaced, the link itself is kept.
    char resolved[PATH_MAX];
    if (!::realpath(o.path.c_str(), resolved)) {
      if (errno != ENOENT) {
        error = "cannot write " + quoted(o.path) + ": " + cause(errno);
        return false;
      }
      error = "cannot write " + quoted(o.path) +
              ": it is a symbolic link to a file that does not exist";
      return false;
    }
    o.target = resolved;
    if (::stat(o.target.c_str(), &st) != 0) {
      error = "cannot write " + quoted(o.path) + ": " + cause(errno);
      return false;
    }
  }
  if (S_ISDIR(st.st_mode)) {
    error = "cannot write " + quoted(o.path) + ": it is a directory";
    return false;
  }
  o.inPlace = !S_ISREG(st.st_mode);
  return true;
}

bool OutputSet::commit(std::string &error) {
  // 1. Where each output goes, and refusals before anything is written.
  struct stat inputStat;
  bool haveInput = input != "-" && ::stat(input.c_str(), &inputStat) == 0 &&
                   S_ISREG(inputStat.st_mode);
  for (Output &o : outputs)
    if (!prepare(o, error))
      return false;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Output &o = outputs[i];
    struct stat st;
    bool exists = !o.inPlace && ::stat(o.target.c_str(), &st) == 0;
    if (haveInput && exists && st.st_dev == inputStat.st_dev &&
        st.st_ino == inputStat.st_ino) {
      error = "the " + o.what + " " + quoted(o.path) +
              " is the input file; refusing to overwrite it";
      return false;
    }
    for (size_t j = 0; j < i; ++j) {
      const Output &p = outputs[j];
      bool same = o.path != "-" && p.path != "-" && o.target == p.target;
      struct stat pst;
      if (!same && exists && !p.inPlace && ::stat(p.target.c_str(), &pst) == 0)
        same = st.st_dev == pst.st_dev && st.st_ino == pst.st_ino;
      if (same) {
        error = "the " + o.what + " and the " + p.what + " are both " +
                quoted(o.path) + "; give them different paths";
        return false;
      }
    }
  }

  // 2. Every regular output to a fresh temporary in its target's directory.
  mode_t mask = ::umask(0);
  ::umask(mask);
  std::vector<std::string> temps;
  for (Output &o : outputs) {
    if (o.inPlace)
      continue;
    std::string pattern =
        dirName(o.target) + "/." + baseName(o.target) + ".tmp-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    int fd = ::mkstemp(buf.data());
    if (fd < 0) {
      error = "cannot write " + quoted(o.path) + ": " + cause(errno);
      removeTemporaries();
      return false;
    }
    o.temp = buf.data();
    temps.push_back(o.temp);
    trackTemps(temps);
    bool ok = ::fchmod(fd, 0666 & ~mask) == 0 && writeAll(fd, o.data);
    int err = errno;
    if (::close(fd) != 0 && ok) {
      ok = false;
      err = errno;
    }
    if (!ok) {
      error = "error writing " + quoted(o.path) + ": " + cause(err);
      removeTemporaries();
      return false;
    }
  }

  // 3. Outputs written in place (stdout, devices, FIFOs).
  for (Output &o : outputs) {
    if (!o.inPlace)
      continue;
    int fd = 1;
    if (o.path != "-") {
      fd = ::open(o.target.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0) {
        error = "cannot write " + quoted(o.path) + ": " + cause(errno);
        removeTemporaries();
        return false;
      }
    }
    bool ok = writeAll(fd, o.data);
    int err = errno;
    if (fd != 1 && ::close(fd) != 0 && ok) {
      ok = false;
      err = errno;
    }
    if (!ok) {
      error = "error writing " +
              (o.path == "-" ? std::string("to stdout") : quoted(o.path)) +
              ": " + cause(err);
      removeTemporaries();
      return false;
    }
  }

  // 4. Every temporary into place.
  for (Output &o : outputs) {
    if (o.temp.empty())
      continue;
    if (::rename(o.temp.c_str(), o.target.c_str()) != 0) {
      error = "cannot write " + quoted(o.path) + ": " + cause(errno);
      removeTemporaries();
      return false;
    }
    o.temp.clear();
  }
  gNumTemps = 0;
  return true;
}

} // namespace driver
} // namespace tic

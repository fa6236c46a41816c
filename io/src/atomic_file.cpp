#include "tessera/io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "tessera/core/error.hpp"

namespace tessera::io {
namespace {
std::string errno_text() { return std::strerror(errno); }
}  // namespace

std::string parent_dir(const std::string& path) {
  auto p = std::filesystem::path(path).parent_path().string();
  return p.empty() ? "." : p;
}

std::string base_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

void make_dirs(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) TESSERA_THROW("cannot create output directory '" + dir + "': " + ec.message() +
                        ". Check the path and its permissions, or choose another with -o DIR");
}

void fsync_path(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) TESSERA_THROW("cannot open '" + path + "' to fsync it: " + errno_text());
  // Some file systems refuse fsync on a directory (EINVAL): nothing we can do about that.
  if (::fsync(fd) != 0 && errno != EINVAL) {
    std::string e = errno_text();
    ::close(fd);
    TESSERA_THROW("fsync('" + path + "') failed: " + e + ". The file system may be full or failing");
  }
  ::close(fd);
}

void rename_durable(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0)
    TESSERA_THROW("cannot rename '" + from + "' to '" + to + "': " + errno_text());
  fsync_path(parent_dir(to));
}

void write_file_atomic(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    TESSERA_THROW("cannot create '" + tmp + "': " + errno_text() + ". Check that the directory exists and is writable");
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t w = ::write(fd, p, left);
    if (w < 0) {
      if (errno == EINTR) continue;
      std::string e = errno_text();
      ::close(fd);
      TESSERA_THROW("write to '" + tmp + "' failed: " + e + ". The file system may be full");
    }
    p += w;
    left -= static_cast<std::size_t>(w);
  }
  if (::fsync(fd) != 0) {
    std::string e = errno_text();
    ::close(fd);
    TESSERA_THROW("fsync('" + tmp + "') failed: " + e);
  }
  ::close(fd);
  rename_durable(tmp, path);
}

}  // namespace tessera::io

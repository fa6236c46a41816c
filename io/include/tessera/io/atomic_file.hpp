// Crash-safe file replacement: write under a temporary name in the same directory, fsync the file,
// rename over the final name, fsync the directory (POSIX rename is atomic within a file system, so a
// reader sees the old file or the new one, never a torn one).
#pragma once
#include <string>

namespace tessera::io {

// Writes `content` to `path` atomically (temporary "<path>.tmp", fsync, rename, fsync of the directory).
void write_file_atomic(const std::string& path, const std::string& content);
// fsync a file (opened read-only) or a directory; throws naming the path on failure.
void fsync_path(const std::string& path);
// rename(from, to) then fsync the directory of `to`.
void rename_durable(const std::string& from, const std::string& to);
// The directory part of a path ("." when none).
std::string parent_dir(const std::string& path);
// The file-name part of a path.
std::string base_name(const std::string& path);
// Creates a directory and its parents (like mkdir -p); no error if it exists.
void make_dirs(const std::string& dir);

}  // namespace tessera::io

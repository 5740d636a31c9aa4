#include "output_path.h"

#include <unistd.h>

#include <cstring>
#include <filesystem>

namespace lw::tool {
namespace fs = std::filesystem;
namespace {

// "" if `dir` is an existing directory this process may create files in.
std::string writable_dir(const fs::path& dir) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (!fs::exists(st)) return "directory " + dir.string() + " does not exist";
  if (!fs::is_directory(st)) return dir.string() + " is not a directory";
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return "directory " + dir.string() + " is not writable (" + std::strerror(errno) + ")";
  return {};
}

}  // namespace

std::string check_output_file(const std::string& path, const std::string& flag) {
  const std::string where = "--" + flag + " " + path + ": ";
  if (path.empty()) return "--" + flag + " needs a file name";
  const fs::path p(path);
  std::error_code ec;
  const fs::file_status st = fs::status(p, ec);
  if (fs::is_directory(st)) return where + "is a directory, not a file";
  if (fs::exists(st) && ::access(path.c_str(), W_OK) != 0)
    return where + "is not writable (" + std::strerror(errno) + ")";
  const fs::path parent = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (std::string e = writable_dir(parent); !e.empty()) return where + e;
  return {};
}

std::string check_output_dir(const std::string& path, const std::string& flag) {
  const std::string where = "--" + flag + " " + path + ": ";
  if (path.empty()) return "--" + flag + " needs a directory name";
  fs::path p = fs::absolute(fs::path(path)).lexically_normal();
  std::error_code ec;
  // The nearest part of the path that exists decides: every folder below it
  // is created by the command. Bounded by the path's depth.
  while (!fs::exists(fs::symlink_status(p, ec)) && p.has_parent_path() && p != p.parent_path())
    p = p.parent_path();
  if (std::string e = writable_dir(p); !e.empty()) return where + e;
  return {};
}

}  // namespace lw::tool

// Checking the files and folders a command was asked to write before its run
// starts, so that a bad path costs a message and exit 2 instead of a run whose
// output is lost.
#pragma once

#include <string>

namespace lw::tool {

// `path` can be written as a file: not empty, not a directory, its parent
// directory exists and is writable (and the file, if it exists, is too).
// Returns "" or a message naming `flag` ("--png /x/y.png: directory /x does
// not exist").
std::string check_output_file(const std::string& path, const std::string& flag);

// `path` is a writable directory, or can be created: its nearest existing
// ancestor is a writable directory. Returns "" or a message naming `flag`.
std::string check_output_dir(const std::string& path, const std::string& flag);

}  // namespace lw::tool

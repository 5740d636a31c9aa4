// A small command-line flag parser for subcommands: typed flags with help,
// `--name value` and `--name=value`, errors returned as messages (the caller
// prints them and exits with 2), and a record of which flags were given so
// that they can override a JSON config file.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lw::cli {

// `text` quoted for a POSIX shell when it needs it ("a b" -> 'a b').
std::string shell_quote(const std::string& text);

class FlagSet {
 public:
  FlagSet(std::string command, std::string description);

  void add_int(std::string name, int64_t* out, std::string help, int64_t min = INT64_MIN,
               int64_t max = INT64_MAX);
  // Numbers are parsed whole (no sign on unsigned flags, no whitespace, no
  // wrap-around) and checked against [min, max]; --help shows the range.
  void add_uint(std::string name, uint64_t* out, std::string help, uint64_t min = 0,
                uint64_t max = UINT64_MAX);
  // A finite number in [min, max] (no NaN or infinity).
  void add_double(std::string name, double* out, std::string help, double min = -1e300,
                  double max = 1e300);
  void add_string(std::string name, std::string* out, std::string help);
  void add_bool(std::string name, bool* out, std::string help);  // --name or --name=true|false
  void add_enum(std::string name, std::string* out, std::vector<std::string> allowed,
                std::string help);
  // A flag that no longer exists: parse() refuses --name with `message`
  // (which says what replaced it) rather than "unknown flag".
  void retire(std::string name, std::string message);

  // Parses argv (without the subcommand's name). Returns "" or an error.
  std::string parse(int argc, const char* const* argv);

  bool help_requested() const { return help_; }
  bool was_set(std::string_view name) const { return set_.count(std::string(name)) > 0; }
  const std::vector<std::string>& positional() const { return positional_; }
  std::string help_text() const;

  // The flags that were given, with their values, in the order they were
  // registered, each as " --name value" shell-quoted: the part of a replay
  // command that reproduces this run. Flags in `skip` are left out (the
  // caller writes them, e.g. a single seed).
  std::string replay_args(const std::set<std::string>& skip = {}) const;

 private:
  enum class Type { kInt, kUint, kDouble, kString, kBool, kEnum };
  struct Flag {
    std::string name;
    Type type;
    void* out;
    std::string help;
    std::string default_text;
    int64_t min = 0, max = 0;
    std::vector<std::string> allowed;
    uint64_t umin = 0, umax = UINT64_MAX;
    double dmin = -1e300, dmax = 1e300;
  };
  Flag* find(std::string_view name);
  std::string assign(Flag& f, const std::string& value);

  std::string command_;
  std::string description_;
  std::vector<Flag> flags_;
  std::vector<std::pair<std::string, std::string>> retired_;  // name, message
  std::set<std::string> set_;
  std::vector<std::string> positional_;
  bool help_ = false;
};

}  // namespace lw::cli

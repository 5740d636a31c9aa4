#include "cli/flags.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace lw::cli {
namespace {

const char* type_name(int t) {
  static const char* names[] = {"int", "uint", "number", "string", "bool", "choice"};
  return names[t];
}

// Wraps `text` at `width` columns, indenting continuation lines.
std::string wrap(const std::string& text, size_t width, const std::string& indent) {
  std::istringstream words(text);
  std::string word, out, line;
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n" + indent;
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line;
}

}  // namespace

FlagSet::FlagSet(std::string command, std::string description)
    : command_(std::move(command)), description_(std::move(description)) {}

void FlagSet::add_int(std::string name, int64_t* out, std::string help, int64_t min, int64_t max) {
  flags_.push_back({std::move(name), Type::kInt, out, std::move(help), std::to_string(*out), min, max, {}});
}
void FlagSet::add_uint(std::string name, uint64_t* out, std::string help, uint64_t min,
                       uint64_t max) {
  Flag f{std::move(name), Type::kUint, out, std::move(help), std::to_string(*out), 0, 0, {}};
  f.umin = min;
  f.umax = max;
  flags_.push_back(std::move(f));
}
void FlagSet::add_double(std::string name, double* out, std::string help, double min, double max) {
  std::ostringstream os;
  os << *out;
  Flag f{std::move(name), Type::kDouble, out, std::move(help), os.str(), 0, 0, {}};
  f.dmin = min;
  f.dmax = max;
  flags_.push_back(std::move(f));
}
void FlagSet::add_string(std::string name, std::string* out, std::string help) {
  flags_.push_back({std::move(name), Type::kString, out, std::move(help),
                    out->empty() ? "\"\"" : *out, 0, 0, {}});
}
void FlagSet::add_bool(std::string name, bool* out, std::string help) {
  flags_.push_back({std::move(name), Type::kBool, out, std::move(help), *out ? "true" : "false", 0, 0, {}});
}
void FlagSet::add_enum(std::string name, std::string* out, std::vector<std::string> allowed,
                       std::string help) {
  flags_.push_back({std::move(name), Type::kEnum, out, std::move(help), *out, 0, 0, std::move(allowed)});
}

void FlagSet::retire(std::string name, std::string message) {
  retired_.emplace_back(std::move(name), std::move(message));
}

FlagSet::Flag* FlagSet::find(std::string_view name) {
  for (Flag& f : flags_)
    if (f.name == name) return &f;
  return nullptr;
}

std::string FlagSet::assign(Flag& f, const std::string& v) {
  const std::string where = "--" + f.name + ": ";
  switch (f.type) {
    case Type::kInt: {
      // Digits with an optional leading minus: strtoll alone would accept
      // leading blanks and a plus sign.
      const size_t digits = !v.empty() && v[0] == '-' ? 1 : 0;
      if (v.size() == digits || v.find_first_not_of("0123456789", digits) != std::string::npos)
        return where + "\"" + v + "\" is not an integer";
      char* end = nullptr;
      errno = 0;
      long long x = std::strtoll(v.c_str(), &end, 10);
      if (*end != '\0' || errno == ERANGE)
        return where + "\"" + v + "\" is out of range [" + std::to_string(f.min) + ", " +
               std::to_string(f.max) + "]";
      if (x < f.min || x > f.max)
        return where + std::to_string(x) + " is out of range [" + std::to_string(f.min) + ", " +
               std::to_string(f.max) + "]";
      *static_cast<int64_t*>(f.out) = x;
      return {};
    }
    case Type::kUint: {
      // Digits only: strtoull would accept " -1" and wrap it to 2^64 - 1.
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
        return where + "\"" + v + "\" is not a non-negative integer";
      char* end = nullptr;
      errno = 0;
      unsigned long long x = std::strtoull(v.c_str(), &end, 10);
      if (*end != '\0' || errno == ERANGE || x < f.umin || x > f.umax)
        return where + v + " is out of range [" + std::to_string(f.umin) + ", " +
               std::to_string(f.umax) + "]";
      *static_cast<uint64_t*>(f.out) = x;
      return {};
    }
    case Type::kDouble: {
      // A decimal number: no blanks, hex, "nan" or "inf".
      if (v.empty() || v.find_first_not_of("0123456789.eE+-") != std::string::npos)
        return where + "\"" + v + "\" is not a number";
      char* end = nullptr;
      errno = 0;
      double x = std::strtod(v.c_str(), &end);
      if (*end != '\0') return where + "\"" + v + "\" is not a number";
      if (errno == ERANGE || !std::isfinite(x) || x < f.dmin || x > f.dmax) {
        std::ostringstream os;
        os << where << v << " is out of range [" << f.dmin << ", " << f.dmax << "]";
        return os.str();
      }
      *static_cast<double*>(f.out) = x;
      return {};
    }
    case Type::kString:
      *static_cast<std::string*>(f.out) = v;
      return {};
    case Type::kBool:
      if (v == "true" || v == "1") *static_cast<bool*>(f.out) = true;
      else if (v == "false" || v == "0") *static_cast<bool*>(f.out) = false;
      else return where + "\"" + v + "\" is not true or false";
      return {};
    case Type::kEnum:
      for (const std::string& a : f.allowed)
        if (a == v) {
          *static_cast<std::string*>(f.out) = v;
          return {};
        }
      {
        std::string list;
        for (const std::string& a : f.allowed) list += (list.empty() ? "" : ", ") + a;
        return where + "\"" + v + "\" is not one of " + list;
      }
  }
  return where + "unknown type";
}

std::string FlagSet::parse(int argc, const char* const* argv) {
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      help_ = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0 || arg.size() == 2) {
      positional_.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2), value;
    bool has_value = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    Flag* f = find(name);
    if (!f) {
      for (const auto& [old_name, message] : retired_)
        if (old_name == name) return message;
      return "unknown flag --" + name;
    }
    if (!has_value) {
      if (f->type == Type::kBool) {
        value = "true";
      } else {
        if (i + 1 >= argc) return "--" + name + " needs a value";
        value = argv[++i];
      }
    }
    if (std::string e = assign(*f, value); !e.empty()) return e;
    set_.insert(name);
  }
  return {};
}

std::string shell_quote(const std::string& text) {
  const bool plain = !text.empty() && text.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_-+=.,/:@%") == std::string::npos;
  if (plain) return text;
  std::string out = "'";
  for (char ch : text) {
    if (ch == '\'') out += "'\\''";
    else out += ch;
  }
  return out + "'";
}

std::string FlagSet::replay_args(const std::set<std::string>& skip) const {
  std::string out;
  for (const Flag& f : flags_) {
    if (!set_.count(f.name) || skip.count(f.name)) continue;
    std::string value;
    switch (f.type) {
      case Type::kInt: value = std::to_string(*static_cast<const int64_t*>(f.out)); break;
      case Type::kUint: value = std::to_string(*static_cast<const uint64_t*>(f.out)); break;
      case Type::kDouble: {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g", *static_cast<const double*>(f.out));
        value = buf;
        break;
      }
      case Type::kString:
      case Type::kEnum: value = *static_cast<const std::string*>(f.out); break;
      case Type::kBool: value = *static_cast<const bool*>(f.out) ? "true" : "false"; break;
    }
    if (f.type == Type::kBool) out += " --" + f.name + "=" + value;
    else out += " --" + f.name + " " + shell_quote(value);
  }
  return out;
}

std::string FlagSet::help_text() const {
  std::string out = "usage: " + command_ + " [flags]\n\n" + wrap(description_, 78, "") + "\n\nflags:\n";
  size_t width = 4;  // at least as wide as "help"
  for (const Flag& f : flags_) width = std::max(width, f.name.size());
  for (const Flag& f : flags_) {
    std::string type = type_name(static_cast<int>(f.type));
    if (f.type == Type::kInt && (f.min != INT64_MIN || f.max != INT64_MAX))
      type += " in [" + std::to_string(f.min) + ", " + std::to_string(f.max) + "]";
    if (f.type == Type::kUint && (f.umin != 0 || f.umax != UINT64_MAX))
      type += " in [" + std::to_string(f.umin) + ", " + std::to_string(f.umax) + "]";
    if (f.type == Type::kDouble && (f.dmin != -1e300 || f.dmax != 1e300)) {
      std::ostringstream os;
      os << " in [" << f.dmin << ", " << f.dmax << "]";
      type += os.str();
    }
    if (f.type == Type::kEnum) {
      type.clear();
      for (const std::string& a : f.allowed) type += (type.empty() ? "" : "|") + a;
    }
    std::string left = "  --" + f.name + std::string(width - f.name.size() + 2, ' ');
    out += left + wrap(f.help + " (" + type + ", default " + f.default_text + ")", 78 - left.size(),
                       std::string(left.size(), ' ')) + "\n";
  }
  out += "  --help" + std::string(width - 2, ' ') + "show this help\n";
  return out;
}

}  // namespace lw::cli

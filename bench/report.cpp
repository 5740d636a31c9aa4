#include "report.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>

namespace lw::bench {

std::string format(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

Row& Report::add(std::string section, std::string name, double value, std::string unit) {
  Row r;
  r.section = std::move(section);
  r.name = std::move(name);
  r.value = value;
  r.unit = std::move(unit);
  rows_.push_back(std::move(r));
  return rows_.back();
}

namespace {
std::string number(double v) {
  if (v == 0) return "0";
  const double a = std::fabs(v);
  return format(a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3f", v);
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += format("\\u%04x", c);
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string json_number(double v) { return std::isfinite(v) ? format("%.6g", v) : "null"; }
}  // namespace

void Report::print_table(std::FILE* out) const {
  size_t wn = 9, wv = 5, wu = 4;
  for (const Row& r : rows_) {
    wn = std::max(wn, r.name.size());
    wv = std::max(wv, number(r.value).size());
    wu = std::max(wu, r.unit.size());
  }
  const int n = static_cast<int>(wn), v = static_cast<int>(wv), u = static_cast<int>(wu);
  std::string section;
  std::fprintf(out, "%-*s  %*s  %-*s  %s\n", n, "benchmark", v, "value", u, "unit", "detail");
  for (const Row& r : rows_) {
    if (r.section != section) {
      section = r.section;
      std::fprintf(out, "-- %s\n", section.c_str());
    }
    std::fprintf(out, "%-*s  %*s  %-*s  %s\n", n, r.name.c_str(), v, number(r.value).c_str(), u,
                 r.unit.c_str(), r.detail.c_str());
  }
}

std::string Report::write_json(const std::string& path) const {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return "cannot write " + path;
  std::fprintf(f, "{\"results\": [\n");
  for (size_t i = 0; i < rows_.size(); ++i) {
    const Row& r = rows_[i];
    std::fprintf(f, "  {\"section\": %s, \"name\": %s, \"value\": %s, \"unit\": %s",
                 json_string(r.section).c_str(), json_string(r.name).c_str(),
                 json_number(r.value).c_str(), json_string(r.unit).c_str());
    for (const auto& [k, val] : r.fields)
      std::fprintf(f, ", %s: %s", json_string(k).c_str(), json_number(val).c_str());
    std::fprintf(f, "}%s\n", i + 1 < rows_.size() ? "," : "");
  }
  std::fprintf(f, "]}\n");
  return std::fclose(f) == 0 ? "" : "error writing " + path;
}

}  // namespace lw::bench

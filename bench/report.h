// The results of one benchmark run: rows of one table, printed for people and
// written as JSON for tools.
#pragma once

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace lw::bench {

struct Row {
  std::string section;  // e.g. "sim speed"
  std::string name;     // e.g. "sequential, loop only"
  double value = 0;
  std::string unit;     // e.g. "M verbs/s"
  std::string detail;   // free text for the table
  std::vector<std::pair<std::string, double>> fields;  // extra numbers for JSON
};

class Report {
 public:
  Row& add(std::string section, std::string name, double value, std::string unit);
  void print_table(std::FILE* out) const;
  // Returns "" or an error message.
  std::string write_json(const std::string& path) const;

 private:
  std::vector<Row> rows_;
};

// printf into a std::string.
std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace lw::bench

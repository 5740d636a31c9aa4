// What `latchwork check` prints for one scheme's sweep: a table row with
// the findings under it, or one JSON object.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "latchwork/check/builtin.h"

namespace lw::tool {

struct CheckRun {
  const check::BuiltinInfo* info = nullptr;
  check::Options options;
  check::Report report;
  std::string trace;  // --trace: the first finding's trace, or ""
};

// "0x0123456789abcdef"
std::string check_hex(uint64_t h);
// Whether the sweep should find nothing: the scheme is correct under its
// run's semantics (BuiltinInfo::correct_under).
bool expected_correct(const CheckRun& run);
// Failing findings of a sweep, not reports.
uint64_t check_failures(const check::Report& r);

void print_check_header();
// The row, then up to `show` failures and one report (starvation), each
// with its explanation, causes, blocked workers and replay line.
void print_check_text(const CheckRun& run, size_t show);
nlohmann::json check_json(const CheckRun& run, size_t show);

}  // namespace lw::tool

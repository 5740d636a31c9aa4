// Where the ordering of pessimistic and optimistic schemes flips (Jasny et
// al. §4.4-4.5): pessimistic ahead single-threaded and with few workers,
// optimistic ahead at 128 workers read-only with small tuples, pessimistic
// again with 16 KB tuples once the link is the bottleneck. One run per cell
// of the tuple store on the NIC model; `latchwork flips` prints the table.
#pragma once

#include <string>
#include <vector>

namespace lw {

struct FlipRow {
  uint32_t tuple_bytes = 0;
  uint32_t workers = 0;
  double pessimistic_mops = 0;  // pessimistic-async (the best pessimistic level)
  double farm_mops = 0, crc64_mops = 0, versioning_mops = 0;
  std::string ahead;            // "pessimistic", "optimistic" (best of the three) or "tie" (within 3%)
  double ratio = 0;             // best optimistic / pessimistic
  std::string paper;            // what the paper reports for this cell
  std::string paper_ahead;      // "pessimistic" or "optimistic"
  bool agrees = false;
};

std::vector<FlipRow> run_flip_table(const std::string& nic_profile = "cx5-100g");
std::string flip_table_json(const std::vector<FlipRow>& rows);

}  // namespace lw

// `latchwork flips`: the table of where pessimistic and optimistic schemes
// swap places (Jasny et al. §4.4-4.5), on the NIC model.
#include <cstdio>

#include "cluster_flags.h"
#include "commands.h"
#include "latchwork/config/nic_profile.h"
#include "repro/jasny/flip_table.h"
#include "progress.h"

namespace lw::tool {

int cmd_flips(int argc, const char* const* argv) {
  cli::FlagSet f("latchwork flips",
                 "Runs the remote tuple store read-only under the best pessimistic level "
                 "(asynchronous unlatch) and the optimistic schemes (FaRM, CRC64, versioning, "
                 "with latch semantics) at 1, 8 and 128 workers with 256 B and 16 KB tuples on the "
                 "NIC model, and prints which is ahead next to what Jasny et al. report. Exits 1 "
                 "with --strict when a cell disagrees with the paper.");
  std::string nic = "cx5-100g";
  bool json = false, strict = false;
  f.add_string("nic", &nic, "NIC timing profile (cx5-100g, cx6-200g, cx7-400g or a NIC profile JSON file)");
  f.add_bool("json", &json, "print the table as JSON");
  f.add_bool("strict", &strict, "exit 1 when the model's ordering differs from the paper's");
  if (int code; !parse_or_exit(f, argc, argv, &code)) return code;
  NicProfile probe;
  if (std::string e = NicProfile::load(nic, &probe); !e.empty()) return usage_error(f, e);
  std::fprintf(stderr, "running 20 tuple-store workloads on nic=%s...\n", nic.c_str());
  std::fflush(stderr);
  std::vector<FlipRow> rows;
  {
    Progress progress("latchwork flips", "tables", 1, kProgressSeconds);
    rows = run_flip_table(nic);
  }
  bool all_agree = true;
  for (const FlipRow& r : rows) all_agree = all_agree && r.agrees;
  if (json) {
    std::printf("%s\n", flip_table_json(rows).c_str());
  } else {
    std::printf("%6s %7s %11s %7s %7s %10s  %-12s %6s  %-12s %s\n", "tuple", "workers", "pessimistic",
                "farm", "crc64", "versioning", "ahead", "ratio", "paper", "agrees");
    for (const FlipRow& r : rows)
      std::printf("%6s %7u %11.2f %7.2f %7.2f %10.2f  %-12s %5.2fx  %-12s %s\n",
                  r.tuple_bytes >= 1024 ? (std::to_string(r.tuple_bytes / 1024) + " KB").c_str()
                                        : (std::to_string(r.tuple_bytes) + " B").c_str(),
                  r.workers, r.pessimistic_mops, r.farm_mops, r.crc64_mops, r.versioning_mops,
                  r.ahead.c_str(), r.ratio, r.paper_ahead.c_str(), r.agrees ? "yes" : "NO");
    std::printf("\nMops, read-only; ratio = best optimistic / pessimistic. Paper cells:\n");
    for (const FlipRow& r : rows) std::printf("  %s\n", r.paper.c_str());
  }
  return strict && !all_agree ? kExitCheckFailed : kExitOk;
}

}  // namespace lw::tool

// The sections of the benchmark table, one file each.
#pragma once

#include "measure.h"
#include "report.h"

namespace lw::bench {

// Simulated verbs per wall second, simple timing model, per semantics profile.
void sim_speed(const Options& o, Report& r);
// The calibrated NIC model: perf READ and CAS, and cost per verb vs compute nodes.
void nic_model(const Options& o, Report& r);
// Start-up time and resident memory at 1 and 16 memory nodes.
void memory_nodes(const Options& o, Report& r);
// The threads backend against a seqlock baseline and raw access.
void threads_cost(const Options& o, Report& r);
// CPU work per unit the NIC model charges (hash, scan, checks, op issue).
void cpu_work(const Options& o, Report& r);

}  // namespace lw::bench

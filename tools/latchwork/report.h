// Table rows shared by subcommands.
#pragma once

#include "repro/jasny/latch_counter.h"
#include "repro/jasny/torn_read.h"

namespace lw::tool {

void print_torn_header();
void print_torn_row(const TornReadResult& r);
void print_latch_header();
void print_latch_row(const LatchCounterResult& r);

}  // namespace lw::tool

// Subcommands of the `latchwork` tool. Each returns the process exit code:
// 0 success, 1 a check failed, 2 bad usage.
#pragma once

namespace lw::tool {

inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitUsage = 2;

int cmd_torn_read(int argc, const char* const* argv);
int cmd_litmus(int argc, const char* const* argv);
int cmd_conformance(int argc, const char* const* argv);
int cmd_latch(int argc, const char* const* argv);
int cmd_demo(int argc, const char* const* argv);
int cmd_config(int argc, const char* const* argv);
int cmd_perf(int argc, const char* const* argv);
int cmd_repro(int argc, const char* const* argv);
int cmd_repro_diff(int argc, const char* const* argv);  // `repro diff OLD NEW`
int cmd_memnode(int argc, const char* const* argv);
int cmd_node(int argc, const char* const* argv);
int cmd_check(int argc, const char* const* argv);
int cmd_flips(int argc, const char* const* argv);
int cmd_hash(int argc, const char* const* argv);
int cmd_btree(int argc, const char* const* argv);
int cmd_lock(int argc, const char* const* argv);
int cmd_txn(int argc, const char* const* argv);

}  // namespace lw::tool

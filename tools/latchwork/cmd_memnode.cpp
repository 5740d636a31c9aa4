// `latchwork memnode`: serve registered memory to compute processes of the
// verbs backend until SIGINT or SIGTERM.
#include <csignal>
#include <cstdio>

#include "cluster_flags.h"
#include "commands.h"
#include "parse_bytes.h"
#include "latchwork/backends.h"
#ifdef LW_HAVE_VERBS
#include "latchwork/rdma/memnode.h"
#endif

namespace lw::tool {

namespace {

std::atomic<bool> g_stop{false};
extern "C" void on_stop_signal(int) { g_stop.store(true); }



}  // namespace

int cmd_memnode(int argc, const char* const* argv) {
  cli::FlagSet f("latchwork memnode",
                 "Runs a memory node of the verbs backend: registers --size bytes with the RDMA "
                 "device and serves them to compute processes (`--backend verbs --cluster FILE`, "
                 "where FILE lists this node's --listen address). The node's CPU sets up "
                 "connections, answers allocation requests and barriers, and serves the built-in "
                 "RPC handlers (alloc_chunk, echo, null, fetch_add) by SEND/RECV; every other data "
                 "access is a one-sided READ, WRITE or atomic. Stops on SIGINT or SIGTERM.");
  std::string listen = "127.0.0.1:7471", size = "64M", device, huge = "auto";
  int64_t port = 1, gid_index = -1;
  f.add_string("listen", &listen, "HOST:PORT for the TCP set-up exchange");
  f.add_string("size", &size, "registered memory, e.g. 64M or 1G, in [1M, 1T]");
  f.add_string("device", &device, "RDMA device (default: the first, e.g. rxe0 or mlx5_0)");
  f.add_int("ib-port", &port, "device port", 1, 255);
  f.add_int("gid-index", &gid_index, "GID index (-1: RoCE v2 with an IPv4 address)", -1, 1023);
  f.add_enum("huge-pages", &huge, {"auto", "on", "off"}, "back the memory with 2 MiB pages");
  if (int code; !parse_or_exit(f, argc, argv, &code)) return code;
  // Bad input is reported first, with or without the verbs backend.
  uint64_t bytes = 0;
  if (std::string e = parse_bytes(size, &bytes); !e.empty()) return usage_error(f, "--size: " + e);
  if (bytes < (1u << 20) || bytes > kMaxNodeProcessBytes)
    return usage_error(f, "--size must be in [1M, 1T], got " + size);
#ifndef LW_HAVE_VERBS
  (void)port;
  (void)gid_index;
  return usage_error(f, "this build has no verbs backend: libibverbs-dev was missing at configure "
                        "time (run scripts/bootstrap.sh, then reconfigure)");
#else
  MemnodeOptions o;
  if (std::string e = parse_host_port(listen, &o.listen); !e.empty()) return usage_error(f, "--listen: " + e);
  o.bytes = bytes;
  o.device = device;
  o.ib_port = static_cast<uint32_t>(port);
  o.gid_index = static_cast<int32_t>(gid_index);
  o.huge_pages = huge;
  if (std::string e = o.validate(); !e.empty()) return usage_error(f, e);
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  std::string err = run_memnode(o, g_stop, [](const std::string& line) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  });
  if (!err.empty()) {
    std::fprintf(stderr, "latchwork memnode: %s\n", err.c_str());
    return kExitCheckFailed;
  }
  return kExitOk;
#endif
}

}  // namespace lw::tool

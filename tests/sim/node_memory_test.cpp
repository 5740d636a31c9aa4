// Node memory is reserved, not filled: pages are zero on first touch, an
// untouched node costs no resident memory, and a mapping that cannot be made
// fails with an exception naming the size.
#include "verbs/node_memory.h"

#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace lw {
namespace {

uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

TEST(NodeMemory, ReadsZeroAndKeepsWhatIsWritten) {
  NodeMemory m(uint64_t{64} << 20, 4096);
  const uint64_t far = (uint64_t{64} << 20) - 8;
  EXPECT_EQ(*m.word(far), 0u);
  EXPECT_EQ(*m.word(NodeMemory::kDeviceBase + 8), 0u);
  *m.word(far) = 42;
  uint64_t v = 0;
  m.host_copy_out(far, &v, 8);
  EXPECT_EQ(v, 42u);
}

TEST(NodeMemory, AnUntouchedNodeIsNotResident) {
  const uint64_t before = resident_bytes();
  NodeMemory m(uint64_t{1} << 30, 0);  // 1 GB, touched in two places
  *m.word(NodeMemory::kReservedBytes) = 1;
  *m.word((uint64_t{1} << 30) - 8) = 1;
  EXPECT_LT(resident_bytes(), before + (uint64_t{64} << 20));
}

TEST(NodeMemory, AnImpossibleMappingThrowsNamingTheSize) {
  try {
    NodeMemory m(uint64_t{1} << 62, 0);  // beyond any address space
    FAIL() << "mapped 2^62 bytes";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(uint64_t{1} << 62)), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lw

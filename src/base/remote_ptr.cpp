#include "latchwork/base/remote_ptr.h"

#include <cstdio>

namespace lw {

std::string RemoteAddr::to_string() const {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%u:0x%llx", unsigned{node()},
                static_cast<unsigned long long>(offset()));
  return buf;
}

}  // namespace lw

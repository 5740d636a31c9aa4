// Helpers shared by the history models' tests.
#pragma once

#include <string>
#include <vector>

#include "latchwork/check/models.h"

namespace lw::model_test {

inline Placement worker(uint32_t node, uint32_t coroutine = 0) {
  return {Placement::Kind::kCompute, node, 0, coroutine};
}

inline std::vector<ModelViolation> violations(const HistoryModel& m) {
  std::vector<ModelViolation> v;
  m.check(&v);
  return v;
}

inline std::string first(const std::vector<ModelViolation>& v) { return v.empty() ? "" : v[0].detail; }

}  // namespace lw::model_test

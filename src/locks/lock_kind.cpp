// Names of the lock kinds and ALock variants (flags, JSON, reports).
#include "latchwork/locks/lock.h"

namespace lw::locks {

const char* to_string(LockKind k) {
  switch (k) {
    case LockKind::kSpin: return "spin";
    case LockKind::kSpinLocalCpu: return "spin-local-cpu";
    case LockKind::kMcs: return "mcs";
    case LockKind::kAlock: return "alock";
    case LockKind::kSpinWriteUnlock: return "spin-write-unlock";
  }
  return "?";
}

bool parse_lock_kind(const std::string& s, LockKind* out) {
  for (LockKind k : {LockKind::kSpin, LockKind::kSpinLocalCpu, LockKind::kMcs, LockKind::kAlock,
                     LockKind::kSpinWriteUnlock}) {
    if (s == to_string(k)) {
      *out = k;
      return true;
    }
  }
  return false;
}

const char* to_string(AlockVariant v) {
  switch (v) {
    case AlockVariant::kCorrect: return "correct";
    case AlockVariant::kVictimAfterCheck: return "victim-after-check";
    case AlockVariant::kNoVictim: return "no-victim";
  }
  return "?";
}

bool parse_alock_variant(const std::string& s, AlockVariant* out) {
  for (AlockVariant v : {AlockVariant::kCorrect, AlockVariant::kVictimAfterCheck, AlockVariant::kNoVictim}) {
    if (s == to_string(v)) {
      *out = v;
      return true;
    }
  }
  return false;
}

}  // namespace lw::locks

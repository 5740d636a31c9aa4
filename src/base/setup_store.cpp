// The keyed store of set-up products (setup_store.h).
#include "base/setup_store.h"

namespace lw {

// A pair of words is two words with no padding: its bytes are copied whole
// (a Sherman load's 2^20 pairs are 16 MB; pair by pair was a third of a
// point's set-up).
static_assert(sizeof(std::pair<uint64_t, uint64_t>) == 16 && std::is_standard_layout_v<std::pair<uint64_t, uint64_t>>);

SetupKey& SetupKey::add(std::span<const std::pair<uint64_t, uint64_t>> s) {
  add(uint64_t{s.size()});
  append_view(s.data(), s.size_bytes());
  return *this;
}

void SetupKey::own() {
  for (Segment& s : segs_)
    if (s.view != nullptr) {
      s.owned.assign(s.view, s.len);
      s.view = nullptr;
    }
}

bool SetupKey::operator==(const SetupKey& o) const {
  if (length_ != o.length_ || segs_.size() != o.segs_.size() || parts_.size() != o.parts_.size()) return false;
  for (size_t i = 0; i < segs_.size(); ++i)
    if (segs_[i].bytes() != o.segs_[i].bytes()) return false;
  for (size_t i = 0; i < parts_.size(); ++i) {
    const Part &a = parts_[i], &b = o.parts_[i];
    if (a.at != b.at || *a.type != *b.type || !a.equal(a.value.get(), b.value.get())) return false;
  }
  return true;
}

uint64_t SetupKey::hash() const {
  if (hashed_) return hash_;
  // A span by its length and its first and last 64 bytes: candidates only,
  // operator== compares all of it.
  constexpr size_t kEnds = 64;
  uint64_t h = 0;
  auto mix = [&h](std::string_view b) { h = (h ^ std::hash<std::string_view>{}(b)) * 0x9e3779b97f4a7c15ull; };
  for (const Segment& s : segs_) {
    const std::string_view b = s.bytes();
    if (!s.sampled || b.size() <= 2 * kEnds) {
      mix(b);
    } else {
      mix(b.substr(0, kEnds));
      mix(b.substr(b.size() - kEnds));
      h ^= b.size();
    }
  }
  hash_ = h;
  hashed_ = true;
  return hash_;
}

uint64_t SetupKey::bytes() const {
  uint64_t n = length_;
  for (const Part& p : parts_) n += p.size;
  return n;
}

SetupStore& SetupStore::process() {
  static SetupStore store(kProcessBytes);
  return store;
}

std::shared_ptr<void> SetupStore::find_erased(const SetupKey& key, const std::type_info& type) {
  const uint64_t h = key.hash();
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->hash != h || !(it->key == key)) continue;
    LW_CHECK_MSG(*it->type == type, "a set-up key kind names two product types");
    entries_.splice(entries_.begin(), entries_, it);
    ++hits_;
    return it->product;
  }
  ++misses_;
  return nullptr;
}

std::shared_ptr<void> SetupStore::add_erased(SetupKey key, std::shared_ptr<void> product, const std::type_info& type,
                                             uint64_t bytes, SetupLifetime life) {
  const uint64_t h = key.hash();
  bytes += key.bytes();
  std::lock_guard<std::mutex> lock(mu_);
  for (const Entry& e : entries_)
    if (e.hash == h && e.key == key) {
      LW_CHECK_MSG(*e.type == type, "a set-up key kind names two product types");
      return e.product;  // another thread kept it first
    }
  if (bytes > max_bytes_) return product;  // used once, not kept
  while (!entries_.empty() && (bytes_ + bytes > max_bytes_ || entries_.size() >= kMaxEntries)) {
    bytes_ -= entries_.back().bytes;
    entries_.pop_back();
  }
  bytes_ += bytes;
  key.own();  // a kept key outlives the data its caller viewed
  entries_.push_front(Entry{std::move(key), h, product, &type, bytes, life});
  return product;
}

void SetupStore::drop_scoped() {
  std::list<Entry> dropped;  // destroyed outside the lock
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = entries_.begin(); it != entries_.end();) {
    auto next = std::next(it);
    if (it->life == SetupLifetime::kReuseScope) {
      bytes_ -= it->bytes;
      dropped.splice(dropped.end(), entries_, it);
    }
    it = next;
  }
}

uint64_t SetupStore::hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hits_;
}
uint64_t SetupStore::misses() const {
  std::lock_guard<std::mutex> lock(mu_);
  return misses_;
}
uint64_t SetupStore::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}
size_t SetupStore::entries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

}  // namespace lw

// TATP (the telecom benchmark; SMART §6.2.2: 80% read-only).
//
// Subscribers: subscribers_per_node x nodes, s_id 0.., on node s_id % nodes,
// with every row of a subscriber. Tables and payloads:
//   subscriber        48 B  sub_nbr, bits (bit_1..10), hex (hex_1..10),
//                           byte2 (byte2_1..8 packed), msc_location, vlr_location
//   access_info       16 B  data1..2, data3..4 packed     key s_id*4 + ai_type-1
//   special_facility  16 B  is_active, error_cntrl/data_a/data_b packed
//                                                         key s_id*4 + sf_type-1
//   call_forwarding   32 B  valid, end_time, numberx, -   key (s_id*4 + sf_type-1)*3 + start_time/8
// Simplifications: every subscriber has all four access_info and
// special_facility rows (TATP: 1-4 of each, so that some lookups miss);
// call_forwarding has a fixed slot per start time (0, 8, 16) with a valid
// flag, so Insert/DeleteCallForwarding update a slot (an insert into a
// valid slot or a delete of an invalid one is TATP's expected failure: it
// commits without change); UpdateLocation and the call-forwarding
// transactions find the subscriber by s_id, not by sub_nbr; s_id is drawn
// uniformly (TATP: NURand).
//
// Mix: GetSubscriberData 35, GetNewDestination 10, GetAccessData 35 (read
// only: 80%), UpdateSubscriberData 2, UpdateLocation 14,
// InsertCallForwarding 2, DeleteCallForwarding 2.
//
// Effect: balance_delta = call-forwarding slots made valid minus made
// invalid. check(): the valid slots number the initial count plus the
// committed deltas, and every valid slot's end time lies after its start.
#include "oltp_internal.h"

namespace lw::workloads::oltp_detail {
namespace {

constexpr txn::TableId kSubscriber = 0, kAccessInfo = 1, kSpecialFacility = 2, kCallForwarding = 3;
constexpr uint32_t kTypesPer = 4;  // ai_type and sf_type: 1..4
constexpr uint32_t kSlots = 3;     // start_time 0, 8, 16

enum Type : uint32_t {
  kGetSubscriberData,
  kGetNewDestination,
  kGetAccessData,
  kUpdateSubscriberData,
  kUpdateLocation,
  kInsertCallForwarding,
  kDeleteCallForwarding
};
constexpr uint32_t kMix[] = {35, 10, 35, 2, 14, 2, 2};

namespace subf { constexpr size_t sub_nbr = 0, bits = 8, hex = 16, byte2 = 24, msc = 32, vlr = 40; }
namespace sff { constexpr size_t is_active = 0, data = 8; }
namespace cff { constexpr size_t valid = 0, end_time = 8, numberx = 16; }

class Tatp final : public txn::TxnWorkload {
 public:
  explicit Tatp(const OltpOptions& o) : subscribers_(o.subscribers_per_node * o.nodes) {}

  std::string name() const override { return "tatp"; }
  std::vector<txn::TableSpec> tables() const override {
    return {{"subscriber", 48}, {"access_info", 16}, {"special_facility", 16}, {"call_forwarding", 32}};
  }
  NodeId home(txn::TableId t, uint64_t key, uint32_t nodes) const override {
    return static_cast<NodeId>(s_id_of(t, key) % nodes);
  }

  // TATP's initial call forwarding: 0-3 per special facility; here each slot
  // is valid with probability 1/2.
  static bool initially_valid(uint64_t cf_key) { return load_value(kCallForwarding, cf_key, 0) % 2 == 0; }

  void load(txn::StoreLoader& loader) const override {
    // Per subscriber: its row, kTypesPer access_info and special_facility
    // rows, kTypesPer x kSlots call_forwarding rows.
    loader.reserve(subscribers_ * (1 + 2 * kTypesPer + kTypesPer * kSlots),
                   subscribers_ * (48 + 2 * kTypesPer * 16 + kTypesPer * kSlots * 32));
    for (uint64_t s = 0; s < subscribers_; ++s) {
      loader.add(kSubscriber, s,
                 Row(48).set(subf::sub_nbr, s).set(subf::bits, load_value(kSubscriber, s, 0) & 0x3ff)
                     .set(subf::hex, load_value(kSubscriber, s, 1) & 0xffffffffff)
                     .set(subf::byte2, load_value(kSubscriber, s, 2))
                     .set(subf::msc, load_value(kSubscriber, s, 3) & 0xffffffff)
                     .set(subf::vlr, load_value(kSubscriber, s, 4) & 0xffffffff)
                     .span());
      for (uint64_t ty = 0; ty < kTypesPer; ++ty) {
        const uint64_t k = s * kTypesPer + ty;
        loader.add(kAccessInfo, k, Row(16).set(0, load_value(kAccessInfo, k, 0)).set(8, load_value(kAccessInfo, k, 1)).span());
        loader.add(kSpecialFacility, k,
                   Row(16).set(sff::is_active, load_value(kSpecialFacility, k, 0) % 100 < 85 ? 1 : 0)
                       .set(sff::data, load_value(kSpecialFacility, k, 1))
                       .span());
        for (uint64_t slot = 0; slot < kSlots; ++slot) {
          const uint64_t ck = k * kSlots + slot;
          const bool valid = initially_valid(ck);
          loader.add(kCallForwarding, ck,
                     Row(32).set(cff::valid, valid ? 1 : 0).set(cff::end_time, valid ? slot * 8 + 1 + load_value(kCallForwarding, ck, 1) % 8 : 0)
                         .set(cff::numberx, valid ? load_value(kCallForwarding, ck, 2) : 0)
                         .span());
        }
      }
    }
  }
  std::vector<std::string> types() const override {
    return {"get-subscriber-data", "get-new-destination", "get-access-data", "update-subscriber-data",
            "update-location",     "insert-call-forwarding", "delete-call-forwarding"};
  }

  txn::TxnInput draw(Rng& rng, NodeId, uint32_t) const override {
    txn::TxnInput in;
    in.type = pick_type(rng, kMix);
    in.read_only = in.type <= kGetAccessData;
    push(in, rng.below(subscribers_));
    switch (in.type) {
      case kGetNewDestination:  // sf_type, start_time, end_time
        push(in, rng.below(kTypesPer));
        push(in, rng.below(kSlots) * 8);
        push(in, rng.between(1, 24));
        break;
      case kGetAccessData: push(in, rng.below(kTypesPer)); break;
      case kUpdateSubscriberData:  // sf_type, bit_1, data_a
        push(in, rng.below(kTypesPer));
        push(in, rng.below(2));
        push(in, rng.below(256));
        break;
      case kUpdateLocation: push(in, rng.below(uint64_t{1} << 32)); break;
      case kInsertCallForwarding:  // sf_type, start_time, end_time, numberx
        push(in, rng.below(kTypesPer));
        push(in, rng.below(kSlots) * 8);
        push(in, rng.between(1, 8));
        push(in, rng.next());
        break;
      case kDeleteCallForwarding:  // sf_type, start_time
        push(in, rng.below(kTypesPer));
        push(in, rng.below(kSlots) * 8);
        break;
      default: break;
    }
    return in;
  }

  Task<txn::TxnStatus> execute(txn::Txn& t, const txn::TxnInput& in, txn::TxnEffect* effect) const override {
    using txn::TxnStatus;
    t.begin(in.read_only, in.type);
    const uint64_t s = in.args[0];
    int64_t delta = 0;
    switch (in.type) {
      case kGetSubscriberData: {
        t.read(kSubscriber, s);
        if (co_await t.fetch() != TxnStatus::kOk) co_return t.status();
        break;
      }
      case kGetNewDestination: {
        const uint64_t sk = s * kTypesPer + in.args[1];
        const txn::RecordId sf = t.read(kSpecialFacility, sk);
        // Call forwarding rows with start_time <= the given one.
        const uint64_t slots = in.args[2] / 8 + 1;
        txn::RecordId cf[kSlots];
        for (uint64_t slot = 0; slot < slots; ++slot) cf[slot] = t.read(kCallForwarding, sk * kSlots + slot);
        if (co_await t.fetch() != TxnStatus::kOk) co_return t.status();
        uint64_t found = 0;
        if (get(t.value(sf), sff::is_active) == 1)
          for (uint64_t slot = 0; slot < slots; ++slot)
            if (get(t.value(cf[slot]), cff::valid) == 1 && get(t.value(cf[slot]), cff::end_time) > in.args[3])
              found = get(t.value(cf[slot]), cff::numberx);
        (void)found;
        break;
      }
      case kGetAccessData: {
        t.read(kAccessInfo, s * kTypesPer + in.args[1]);
        if (co_await t.fetch() != TxnStatus::kOk) co_return t.status();
        break;
      }
      case kUpdateSubscriberData: {
        const txn::RecordId sub = t.read_for_update(kSubscriber, s);
        const txn::RecordId sf = t.read_for_update(kSpecialFacility, s * kTypesPer + in.args[1]);
        if (co_await t.fetch() != TxnStatus::kOk) co_return t.status();
        std::span<std::byte> u = t.update(sub);
        put(u, subf::bits, (get(u, subf::bits) & ~uint64_t{1}) | in.args[2]);
        std::span<std::byte> f = t.update(sf);
        put(f, sff::data, (get(f, sff::data) & ~uint64_t{0xff}) | in.args[3]);
        break;
      }
      case kUpdateLocation: {
        const txn::RecordId sub = t.read_for_update(kSubscriber, s);
        if (co_await t.fetch() != TxnStatus::kOk) co_return t.status();
        put(t.update(sub), subf::vlr, in.args[1]);
        break;
      }
      case kInsertCallForwarding: {
        const uint64_t sk = s * kTypesPer + in.args[1];
        t.read(kSubscriber, s);
        t.read(kSpecialFacility, sk);
        const txn::RecordId cf = t.read_for_update(kCallForwarding, sk * kSlots + in.args[2] / 8);
        if (co_await t.fetch() != TxnStatus::kOk) co_return t.status();
        if (get(t.value(cf), cff::valid) == 0) {
          std::span<std::byte> c = t.update(cf);
          put(c, cff::valid, 1);
          put(c, cff::end_time, in.args[2] + in.args[3]);
          put(c, cff::numberx, in.args[4]);
          delta = 1;
        }
        break;
      }
      default: {  // kDeleteCallForwarding
        t.read(kSubscriber, s);
        const txn::RecordId cf =
            t.read_for_update(kCallForwarding, (s * kTypesPer + in.args[1]) * kSlots + in.args[2] / 8);
        if (co_await t.fetch() != TxnStatus::kOk) co_return t.status();
        if (get(t.value(cf), cff::valid) == 1) {
          std::span<std::byte> c = t.update(cf);
          put(c, cff::valid, 0);
          put(c, cff::end_time, 0);
          put(c, cff::numberx, 0);
          delta = -1;
        }
        break;
      }
    }
    const TxnStatus st = co_await t.commit();
    if (st == TxnStatus::kOk) effect->balance_delta = delta;
    co_return st;
  }

  std::string check(const txn::Store& store, const txn::TxnEffect& total) const override {
    int64_t initial = 0, valid = 0;
    std::vector<std::byte> p;
    const uint64_t rows = subscribers_ * kTypesPer * kSlots;
    for (uint64_t ck = 0; ck < rows; ++ck) {
      initial += initially_valid(ck);
      if (!host_payload(store, kCallForwarding, ck, &p)) return "call_forwarding " + std::to_string(ck) + " is missing";
      const uint64_t v = get(p, cff::valid);
      if (v > 1) return "call_forwarding " + std::to_string(ck) + " has valid flag " + std::to_string(v);
      if (v == 1 && get(p, cff::end_time) <= (ck % kSlots) * 8)
        return "call_forwarding " + std::to_string(ck) + " ends at " + std::to_string(get(p, cff::end_time)) +
               ", not after its start " + std::to_string((ck % kSlots) * 8);
      valid += static_cast<int64_t>(v);
    }
    if (valid == initial + total.balance_delta) return "";
    return std::to_string(valid) + " call forwardings are valid, but " + std::to_string(initial) +
           " were loaded and committed inserts minus deletes are " + std::to_string(total.balance_delta);
  }

 private:
  static uint64_t s_id_of(txn::TableId t, uint64_t key) {
    if (t == kSubscriber) return key;
    if (t == kCallForwarding) return key / kSlots / kTypesPer;
    return key / kTypesPer;
  }

  uint64_t subscribers_;
};

}  // namespace

std::unique_ptr<txn::TxnWorkload> make_tatp(const OltpOptions& o) { return std::make_unique<Tatp>(o); }

}  // namespace lw::workloads::oltp_detail

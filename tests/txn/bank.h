// A tiny bank for the engine's tests: N accounts of an int64 balance (the
// rest of the payload a pattern of the balance, so a torn image shows),
// transfers between two accounts, deposits, and read-only balance checks.
#pragma once

#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "latchwork/txn/workload.h"

namespace lw::txn::testing {

class Bank : public TxnWorkload {
 public:
  enum Type : uint32_t { kTransfer, kDeposit, kBalance };
  Bank(uint64_t accounts, uint32_t payload_bytes = 8, int64_t initial = 1000, uint32_t deposit_percent = 10,
       uint32_t read_only_percent = 20)
      : accounts_(accounts), payload_(payload_bytes), initial_(initial), deposit_pct_(deposit_percent),
        ro_pct_(read_only_percent) {}

  std::string name() const override { return "bank"; }
  std::vector<TableSpec> tables() const override { return {{"accounts", payload_}}; }
  NodeId home(TableId, uint64_t key, uint32_t nodes) const override { return static_cast<NodeId>(key % nodes); }
  void load(StoreLoader& l) const override {
    std::vector<std::byte> p(payload_);
    for (uint64_t k = 0; k < accounts_; ++k) {
      encode(initial_, p);
      l.add(0, k, p);
    }
  }
  std::vector<std::string> types() const override { return {"transfer", "deposit", "balance"}; }
  TxnInput draw(Rng& rng, NodeId, uint32_t) const override {
    TxnInput in;
    const uint64_t pick = rng.below(100);
    in.type = pick < ro_pct_ ? kBalance : pick < ro_pct_ + deposit_pct_ ? kDeposit : kTransfer;
    in.read_only = in.type == kBalance;
    in.nargs = 3;
    in.args[0] = rng.below(accounts_);
    in.args[1] = (in.args[0] + 1 + rng.below(accounts_ - 1)) % accounts_;
    in.args[2] = 1 + rng.below(10);
    return in;
  }
  Task<TxnStatus> execute(Txn& txn, const TxnInput& in, TxnEffect* effect) const override {
    txn.begin(in.read_only, in.type);
    if (in.type == kBalance) {
      const RecordId a = txn.read(0, in.args[0]);
      if (ro_think_ns > 0) {  // two fetches apart: a window for a transfer between them
        if (co_await txn.fetch() != TxnStatus::kOk) co_return txn.status();
        co_await txn.worker().sleep(ro_think_ns);
      }
      const RecordId b = txn.read(0, in.args[1]);
      if (co_await txn.fetch() != TxnStatus::kOk) co_return txn.status();
      const int64_t sum = decode(txn.value(a)) + decode(txn.value(b));
      const TxnStatus st = co_await txn.commit();
      // With two accounts and no deposits every serializable read sees the
      // initial total: anything else is a read skew that committed.
      if (st == TxnStatus::kOk && accounts_ == 2 && deposit_pct_ == 0 && sum != 2 * initial_)
        skewed_reads.fetch_add(1, std::memory_order_relaxed);
      co_return st;
    }
    if (in.type == kDeposit) {
      const RecordId a = txn.read_for_update(0, in.args[0]);
      if (co_await txn.fetch() != TxnStatus::kOk) co_return txn.status();
      const int64_t amount = static_cast<int64_t>(in.args[2]);
      encode(decode(txn.value(a)) + amount, txn.update(a));
      const TxnStatus st = co_await txn.commit();
      if (st == TxnStatus::kOk) effect->balance_delta = amount;
      co_return st;
    }
    const RecordId a = txn.read_for_update(0, in.args[0]);
    const RecordId b = txn.read_for_update(0, in.args[1]);
    if (co_await txn.fetch() != TxnStatus::kOk) co_return txn.status();
    if (think_ns > 0) co_await txn.worker().sleep(think_ns);  // widens the read-to-lock window
    const int64_t amount = static_cast<int64_t>(in.args[2]);
    encode(decode(txn.value(a)) - amount, txn.update(a));
    encode(decode(txn.value(b)) + amount, txn.update(b));
    co_return co_await txn.commit();
  }
  std::string check(const Store& s, const TxnEffect& total) const override {
    int64_t sum = 0;
    std::vector<std::byte> p(payload_);
    for (uint64_t k = 0; k < accounts_; ++k) {
      RecordView v;
      if (!s.host_read(0, k, 0, &v, p)) return "account " + std::to_string(k) + " missing";
      const int64_t bal = decode(p);
      std::vector<std::byte> want(payload_);
      encode(bal, want);
      if (want != p) return "account " + std::to_string(k) + ": payload pattern broken (a torn write?)";
      sum += bal;
    }
    const int64_t want = static_cast<int64_t>(accounts_) * initial_ + total.balance_delta;
    if (sum != want) return "total balance " + std::to_string(sum) + ", want " + std::to_string(want);
    return {};
  }

  Nanos think_ns = 0;  // between fetch() and commit() of a transfer
  Nanos ro_think_ns = 0;  // between a balance check's two reads
  mutable std::atomic<uint64_t> skewed_reads{0};

  static int64_t decode(std::span<const std::byte> p) {
    int64_t v;
    std::memcpy(&v, p.data(), 8);
    return v;
  }
  static void encode(int64_t v, std::span<std::byte> p) {
    std::memcpy(p.data(), &v, 8);
    for (size_t i = 8; i < p.size(); ++i) p[i] = static_cast<std::byte>((static_cast<uint64_t>(v) >> (i % 8)) + i);
  }

 private:
  uint64_t accounts_;
  uint32_t payload_;
  int64_t initial_;
  uint32_t deposit_pct_, ro_pct_;
};

}  // namespace lw::txn::testing

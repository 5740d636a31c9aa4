// SmallBank (H-Store's banking benchmark; DrTM+H §5, SMART §6.2.2).
//
// Tables: savings and checking, one record per account, key = account id
// (0 .. accounts_per_node x nodes - 1, on node id % nodes). Payload: the
// balance, one signed 8-byte word (H-Store: a float; the name table
// `accounts` is left out: every transaction names accounts by id).
//
// Mix (H-Store's): Amalgamate 15, Balance 15 (read-only), DepositChecking 15,
// SendPayment 25, TransactSavings 15, WriteCheck 15. Accounts: with
// probability hot_share one of the first hot_fraction of the accounts, else
// any (DrTM+H: 4% of the accounts take 90% of the transactions).
//
// H-Store aborts SendPayment and TransactSavings on insufficient funds. A
// user abort would be retried here as a conflict, so they commit without
// changing the balances (the declared writes install the same values).
//
// Effect: balance_delta is the money a committed transaction brought in or
// took out (DepositChecking +amount, TransactSavings +amount, WriteCheck
// -amount (-1 penalty)); transfers move money and add 0. check(): the sum of
// every balance equals the initial sum plus the committed deltas.
#include <algorithm>

#include "oltp_internal.h"

namespace lw::workloads::oltp_detail {
namespace {

constexpr txn::TableId kSavings = 0, kChecking = 1;
constexpr int64_t kInitialBalance = 10'000;

enum Type : uint32_t { kAmalgamate, kBalance, kDepositChecking, kSendPayment, kTransactSavings, kWriteCheck };
constexpr uint32_t kMix[] = {15, 15, 15, 25, 15, 15};

int64_t balance(std::span<const std::byte> p) { return get_signed(p, 0); }
void set_balance(std::span<std::byte> p, int64_t v) { put_signed(p, 0, v); }

class SmallBank final : public txn::TxnWorkload {
 public:
  explicit SmallBank(const OltpOptions& o)
      : accounts_(o.accounts_per_node * o.nodes),
        hot_(std::max<uint64_t>(1, static_cast<uint64_t>(static_cast<double>(accounts_) * o.hot_fraction))),
        hot_share_(o.hot_share) {}

  std::string name() const override { return "smallbank"; }
  std::vector<txn::TableSpec> tables() const override { return {{"savings", 8}, {"checking", 8}}; }
  NodeId home(txn::TableId, uint64_t key, uint32_t nodes) const override {
    return static_cast<NodeId>(key % nodes);
  }
  void load(txn::StoreLoader& loader) const override {
    Row r(8);
    r.set(0, static_cast<uint64_t>(kInitialBalance));
    loader.reserve(2 * accounts_, 2 * accounts_ * 8);
    for (uint64_t a = 0; a < accounts_; ++a) {
      loader.add(kSavings, a, r.span());
      loader.add(kChecking, a, r.span());
    }
  }
  std::vector<std::string> types() const override {
    return {"amalgamate", "balance", "deposit-checking", "send-payment", "transact-savings", "write-check"};
  }

  txn::TxnInput draw(Rng& rng, NodeId, uint32_t) const override {
    txn::TxnInput in;
    in.type = pick_type(rng, kMix);
    in.read_only = in.type == kBalance;
    const uint64_t a = account(rng);
    push(in, a);
    if (in.type == kAmalgamate || in.type == kSendPayment) push(in, other(rng, a));
    if (in.type == kDepositChecking || in.type == kSendPayment || in.type == kWriteCheck)
      push(in, rng.between(1, 100));
    if (in.type == kTransactSavings) push(in, static_cast<uint64_t>(static_cast<int64_t>(rng.between(0, 199)) - 99));
    return in;
  }

  Task<txn::TxnStatus> execute(txn::Txn& t, const txn::TxnInput& in, txn::TxnEffect* effect) const override {
    using txn::TxnStatus;
    t.begin(in.read_only, in.type);
    const uint64_t a = in.args[0];
    int64_t delta = 0;
    switch (in.type) {
      case kAmalgamate: {
        const uint64_t b = in.args[1];
        const txn::RecordId sa = t.read_for_update(kSavings, a), ca = t.read_for_update(kChecking, a);
        const txn::RecordId cb = t.read_for_update(kChecking, b);
        if (co_await t.fetch() != TxnStatus::kOk) co_return t.status();
        const int64_t total = balance(t.value(sa)) + balance(t.value(ca));
        set_balance(t.update(cb), balance(t.value(cb)) + total);
        set_balance(t.update(sa), 0);
        set_balance(t.update(ca), 0);
        break;
      }
      case kBalance: {
        const txn::RecordId sa = t.read(kSavings, a), ca = t.read(kChecking, a);
        if (co_await t.fetch() != TxnStatus::kOk) co_return t.status();
        (void)(balance(t.value(sa)) + balance(t.value(ca)));
        break;
      }
      case kDepositChecking: {
        const int64_t amount = static_cast<int64_t>(in.args[1]);
        const txn::RecordId ca = t.read_for_update(kChecking, a);
        if (co_await t.fetch() != TxnStatus::kOk) co_return t.status();
        set_balance(t.update(ca), balance(t.value(ca)) + amount);
        delta = amount;
        break;
      }
      case kSendPayment: {
        const uint64_t b = in.args[1];
        const int64_t amount = static_cast<int64_t>(in.args[2]);
        const txn::RecordId ca = t.read_for_update(kChecking, a), cb = t.read_for_update(kChecking, b);
        if (co_await t.fetch() != TxnStatus::kOk) co_return t.status();
        if (balance(t.value(ca)) >= amount) {
          set_balance(t.update(ca), balance(t.value(ca)) - amount);
          set_balance(t.update(cb), balance(t.value(cb)) + amount);
        }
        break;
      }
      case kTransactSavings: {
        const int64_t amount = static_cast<int64_t>(in.args[1]);
        const txn::RecordId sa = t.read_for_update(kSavings, a);
        if (co_await t.fetch() != TxnStatus::kOk) co_return t.status();
        if (balance(t.value(sa)) + amount >= 0) {
          set_balance(t.update(sa), balance(t.value(sa)) + amount);
          delta = amount;
        }
        break;
      }
      default: {  // kWriteCheck
        const int64_t amount = static_cast<int64_t>(in.args[1]);
        const txn::RecordId sa = t.read(kSavings, a), ca = t.read_for_update(kChecking, a);
        if (co_await t.fetch() != TxnStatus::kOk) co_return t.status();
        const int64_t charge = balance(t.value(sa)) + balance(t.value(ca)) < amount ? amount + 1 : amount;
        set_balance(t.update(ca), balance(t.value(ca)) - charge);
        delta = -charge;
        break;
      }
    }
    const TxnStatus s = co_await t.commit();
    if (s == TxnStatus::kOk) effect->balance_delta = delta;
    co_return s;
  }

  std::string check(const txn::Store& store, const txn::TxnEffect& total) const override {
    int64_t sum = 0;
    std::vector<std::byte> p;
    for (txn::TableId t : {kSavings, kChecking}) {
      for (uint64_t a = 0; a < accounts_; ++a) {
        if (!host_payload(store, t, a, &p)) return "account " + std::to_string(a) + " is missing";
        sum += balance(p);
      }
    }
    const int64_t want = kInitialBalance * 2 * static_cast<int64_t>(accounts_) + total.balance_delta;
    if (sum == want) return "";
    return "the balances sum to " + std::to_string(sum) + ", but the initial total plus the committed deltas is " +
           std::to_string(want) + " (money created or lost: " + std::to_string(sum - want) + ")";
  }

 private:
  uint64_t account(Rng& rng) const {
    return rng.chance(hot_share_) ? rng.below(hot_) : rng.below(accounts_);
  }
  // Another account than a (a itself if there is only one).
  uint64_t other(Rng& rng, uint64_t a) const {
    for (int i = 0; i < 16 && accounts_ > 1; ++i) {
      const uint64_t b = account(rng);
      if (b != a) return b;
    }
    return accounts_ > 1 ? (a + 1) % accounts_ : a;
  }

  uint64_t accounts_, hot_;
  double hot_share_;
};

}  // namespace

std::unique_ptr<txn::TxnWorkload> make_smallbank(const OltpOptions& o) { return std::make_unique<SmallBank>(o); }

}  // namespace lw::workloads::oltp_detail

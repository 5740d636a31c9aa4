// TupleStore::latch_state and BTree::latch_state: what the check driver asks
// to tell a latch never freed (a failure) from starvation (a report).
#include <gtest/gtest.h>

#include "latchwork/sim/sim_backend.h"
#include "latchwork/structures/jasny/btree.h"
#include "latchwork/structures/jasny/tuple_store.h"

namespace lw {
namespace {

// Per scheme: where the word that guards a key sits in its key_range(), and
// a value that means "taken". (The switch's register lives on the switch:
// the CLI's switch-duplicate test covers it.)
struct Case {
  const char* scheme;
  int64_t word_offset;  // bytes from the tuple's start; -1: the last word
  uint64_t taken;
  const char* says;
};

TEST(LatchState, EachSchemeNamesItsTakenWord) {
  const Case cases[] = {
      {"pessimistic-async", 0, 1, "held exclusively"},           // header layout
      {"pessimistic-basic", 0, 4, "2 reader(s)"},
      {"write-unlatch-cas", -1, 1, "held"},                      // footer layout
      {"versioning", 0, VersionWord::make(3, true), "latched"},
      {"reversed-write-unlatch", -1, VersionWord::make(3, true), "latched"},
      {"out-of-place", 0, 0x1001, "marked"},
      {"in-place-marking", 0, 1, "marked"},
  };
  for (const Case& c : cases) {
    ClusterConfig cfg;
    SimBackend sim(cfg);
    TupleStoreOptions o;
    ASSERT_EQ(parse_tuple_scheme(c.scheme, &o), "");
    o.tuples = 3;
    o.writers = 1;
    o.records_per_writer = 1;
    std::unique_ptr<TupleStore> s;
    ASSERT_EQ(TupleStore::create(sim, o, &s), "") << c.scheme;
    for (uint64_t k = 0; k < 3; ++k) EXPECT_EQ(s->latch_state(sim, k), "") << c.scheme << " key " << k;
    const auto [lo, bytes] = s->key_range(1);
    const RemoteAddr word = c.word_offset < 0 ? lo + (bytes - 8) : lo + static_cast<uint64_t>(c.word_offset);
    const uint64_t before = sim.host_load(word);
    sim.host_store(word, c.taken);
    const std::string said = s->latch_state(sim, 1);
    EXPECT_NE(said.find("key 1's"), std::string::npos) << c.scheme << ": " << said;
    EXPECT_NE(said.find(c.says), std::string::npos) << c.scheme << ": " << said;
    EXPECT_EQ(s->latch_state(sim, 0), "") << c.scheme;
    sim.host_store(word, before);
    EXPECT_EQ(s->latch_state(sim, 1), "") << c.scheme;
  }
}

TEST(LatchState, BTreeNamesATakenNodeLatch) {
  for (const BTreeSync sync : {BTreeSync::kOptimistic, BTreeSync::kPessimistic}) {
    ClusterConfig cfg;
    SimBackend sim(cfg);
    BTreeOptions o;
    o.sync = sync;
    o.node_bytes = 256;
    o.max_nodes = 16;
    std::unique_ptr<BTree> t;
    ASSERT_EQ(BTree::create(sim, o, &t), "");
    EXPECT_EQ(t->latch_state(sim), "");
    sim.host_store(t->root(), sync == BTreeSync::kOptimistic ? VersionWord::make(2, true) : 2);
    const std::string said = t->latch_state(sim);
    EXPECT_NE(said.find("the root"), std::string::npos) << said;
    EXPECT_NE(said.find("1 node latch word(s) taken"), std::string::npos) << said;
    // A version that moved on but is unlatched is free.
    sim.host_store(t->root(), sync == BTreeSync::kOptimistic ? VersionWord::make(2, false) : 0);
    EXPECT_EQ(t->latch_state(sim), "");
  }
}

}  // namespace
}  // namespace lw

// What fixes the records a workload loads (TxnWorkload::load): two workloads
// whose identities are the same load the same records, in the same order.
// StorePlanCache then hands the second one the first one's plan without
// calling its load() (generating and comparing a DrTM+H point's TPC-C
// records was a tenth of its wall time).
//
// Exact only if the identity covers everything load() reads: the built-in
// OLTP workloads' is their name and OltpOptions, compared by a defaulted
// operator== (a field added to the options is compared without a change
// here), and their loads use no Rng. A workload without one (nullptr, the
// default) is loaded every time and compared record by record.
#pragma once

namespace lw::txn {

class LoadIdentity {
 public:
  virtual ~LoadIdentity() = default;
  virtual bool same_load(const LoadIdentity& other) const = 0;
};

}  // namespace lw::txn
